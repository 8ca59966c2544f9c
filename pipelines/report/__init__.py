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
from . import processes as two_processes

WriteFunction = Callable[[RunTables, Path], Path]
T = TypeVar("T")

WRITERS: Registry[WriteFunction] = Registry("report writer", package="pipelines.report.writers")


TABLES = ("rulings", "alignment", "findings", "suppressed", "inputs")
"""The run's tables a writer can read (``RunTables``), each written to a stage file."""


def writer(
    name: str, *, filename: str, cost: float = 1, reads: tuple[str, ...] = TABLES
) -> Callable[[WriteFunction], WriteFunction]:
    """Register a writer; its docstring is the help ``rulings report --help`` shows.
    ``cost`` is its time relative to the others (tenths of a second on the 100k corpus),
    by which the writers are shared between two processes. ``reads``: the tables it reads
    (besides the run's options and the termbase): its file is carried over from the
    previous run while they are the same (``carried.py``)."""
    if unknown := set(reads) - set(TABLES):
        raise ValueError(f"writer {name}: no table {', '.join(sorted(unknown))}")
    return WRITERS.register(name, filename=filename, cost=cost, reads=tuple(reads))


def write_reports(
    run: RunTables,
    out: Path,
    formats: Iterable[str] = (),
    *,
    processes: int = 1,
    last_seconds: dict[str, float] | None = None,
    seconds: dict[str, float] | None = None,
) -> list[Path]:
    """Write the chosen formats (all when none are named); returns the files written.
    With ``processes`` 2, half of the writers run in a forked process when the machine
    allows it (``processes.py``): the same files, sooner, shared by ``last_seconds`` (each
    writer's in the last run: ``balance.py``) when given. Each writer's seconds go into
    ``seconds``."""
    names = list(formats) or WRITERS.names()
    took: dict[str, float] = {} if seconds is None else seconds
    token = _SHARED.set((run, {}))
    try:
        with paused_gc():
            if processes < 2 or len(names) < 2 or not two_processes.usable():
                write = two_processes.timed(lambda name: WRITERS[name].target(run, out), took)
                return [write(name) for name in names]
            for compute in SHARED_BEFORE_FORK:
                shared(run, compute)  # once, in the parent: the child reads them too
            _, child = two_processes.balanced_halves(
                [WRITERS[name] for name in names], last_seconds
            )
            return two_processes.write_in_two(
                names, child, lambda name: WRITERS[name].target(run, out), took
            )
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


SHARED_BEFORE_FORK: list[Callable[[RunTables], Any]] = []
"""The shared values computed before the writers are split between two processes, so that
each is computed once, not once in each."""


def computed_before_fork(compute: Callable[[RunTables], T]) -> Callable[[RunTables], T]:
    """Mark a ``shared`` computation that several writers read (decorator)."""
    SHARED_BEFORE_FORK.append(compute)
    return compute


@computed_before_fork
def _by_id(run: RunTables) -> dict[str, Any]:
    return run.by_id
