"""Writing files so that a reader never sees half of one, and cache files that prove they are
whole.

``write_atomic`` writes to a temporary file beside the target, flushes it to disk and renames
it into place: a crash leaves the old file or the new one, never a mix. ``write_checked`` and
``read_checked`` add a digest of the content to a cache file, so that a file cut short or
with flipped bytes is detected on reading (and recomputed by its caller) instead of trusted.
Cache files hold JSON, never pickles: unpickling a file from a shared folder runs code.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from . import fastjson

CHECKED_MAGIC = b"rulings-checked-v1 "


def temporary_path(path: Path) -> Path:
    """A fresh hidden name beside ``path`` for a file on its way to becoming ``path``."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def write_atomic(
    path: Path, write: Callable[[IO[bytes]], None] | bytes, *, sync: bool = True
) -> Path:
    """Write ``path`` in one step (``write`` gets a binary file, or is the bytes). ``sync``
    False skips flushing to disk: for files that prove they are whole when read (a cache
    entry), the rename alone is enough."""
    path = Path(path)
    temporary = temporary_path(path)
    try:
        with _created(temporary) as handle:
            if isinstance(write, bytes | bytearray):
                handle.write(write)
            else:
                write(handle)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        raise
    return path


def _created(path: Path) -> IO[bytes]:
    """A new file, its folder made only when it is missing: a cache writes thousands of
    files into folders that mostly exist (a quarter of a cache entry's writing time went
    to making sure they did, and to removing a temporary file already renamed)."""
    try:
        return open(path, "wb")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "wb")


_DIGESTS: dict[tuple[str, int, int, int], str] = {}
SETTLED_NS = 2_000_000_000
"""A file's digest is remembered only once its last change is this old: the clock that
stamps a change ticks in milliseconds, so a file changed twice within a tick keeps its
time (git's "racy clean" files)."""


def file_digest(path: Path | str) -> str:
    """A digest of a file's bytes (OSError when it cannot be read), remembered for this
    process while the file's size, modification time and inode stay the same: a run's key
    and its ingest both need the digest of every input file."""
    status = os.stat(path)
    key = (os.fspath(path), status.st_size, status.st_mtime_ns, status.st_ino)
    found = _DIGESTS.get(key)
    if found is None:
        digest = hashlib.blake2b(digest_size=16)
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        found = digest.hexdigest()
        if time.time_ns() - status.st_mtime_ns > SETTLED_NS:
            _DIGESTS[key] = found
    return found


def write_text_atomic(path: Path, text: str) -> Path:
    return write_atomic(path, text.encode("utf-8"))


def write_checked(path: Path | str, value: Any, *, sync: bool = True) -> Path:
    """A cache file: JSON with the SHA-256 of its bytes in front, written atomically."""
    body = fastjson.dumps(value)
    digest = hashlib.sha256(body).hexdigest().encode("ascii")
    return write_atomic(path, CHECKED_MAGIC + digest + b"\n" + body, sync=sync)


def read_checked(path: Path | str) -> Any | None:
    """The value of a cache file, or None when it is missing, cut short or damaged."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    header, _, body = data.partition(b"\n")
    if not header.startswith(CHECKED_MAGIC):
        return None
    expected = header[len(CHECKED_MAGIC) :].decode("ascii", "replace")
    if hashlib.sha256(body).hexdigest() != expected:
        return None
    try:
        return fastjson.loads(body)
    except (ValueError, RecursionError):
        return None
