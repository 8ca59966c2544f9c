"""A long document pair's similarity scan, updated from the one the last run kept.

``BlockScores`` passes once over every similarity of a long document pair to find what needs
a whole row or column: each unit's neighbourhood (the mean of its NEIGHBOURS highest
similarities) and its nearest unit. Ten copies of the Comprehensive Rules (40,000 units a
side) take most of a minute, and one edited line changes almost none of it.

So the pass keeps, for every row and column, the start of its similarities in order (highest
first, the first of equals first: ``Tops``, at most WIDTH of them), with the digest of every
unit's vector (``Scan``, in the work store under the names of the two documents:
``KEPT_SCAN``). The next scan of the same two documents matches the units by their vectors'
digests and computes only

- the rows and columns of units whose vectors are new (an edited line), in full;
- those new units' similarities with every kept row and column, merged into the start of
  its order where they come before its last kept entry;
- in full again, each kept row or column whose kept start became shorter than NEIGHBOURS
  (units it listed are gone: the edited line was among its nearest).

A kept start stays the start of its row's order when units are removed (the rest closes
up) and new ones come (they are compared with its last kept entry), since the units kept
keep their order (``matched``: a unit that moved is a new unit where it went); and ties
cost nothing: of equal similarities the first units are kept. The numbers are a full
pass's bit for bit: similarities are products that do not depend on the block they are
computed in (``context.products``), a neighbourhood is the float32 sum of its values from
the highest down (``margin.sorted_selection``: without it, no scan is kept) and a nearest
unit is the first of equals. ``tests/test_kept_scan.py`` compares the two on edited
documents. Kept only where the alignment runs in this process (the local engine): a Dask
worker passes over the whole matrix.
"""

from __future__ import annotations

import contextlib
import hashlib
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

import msgspec
import numpy as np

from ..work import Cache, kind

WIDTH = 8
"""Units kept per row and column: those at or above its NEIGHBOURS-th highest similarity
(ties included, up to this many)."""
MOST_NEW = 0.25
"""A scan with more new rows and columns than this share is passed over whole again."""


class Tops(msgspec.Struct):
    """For each row (or column) of a scan, the start of its similarities in order: the values
    (float32, WIDTH a row, highest first and the first of equals first, -inf where empty)
    and the columns they are in (int32, -1 where empty)."""

    values: bytes
    indices: bytes


class Scan(msgspec.Struct):
    """What a document pair's next scan starts from: the digests of the source and target
    units' vectors (16 bytes each, in order) and the tops of every row and column."""

    source_keys: bytes
    target_keys: bytes
    rows: Tops
    columns: Tops


KEPT_SCAN = kind("align-scan", "long documents' scans kept", Scan, version="3", share=False)
"""The last similarity scan of a long document pair, keyed by the two documents' names (not
their content: the next run of the pair starts from it whatever changed)."""


@dataclass
class TopArrays:
    values: np.ndarray
    indices: np.ndarray

    @classmethod
    def empty(cls, count: int) -> TopArrays:
        return cls(
            np.full((count, WIDTH), -np.inf, dtype=np.float32),
            np.full((count, WIDTH), -1, dtype=np.int32),
        )

    def put(self, at: np.ndarray, other: TopArrays) -> None:
        self.values[at], self.indices[at] = other.values, other.indices

    def lengths(self) -> np.ndarray:
        return (self.indices >= 0).sum(axis=1)

    def record(self) -> Tops:
        return Tops(self.values.tobytes(), self.indices.tobytes())

    @classmethod
    def of(cls, tops: Tops) -> TopArrays:
        values = np.frombuffer(tops.values, dtype=np.float32).reshape(-1, WIDTH)
        indices = np.frombuffer(tops.indices, dtype=np.int32).reshape(-1, WIDTH)
        return cls(values, indices)


def tops_at_least(block: np.ndarray, kth: np.ndarray) -> TopArrays:
    """The start of each row's order: its values at or above the row's ``kth`` value (every
    such value of the row being in ``block``), highest first and the first of equals
    first, at most WIDTH."""
    rows, columns = np.nonzero(block >= kth[:, None])
    values = block[rows, columns]
    found = columns
    order = np.lexsort((found, -values, rows))
    rows, found, values = rows[order], found[order], values[order]
    starts = np.searchsorted(rows, np.arange(len(block)))
    rank = np.arange(len(rows)) - starts[rows]
    tops = TopArrays.empty(len(block))
    kept = rank < WIDTH
    tops.values[rows[kept], rank[kept]] = values[kept]
    tops.indices[rows[kept], rank[kept]] = found[kept]
    return tops


def grow(tops: TopArrays, block: np.ndarray, highest: np.ndarray, start: int) -> None:
    """The start of every column's order after the rows of ``block`` (rows ``start``...,
    ``highest`` its columns' highest values), which come after every row kept: a value
    enters above the column's last kept one only (of equals, the earlier row stays first);
    while a column keeps fewer than WIDTH, the block's own WIDTH highest of it may enter.
    After the first blocks, few columns change."""
    changed = np.flatnonzero(highest > tops.values[:, -1])
    if not len(changed):
        return
    part = block[:, changed]
    least = tops.values[changed, -1]
    enter = part > least[None, :]
    filling = np.flatnonzero(np.isneginf(least))
    if len(filling) and len(part) > WIDTH:
        wth = -np.partition(-part[:, filling], WIDTH - 1, axis=0)[WIDTH - 1]
        enter[:, filling] &= part[:, filling] >= wth[None, :]
    rows, at = np.nonzero(enter)
    held, slot = np.nonzero(tops.indices[changed] >= 0)
    values = np.concatenate([tops.values[changed[held], slot], part[rows, at]])
    at = np.concatenate([held, at])
    rows = np.concatenate([tops.indices[changed[held], slot].astype(np.int64), rows + start])
    order = np.lexsort((rows, -values, at))
    at, values, rows = at[order], values[order], rows[order]
    rank = np.arange(len(at)) - np.searchsorted(at, np.arange(len(changed)))[at]
    fitting = rank < WIDTH
    grown = TopArrays.empty(len(changed))
    grown.values[at[fitting], rank[fitting]] = values[fitting]
    grown.indices[at[fitting], rank[fitting]] = rows[fitting]
    tops.put(changed, grown)


