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

from ..hashing import Hasher, hexdigest

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
    never equal by chance to a digest of a file's bytes."""
    try:
        if not may_split(doc) or doc.encoding not in ("utf-8", "utf-8-sig"):
            return None
        stamp = file_stamp(doc.path)
        view = memoryview(doc.path.read_bytes())
    except OSError:
        return None
    parts = _parts(doc, view, stamp)
    return None if parts is None else (parts, _file_digest(view, parts))


def _file_digest(view: memoryview, parts: list[SetPart]) -> str:
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


def _parts(doc: Source, view: memoryview, stamp: tuple[int, ...]) -> list[SetPart] | None:
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
    if len(members) < 2 or not all(_is_set(view, member) for member in members):
        return None
    return [
        SetPart(
            doc.rel, doc.path, key, code, start, end - start, set_digest(view[start:end]), stamp
        )
        for code, key, start, end, _ in members
    ]


class _File(msgspec.Struct, forbid_unknown_fields=True):
    """An AllPrintings-shaped file: its sets as objects whose members are kept as written."""

    data: dict[str, dict[str, msgspec.Raw]]
    meta: msgspec.Raw = msgspec.Raw()


Member = tuple[str, bytes, int, int, list]
"""A member of an object as written: its key (decoded, and as written), where its value
starts and ends, and the value's own members when it was decoded as an object's."""


def _is_set(view: memoryview, member: Member) -> bool:
    """A set: an object with a ``cards`` array."""
    return any(code == "cards" and view[start] == ord("[") for code, _, start, *_ in member[4])


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
