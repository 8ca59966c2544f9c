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
import gc
import hashlib
import os
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from . import fastjson
from .hashing import Hasher

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
DIGESTS_FILE = "file-digests-2.json"
"""The digests kept for the next run (format 2: BLAKE3, ``hashing``)."""


_WRITTEN: dict[tuple[str, int, int, int, int], str] = {}
"""The digests of files this run wrote into its staging folder (``wrote``), by stamp."""


def _stamp(path: Path | str) -> tuple[str, int, int, int, int]:
    status = os.stat(path)
    return (
        os.fspath(path),
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
        status.st_ino,
    )


def file_digest(path: Path | str, digest_of: Callable[[], str] | None = None) -> str:
    """A digest of a file's bytes (OSError when it cannot be read), remembered while the
    file's size, modification and status-change times and inode stay the same: a run's key
    and its ingest both need the digest of every input file, and with ``digests_kept`` the
    next run does not read an unchanged file at all. (The status-change time cannot be set
    back: a file written again and given its old modification time is read again.)
    ``digest_of`` makes the digest when it is not remembered, in place of a digest of the
    whole file (an AllPrintings-shaped file's: of its sets' digests, ``ingest/sets.py``)."""
    key = _stamp(path)
    found = _DIGESTS.get(key) or _WRITTEN.get(key)
    if found is None:
        found = digest_of() if digest_of is not None else bytes_digest(path)
        if settled(key[2], key[3]):
            _DIGESTS[key] = found
    if _USED is not None and key in _DIGESTS:
        _USED.add(key)
    return found


def settled(mtime_ns: int, ctime_ns: int) -> bool:
    """Whether a file's last change, by its modification and status-change times, is more
    than ``SETTLED_NS`` old: a later change gives it a later stamp."""
    return time.time_ns() - max(mtime_ns, ctime_ns) > SETTLED_NS


def bytes_digest(path: Path | str) -> str:
    """The digest of a file's bytes, read a megabyte at a time."""
    digest = Hasher()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def wrote(path: Path | str, digest: str) -> None:
    """Remember ``digest`` (as ``file_digest`` makes it) for the bytes this process has just
    written to ``path`` (a report file; in a run, into its staging folder, which no other
    process writes to): ``file_digest`` gives it without reading the file while the file
    keeps its stamp, and ``moved`` keeps it for the next run. The report files' digests were
    otherwise read again twice, by the run that wrote them and by the next one (9 s of CPU
    of an edited run at a million units)."""
    with contextlib.suppress(OSError):
        _WRITTEN[_stamp(path)] = digest


def written_under(folder: Path | str | None = None) -> list[list[Any]]:
    """What ``wrote`` remembers of the files in ``folder`` (None: of every file), as rows of
    ``digests_kept``'s file (a forked writer hands them to the process that commits)."""
    prefix = "" if folder is None else os.path.join(os.fspath(folder), "")
    return [[*key, digest] for key, digest in _WRITTEN.items() if key[0].startswith(prefix)]


def add_written(rows: list[list[Any]]) -> None:
    """Remember rows of ``written_under`` (from another process)."""
    for row in rows:
        if _digest_row(row):
            _WRITTEN[tuple(row[:5])] = row[5]


def moved(staging: Path | str, out: Path | str) -> None:
    """After ``staging`` became ``out`` whole (its files keep their stamps), the digests of
    the files this run wrote there become those of their new paths, and are kept for the
    next run (inside ``digests_kept``) when their last change is more than ``SETTLED_NS``
    old: whatever changes a file later gives it a later stamp (the same rule as for a file
    read). What ``wrote`` remembered of ``staging`` is forgotten (``forget``)."""
    now = time.time_ns()
    for path, size, mtime, ctime, inode, digest in written_under(staging):
        target = os.path.join(os.fspath(out), os.path.relpath(path, os.fspath(staging)))
        try:
            key = _stamp(target)
        except OSError:
            continue
        if key[1:] == (size, mtime, ctime, inode) and now - max(mtime, ctime) > SETTLED_NS:
            _DIGESTS[key] = digest
            if _USED is not None:
                _USED.add(key)
    forget(staging)


def forget(folder: Path | str) -> None:
    """Forget what ``wrote`` remembered of the files in ``folder`` (a staging folder gone)."""
    for row in written_under(folder):
        _WRITTEN.pop(tuple(row[:5]), None)


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
        # A run's records are back in the collector's reach when it ends (``heap``): a row
        # per input file made while it is on set off a full collection that walked them all
        # (5.9 s at the end of an edited million-unit run), for a process about to exit.
        collecting = gc.isenabled()
        gc.disable()
        try:
            rows = sorted([*key, _DIGESTS[key]] for key in used if key in _DIGESTS)
            with contextlib.suppress(OSError):
                write_checked(path, rows, sync=False)
        finally:
            if collecting:
                gc.enable()


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
    return write_checked_bytes(path, fastjson.dumps(value), sync=sync)


def read_checked(path: Path | str) -> Any | None:
    """The value of a cache file, or None when it is missing, cut short or damaged."""
    body = read_checked_bytes(path)
    if body is None:
        return None
    try:
        return fastjson.loads(body)
    except (ValueError, RecursionError):
        return None


def write_checked_bytes(path: Path | str, body: bytes, *, sync: bool = True) -> Path:
    """A cache file of any bytes (``write_checked``'s, or a binary encoding's), the SHA-256
    of them in front, written atomically."""
    digest = hashlib.sha256(body).hexdigest().encode("ascii")
    return write_atomic(path, CHECKED_MAGIC + digest + b"\n" + body, sync=sync)


def read_checked_bytes(path: Path | str) -> bytes | None:
    """The bytes ``write_checked_bytes`` kept, or None when the file is missing, cut short
    or damaged."""
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
    return body