def vector_keys(vectors: np.ndarray) -> bytes:
    """The 16-byte digest of each vector, in order."""
    data = np.ascontiguousarray(vectors, dtype=np.float32)
    return b"".join(hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in data)


def matched(old_keys: bytes, new_keys: bytes) -> np.ndarray:
    """For each new unit, the old unit with the same vector, -1 for a new one: in order, each
    new unit takes the first old one with its vector after the last old unit taken (an
    edited, inserted or removed line leaves the others matched with themselves; the
    matching keeps the order, which the kept starts of the orders need)."""
    old_at: dict[bytes, list[int]] = defaultdict(list)
    for i in range(len(old_keys) // 16):
        old_at[old_keys[16 * i : 16 * i + 16]].append(i)
    found = np.full(len(new_keys) // 16, -1, dtype=np.int64)
    last = -1
    for i in range(len(found)):
        places = old_at.get(new_keys[16 * i : 16 * i + 16])
        if places:
            at = bisect_right(places, last)
            if at < len(places):
                found[i] = last = places[at]
    return found


def merged(
    old: TopArrays,
    old_of_new: np.ndarray,
    new_of_old_columns: np.ndarray,
    fresh_columns: np.ndarray,
    fresh_values: np.ndarray,
    k: int,
) -> tuple[TopArrays, np.ndarray]:
    """The tops of the rows kept (``old_of_new`` >= 0, in new order): their old tops with
    the columns renumbered and those no longer there dropped, and the new columns'
    similarities (``fresh_values``: kept rows x ``fresh_columns``) that come before a row's
    last kept entry merged in; and which rows still have at least ``k`` (the others are
    computed again)."""
    rows = np.flatnonzero(old_of_new >= 0)
    values = old.values[old_of_new[rows]].copy()
    indices = old.indices[old_of_new[rows]].astype(np.int64)
    gone = indices < 0
    indices[~gone] = new_of_old_columns[indices[~gone]]
    gone |= indices < 0
    values[gone], indices[gone] = -np.inf, -1
    last = np.maximum((~gone).sum(axis=1) - 1, 0)
    order = np.lexsort((np.where(gone, np.iinfo(np.int64).max, indices), -values), axis=1)
    values = np.take_along_axis(values, order, axis=1)
    indices = np.take_along_axis(indices, order, axis=1)
    bound_value = values[np.arange(len(rows)), last][:, None]
    bound_index = indices[np.arange(len(rows)), last][:, None]
    fresh = np.broadcast_to(fresh_columns, (len(rows), len(fresh_columns))).astype(np.int64)
    before = (fresh_values > bound_value) | ((fresh_values == bound_value) & (fresh < bound_index))
    before &= bound_index >= 0
    values = np.concatenate([values, np.where(before, fresh_values, -np.inf)], axis=1)
    indices = np.concatenate([indices, np.where(before, fresh, -1)], axis=1)
    order = np.lexsort((np.where(indices < 0, np.iinfo(np.int64).max, indices), -values), axis=1)
    values = np.take_along_axis(values, order, axis=1)[:, :WIDTH]
    indices = np.take_along_axis(indices, order, axis=1)[:, :WIDTH]
    tops = TopArrays(
        np.ascontiguousarray(values, dtype=np.float32),
        np.ascontiguousarray(indices, dtype=np.int32),
    )
    return tops, tops.lengths() >= k


@dataclass
class Slot:
    """Where one document pair's scan is kept: a key of the run's work cache."""

    work: Cache
    key: str

    def previous(self) -> Scan | None:
        data = self.work.get_many(KEPT_SCAN, [self.key]).get(self.key)
        if data is None:
            return None
        try:
            return KEPT_SCAN.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
            return None

    def keep(self, scan: Scan) -> None:
        self.work.put_many(KEPT_SCAN, [(self.key, KEPT_SCAN.encode(scan))])


_KEEPING: list[tuple[Cache, list[str]]] = []
"""The work caches (and the salts of their keys) that keep scans meanwhile."""


@contextlib.contextmanager
def keeping(work: Cache, salt: list[str]) -> Iterator[None]:
    """Long document pairs aligned in this process meanwhile keep their scans in ``work``
    (and start from the last ones kept)."""
    if not work.keeps:
        yield
        return
    _KEEPING.append((work, salt))
    try:
        yield
    finally:
        _KEEPING.pop()


def slot(source_doc: str, target_doc: str) -> Slot | None:
    """Where the scan of a document pair is kept, if scans are kept in this process."""
    if not _KEEPING:
        return None
    work, salt = _KEEPING[-1]
    return Slot(work, work.key(KEPT_SCAN, [*salt, source_doc, target_doc]))
