"""The report writers on two cores: half of them in a forked copy of this process.

The writers are independent (each reads the run's tables and writes its own file) and
pure Python, so threads would take turns; a fork shares the tables without copying or
pickling them. Measured on the 100k corpus: the report stage in 7.0-8.7 s instead of 10.0 s
(benchmarks/results/benchmarks.md). The child's pages are the parent's until either
touches them; what it allocates and touches costs about a quarter of the process again
(an edited run's tree: 1,082 MB against 849 MB), so it is forked only when the machine has
at least the whole process to spare, and only while the process is small enough for the
copy to pay (``MAX_RESIDENT``).

Only on Linux (a fork is not safe on macOS, and Windows has none), and only from the
thread that runs the command: elsewhere the writers run one after the other, which writes
the same bytes.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import files
from ..registry import Entry

ROOM_FACTOR = 1.0
"""Fork only when the memory the system has available is at least this many times the
process's resident size (the child could at worst copy all of it)."""
MAX_RESIDENT = 2**30
"""Fork only while the process's resident size is at most this. The child copies almost every
page whose objects it reads (reading an object writes its reference count), so the process
tree grows to about twice the process, while the time saved is a fifth to a third of the
report stage. On the 1,000,000-unit corpus, with the tables read at 1.4 GB, the report
stage forked took 142.6 s and 4,387 MB (proportional set sizes of both processes), and in
one process 179.1 s and 2,830 MB: the limit keeps such a run within the 4 GB it is allowed.
A 100k run (about 0.3 GB for ``rulings report``, 0.85 GB inside an edited ``rulings run``)
still forks (benchmarks/results/scale.md, part million)."""


class WriterError(RuntimeError):
    """A writer failed in the forked process (its traceback is in the message)."""


def usable() -> bool:
    """Whether this process may fork a writer process now."""
    return (
        sys.platform == "linux"
        and hasattr(os, "fork")
        and threading.current_thread() is threading.main_thread()
        and _room_for_a_copy()
    )


def balanced_halves(
    entries: Sequence[Entry], seconds: Mapping[str, float] | None = None
) -> tuple[list[str], list[str]]:
    """The writers' names in two halves of about equal time, heaviest first: by ``seconds``
    (each writer's in the last run: ``balance.py``) when it has every writer's, else by
    ``cost`` (each writer's relative time in a cold run, in its registration; 1 when it
    names none)."""
    known = seconds if seconds and all(entry.name in seconds for entry in entries) else None

    def cost(entry: Entry) -> float:
        return known[entry.name] if known is not None else entry.meta.get("cost", 1)

    halves: tuple[list[str], list[str]] = ([], [])
    loads = [0.0, 0.0]
    for entry in sorted(entries, key=lambda entry: -cost(entry)):
        lighter = 0 if loads[0] <= loads[1] else 1
        halves[lighter].append(entry.name)
        loads[lighter] += cost(entry)
    return halves


def write_in_two(
    names: Sequence[str],
    child_names: Sequence[str],
    write: Callable[[str], Path],
    seconds: dict[str, float] | None = None,
) -> list[Path]:
    """``write(name)`` for every name, those in ``child_names`` in a forked process; the
    paths in the order of ``names``; each writer's seconds into ``seconds``. A failure of
    the child is raised here: an OSError as the OSError it was (the command reports it in
    one line), anything else as WriterError."""
    took: dict[str, float] = {}
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child ends with os._exit, coverage cannot see it
        os.close(reader)
        _child(child_names, write, writer)
    os.close(writer)
    done = False
    try:
        own = timed(write, took)
        written = {name: own(name) for name in names if name not in child_names}
        report = _read_all(reader)
        _, status = os.waitpid(pid, 0)
        done = True
    finally:
        os.close(reader)
        if not done:
            _stop(pid)
    outcome = json.loads(report) if report else {"error": f"the writer process ended ({status})"}
    if "error" in outcome:
        raise _as_exception(outcome)
    written.update({name: Path(path) for name, path in outcome["written"].items()})
    files.add_written(outcome.get("digests", []))
    if seconds is not None:
        seconds.update(took)
        seconds.update(outcome.get("seconds", {}))
    return [written[name] for name in names]


def timed(write: Callable[[str], Path], seconds: dict[str, float]) -> Callable[[str], Path]:
    """``write``, each call's seconds put in ``seconds`` by the writer's name."""

    def timed_write(name: str) -> Path:
        start = time.perf_counter()
        path = write(name)
        seconds[name] = time.perf_counter() - start
        return path

    return timed_write


def _child(names: Sequence[str], write: Callable[[str], Path], pipe: int) -> None:
    """Write, tell the parent how it went, and end without running the parent's clean-ups
    (its atexit handlers, its buffered output, its staging folder are the parent's)."""
    code = 0
    try:
        seconds: dict[str, float] = {}
        written = {name: str(timed(write, seconds)(name)) for name in names}
        outcome: dict[str, Any] = {
            "written": written,
            "seconds": seconds,
            "digests": files.written_under(),
        }
    except BaseException as problem:  # everything goes back to the parent, even Ctrl-C
        code = 1
        outcome = {
            "error": "".join(traceback.format_exception_only(problem)).strip(),
            "traceback": "".join(traceback.format_exception(problem)),
            "oserror": [problem.errno, problem.strerror, str(problem.filename)]
            if isinstance(problem, OSError) and problem.filename
            else None,
        }
    try:
        os.write(pipe, json.dumps(outcome).encode("utf-8"))
    finally:
        os._exit(code)


def _as_exception(outcome: dict[str, Any]) -> Exception:
    if outcome.get("oserror"):
        errno, strerror, filename = outcome["oserror"]
        return OSError(errno, strerror, filename)
    return WriterError(outcome.get("traceback") or outcome["error"])


def _read_all(pipe: int) -> str:
    chunks = []
    while chunk := os.read(pipe, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8")


def _stop(pid: int) -> None:
    """End the child when the parent stops early (Ctrl-C, a failing writer of its own):
    its files are thrown away with the staging folder, and a child that already had a
    Ctrl-C ignores any further stop signal but this one."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _room_for_a_copy() -> bool:
    """Whether this process's resident size is at most ``MAX_RESIDENT`` and the memory
    available at least ``ROOM_FACTOR`` times it (Linux's /proc; False when it cannot be
    read)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
        available = int(fields["MemAvailable"].split()[0]) * 1024
        with open("/proc/self/statm", encoding="ascii") as handle:
            resident = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, KeyError, ValueError, IndexError):
        return False
    return resident <= MAX_RESIDENT and available >= ROOM_FACTOR * resident
