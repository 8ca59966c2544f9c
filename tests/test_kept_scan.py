"""A long document pair's scan updated from the one kept (``align/kept_scan.py``) gives the
neighbourhoods and nearest units of a whole pass bit for bit, after edits of every kind: a
line changed in place, inserted, removed, a source line changed, a line repeated (ties), and
one edit after another."""

from __future__ import annotations

import numpy as np
import pytest
from test_sequence import full_matrix, realistic_pair

from pipelines.align import margin
from pipelines.align.kept_scan import KEPT_SCAN, Scan
from pipelines.align.margin import BlockScores, neighbourhood


class MemorySlot:
    """A slot that keeps the scan in memory, encoded as the store keeps it."""

    def __init__(self) -> None:
        self.data: bytes | None = None

    def previous(self) -> Scan | None:
        return KEPT_SCAN.decode(self.data) if self.data is not None else None

    def keep(self, scan: Scan) -> None:
        self.data = KEPT_SCAN.encode(scan)


@pytest.fixture(scope="module")
def vectors():
    left, right, _, _ = realistic_pair(n=400, seed=3)
    return left, right


def assert_whole_pass(scores: BlockScores, left: np.ndarray, right: np.ndarray) -> None:
    matrix = full_matrix(left, right)
    assert np.array_equal(scores.row_neighbourhood, neighbourhood(matrix, axis=1))
    assert np.array_equal(scores.column_neighbourhood, neighbourhood(matrix, axis=0))
    assert np.array_equal(scores.row_best, matrix.argmax(axis=1))
    assert np.array_equal(scores.column_best, matrix.argmax(axis=0))


def fresh_vector(seed: int, like: np.ndarray) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(size=like.shape[-1])
    vector = like + 0.3 * noise / np.linalg.norm(noise)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def edits(left: np.ndarray, right: np.ndarray):
    """(name, left, right) after each kind of edit of the pair."""
    changed = right.copy()
    changed[200] = fresh_vector(1, right[200])
    yield "a translated line changed", left, changed
    yield "a line inserted", left, np.insert(right, 150, fresh_vector(2, right[150]), axis=0)
    yield "a line removed", left, np.delete(right, 90, axis=0)
    source = left.copy()
    source[30] = fresh_vector(3, left[30])
    yield "a source line changed", source, right
    repeated = right.copy()
    repeated[11] = repeated[10]
    yield "a line repeated", left, repeated


@pytest.mark.parametrize("case", range(5))
def test_a_scan_updated_from_the_kept_one_is_a_whole_pass(vectors, case):
    left, right = vectors
    slot = MemorySlot()
    first = BlockScores(left, right, pass_cells=9_000, kept=slot)
    assert first.scanned == "whole"
    assert_whole_pass(first, left, right)
    name, left, right = list(edits(left, right))[case]
    updated = BlockScores(left, right, pass_cells=9_000, kept=slot)
    assert updated.scanned == "updated", name
    assert_whole_pass(updated, left, right)


def test_edits_one_after_another_each_update_the_last_scan(vectors):
    slot = MemorySlot()
    BlockScores(*vectors, pass_cells=9_000, kept=slot)
    for _, left, right in edits(*vectors):
        scores = BlockScores(left, right, pass_cells=9_000, kept=slot)
        assert scores.scanned == "updated"
        assert_whole_pass(scores, left, right)


def test_a_pair_mostly_new_is_passed_over_whole(vectors):
    left, right = vectors
    slot = MemorySlot()
    BlockScores(left, right, kept=slot)
    other = np.roll(right, 1, axis=1)
    scores = BlockScores(left, other, kept=slot)
    assert scores.scanned == "whole"
    assert_whole_pass(scores, left, other)


def test_no_scan_is_kept_where_the_highest_values_are_not_left_in_order(vectors, monkeypatch):
    monkeypatch.setattr(margin, "sorted_selection", lambda: False)
    slot = MemorySlot()
    BlockScores(*vectors, kept=slot)
    assert slot.data is None


def test_a_document_of_ten_copies_is_updated_from_a_few_rows_and_columns(monkeypatch):
    """Ten copies of one text: every row has ten equal highest similarities, more than a
    row keeps (of equals, the first units are kept: ties cost nothing). One line edited
    costs its row, its column and the rows and columns that listed it, not the pass."""
    left, right, _, _ = realistic_pair(n=120, seed=5)
    left, right = np.tile(left[:60], (10, 1)), np.tile(right[:60], (10, 1))
    slot = MemorySlot()
    BlockScores(left, right, pass_cells=9_000, kept=slot)
    cells = []
    block = margin.similarity_block

    def counted(a, b):
        cells.append(len(a) * len(b))
        return block(a, b)

    monkeypatch.setattr(margin, "similarity_block", counted)
    edited = right.copy()
    edited[333] = fresh_vector(4, right[333])
    scores = BlockScores(left, edited, pass_cells=9_000, kept=slot)
    assert scores.scanned == "updated"
    assert sum(cells) < 0.1 * left.shape[0] * right.shape[0]
    assert_whole_pass(scores, left, edited)
