"""Where the sets of an AllPrintings-shaped MTGJSON file are in it (``sets.py`` reads them):
each set's bytes found with msgspec without building them (``msgspec.Raw``, no copy),
checked to be an object with a ``cards`` array, and digested; and the file's digest made
from them. It reads a source file through the few attributes it needs (its path, id, size,
encoding and whether it is to be read), so that ``source.py`` can ask it for a file's sets."""

from __future__ import annotations

import codecs
import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import msgspec

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
    whole), and a digest of the file made from their digests and the
    bytes around them: an edited file is then read and digested once, not once for the run's
    key and again set by set (0.5 s of an edited AllPrintings run). Its own kind of digest
    (``_FILE_PERSON``), never equal by chance to a digest of a file's bytes."""
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


def _parts(doc: Source, view: memoryview, stamp: tuple[int, ...]) -> list[SetPart] | None:
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
        digests = digesting.map(set_digest, [view[start:end] for *_, start, end in members])
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


def file_stamp(path: Path) -> tuple[int, ...]:
    """The file's size, modification and status-change times and inode."""
    status = os.stat(path)
    return (status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino)


def set_digest(data: bytes | memoryview) -> str:
    """The digest of a set's bytes (``SetPart.digest``)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()
