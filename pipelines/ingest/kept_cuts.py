"""Where the sets of each file of sets were when it was last cut (``Cut``), kept for
the next cut of the same file: in this process, and between runs in the cache folder
(``cuts_kept``, one small file). An edited AllPrintings-shaped file is then found set by set
from its earlier cut, its bytes compared with the earlier ones' digests, instead of being
decoded whole again (``set_parts._recut``). A cut kept is only a guess at where the sets are:
nothing is taken from it that the file's bytes do not prove, so a stale, foreign or damaged
one costs a full cut, never a wrong one."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ..files import read_checked_bytes, write_checked_bytes

CUTS_FILE = "set-cuts-1.msgpack"
"""The cuts kept for the next run, in the cache folder (MessagePack, checked)."""
CUTS_KEPT = 8
"""The most files whose cuts are kept: those the run cut, then those the last runs kept."""


class Cut(msgspec.Struct, array_like=True, frozen=True):
    """Where a file's sets were: the file's size; each set's key as written, its code, start,
    length and digest (``set_parts.set_digest``); the digest of the bytes before each set
    and after the last (one more than the sets); the file's size, modification and
    status-change times and inode when it was cut, if they were settled then (else empty);
    and the file's digest (``set_parts.split_digested``)."""

    size: int
    sets: list[tuple[bytes, str, int, int, str]]
    gaps: list[str]
    stamp: tuple[int, ...] = ()
    digest: str = ""


_KEPT: dict[str, Cut] = {}
"""The cuts known to this process, by the file's absolute path."""
_USED: list[str] | None = None
"""The files cut in this run, in order, while ``cuts_kept`` keeps them."""
_DECODE = msgspec.msgpack.Decoder(dict[str, Cut]).decode
_ENCODE = msgspec.msgpack.Encoder().encode


def _name(path: Path | str) -> str:
    return os.path.abspath(os.fspath(path))


def previous(path: Path | str) -> Cut | None:
    """The last cut known of the file at ``path``."""
    return _KEPT.get(_name(path))


def remember(path: Path | str, cut: Cut) -> None:
    """``cut`` is where the sets of the file at ``path`` are now."""
    name = _name(path)
    _KEPT[name] = cut
    if _USED is not None and name not in _USED:
        _USED.append(name)


@contextlib.contextmanager
def cuts_kept(cache_dir: Path) -> Iterator[None]:
    """Inside: the cuts the last runs kept in ``cache_dir`` are known (a file damaged or of
    another shape is left unread); after: those this run made are kept for the next, with
    the others known up to ``CUTS_KEPT`` files. Concurrent runs each write the whole file
    (atomically): the last one's are kept, and the others' files are cut whole next time."""
    global _USED
    if _USED is not None:  # inside a run that keeps them already
        yield
        return
    path = Path(cache_dir) / CUTS_FILE
    body = read_checked_bytes(path)
    earlier: dict[str, Cut] = {}
    if body is not None:
        with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
            earlier = _DECODE(body)
    for name, cut in earlier.items():
        _KEPT.setdefault(name, cut)
    _USED = used = []
    try:
        yield
    finally:
        _USED = None
        if used:
            names = list(dict.fromkeys([*used, *earlier]))[:CUTS_KEPT]
            kept = {name: _KEPT[name] for name in names if name in _KEPT}
            with contextlib.suppress(OSError):
                write_checked_bytes(path, _ENCODE(kept), sync=False)


def kept_count(cache_dir: Path) -> int:
    """How many files' cuts ``cache_dir`` keeps (``rulings cache info``)."""
    body = read_checked_bytes(Path(cache_dir) / CUTS_FILE)
    try:
        return len(_DECODE(body)) if body is not None else 0
    except (msgspec.DecodeError, msgspec.ValidationError):
        return 0


def clear(cache_dir: Path) -> None:
    """Forget the cuts kept in ``cache_dir`` (``rulings cache clear``)."""
    (Path(cache_dir) / CUTS_FILE).unlink(missing_ok=True)
