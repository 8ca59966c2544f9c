"""Results of units of work kept between runs, keyed by everything they were computed from.

A nightly run over a whole catalogue usually differs from the last one in a few documents.
Each stage asks a ``WorkCache`` for the result of one unit of work (a file's ingest, a
document's alignment, a document's checks) under a key made of the unit's own content and
of everything else it reads (the English source, the termbase, the options); the package's
code and data are part of every key, so a new version recomputes everything. A hit is
returned as the JSON it was stored as; a miss, a damaged file or an unwritable cache folder
only means computing again (a cache never fails a run).

Entries are JSON with a digest in front (``files.write_checked``), never pickles. Each entry
carries the key it was written for, its kind of work and the package version
(``entry``); a read whose entry was written for another key (a file copied or renamed inside
the cache folder) is a miss, computed again and counted in ``Reuse.foreign``, which the
command reports once on stderr (``entry_value`` is the one place this is checked). Nothing is
removed automatically: deleting ``CACHE/work`` at any time is safe.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .files import read_checked, write_checked

PACKAGE = Path(__file__).resolve().parent
WORK_FOLDER = "work"


@functools.cache
def code_digest() -> str:
    """The package's own code and shipped data: a new version of either recomputes."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def digest(parts: Iterable[str | bytes]) -> str:
    """A digest of strings or bytes in order (each part delimited, so that ("ab", "c") and
    ("a", "bc") differ)."""
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


def entry(key: str, kind: str, value: Any) -> dict[str, Any]:
    """What a cache file holds: the value with the key, kind and version it belongs to."""
    return {"key": key, "kind": kind, "version": __version__, "value": value}


_FOREIGN = object()
"""``entry_value``'s answer for an entry written for another key, kind or version."""


def entry_value(stored: Any, key: str, kind: str) -> Any:
    """The value of a stored entry when it was written for ``key`` and ``kind`` by this
    version; None when nothing usable was stored; ``_FOREIGN`` when an entry of another key
    is there (copied or moved inside the cache folder: its value belongs elsewhere)."""
    if stored is None:
        return None
    if (
        not isinstance(stored, dict)
        or stored.get("key") != key
        or stored.get("kind") != kind
        or stored.get("version") != __version__
        or "value" not in stored
    ):
        return _FOREIGN
    return stored["value"]


@dataclass
class Reuse:
    """How many units of work of each kind a run took from the cache, and computed; and
    how many entries it found written for another key (``foreign``: recomputed)."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    foreign: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str, hit: bool) -> None:
        self.counts.setdefault(kind, [0, 0])[0 if hit else 1] += 1

    def count_foreign(self, kind: str) -> None:
        self.foreign[kind] = self.foreign.get(kind, 0) + 1

    def reused(self, kind: str) -> int:
        return self.counts.get(kind, [0, 0])[0]

    def total(self, kind: str) -> int:
        return sum(self.counts.get(kind, [0, 0]))


class WorkCache:
    """One kind of unit of work (``kind``: "ingest", "align", "check") in the cache folder.

    ``context`` is what every unit of this run's work of that kind depends on besides its
    own content (options, digests of the termbase); ``root`` None keeps nothing. Each look-up
    is counted in ``reuse``.
    """

    def __init__(
        self,
        root: Path | None,
        kind: str,
        context: Iterable[str] = (),
        reuse: Reuse | None = None,
    ) -> None:
        self.root = root
        self.folder = root / WORK_FOLDER / kind if root is not None else None
        self.kind = kind
        self.context = tuple(context)
        self.salt = digest([code_digest(), kind, *self.context])
        self.reuse = reuse if reuse is not None else Reuse()

    def sibling(self, kind: str) -> WorkCache:
        """Another kind of work of the same run, depending on the same context (counted in
        the same ``reuse``)."""
        return WorkCache(self.root, kind, self.context, self.reuse)

    @property
    def keeps(self) -> bool:
        """Whether anything is kept (a run without a cache folder recomputes all)."""
        return self.folder is not None

    def key(self, parts: Iterable[str | bytes]) -> str:
        return digest([self.salt, *parts])

    def get(self, key: str) -> Any | None:
        stored = read_checked(self._path(key)) if self.folder is not None else None
        value = entry_value(stored, key, self.kind)
        if value is _FOREIGN:
            self.reuse.count_foreign(self.kind)
            value = None
        self.reuse.count(self.kind, value is not None)
        return value

    def put(self, key: str, value: Any) -> None:
        if self.folder is None:
            return
        # a full disk or a read-only cache folder costs the next run time, no more
        with contextlib.suppress(OSError):
            write_checked(self._path(key), entry(key, self.kind, value), sync=False)

    def _path(self, key: str) -> str:
        """A string, not a Path: a run looks up tens of thousands of entries, and building
        two Paths for each was a tenth of an edited run's cache reads."""
        return f"{self._prefix}{key[:2]}{os.sep}{key}.json"

    @functools.cached_property
    def _prefix(self) -> str:
        return f"{self.folder}{os.sep}"
