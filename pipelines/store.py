"""Where the work cache keeps the results of units of work (``work.Cache``).

An entry is the bytes of one unit's result together with the key it was written for, the
kind of unit and the kind's version (``entry``), behind a digest of all of them: an entry
cut short, with a flipped byte, or copied or moved to another key is never trusted. A read
of an entry written for another key, kind or version is a miss, counted as *foreign* (the
command says so once); a damaged entry is a plain miss. A cache never fails a run: an
unreadable or unwritable store only means computing again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import msgspec

from .files import write_atomic

WORK_FOLDER = "work"
DIGEST_BYTES = 16
_ENCODER = msgspec.msgpack.Encoder()
_HEADER = msgspec.msgpack.Decoder(tuple[str, str, str, bytes])


def entry(key: str, kind: str, version: str, payload: bytes) -> bytes:
    """What the store holds for a key: a digest, then the key, kind, version and payload."""
    body = _ENCODER.encode((key, kind, version, payload))
    return hashlib.blake2b(body, digest_size=DIGEST_BYTES).digest() + body


FOREIGN = object()
"""``payload``'s answer for a whole entry written for another key, kind or version."""


def payload(data: bytes, key: str, kind: str, version: str) -> bytes | object | None:
    """The payload of an entry when it is whole and was written for ``key``, ``kind`` and
    ``version``; ``FOREIGN`` when it is whole but was written for another; None when it is
    damaged."""
    body = data[DIGEST_BYTES:]
    if len(data) <= DIGEST_BYTES or hashlib.blake2b(
        body, digest_size=DIGEST_BYTES
    ).digest() != bytes(data[:DIGEST_BYTES]):
        return None
    try:
        stored_key, stored_kind, stored_version, value = _HEADER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if (stored_key, stored_kind, stored_version) != (key, kind, version):
        return FOREIGN
    return value


class FileStore:
    """One file per entry under ``root/work/KIND/``."""

    def __init__(self, root: Path) -> None:
        self.folder = Path(root) / WORK_FOLDER

    def _path(self, kind: str, key: str) -> str:
        return f"{self.folder}{os.sep}{kind}{os.sep}{key[:2]}{os.sep}{key}.entry"

    def get_many(
        self, kind: str, version: str, keys: Sequence[str]
    ) -> tuple[dict[str, bytes], int]:
        found: dict[str, bytes] = {}
        foreign = 0
        for key in keys:
            try:
                with open(self._path(kind, key), "rb") as handle:
                    data = handle.read()
            except OSError:
                continue
            value = payload(data, key, kind, version)
            if value is FOREIGN:
                foreign += 1
            elif value is not None:
                found[key] = value
        return found, foreign

    def put_many(self, kind: str, version: str, items: Sequence[tuple[str, bytes]]) -> None:
        for key, value in items:
            # a full disk or a read-only cache folder costs the next run time, no more
            with contextlib.suppress(OSError):
                data = entry(key, kind, version, value)
                write_atomic(Path(self._path(kind, key)), data, sync=False)

    # --- for tests and the fault battery: what a `cp` inside the cache folder does -----

    def copy_entry(self, kind: str, source: str, target: str) -> None:
        path = Path(self._path(kind, target))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(Path(self._path(kind, source)).read_bytes())

    def copy_entry_to_kind(self, kind: str, other: str, key: str) -> None:
        path = Path(self._path(other, key))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(Path(self._path(kind, key)).read_bytes())


def open_store(root: Path | None) -> FileStore | None:
    """The work store in the cache folder ``root`` (None: nothing is kept)."""
    return FileStore(root) if root is not None else None
