"""Stage 4: the tables -> report files, one writer per format.

A writer is a function registered with ``@writer(name, filename=...)`` that takes the run's
tables and the output folder and writes one file. ``rulings report --format`` chooses them
by name; all of them run by default. Writers must be deterministic: the same tables give
byte-identical files (no timestamps, sorted output).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ..registry import Registry
from ..tables import RunTables

WriteFunction = Callable[[RunTables, Path], Path]

WRITERS: Registry[WriteFunction] = Registry("report writer", package="pipelines.report.writers")


def writer(name: str, *, filename: str) -> Callable[[WriteFunction], WriteFunction]:
    """Register a writer; its docstring is the help ``rulings report --help`` shows."""
    return WRITERS.register(name, filename=filename)


def write_reports(run: RunTables, out: Path, formats: Iterable[str] = ()) -> list[Path]:
    """Write the chosen formats (all when none are named); returns the files written."""
    names = list(formats) or WRITERS.names()
    return [WRITERS[name].target(run, out) for name in names]
