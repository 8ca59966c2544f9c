"""Where the sets of an AllPrintings-shaped MTGJSON file are in it (``sets.py`` reads them):
each set's bytes found with msgspec without building them (``msgspec.Raw``, no copy),
checked to be an object with a ``cards`` array, and digested; and the file's digest made
from them. It reads a source file through the few attributes it needs (its path, id, size,
encoding and whether it is to be read), so that ``source.py`` can ask it for a file's sets."""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import msgspec

from .. import files
from ..file_bytes import FileBytes
from ..hashing import Hasher, hexdigest
from . import kept_cuts

SPLIT_BYTES = 32 * 2**20
"""A smaller MTGJSON file (a set file is a few MB) is one unit: reading it whole costs less
than finding its parts."""

_FIRST_KEY = re.compile(rb'\s*\{\s*("(?:[^"\\]|\\.)*")\s*:\s*')
_NEXT_KEY = re.compile(rb'\s*,\s*("(?:[^"\\]|\\.)*")\s*:\s*')
_EMPTY = re.compile(rb"\s*\{\s*\}")
_CLOSE = re.compile(rb"\s*\}")
_END = re.compile(rb"\s*")


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


class Source(Protocol):
    """What a source file (``source.SourceFile``) gives to be cut into sets."""

    path: Path
    rel: str
    not_read: str

    @property
    def size(self) -> int: ...

    @property
    def encoding(self) -> str | None: ...


def may_split(doc: Source) -> bool:
    """Whether the file is one to read and large enough to be cut into sets."""
    return not doc.not_read and doc.size >= SPLIT_BYTES


def split_digested(doc: Source) -> tuple[list[SetPart], str] | None:
    """The sets of an AllPrintings-shaped file, in the file's order (None for a file to read
    whole), and a digest of the file made from their digests and the bytes around them: an
    edited file is then read and digested once, not once for the run's key and again set by
    set (0.5 s of an edited AllPrintings run). Its own kind of digest (``_FILE_CONTEXT``),
    never equal by chance to a digest of a file's bytes.

    The sets are found from the file's last cut (``kept_cuts``): a file whose size, times
    and inode are those it had when it was cut, by then settled (``files.settled``, the
    rule the input files' digests are kept by), is not read at all; one edited where one set
    is, is read and digested but only that set decoded (``_recut``); any other is scanned
    whole (``_cut``). The cut is kept for the next."""
    try:
        if not may_split(doc) or doc.encoding not in ("utf-8", "utf-8-sig"):
            return None
        stamp = file_stamp(doc.path)
        earlier = kept_cuts.previous(doc.path)
        if earlier is not None and earlier.stamp and tuple(earlier.stamp) == stamp:
            kept_cuts.remember(doc.path, earlier)
            return _set_parts(doc, earlier.sets, stamp), earlier.digest
        view: memoryview | FileBytes = FileBytes.of(doc.path)
        found = _recut(view, earlier) if earlier is not None else None
        if found is None:  # also when the file changed while it was recut
            view = memoryview(doc.path.read_bytes())
            found = _cut(view)
        if found is None:
            return None
        parts = _set_parts(doc, found, stamp)
        digest = _file_digest(view, parts)
        gaps = _gap_digests(view, found)
    except OSError:
        return None
    settled = stamp if files.settled(*stamp[1:3]) else ()
    kept_cuts.remember(doc.path, kept_cuts.Cut(len(view), found, gaps, settled, digest))
    return parts, digest


def _set_parts(doc: Source, found: Found, stamp: tuple[int, ...]) -> list[SetPart]:
    return [
        SetPart(doc.rel, doc.path, key, code, start, length, digest, stamp)
        for key, code, start, length, digest in found
    ]


def _file_digest(view: memoryview | FileBytes, parts: list[SetPart]) -> str:
    """The digest of the bytes between the sets (each with its length) and of each set's."""
    hasher = Hasher(_FILE_CONTEXT)
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


_FILE_CONTEXT = "rulings 2026-12-06 the file digest of an AllPrintings-shaped file's sets"


Found = list[tuple[bytes, str, int, int, str]]
"""The sets of a file as ``kept_cuts.Cut`` keeps them: key as written, code, start, length,
digest."""


def _gaps(sets: Found, size: int) -> list[tuple[int, int]]:
    """Where the bytes before each set, and after the last, are."""
    ends = [0, *(start + length for _, _, start, length, _ in sets)]
    starts = [start for _, _, start, _, _ in sets] + [size]
    return list(zip(ends, starts, strict=True))


def _gap_digests(view: memoryview | FileBytes, sets: Found) -> list[str]:
    return [hexdigest(view[start:end]) for start, end in _gaps(sets, len(view))]


def _recut(view: memoryview | FileBytes, cut: kept_cuts.Cut) -> Found | None:
    """The sets of the file from its last ``cut``, when at most one set's bytes changed and
    none of the bytes around the sets did: the bytes before the changed set are the earlier
    file's where they were, those after it the earlier file's moved by the change in size,
    so the file is JSON as the earlier one was and only the changed set is decoded (and must
    still be a set). None when that is not so: the file is then cut whole. Each set is
    digested as a whole cut digests it, so this costs one digest of the file."""
    try:
        return _recut_from(view, cut)
    except OSError:  # the file ended before its size said: it is being written
        return None


