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
from collections.abc import Callable, Iterator
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


_DIGESTS: dict[tuple[str, int, int, int, int], str] = {}
SETTLED_NS = 2_000_000_000
"""A file's digest is remembered only once its last change is this old: the clock that
stamps a change ticks in milliseconds, so a file changed twice within a tick keeps its
time (git's "racy clean" files)."""
_USED: set[tuple[str, int, int, int, int]] | None = None
"""The keys of the digests this run used, while ``digests_kept`` records them."""
DIGESTS_FILE = "file-digests.json"


def file_digest(path: Path | str) -> str:
    """A digest of a file's bytes (OSError when it cannot be read), remembered while the
    file's size, modification and status-change times and inode stay the same: a run's key
    and its ingest both need the digest of every input file, and with ``digests_kept`` the
    next run does not read an unchanged file at all. (The status-change time cannot be set
    back: a file written again and given its old modification time is read again.)"""
    status = os.stat(path)
    key = (
        os.fspath(path),
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
        status.st_ino,
    )
    found = _DIGESTS.get(key)
    if found is None:
        digest = hashlib.blake2b(digest_size=16)
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        found = digest.hexdigest()
        if time.time_ns() - max(status.st_mtime_ns, status.st_ctime_ns) > SETTLED_NS:
            _DIGESTS[key] = found
    if _USED is not None and key in _DIGESTS:
        _USED.add(key)
    return found


@contextlib.contextmanager
def digests_kept(cache_dir: Path) -> Iterator[None]:
    """Inside: ``file_digest`` knows the digests the last run kept in ``cache_dir`` (a file
    damaged or of another shape is left unread); after: those this run used are kept for
    the next (a file that has gone is forgotten). Concurrent runs each write the whole file
    (atomically): the last one's digests are kept."""
    global _USED
    if _USED is not None:  # inside a run that keeps them already
        yield
        return
    path = Path(cache_dir) / DIGESTS_FILE
    stored = read_checked(path)
    for row in stored if isinstance(stored, list) else ():
        if _digest_row(row):
            _DIGESTS.setdefault(tuple(row[:5]), row[5])
    _USED = used = set()
    try:
        yield
    finally:
        _USED = None
        rows = sorted([*key, _DIGESTS[key]] for key in used if key in _DIGESTS)
        with contextlib.suppress(OSError):
            write_checked(path, rows, sync=False)


def _digest_row(row: Any) -> bool:
    """A kept digest's row: path, size, modification time, status-change time, inode,
    digest."""
    return (
        isinstance(row, list)
        and len(row) == 6
        and isinstance(row[0], str)
        and all(isinstance(value, int) for value in row[1:5])
        and isinstance(row[5], str)
    )


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
