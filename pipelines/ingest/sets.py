"""An AllPrintings-shaped MTGJSON file read set by set.

AllPrintings holds every set in one file of about 400 MB. Read as one unit of work, one
ruling edited in it reads the whole file again (93% of a cold run, benchmarks/results/
scale.md). A file of at least ``set_parts.SPLIT_BYTES`` whose ``data`` is an object of
sets, each an object with a ``cards`` array, is cut into its sets instead (``set_parts.py``).
Each set is a unit of work keyed by its code and its own bytes, read by the MTGJSON reader
as a file of that one set; the file's reading is its sets' parts in order (``ruled_before``,
``own_part``, ``joined``), with what a file read whole gives once given once: a card's
rulings from the first printing that has any, each card-name entry once.

Anything else is read whole, as before, which reports what is wrong with it: broken JSON,
another shape, a set code given twice, another encoding than UTF-8, a file too small to
gain by it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

from ..catalogue import make_finding
from ..model import CardName, Finding
from ..tables import Lines
from .readers._json import pointer
from .readers.mtgjson import FORMAT, SetStart, read_cards
from .reading import FileResult, card_names_of, take
from .set_parts import SetPart, file_stamp, set_digest
from .source import SourceFile


@dataclass
class SetReading:
    """What one set gave (a unit's record): its reading as a file of that set, and the cards
    whose rulings were read in it (name, JSON pointer of the card), for ``ruled_before``."""

    read: FileResult
    ruled: list[tuple[str, str]] = field(default_factory=list)


def read_set(part: SetPart) -> SetReading:
    """One set read as the MTGJSON reader reads a file of that set alone (same ids and
    pointers: ``/data/<SET>/cards/<i>``). A file changed since its sets were found is a
    PARSE010, not kept (the next run reads it again)."""
    try:
        with open(part.path, "rb") as handle:
            handle.seek(part.start)
            body = handle.read(part.length)
    except OSError as error:
        body, problem = b"", f"{type(error).__name__}: {error.strerror or error}"
    else:
        problem = "" if set_digest(body) == part.digest else _CHANGED
    if problem:
        return _unread(part, problem)
    doc = SourceFile.from_bytes(part.path, part.rel, b'{"data":{' + part.key + b":" + body + b"}}")
    ruled: dict[str, str] = {}
    result = FileResult(format=FORMAT)
    take(result, lambda: read_cards(doc, ruled), FORMAT, doc)
    result.findings.extend(doc.problems)
    return SetReading(result, list(ruled.items()))


STREAM_SHARE = 0.8
"""When the sets a run must read hold at least this share of a file's sets' bytes (its
first run), the file is read in one pass (``read_together``): set by set it takes a fifth
longer (a reader started and a copy made per set)."""


@dataclass
class FileSets:
    """Sets of one file to read in one pass over it (a task of ``plan``)."""

    parts: list[SetPart]


def plan(
    parts: list[SetPart], totals: dict[Path, int] | None = None
) -> Callable[[list[int]], list[tuple[Any, list[int]]]]:
    """The tasks that read the missing sets (``work.Job.plan``): a file most of whose sets
    are missing in one pass, else one task per set. ``totals``: the bytes of all the sets
    of each file, where ``parts`` are only some of them."""
    if totals is None:
        totals = file_totals(parts)

    def tasks(missing: list[int]) -> list[tuple[Any, list[int]]]:
        by_file: dict[Path, list[int]] = defaultdict(list)
        for index in missing:
            by_file[parts[index].path].append(index)
        found: list[tuple[Any, list[int]]] = []
        for path, indices in by_file.items():
            if sum(parts[i].length for i in indices) >= STREAM_SHARE * totals[path]:
                found.append((FileSets([parts[i] for i in indices]), indices))
            else:
                found.extend(([parts[i]], [i]) for i in indices)
        return found

    return tasks


def file_totals(parts: list[SetPart]) -> dict[Path, int]:
    """The bytes of the sets of each file."""
    totals: dict[Path, int] = defaultdict(int)
    for part in parts:
        totals[part.path] += part.length
    return dict(totals)


def read_together(task: FileSets) -> list[SetReading]:
    """The task's sets, read in one pass over their file, each as ``read_set`` reads it
    alone (``read_cards(by_set=True)``); a file changed since it was cut gives each set a
    PARSE010, and a reader that fails falls back to reading the sets one by one."""
    first = task.parts[0]
    wanted = {part.code for part in task.parts}
    try:
        if file_stamp(first.path) != first.stamp:
            return _all_changed(task)
        doc = SourceFile(first.path, first.rel)
        readings: dict[str, SetReading] = {}
        ruled: dict[str, str] = {}
        code, result = None, FileResult(format=FORMAT)
        for item in read_cards(doc, ruled, by_set=True):
            if isinstance(item, SetStart):
                if code in wanted:
                    readings[code] = SetReading(result, list(ruled.items()))
                code, result = item.code, FileResult(format=FORMAT)
            elif code in wanted:
                result.add(item)
        if code in wanted:
            readings[code] = SetReading(result, list(ruled.items()))
        if file_stamp(first.path) != first.stamp or doc.problems:
            return _all_changed(task)
    except OSError:
        return _all_changed(task)
    except Exception:  # a reader bug: each set alone says what it is (PARSE007)
        return [read_set(part) for part in task.parts]
    return [readings.get(part.code) or read_set(part) for part in task.parts]


_CHANGED = "the file changed while it was read"


def _all_changed(task: FileSets) -> list[SetReading]:
    return [_unread(part, _CHANGED) for part in task.parts]


def _unread(part: SetPart, problem: str) -> SetReading:
    return SetReading(FileResult(format=FORMAT, findings=[_unreadable(part, problem)]))


def _unreadable(part: SetPart, problem: str) -> Finding:
    return make_finding(
        "PARSE010",
        f"{part.rel} cannot be read ({problem}); its set {part.code} was skipped.",
        file=part.rel,
        evidence={"error": problem, "json_path": pointer("data", part.code)},
    )


def ruled_before(ruled: list[list[tuple[str, str]]]) -> list[frozenset[str]]:
    """For each set (given by the cards it rules: name, JSON pointer), the pointers of its
    cards whose rulings an earlier set of the file has: they are read from that set."""
    seen: set[str] = set()
    again = []
    for cards in ruled:
        again.append(frozenset(path for name, path in cards if name in seen))
        seen.update(name for name, _ in cards)
    return again


def own_part(reading: SetReading, again: frozenset[str]) -> FileResult:
    """A set's part of its file's reading: its reading less the rulings of the cards ``again``
    names (and what was reported about them)."""
    read = reading.read
    if not again:
        return read
    return FileResult(
        [item for item in read.rulings if item.doc.partition("#")[2] not in again],
        [
            item
            for item in read.findings
            if str(item.evidence.get("json_path", "")).partition("/rulings/")[0] not in again
        ],
        list(read.card_names),
        FORMAT,
    )


def joined(parts: list[tuple[FileResult, bytes | None]], names_known: bool = False) -> FileResult:
    """The file's reading from its sets' parts (``own_part``) in order, each with its card
    names as lines (empty or None: its reading has them, and they are encoded here, a part
    at a time), each card-name entry once: the first line of each. The entries of one file
    all name it as their source, so that equal entries are equal lines; an AllPrintings
    file's 291 sets give 633,800 entries, most of them a reprint's again. The records of a
    part read in this run are kept; only the lines first seen in a part found in the cache
    are decoded (once each). ``names_known``: the joined entries' lines are known
    (``units.NAMES_JOINED``): the reading is left without card names, not joined again."""
    result = FileResult(format=FORMAT)
    for part, _ in parts:
        result.rulings.extend(part.rulings)
        result.findings.extend(part.findings)
    if names_known:
        return result
    first: dict[bytes, CardName | None] = {}
    for part, lines in parts:
        split = (lines or Lines.encoded(part.card_names)).split(b"\n")[:-1]
        records = part.card_names if len(part.card_names) == len(split) else repeat(None)
        for _ in map(first.setdefault, split, records):
            pass
    missing = [line for line, record in first.items() if record is None]
    decoded = iter(card_names_of(b"\n".join(missing) + b"\n" if missing else b""))
    result.card_names = [next(decoded) if r is None else r for r in first.values()]
    return result
