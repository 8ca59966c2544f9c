"""Each report writer's time in the last run, kept in the cache folder: what the writers are
shared between two processes by (``processes.balanced_halves``).

A writer's declared ``cost`` is its time in a cold run. In the nightly run after one edit
most rows are copied from the previous files, and what is left is each writer's fixed work:
on the 100k corpus the forked half (the page, the XLIFF) wrote for 5.4 s while the other
was done in 2.6 s. So a run shares them by the seconds each writer took the last time it
ran with this cache folder, when those are known for every writer it writes, and records
its own for the next. Which process writes a file changes no byte of it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from ..files import read_checked, write_checked

SECONDS_FILE = "report-seconds.json"


def last_seconds(cache_dir: Path | None) -> dict[str, float]:
    """The seconds each writer took in the last run that wrote it (nothing without a cache
    folder, or when its file is missing or damaged)."""
    found = read_checked(cache_dir / SECONDS_FILE) if cache_dir is not None else None
    if not isinstance(found, dict):
        return {}
    return {
        name: float(value)
        for name, value in found.items()
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    }


def keep_seconds(cache_dir: Path | None, seconds: Mapping[str, float]) -> None:
    """Record the writers' seconds of this run over those of earlier ones (a cache folder
    that cannot be written is left as it is)."""
    if cache_dir is None or not seconds:
        return
    merged = {**last_seconds(cache_dir), **{name: round(s, 3) for name, s in seconds.items()}}
    with contextlib.suppress(OSError):
        write_checked(cache_dir / SECONDS_FILE, dict(sorted(merged.items())), sync=False)
