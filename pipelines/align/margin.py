"""Margin scoring: a pair's similarity relative to each side's nearest neighbours.

As in bitext mining (Artetxe & Schwenk, 2019): near-duplicate rulings all look similar to a
translation, but only the true source stands out from the translation's other neighbours.

Two ways to hold the scores of a document pair, with the same numbers bit for bit:
``MatrixScores`` keeps the whole similarity matrix (a pair of ordinary size);
``BlockScores`` keeps only each unit's neighbourhood and nearest unit, found by one pass over
blocks of rows of the matrix, and computes any other similarity from the embeddings when it
is asked for, a rectangle at a time (a long document: memory linear in its length, time in
its length times the other's for that one pass). Both answer the same questions
(``Scores``).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from . import kept_scan
from .context import similarity_block
from .kept_scan import Slot

NEIGHBOURS = 4


def neighbourhood(similarity: np.ndarray, axis: int, k: int = NEIGHBOURS) -> np.ndarray:
    """Mean of the k highest similarities along an axis (k clipped to what exists)."""
    size = similarity.shape[axis]
    if size == 0:
        return np.zeros(similarity.shape[1 - axis], dtype=np.float32)
    k = min(k, size)
    top = -np.partition(-similarity, k - 1, axis=axis)
    top = top[:k] if axis == 0 else top[:, :k]
    return top.mean(axis=axis)


def margin_scores(similarity: np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """similarity - mean(neighbourhood of the row, neighbourhood of the column)."""
    if similarity.size == 0:
        return similarity.copy()
    rows = neighbourhood(similarity, axis=1, k=k)
    cols = neighbourhood(similarity, axis=0, k=k)
    return _margins(similarity, rows, cols)


def _margins(similarity: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The margins of a rectangle, given its rows' and columns' neighbourhoods (the same
    float32 operations, cell by cell, whatever the rectangle's size)."""
    return similarity - (rows[:, None] + cols[None, :]) / 2.0


POINTS_PER_PRODUCT = 64
"""Pairs whose similarities are computed together: the sources' vectors times the targets'
(64 x 64 products, of which the diagonal is used; ``products`` gives each cell the bits of
the whole matrix however small the block), instead of the rectangle the pairs span."""


@dataclass(frozen=True, slots=True)
class Tile:
    """Similarities and margins of a rectangle of the matrix: sources s0..s0 + rows - 1,
    targets t0..t0 + columns - 1."""

    s0: int
    t0: int
    similarity: np.ndarray
    margin: np.ndarray


