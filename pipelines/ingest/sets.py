"""An AllPrintings-shaped MTGJSON file read set by set.

AllPrintings holds every set in one file of about 400 MB. Read as one unit of work, one
ruling edited in it reads the whole file again (93% of a cold run, benchmarks/results/
scale.md). A file of at least ``SPLIT_BYTES`` whose ``data`` is an object of sets, each an
object with a ``cards`` array, is cut into its sets instead: msgspec finds each set's bytes
without building it (``msgspec.Raw``, no copy). Each set is a unit of work keyed by its code
and its own bytes, read by the MTGJSON reader as a file of that one set; the file's reading
is its sets' parts in order (``ruled_before``, ``own_part``, ``joined``), with what a file
read whole gives once given once: a card's rulings from the first printing that has any,
each card-name entry once.

Anything else is read whole, as before, which reports what is wrong with it: broken JSON,
another shape, a set code given twice, another encoding than UTF-8, a file too small to
gain by it.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..catalogue import make_finding
from ..model import Finding
from .readers._json import pointer
from .readers.mtgjson import FORMAT, SetStart, read_cards
from .reading import FileResult, take
from .source import SourceFile

SPLIT_BYTES = 32 * 2**20
"""A smaller MTGJSON file (a set file is a few MB) is one unit: reading it whole costs less
than finding its parts."""

_FIRST_KEY = re.compile(rb'\s*\{\s*("(?:[^"\\]|\\.)*")\s*:\s*')
_NEXT_KEY = re.compile(rb'\s*,\s*("(?:[^"\\]|\\.)*")\s*:\s*')
_END = re.compile(rb"\s*\}\s*")


class _Set(msgspec.Struct):
    cards: msgspec.Raw


@dataclass
class SetPart:
    """One set of a file read set by set: the file's id and path, the set's code (its key in
    ``data`` as written, and decoded), where its bytes are in the file and their digest. The
    file's bytes are not held: each set's are read when the set is (in any worker)."""

    rel: str
    path: Path
    key: bytes
    code: str
    start: int
    length: int
    digest: str
    stamp: tuple[int, ...] = ()
    """The file's size, modification and status-change times and inode when it was cut."""


@dataclass
class SetReading:
    """What one set gave (a unit's record): its reading as a file of that set, and the cards
    whose rulings were read in it (name, JSON pointer of the card), for ``ruled_before``."""

    read: FileResult
    ruled: list[tuple[str, str]] = field(default_factory=list)


def split(doc: SourceFile) -> list[SetPart] | None:
    """The sets of an AllPrintings-shaped file, in the file's order; None for a file to read
    whole (see the module's docstring)."""
    found = split_digested(doc)
    return None if found is None else found[0]


def may_split(doc: SourceFile) -> bool:
    """Whether the file is one to read and large enough to be cut into sets."""
    return not doc.not_read and doc.size >= SPLIT_BYTES


def split_digested(doc: SourceFile) -> tuple[list[SetPart], str] | None:
    """The file's sets (``split``) and a digest of the file made from their digests and the
    bytes around them: an edited file is then read and digested once, not once for the run's
    key and again set by set (0.5 s of an edited AllPrintings run). Its own kind of digest
    (``_FILE_PERSON``), never equal by chance to a digest of a file's bytes."""
    try:
        if not may_split(doc) or doc.encoding not in ("utf-8", "utf-8-sig"):
            return None
        stamp = _stamp(doc.path)
        view = memoryview(doc.path.read_bytes())
    except OSError:
        return None
    parts = _parts(doc, view, stamp)
    return None if parts is None else (parts, _file_digest(view, parts))


def _file_digest(view: memoryview, parts: list[SetPart]) -> str:
    """The digest of the bytes between the sets (each with its length) and of each set's."""
    hasher = hashlib.blake2b(digest_size=16, person=_FILE_PERSON)
    at = 0
    for part in parts:
        gap = view[at : part.start]
        hasher.update(b"g%d:" % len(gap))
        hasher.update(gap)
        hasher.update(b"s" + part.digest.encode("ascii"))
        at = part.start + part.length
    hasher.update(b"g%d:" % (len(view) - at))
    hasher.update(view[at:])
    return hasher.hexdigest()


_FILE_PERSON = b"rulings/sets"


