"""A long document pair's similarity scan, updated from the one the last run kept.

``BlockScores`` passes once over every similarity of a long document pair to find what needs
a whole row or column: each unit's neighbourhood (the mean of its NEIGHBOURS highest
similarities) and its nearest unit. Ten copies of the Comprehensive Rules (40,000 units a
side) take most of a minute, and one edited line changes almost none of it.

So the pass keeps, for every row and column, the units whose similarity reaches its
NEIGHBOURS-th highest (``Tops``: at most WIDTH of them, and a *floor* no unit left out is
above), with the digest of every unit's vector (``Scan``, in the work store under the names
of the two documents: ``KEPT_SCAN``). The next scan of the same two documents matches the
units by their vectors' digests and computes only

- the rows and columns of units whose vectors are new (an edited line), in full;
- those new units' similarities with every kept row and column, merged into its tops;
- in full again, each kept row or column whose tops no longer tell its NEIGHBOURS highest
  or its nearest unit for sure (it lost a unit it listed: the edited line was among its
  nearest).

The numbers are a full pass's bit for bit: similarities are products that do not depend on
the block they are computed in (``context.products``), a neighbourhood is the float32 sum
of its values from the highest down (``margin.sorted_selection``: without it, no scan is
kept) and a nearest unit is the first of equals. ``tests/test_kept_scan.py`` compares the
two on edited documents. Kept only where the alignment runs in this process (the local
engine): a Dask worker passes over the whole matrix.
"""

from __future__ import annotations

import contextlib
import hashlib
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
    """For each row (or column) of a scan: its highest similarities (float32, WIDTH a row,
    highest first, -inf where empty), the columns they are in (int32, the first of equals
    first, -1 where empty) and its floor (float32: no column left out is above it)."""

    values: bytes
    indices: bytes
    floors: bytes


class Scan(msgspec.Struct):
    """What a document pair's next scan starts from: the digests of the source and target
    units' vectors (16 bytes each, in order) and the tops of every row and column."""

    source_keys: bytes
    target_keys: bytes
    rows: Tops
    columns: Tops


KEPT_SCAN = kind("align-scan", "long documents' scans kept", Scan, version="1", share=False)
"""The last similarity scan of a long document pair, keyed by the two documents' names (not
their content: the next run of the pair starts from it whatever changed)."""


@dataclass
class TopArrays:
    values: np.ndarray
    indices: np.ndarray
    floors: np.ndarray

    @classmethod
    def empty(cls, count: int) -> TopArrays:
        return cls(
            np.full((count, WIDTH), -np.inf, dtype=np.float32),
            np.full((count, WIDTH), -1, dtype=np.int32),
            np.full(count, -np.inf, dtype=np.float32),
        )

    def put(self, at: np.ndarray, other: TopArrays) -> None:
        self.values[at], self.indices[at], self.floors[at] = (
            other.values,
            other.indices,
            other.floors,
        )

    def record(self) -> Tops:
        return Tops(self.values.tobytes(), self.indices.tobytes(), self.floors.tobytes())

    @classmethod
    def of(cls, tops: Tops) -> TopArrays:
        values = np.frombuffer(tops.values, dtype=np.float32).reshape(-1, WIDTH)
        indices = np.frombuffer(tops.indices, dtype=np.int32).reshape(-1, WIDTH)
        return cls(values, indices, np.frombuffer(tops.floors, dtype=np.float32))


def tops_at_least(block: np.ndarray, kth: np.ndarray, offset: int = 0) -> TopArrays:
    """The tops of each row of ``block``: the columns (counted from ``offset``) at or above
    the row's ``kth`` value, highest first and the first of equals first, at most WIDTH; the
    floor is ``kth``, or the highest value that did not fit."""
    rows, columns = np.nonzero(block >= kth[:, None])
    values = block[rows, columns]
    return _ranked(len(block), rows, columns + offset, values, kth)


def tops_listed(values: np.ndarray, indices: np.ndarray) -> TopArrays:
    """The tops of rows given their highest values and where they are (``margin``'s column
    tops, NEIGHBOURS a column): the floor is the lowest of them."""
    count, width = values.shape
    rows = np.repeat(np.arange(count), width)
    return _ranked(count, rows, indices.ravel(), values.ravel(), values.min(axis=1))


def _ranked(
    count: int, rows: np.ndarray, columns: np.ndarray, values: np.ndarray, floors: np.ndarray
) -> TopArrays:
    order = np.lexsort((columns, -values, rows))
    rows, columns, values = rows[order], columns[order], values[order]
    starts = np.searchsorted(rows, np.arange(count))
    rank = np.arange(len(rows)) - starts[rows]
    tops = TopArrays.empty(count)
    tops.floors[:] = floors
    kept = rank < WIDTH
    tops.values[rows[kept], rank[kept]] = values[kept]
    tops.indices[rows[kept], rank[kept]] = columns[kept]
    over = rank == WIDTH
    tops.floors[rows[over]] = np.maximum(tops.floors[rows[over]], values[over])
    return tops