class Scores(Protocol):
    """Similarities and margins of sources (rows) x targets (columns)."""

    shape: tuple[int, int]
    tile_cells: float
    """How large a rectangle to ask for at once (cells)."""

    def similarity(self, s0: int, s1: int, t0: int, t1: int) -> np.ndarray:
        """Similarities of sources s0..s1-1 x targets t0..t1-1."""

    def tile(self, s0: int, s1: int, t0: int, t1: int) -> Tile:
        """Similarities and margins of sources s0..s1-1 x targets t0..t1-1."""

    def values(self, sources: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Similarity and margin of each pair (sources[i], targets[i])."""

    def best(self, s0: int, s1: int, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
        """In the rectangle: each row's best column and each column's best row (the first
        of equals, as ``argmax``), counted from the rectangle's corner."""

    def best_among(self, sources: list[int], targets: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """``best`` in the rows ``sources`` x the columns ``targets``, positions in them."""

    def nearest(self) -> tuple[np.ndarray, np.ndarray]:
        """Each source's best target and each target's best source in the whole matrix."""


class MatrixScores:
    """The whole matrix and its margins (``margin_scores``) in memory."""

    tile_cells = float("inf")

    def __init__(self, similarity: np.ndarray):
        self.matrix = similarity
        self.margin = margin_scores(similarity)
        self.shape = similarity.shape

    def similarity(self, s0: int, s1: int, t0: int, t1: int) -> np.ndarray:
        return self.matrix[s0:s1, t0:t1]

    def tile(self, s0: int, s1: int, t0: int, t1: int) -> Tile:
        return Tile(s0, t0, self.matrix[s0:s1, t0:t1], self.margin[s0:s1, t0:t1])

    def values(self, sources: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.matrix[sources, targets], self.margin[sources, targets]

    def best(self, s0: int, s1: int, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
        sub = self.matrix[s0:s1, t0:t1]
        return sub.argmax(axis=1), sub.argmax(axis=0)

    def best_among(self, sources: list[int], targets: list[int]) -> tuple[np.ndarray, np.ndarray]:
        block = self.matrix[np.ix_(sources, targets)]
        return block.argmax(axis=1), block.argmax(axis=0)

    def nearest(self) -> tuple[np.ndarray, np.ndarray]:
        return self.matrix.argmax(axis=1), self.matrix.argmax(axis=0)


PASS_CELLS = 8_000_000
"""Cells of similarity computed at once by BlockScores' passes (32 MB a block)."""
TILE_CELLS = 4_000_000
"""Cells of a rectangle asked of BlockScores at once where the asker may choose (the
dynamic programme's small gaps, a chunk of points)."""


class BlockScores:
    """Scores computed from the unit vectors, a block at a time: never the whole matrix.

    One pass over blocks of rows (sources x all targets) finds what needs a whole row or
    a whole column: each row's neighbourhood (``neighbourhood`` on its whole row) and best
    target; each column's best source (the first of equals) and highest similarities. A
    column's neighbourhood is the float32 mean of those highest similarities in decreasing
    order, which is what ``neighbourhood`` along axis 0 computes where numpy's partition
    leaves them sorted (``sorted_selection``); elsewhere a second pass multiplies blocks of
    targets by all sources (a column of the matrix is a row of the transposed product, the
    same bits) and calls ``neighbourhood`` on whole columns. Either way the margins are bit
    for bit those of ``margin_scores`` on the whole matrix.
    """

    def __init__(
        self,
        left: np.ndarray,
        right: np.ndarray,
        pass_cells: int = PASS_CELLS,
        tile_cells: int = TILE_CELLS,
        kept: Slot | None = None,
    ):
        self.left = np.ascontiguousarray(left, dtype=np.float32)
        self.right = np.ascontiguousarray(right, dtype=np.float32)
        self.shape = (len(self.left), len(self.right))
        self.pass_cells = pass_cells
        self.tile_cells = tile_cells
        self._scan(kept)

    def _scan(self, kept: Slot | None = None) -> None:
        """The pass; with ``kept``, from the scan kept there when it can (``kept_scan``),
        and keeping this one."""
        n, m = self.shape
        self.row_neighbourhood = np.zeros(n, dtype=np.float32)
        self.row_best = np.zeros(n, dtype=np.intp)
        self.column_neighbourhood = np.zeros(m, dtype=np.float32)
        self.column_best = np.zeros(m, dtype=np.intp)
        self.scanned = "whole"
        if not n or not m:
            return
        keep_top = n >= NEIGHBOURS and sorted_selection()
        keeping = kept is not None and keep_top and m >= NEIGHBOURS
        if keeping:
            keys = (kept_scan.vector_keys(self.left), kept_scan.vector_keys(self.right))
            previous = kept.previous()
            updated = self._update(previous, *keys) if previous is not None else None
            if updated is not None:
                kept.keep(kept_scan.Scan(*keys, updated[0].record(), updated[1].record()))
                self.scanned = "updated"
                return
            row_tops = kept_scan.TopArrays.empty(n)
        column_top = np.full((m, NEIGHBOURS), -np.inf, dtype=np.float32)
        column_least = column_top[:, 0].copy()  # the lowest of each column's highest values
        column_max = np.full(m, -np.inf, dtype=np.float32)
        if keeping:  # the start of each column's order instead of its highest values alone
            columns = kept_scan.TopArrays.empty(m)
            column_top = columns.values
        for start, stop in _blocks(n, m, self.pass_cells):
            block = similarity_block(self.left[start:stop], self.right)
            self.row_best[start:stop] = block.argmax(axis=1)
            self.row_neighbourhood[start:stop], kth = _row_neighbourhood(block)
            if keeping:
                row_tops.put(np.arange(start, stop), kept_scan.tops_at_least(block, kth))
            # Columns change only where this block beats what they have: after the first
            # blocks, few do (a unit's nearest neighbours are few), and only they are read.
            highest = block.max(axis=0)
            higher = np.flatnonzero(highest > column_max)
            if len(higher):
                column_max[higher] = highest[higher]
                self.column_best[higher] = block[:, higher].argmax(axis=0) + start
            if keeping:
                kept_scan.grow(columns, block, highest, start)
            elif keep_top:
                changed = np.flatnonzero(highest > column_least)
                if len(changed):
                    candidates = np.concatenate([column_top[changed], block[:, changed].T], axis=1)
                    cut = candidates.shape[1] - NEIGHBOURS
                    candidates.partition(cut, axis=1)
                    column_top[changed] = candidates[:, cut:]
                    column_least[changed] = candidates[:, cut:].min(axis=1)
        if keep_top:
            self.column_neighbourhood = _decreasing_mean(column_top[:, :NEIGHBOURS])
        else:
            self._column_pass()
        if keeping:
            kept.keep(kept_scan.Scan(*keys, row_tops.record(), columns.record()))

    def _update(
        self, previous: kept_scan.Scan, source_keys: bytes, target_keys: bytes
    ) -> tuple[kept_scan.TopArrays, kept_scan.TopArrays] | None:
        """The pass from a kept scan: the rows and columns of new units and those whose kept
        tops do not tell their values for sure computed in full, the others' tops merged
        with the new units' similarities (``kept_scan.merged``); the new tops of the rows
        and the columns. None when the kept scan does not fit or most units are new."""
        n, m = self.shape
        old_rows = kept_scan.TopArrays.of(previous.rows)
        old_columns = kept_scan.TopArrays.of(previous.columns)
        n_old, m_old = len(previous.source_keys) // 16, len(previous.target_keys) // 16
        if len(old_rows.values) != n_old or len(old_columns.values) != m_old:
            return None
        old_of_row = kept_scan.matched(previous.source_keys, source_keys)
        old_of_column = kept_scan.matched(previous.target_keys, target_keys)
        fresh_rows = np.flatnonzero(old_of_row < 0)
        fresh_columns = np.flatnonzero(old_of_column < 0)
        if len(fresh_rows) > kept_scan.MOST_NEW * n or len(fresh_columns) > kept_scan.MOST_NEW * m:
            return None
        new_of_old_row = _inverse(old_of_row, n_old)
        new_of_old_column = _inverse(old_of_column, m_old)
        with_fresh_columns = similarity_block(self.left, self.right[fresh_columns])
        with_fresh_rows = similarity_block(self.left[fresh_rows], self.right)
        rows = kept_scan.TopArrays.empty(n)
        columns = kept_scan.TopArrays.empty(m)
        redo = _from_kept(
            old_rows,
            old_of_row,
            new_of_old_column,
            fresh_columns,
            with_fresh_columns,
            (rows, self.row_neighbourhood, self.row_best),
        )
        for chunk in _chunks(redo, m, self.pass_cells):
            block = similarity_block(self.left[chunk], self.right)
            self.row_best[chunk] = block.argmax(axis=1)
            self.row_neighbourhood[chunk], kth = _row_neighbourhood(block)
            rows.put(chunk, kept_scan.tops_at_least(block, kth))
        redo = _from_kept(
            old_columns,
            old_of_column,
            new_of_old_row,
            fresh_rows,
            with_fresh_rows.T,
            (columns, self.column_neighbourhood, self.column_best),
        )
        for chunk in _chunks(redo, n, self.pass_cells):
            block = similarity_block(self.right[chunk], self.left)  # the columns, as rows
            self.column_best[chunk] = block.argmax(axis=1)
            top = -np.partition(-block, NEIGHBOURS - 1, axis=1)[:, :NEIGHBOURS]
            self.column_neighbourhood[chunk] = _decreasing_mean(top)
            columns.put(chunk, kept_scan.tops_at_least(block, top.min(axis=1)))
        return rows, columns

    def _column_pass(self) -> None:
        """Each column's neighbourhood from whole columns (rows of targets x sources)."""
        n, m = self.shape
        k = min(NEIGHBOURS, n)
        for start, stop in _blocks(m, n, self.pass_cells):
            block = similarity_block(self.right[start:stop], self.left)
            top = -np.partition(-block, k - 1, axis=1)
            # the layout of neighbourhood(..., axis=0): k rows of columns, summed row by row
            self.column_neighbourhood[start:stop] = np.ascontiguousarray(top[:, :k].T).mean(axis=0)

    def similarity(self, s0: int, s1: int, t0: int, t1: int) -> np.ndarray:
        return similarity_block(self.left[s0:s1], self.right[t0:t1])

    def tile(self, s0: int, s1: int, t0: int, t1: int) -> Tile:
        similarity = self.similarity(s0, s1, t0, t1)
        margin = _margins(
            similarity, self.row_neighbourhood[s0:s1], self.column_neighbourhood[t0:t1]
        )
        return Tile(s0, t0, similarity, margin)

    def values(self, sources: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sources = np.asarray(sources, dtype=np.intp)
        targets = np.asarray(targets, dtype=np.intp)
        similarity = np.zeros(len(sources), dtype=np.float32)
        for start in range(0, len(sources), POINTS_PER_PRODUCT):
            s = sources[start : start + POINTS_PER_PRODUCT]
            t = targets[start : start + POINTS_PER_PRODUCT]
            block = similarity_block(self.left[s], self.right[t])
            similarity[start : start + len(s)] = np.diagonal(block)
        rows, columns = self.row_neighbourhood[sources], self.column_neighbourhood[targets]
        return similarity, similarity - (rows + columns) / 2.0

    def best(self, s0: int, s1: int, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
        n, m = self.shape
        if (s0, s1, t0, t1) == (0, n, 0, m):
            return self.nearest()
        return self._best(self.left[s0:s1], self.right[t0:t1])

    def best_among(self, sources: list[int], targets: list[int]) -> tuple[np.ndarray, np.ndarray]:
        return self._best(self.left[sources], self.right[targets])

    def _best(self, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """argmax along both axes of left x right, by blocks of rows: a column's best is
        replaced only by a strictly higher similarity further down (the first of equals)."""
        row_best = np.zeros(len(left), dtype=np.intp)
        column_best = np.zeros(len(right), dtype=np.intp)
        column_max = np.full(len(right), -np.inf, dtype=np.float32)
        for start, stop in _blocks(len(left), len(right), self.pass_cells):
            block = similarity_block(left[start:stop], right)
            row_best[start:stop] = block.argmax(axis=1)
            highest = block.max(axis=0)
            higher = np.flatnonzero(highest > column_max)
            column_max[higher] = highest[higher]
            column_best[higher] = block[:, higher].argmax(axis=0) + start
        return row_best, column_best

    def nearest(self) -> tuple[np.ndarray, np.ndarray]:
        return self.row_best, self.column_best


def _row_neighbourhood(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``neighbourhood(block, axis=1)`` with two passes over the block fewer: the same
    partition of the same values, the same mean of a view of the same layout; and each
    row's k-th highest value."""
    k = min(NEIGHBOURS, block.shape[1])
    negated = np.negative(block)
    negated.partition(k - 1, axis=1)
    top = negated[:, :k]
    np.negative(top, out=top)
    return top.mean(axis=1), top[:, k - 1].copy()


def _from_kept(
    old: kept_scan.TopArrays,
    old_of_new: np.ndarray,
    new_of_old_other: np.ndarray,
    fresh_other: np.ndarray,
    with_fresh_other: np.ndarray,
    into: tuple[kept_scan.TopArrays, np.ndarray, np.ndarray],
) -> np.ndarray:
    """The rows (or columns) a kept scan still tells: their tops merged with the new units
    of the other side (``with_fresh_other``: every unit of this side x those), and their
    neighbourhoods and best units, put ``into`` (tops, neighbourhoods, best); the others
    (new units, and kept ones whose start became too short), to be computed in full."""
    tops_into, neighbourhood, best = into
    kept = np.flatnonzero(old_of_new >= 0)
    tops, sure = kept_scan.merged(
        old, old_of_new, new_of_old_other, fresh_other, with_fresh_other[kept], NEIGHBOURS
    )
    tops_into.put(kept, tops)
    neighbourhood[kept[sure]] = _decreasing_mean(tops.values[sure, :NEIGHBOURS])
    best[kept[sure]] = tops.indices[sure, 0]
    return np.union1d(np.flatnonzero(old_of_new < 0), kept[~sure])


def _inverse(old_of_new: np.ndarray, old_count: int) -> np.ndarray:
    """For each old unit, its place among the new ones (-1: gone)."""
    new_of_old = np.full(old_count, -1, dtype=np.int64)
    kept = np.flatnonzero(old_of_new >= 0)
    new_of_old[old_of_new[kept]] = kept
    return new_of_old


def _chunks(indices: np.ndarray, columns: int, cells: int) -> list[np.ndarray]:
    """``indices`` in runs of about ``cells`` cells of ``columns`` columns each."""
    size = max(2, cells // max(1, columns))
    return [indices[start : start + size] for start in range(0, len(indices), size)]


def _decreasing_mean(top: np.ndarray) -> np.ndarray:
    """Mean of each row's values taken from the highest down, summed one by one in float32
    (rows of NEIGHBOURS values, in any order)."""
    ordered = -np.sort(-top, axis=1)
    total = ordered[:, 0].copy()
    for i in range(1, ordered.shape[1]):
        total += ordered[:, i]
    return total / ordered.shape[1]


@functools.cache
def sorted_selection() -> bool:
    """Whether ``neighbourhood`` along axis 0 is ``_decreasing_mean`` of each column's
    highest values: numpy's partition leaves the k lowest values first and in order (on
    x86 it calls x86-simd-sort's quickselect, which sorts the small range it ends in) and
    ``mean`` adds the k rows one after the other. Tried on random similarities with ties,
    where another order of the sum would change most columns' last bit."""
    rng = np.random.default_rng(14)
    sample = np.round(rng.uniform(-1.0, 1.0, (3000, 256)).astype(np.float32), 5)
    sample[::9] = sample[4]
    expected = neighbourhood(sample, axis=0)
    top = -np.partition(-sample.T, NEIGHBOURS - 1, axis=1)[:, :NEIGHBOURS]
    return bool(np.array_equal(expected, _decreasing_mean(top)))


def _blocks(rows: int, columns: int, cells: int) -> list[tuple[int, int]]:
    """Row ranges of about ``cells`` cells, none of a single row unless there is one."""
    size = max(2, cells // max(1, columns))
    bounds = [*range(0, rows, size), rows]
    if len(bounds) > 2 and bounds[-1] - bounds[-2] < 2:
        del bounds[-2]
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