def _parts(doc: SourceFile, view: memoryview, stamp: tuple[int, ...]) -> list[SetPart] | None:
    bom = len(codecs.BOM_UTF8) if view[:3] == codecs.BOM_UTF8 else 0
    data = [span for code, *span in _members(view, bom) or () if code == "data"]
    if len(data) != 1:
        return None
    _, start, end = data[0]
    members = _members(view[:end], start)
    if members is None or len(members) < 2 or any(code == "cards" for code, *_ in members):
        return None
    # each set is digested in a thread while this one checks the sets' shapes (hashlib lets
    # go of the interpreter's lock: the two take 0.36 and 0.18 s of AllPrintings)
    digesting = ThreadPoolExecutor(1)
    try:
        digests = digesting.map(_digest, [view[start:end] for *_, start, end in members])
        if not all(_is_set(view[start:end]) for *_, start, end in members):
            return None
        return [
            SetPart(doc.rel, doc.path, key, code, start, end - start, digest, stamp)
            for (code, key, start, end), digest in zip(members, digests, strict=True)
        ]
    finally:
        digesting.shutdown(cancel_futures=True)


def _members(view: memoryview, start: int) -> list[tuple[str, bytes, int, int]] | None:
    """The members of the JSON object that starts at ``start`` and ends ``view`` (key, key as
    written, where its value starts and ends), in the order they are written; None when it is
    no JSON object or gives a key twice (msgspec keeps a repeated key's last value, a
    streaming reader reads both)."""
    try:
        values = msgspec.json.decode(view[start:], type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    members: list[tuple[str, bytes, int, int]] = []
    position, pattern = start, _FIRST_KEY
    while found := pattern.match(view, position):
        key = bytes(found.group(1))
        code = msgspec.json.decode(key, type=str)
        body = values.get(code)
        position = found.end()
        if body is None or not _same(view, position, memoryview(body)):
            return None
        members.append((code, key, position, position + len(body)))
        position += len(body)
        pattern = _NEXT_KEY
    unique = len({code for code, *_ in members}) == len(members) == len(values)
    return members if unique and _END.fullmatch(view, position) else None


def _same(view: memoryview, start: int, body: memoryview, ends: int = 2**16) -> bool:
    """Whether ``body`` is what is written at ``start`` in ``view``, by its length and its
    first and last ``ends`` bytes. Where a key is repeated the walk skips the length of
    the last value (msgspec's) after the first key: the bytes there are another value's,
    and the walk finds the key again or stops short of the object's end; comparing every
    byte would cost as much as reading the file again."""
    if start + len(body) > len(view):
        return False
    head, tail = min(ends, len(body)), max(len(body) - ends, 0)
    return (
        view[start : start + head].tobytes() == body[:head].tobytes()
        and view[start + tail : start + len(body)].tobytes() == body[tail:].tobytes()
    )


def _is_set(body: memoryview) -> bool:
    """An object with a ``cards`` array."""
    try:
        cards = msgspec.json.decode(body, type=_Set).cards
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    return bytes(memoryview(cards)[:1]) == b"["


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
        problem = "" if _digest(body) == part.digest else _CHANGED
    if problem:
        return _unread(part, problem)
    doc = SourceFile.from_bytes(part.path, part.rel, b'{"data":{' + part.key + b":" + body + b"}}")
    ruled: dict[str, str] = {}
    result = FileResult(format=FORMAT)
    take(result, lambda: read_cards(doc, ruled), FORMAT, doc)
    result.findings.extend(doc.problems)
    return SetReading(result, list(ruled.items()))


def _stamp(path: Path) -> tuple[int, ...]:
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


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
        if _stamp(first.path) != first.stamp:
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
        if _stamp(first.path) != first.stamp or doc.problems:
            return _all_changed(task)
    except OSError:
        return _all_changed(task)
    except Exception:  # a reader bug: each set alone says what it is (PARSE007)
        return [read_set(part) for part in task.parts]
    return [readings.get(part.code) or read_set(part) for part in task.parts]


_CHANGED = "the file changed while it was read"


def _all_changed(task: FileSets) -> list[SetReading]:
    return [_unread(part, _CHANGED) for part in task.parts]


def _digest(data: bytes | memoryview) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


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


def joined(parts: list[FileResult]) -> FileResult:
    """The file's reading from its sets' parts (``own_part``) in order, each card-name entry
    once."""
    result = FileResult(format=FORMAT)
    names: set[tuple[str, str, str]] = set()
    for part in parts:
        result.rulings.extend(part.rulings)
        result.findings.extend(part.findings)
        for name in part.card_names:
            entry = (name.name, name.lang, name.card)
            if entry not in names:
                names.add(entry)
                result.card_names.append(name)
    return result