def _recut_from(view: memoryview | FileBytes, cut: kept_cuts.Cut) -> Found | None:
    sets, gaps = cut.sets, cut.gaps
    if len(gaps) != len(sets) + 1 or len(sets) < 2:
        return None
    moved = len(view) - cut.size
    around = _gaps(sets, cut.size)

    def same_gap(number: int, shift: int) -> bool:
        start, end = around[number][0] + shift, around[number][1] + shift
        return start >= 0 and end <= len(view) and hexdigest(view[start:end]) == gaps[number]

    def same_set(number: int, shift: int) -> bool:
        _, _, start, length, digest = sets[number]
        start += shift
        return start + length <= len(view) and set_digest(view[start : start + length]) == digest

    for changed in range(len(sets)):
        if not same_gap(changed, 0):
            return None
        if not same_set(changed, 0):
            break
    else:
        return list(sets) if moved == 0 and same_gap(len(sets), 0) else None
    after = range(changed + 1, len(sets))
    if not same_gap(len(sets), moved):
        return None
    if not all(same_gap(number, moved) and same_set(number, moved) for number in after):
        return None
    key, code, start, length, _ = sets[changed]
    length += moved
    if length <= 0:
        return None
    body = view[start : start + length]
    if not _still_a_set(memoryview(body)):
        return None
    edited = (key, code, start, length, set_digest(body))
    return [
        *sets[:changed],
        edited,
        *(
            (key, code, start + moved, length, digest)
            for key, code, start, length, digest in sets[changed + 1 :]
        ),
    ]


def _still_a_set(body: memoryview) -> bool:
    """Whether the bytes are one JSON object, written as a whole cut finds it, that is a
    set."""
    try:
        values = msgspec.json.decode(body, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False
    walked = _walk(body, 0, values)
    return walked is not None and walked[1] == len(body) and _is_set(body, walked[0])


def _cut(view: memoryview) -> Found | None:
    """The sets of the file, from a scan of all of it."""
    bom = len(codecs.BOM_UTF8) if view[:3] == codecs.BOM_UTF8 else 0
    try:
        # the file scanned once: each set's members as written (a set that is not an object,
        # or a key besides meta and data, is no file of sets); the walk finds where they are
        found = msgspec.json.decode(view[bom:], type=_File)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    values: dict[str, Any] = {"data": found.data}
    if len(found.meta):
        values["meta"] = found.meta
    walked = _walk(view, bom, values)
    if walked is None or not _END.fullmatch(view, walked[1]):
        return None
    [members] = [inner for code, *_, inner in walked[0] if code == "data"]
    if len(members) < 2 or not all(_is_set(view, member[4]) for member in members):
        return None
    return [
        (key, code, start, end - start, set_digest(view[start:end]))
        for code, key, start, end, _ in members
    ]


class _File(msgspec.Struct, forbid_unknown_fields=True):
    """An AllPrintings-shaped file: its sets as objects whose members are kept as written."""

    data: dict[str, dict[str, msgspec.Raw]]
    meta: msgspec.Raw = msgspec.Raw()


Member = tuple[str, bytes, int, int, list]
"""A member of an object as written: its key (decoded, and as written), where its value
starts and ends, and the value's own members when it was decoded as an object's."""


def _is_set(view: memoryview, members: list[Member]) -> bool:
    """A set, by its members as written: an object with a ``cards`` array."""
    return any(code == "cards" and view[start] == ord("[") for code, _, start, *_ in members)


def _walk(view: memoryview, start: int, values: dict[str, Any]) -> tuple[list[Member], int] | None:
    """The members of the JSON object that starts at ``start`` in ``view``, whose members
    msgspec decoded as ``values`` (each a ``Raw``, or a dict of them for an object decoded a
    level deeper), in the order they are written, and where the object ends; None when the
    bytes are not those members or give a key twice (msgspec keeps a repeated key's last
    value, a streaming reader reads both)."""
    if not values:
        empty = _EMPTY.match(view, start)
        return None if empty is None else ([], empty.end())
    members: list[Member] = []
    position, pattern = start, _FIRST_KEY
    while found := pattern.match(view, position):
        key = bytes(found.group(1))
        code = msgspec.json.decode(key, type=str)
        body = values.get(code)
        position = found.end()
        inner: list = []
        if type(body) is dict:
            walked = _walk(view, position, body)
            if walked is None:
                return None
            inner, end = walked
        elif body is not None and _same(view, position, memoryview(body)):
            end = position + len(body)
        else:
            return None
        members.append((code, key, position, end, inner))
        position = end
        pattern = _NEXT_KEY
    if len({code for code, *_ in members}) != len(members) or len(members) != len(values):
        return None
    closed = _CLOSE.match(view, position)
    return None if closed is None else (members, closed.end())


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


def file_stamp(path: Path) -> tuple[int, ...]:
    """The file's size, modification and status-change times and inode."""
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def set_digest(data: bytes | memoryview) -> str:
    """The digest of a set's bytes (``SetPart.digest``)."""
    return hexdigest(data)