def vector_keys(vectors: np.ndarray) -> bytes:
    """The 16-byte digest of each vector, in order."""
    data = np.ascontiguousarray(vectors, dtype=np.float32)
    return b"".join(hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in data)


def matched(old_keys: bytes, new_keys: bytes) -> np.ndarray:
    """For each new unit, the old unit with the same vector (the n-th of equal vectors with
    the n-th), -1 for a new one."""
    old_at: dict[bytes, list[int]] = defaultdict(list)
    for i in range(len(old_keys) // 16):
        old_at[old_keys[16 * i : 16 * i + 16]].append(i)
    for places in old_at.values():
        places.reverse()
    found = np.full(len(new_keys) // 16, -1, dtype=np.int64)
    for i in range(len(found)):
        places = old_at.get(new_keys[16 * i : 16 * i + 16])
        if places:
            found[i] = places.pop()
    return found


def merged(
    old: TopArrays,
    old_of_new: np.ndarray,
    new_of_old_columns: np.ndarray,
    fresh_columns: np.ndarray,
    fresh_values: np.ndarray,
    k: int,
) -> tuple[TopArrays, np.ndarray]:
    """The tops of the rows kept (``old_of_new`` >= 0, in new order): their old tops, the
    columns renumbered and those no longer there dropped, and the new columns' values
    (``fresh_values``: kept rows x ``fresh_columns``) merged in; and which of them tell
    the row's ``k`` highest values and its first best for sure (at least ``k`` listed at or
    above the floor, and the best above it)."""
    rows = np.flatnonzero(old_of_new >= 0)
    values = old.values[old_of_new[rows]].copy()
    indices = old.indices[old_of_new[rows]].astype(np.int64)
    gone = indices < 0
    indices[~gone] = new_of_old_columns[indices[~gone]]
    gone |= indices < 0
    values[gone], indices[gone] = -np.inf, -1
    values = np.concatenate([values, fresh_values], axis=1)
    indices = np.concatenate(
        [indices, np.broadcast_to(fresh_columns, (len(rows), len(fresh_columns)))], axis=1
    )
    order = np.lexsort((np.where(indices < 0, np.iinfo(np.int64).max, indices), -values), axis=1)
    values = np.take_along_axis(values, order, axis=1)
    indices = np.take_along_axis(indices, order, axis=1)
    floors = old.floors[old_of_new[rows]].copy()
    if values.shape[1] > WIDTH:
        floors = np.maximum(floors, values[:, WIDTH])
    values, indices = values[:, :WIDTH], indices[:, :WIDTH]
    listed = ((indices >= 0) & (values >= floors[:, None])).sum(axis=1)
    sure = (listed >= k) & (values[:, 0] > floors)
    tops = TopArrays(
        np.ascontiguousarray(values, dtype=np.float32),
        np.ascontiguousarray(indices, dtype=np.int32),
        floors.astype(np.float32),
    )
    return tops, sure


class Keeper:
    """The kept scans of a run: read and written through the run's work cache."""

    def __init__(self, work: Cache, salt: list[str]) -> None:
        self.work, self.salt = work, salt

    def slot(self, source_doc: str, target_doc: str) -> Slot:
        return Slot(self, self.work.key(KEPT_SCAN, [*self.salt, source_doc, target_doc]))


@dataclass
class Slot:
    """Where one document pair's scan is kept."""

    keeper: Keeper
    key: str

    def previous(self) -> Scan | None:
        data = self.keeper.work.get_many(KEPT_SCAN, [self.key]).get(self.key)
        if data is None:
            return None
        try:
            return KEPT_SCAN.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
            return None

    def keep(self, scan: Scan) -> None:
        self.keeper.work.put_many(KEPT_SCAN, [(self.key, KEPT_SCAN.encode(scan))])


_KEEPER: list[Keeper] = []


@contextlib.contextmanager
def keeping(work: Cache, salt: list[str]) -> Iterator[None]:
    """Long document pairs aligned in this process meanwhile keep their scans in ``work``
    (and start from the last ones kept)."""
    if not work.keeps:
        yield
        return
    _KEEPER.append(Keeper(work, salt))
    try:
        yield
    finally:
        _KEEPER.pop()


def slot(source_doc: str, target_doc: str) -> Slot | None:
    """Where the scan of a document pair is kept, if scans are kept in this process."""
    return _KEEPER[-1].slot(source_doc, target_doc) if _KEEPER else None
