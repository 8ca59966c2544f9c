"""Stage 4: the tables -> report files, one writer per format.

A writer is a function registered with ``@writer(name, filename=...)`` that takes the run's
tables and the output folder and writes one file. ``rulings report --format`` chooses them
by name; all of them run by default. Writers must be deterministic: the same tables give
byte-identical files (no timestamps, sorted output).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from ..registry import Registry
from ..tables import RunTables, paused_gc

WriteFunction = Callable[[RunTables, Path], Path]
T = TypeVar("T")

WRITERS: Registry[WriteFunction] = Registry("report writer", package="pipelines.report.writers")


def writer(name: str, *, filename: str) -> Callable[[WriteFunction], WriteFunction]:
    """Register a writer; its docstring is the help ``rulings report --help`` shows."""
    return WRITERS.register(name, filename=filename)


def write_reports(run: RunTables, out: Path, formats: Iterable[str] = ()) -> list[Path]:
    """Write the chosen formats (all when none are named); returns the files written."""
    names = list(formats) or WRITERS.names()
    token = _SHARED.set((run, {}))
    try:
        with paused_gc():
            return [WRITERS[name].target(run, out) for name in names]
    finally:
        _SHARED.reset(token)


_SHARED: ContextVar[tuple[RunTables, dict[Callable[..., Any], Any]] | None] = ContextVar(
    "report_shared", default=None
)


def shared(run: RunTables, compute: Callable[[RunTables], T]) -> T:
    """``compute(run)``, computed once for all the writers of one ``write_reports`` call
    (the review rows, the update list, the index of rulings by id: several formats show
    them). Outside such a call, or for other tables, it is computed each time. The value
    is shared: a writer must not change it."""
    current = _SHARED.get()
    if current is None or current[0] is not run:
        return compute(run)
    values = current[1]
    if compute not in values:
        values[compute] = compute(run)
    return values[compute]


def rulings_by_id(run: RunTables) -> dict[str, Any]:
    """``run.by_id``, built once per report."""
    return shared(run, _by_id)


def _by_id(run: RunTables) -> dict[str, Any]:
    return run.by_id
