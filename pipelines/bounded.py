"""Memos bounded in size: results per text that are computed again rather than kept for
every text of a large corpus.

The checks (and the aligner) read the same text many times: several checks compare a
translation with its source, and an English ruling is the source of a translation in every
language. So results per text are remembered. Kept for every text, they grow with the
corpus (about 9.5 KB per distinct text: 3.5 GB at 1,000,000 units). Bounded, the texts read
again soon (by the other checks of a task, the English of the pairs being checked) are
still remembered, and a text read again after long is computed again. The results are the
same either way.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

TEXTS_REMEMBERED = 1 << 13
"""How many texts (or pairs of texts) each memo keeps at least; the ``lru_cache`` of a
function of one text keeps exactly that many. Measured on the check stage
(``benchmarks/scale.py``): on 100k units 570 MB at its peak against 819 MB without bound, for
17% more CPU time (the documents are checked in batches, so a text is mostly read again
while it is remembered); on a million units 3.8 GB against 6.6 GB."""

_ABSENT = object()


class BoundedMemo:
    """A memo of the latest used entries, between ``size`` and twice ``size`` of them.

    New entries go to a young generation. When it holds ``size`` entries it becomes the old
    generation and the previous old one is dropped. An old entry read again moves back to
    the young generation. This keeps what a true LRU keeps, give or take a factor of two,
    without reordering anything on a hit.
    """

    __slots__ = ("_old", "_young", "size")

    def __init__(self, size: int = TEXTS_REMEMBERED) -> None:
        if size < 1:
            raise ValueError("a memo keeps at least one entry")
        self.size = size
        self._young: dict[Hashable, Any] = {}
        self._old: dict[Hashable, Any] = {}

    def get(self, key: Hashable, default: Any = None) -> Any:
        value = self._young.get(key, _ABSENT)
        if value is _ABSENT:
            value = self._old.pop(key, _ABSENT)
            if value is _ABSENT:
                return default
            self[key] = value
        return value

    def __setitem__(self, key: Hashable, value: Any) -> None:
        young = self._young
        young[key] = value
        if len(young) >= self.size:
            self._old = young
            self._young = {}

    def __len__(self) -> int:
        return len(self._young) + len(self._old)

    def clear(self) -> None:
        self._young = {}
        self._old = {}
