"""The card aligner's shortcuts give what the plain computation gives: the nearest templates
of a ruling (whatever batch it is searched in), the symbols two lines share, the words two
versions share, the newest version among candidates and the rows that may have a better
source."""

from __future__ import annotations

import copy
import difflib
from collections import Counter

import numpy as np
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.align import align
from pipelines.align.card_rulings import SourcePool, _same_symbols, _smallest
from pipelines.align.context import AlignContext, pair_products, products, screening_error
from pipelines.align.rivals import (
    MARGIN,
    MIN_RIVAL_SIMILARITY,
    UNPAIRED_MIN_SIMILARITY,
    _better_rival,
    _may_be_better,
    _slack,
    find_better_sources,
)
from pipelines.align.versions import (
    NEWER_VERSION_SIMILARITY,
    NEWER_VERSION_WORDS,
    Versions,
    shared_words,
    shares_words,
)
from pipelines.model import Alignment, Ruling
from pipelines.text import template_text
from pipelines.text.tokens import tokens


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def ruling(rid: str, text: str, lang: str, *, card: str, doc: str, date: str | None = None):
    return Ruling(
        id=rid,
        file=doc,
        line=int(rid.rsplit(":", 1)[1]),
        format="plain-dated",
        doc_title=card,
        card=card,
        section=None,
        doc_lang=lang,
        lang=lang,
        spans=[],
        date=date,
        date_raw=date,
        text=text,
        doc=doc,
        doc_kind="source" if lang == "en" else "translation",
    )


def context(rulings: list[Ruling], vectors: np.ndarray) -> AlignContext:
    """The context of rulings given one vector each (the same text, the same vector): its
    vectors are one per distinct text, the rulings' first; the joined lines and sentences
    of card text that follow them get zero vectors (no similarity to anything)."""
    ctx = AlignContext(rulings, lambda texts: vectors)
    first: dict[str, int] = {}
    for k, item in enumerate(rulings):
        first.setdefault(item.text, k)
    assert [rulings[k].text for k in first.values()] == ctx.texts[: len(first)]
    extra = np.zeros((len(ctx.texts) - len(first), vectors.shape[1]), dtype=np.float32)
    ctx.vectors = np.concatenate([vectors[list(first.values())], extra])
    return ctx


# --------------------------------------------------------------------------------------
# The nearest templates
# --------------------------------------------------------------------------------------


def test_vectors_are_one_per_distinct_text():
    """A catalogue repeats its texts: the vectors are one row per text (the rulings', and
    the joined lines and sentences of card text), and each ruling reads its text's row."""
    rulings, _ = template_world()
    asked: list[list[str]] = []
    ctx = AlignContext(rulings, lambda texts: asked.append(texts) or unit(np.ones((len(texts), 4))))
    assert len({r.text for r in rulings}) < len(rulings)
    assert len(ctx.vectors) == len(ctx.texts) >= len({r.text for r in rulings})
    assert asked == [ctx.texts] and len(set(ctx.texts)) == len(ctx.texts)
    assert all(ctx.texts[ctx.vector_row[r.id]] == r.text for r in rulings)


@pytest.mark.parametrize("seed", range(40))
def test_smallest_selects_what_argpartition_selects(seed):
    rng = np.random.default_rng(seed)
    rows, size = int(rng.integers(1, 30)), int(rng.integers(1, 3000))
    wanted = int(min(rng.integers(1, 15), size))
    scores = rng.standard_normal((rows, size)).astype(np.float32)
    if seed % 3 == 0:
        scores = np.round(scores, 1)  # many ties, some at the boundary
    if seed % 5 == 0:
        half = size // 2
        scores[:, :half] = scores[:, half : 2 * half]  # duplicate columns
    expected = np.argpartition(scores, wanted - 1, axis=1)[:, :wanted]
    found = _smallest(scores, wanted)
    assert [set(row) for row in found.tolist()] == [set(row) for row in expected.tolist()]


def test_pair_products_are_the_cells_of_products():
    rng = np.random.default_rng(7)
    left, right = unit(rng.standard_normal((300, 512))), unit(rng.standard_normal((700, 512)))
    rows, columns = rng.integers(0, 300, 50_000), rng.integers(0, 700, 50_000)
    whole = products(left, right)
    assert np.array_equal(pair_products(left[rows], right[columns]), whole[rows, columns])


def test_single_precision_products_are_within_the_screening_error():
    rng = np.random.default_rng(8)
    left, right = unit(rng.standard_normal((64, 512))), unit(rng.standard_normal((5_000, 512)))
    assert np.abs(left @ right.T - products(left, right)).max() <= screening_error(512) / 10


def crowded_pool(seed: int, texts: int = 3_000, dimensions: int = 512):
    """A pool whose texts come in clusters of near-copies (similarities a few single-precision
    steps apart) and exact copies (ties), and queries near the clusters: the screen's
    candidates are many and its margins thin."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.standard_normal((40, dimensions)))
    cluster = rng.integers(0, 40, texts)
    spread = rng.choice([1e-7, 1e-6, 1e-3], texts)[:, None]
    vectors = unit(centres[cluster] + spread * rng.standard_normal((texts, dimensions)))
    copies = rng.integers(0, texts, texts // 10)
    vectors[rng.integers(0, texts, texts // 10)] = vectors[copies]
    pool = SourcePool(
        rulings=[],
        vectors=vectors,
        text_rows=np.arange(texts, dtype=np.int64),
        members=[[k] for k in range(texts)],
    )
    queries = unit(centres[rng.integers(0, 40, 60)] + 0.02 * rng.standard_normal((60, dimensions)))
    queries[:10] = vectors[rng.integers(0, texts, 10)]  # a query that is a pool text
    return pool, queries


def exactly_nearest(pool: SourcePool, queries: np.ndarray, wanted: int) -> list[list[int]]:
    """The neighbours from the exact similarities of the whole pool (the search before the
    screen)."""
    scores = -products(queries, pool.vectors[pool.text_rows])
    top = _smallest(scores, wanted)
    chosen = np.round(np.take_along_axis(scores, top, axis=1), 5)
    ranked = np.take_along_axis(top, np.lexsort((top, chosen), axis=1), axis=1)
    return [[i for text in texts for i in pool.members[text]] for texts in ranked.tolist()]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("wanted", [1, 11, 64])
def test_the_screened_search_finds_the_exact_neighbours(seed, wanted):
    """Near-copies a rounding apart and exact copies tied at the boundary: the screened
    search finds the texts, in the order, that the exact similarities of the whole pool
    give."""
    pool, queries = crowded_pool(seed)
    assert pool._nearest_texts(queries, wanted) == exactly_nearest(pool, queries, wanted)


def test_rows_the_screen_leaves_crowded_are_searched_whole(monkeypatch):
    """A query that is no direction at all (every text ties) and rows with more candidates
    than ``SCREENED_MAX`` are searched whole; the pairs are computed a block at a time. The
    neighbours are the exact ones either way."""
    from pipelines.align import card_rulings

    pool, queries = crowded_pool(1)
    queries[10:12] = 0.0
    expected = exactly_nearest(pool, queries, 11)
    monkeypatch.setattr(card_rulings, "PAIRS_PER_BLOCK", 97)
    assert pool._nearest_texts(queries, 11) == expected
    monkeypatch.setattr(card_rulings, "SCREENED_MAX", 12)
    assert pool._nearest_texts(queries, 11) == expected


def template_world(seed: int = 0, cards: int = 300, per_card: int = 3):
    """English rulings of many cards (some texts shared by several cards, some repeated with
    another date) and Spanish translations of some of them, with made-up vectors."""
    rng = np.random.default_rng(seed)
    rulings: list[Ruling] = []
    for c in range(cards):
        card = f"Card {c}"
        for k in range(per_card):
            shared = int(rng.integers(0, 40)) if int(rng.integers(0, 4)) == 0 else None
            text = f"Own ruling {c}.{k}." if shared is None else f"Shared ruling {shared}."
            date = f"20{10 + int(rng.integers(0, 10))}-01-01"
            rulings.append(
                ruling(f"en/{c}.txt:{k}", text, "en", card=card, doc=f"en/{c}", date=date)
            )
            if c % 2 == 0:
                rulings.append(
                    ruling(f"es/{c}.txt:{k}", f"Traducción {c}.{k}", "es", card=card, doc=f"es/{c}")
                )
    by_text: dict[str, int] = {}
    base = unit(rng.standard_normal((len(rulings), 32)))
    rows = [by_text.setdefault(r.text, k) for k, r in enumerate(rulings)]
    vectors = base[rows]  # the same text, the same vector
    return rulings, vectors


def brute_neighbours(pool: SourcePool, vector: np.ndarray, wanted: int) -> list[int]:
    scores = -products(vector[None, :], pool.text_vectors)[0]
    chosen = np.argsort(scores, kind="stable")[:wanted]
    values = np.round(scores[chosen], 5)
    ranked = sorted(zip(values.tolist(), chosen.tolist(), strict=True))
    return [i for _, text in ranked for i in pool.members[text]]


@pytest.mark.slow
def test_prepared_neighbours_do_not_depend_on_the_batch():
    rulings, vectors = template_world()
    ctx = context(rulings, vectors)
    english = [r for r in rulings if r.lang == "en"]
    targets = [r for r in rulings if r.lang == "es"]
    assert len(SourcePool.build(ctx, english).members) > 64 * 11  # the grouped selection

    at_once = SourcePool.build(ctx, english)
    at_once.prepare(ctx, targets)
    one_by_one = SourcePool.build(ctx, english)
    for target in reversed(targets):
        one_by_one.prepare(ctx, [target])
    in_pairs = SourcePool.build(ctx, english)
    for k in range(0, len(targets), 2):
        in_pairs.prepare(ctx, targets[k : k + 2])

    assert at_once._neighbours == one_by_one._neighbours == in_pairs._neighbours
    wanted = 11
    for item in targets + [r for r in english if r.id in at_once._neighbours]:
        expected = brute_neighbours(at_once, vectors[ctx.row[item.id]], wanted)
        assert at_once._neighbours[item.id] == expected


def test_a_pool_read_a_block_at_a_time_finds_what_its_copy_finds(monkeypatch):
    """The pool's vectors are the run's, read a block at a time until enough queries make a
    copy worth its memory: neither the blocks nor the moment of the copy change a neighbour,
    and a pool that searched a few chunks holds no copy."""
    from pipelines.align import card_rulings

    rulings, vectors = template_world(seed=3)
    ctx = context(rulings, vectors)
    english = [r for r in rulings if r.lang == "en"]
    targets = [r for r in rulings if r.lang == "es"]

    monkeypatch.setattr(card_rulings, "GATHERS_BEFORE_COPY", 0)
    copied = SourcePool.build(ctx, english)
    copied.prepare(ctx, targets)
    assert copied._copy is not None

    monkeypatch.setattr(card_rulings, "GATHER_TEXTS", 97)  # blocks that do not divide the pool
    monkeypatch.setattr(card_rulings, "GATHERS_BEFORE_COPY", 3)
    monkeypatch.setattr(card_rulings, "BLOCK_CELLS", 40 * len(copied.members))  # 40 per chunk
    blocks = SourcePool.build(ctx, english)
    blocks.prepare(ctx, targets[:40])
    assert blocks._copy is None and blocks.vectors is ctx.vectors
    for k in range(40, len(targets), 7):
        blocks.prepare(ctx, targets[k : k + 7])
    assert blocks._copy is not None  # the fourth chunk on
    assert blocks._neighbours == copied._neighbours


def test_the_english_of_a_translated_card_is_prepared_with_its_translations():
    rulings, vectors = template_world()
    ctx = context(rulings, vectors)
    english = [r for r in rulings if r.lang == "en"]
    pool = SourcePool.build(ctx, english)
    target = next(r for r in rulings if r.lang == "es")
    pool.prepare(ctx, [target])
    own = [r for r in english if r.card == target.card]
    assert own and all(r.id in pool._neighbours for r in own)
    untouched = next(r for r in english if r.card == "Card 1")
    assert untouched.id not in pool._neighbours


# --------------------------------------------------------------------------------------
# Symbols, words, versions
# --------------------------------------------------------------------------------------


def test_same_symbols_is_the_share_of_the_tokens_either_has():
    texts = [
        "Suspend 4—{1}{U}",
        "Suspendido 4—{1}{U}",
        "Target creature gets +1/+1 and +1/+1.",
        "La criatura objetivo obtiene +1/+1.",
        "No symbols at all.",
        "{T}: Add {G}{G}. See rule 702.62a.",
        "{T}: Agrega {G}. Mira la regla 702.62a.",
    ]
    sources = [ruling(f"en/a.txt:{k}", t, "en", card="A", doc="en/a") for k, t in enumerate(texts)]
    targets = [ruling(f"es/a.txt:{k}", t, "es", card="A", doc="es/a") for k, t in enumerate(texts)]

    def bag(text):
        return Counter(
            f"{kind}:{t}" for kind, found in tokens(text).items() for t in found.elements()
        )

    expected = np.zeros((len(texts), len(texts)))
    for i, s in enumerate(texts):
        for j, t in enumerate(texts):
            union = sum((bag(s) | bag(t)).values())
            if union:
                expected[i, j] = sum((bag(s) & bag(t)).values()) / union
    assert _same_symbols(sources, targets).tobytes() == expected.tobytes()
    no_symbols = [sources[4]]
    assert not _same_symbols(no_symbols, targets).any()


WORDS = st.lists(st.sampled_from(["a", "the", "card", "spell", "exile", "it", "you", "b"]))


@settings(max_examples=examples(300), deadline=None)
@given(left=WORDS, right=WORDS, minimum=st.sampled_from([0.0, 0.3, 0.5, 0.9, 1.0]))
def test_shares_words_is_shared_words_at_least(left, right, minimum):
    expected = difflib.SequenceMatcher(a=left, b=right, autojunk=False).ratio() >= minimum
    assert shares_words(left, right, minimum) == expected
    assert (shared_words(" ".join(left), " ".join(right)) >= minimum) == (
        shares_words(left, right, minimum) if all(left + right) else expected
    )


def old_newer_among(versions: Versions, source: Ruling, candidates: list[Ruling]):
    """``Versions.newer_among`` as it was written first: every candidate checked, the
    most similar kept."""
    ctx = versions.ctx
    indices = sorted({versions._by_id[r.id] for r in candidates if r.id in versions._by_id})
    if not source.date or not indices:
        return None
    similarity = ctx.vectors[versions._rows[indices]] @ ctx.vectors[ctx.vector_row[source.id]]
    text = template_text(source)
    found = [
        (float(similarity[k]), versions.english[i].id)
        for k, i in enumerate(indices)
        if versions.english[i].date > source.date
        and similarity[k] >= NEWER_VERSION_SIMILARITY
        and template_text(versions.english[i]) != text
        and shared_words(text, template_text(versions.english[i])) >= NEWER_VERSION_WORDS
    ]
    return max(found)[1] if found else None


def test_newer_among_is_the_most_similar_newer_version():
    rng = np.random.default_rng(3)
    wordings = [
        "If a spell with suspend is cast, it has haste.",
        "If a creature spell with suspend is cast, the creature has haste.",
        "When the last time counter is removed, you may cast it without paying its mana cost.",
        "When the last time counter is removed from it, cast it without paying its mana cost.",
        "A spell with suspend cast this way has haste.",
        "Something else entirely.",
    ]
    english = []
    for k in range(60):
        text = wordings[int(rng.integers(0, len(wordings)))]
        date = f"20{10 + int(rng.integers(0, 12))}-06-01"
        card, doc = f"C{k % 7}", f"en/{k % 7}"
        english.append(ruling(f"en/x.txt:{k}", text, "en", card=card, doc=doc, date=date))
    groups = unit(rng.standard_normal((3, 16)))[[0, 0, 1, 1, 0, 2]]  # rewordings are close
    base = unit(groups + 0.08 * rng.standard_normal((len(wordings), 16)))
    noise = 0.05 * rng.standard_normal((len(english), 16))
    vectors = unit(base[[wordings.index(r.text) for r in english]] + noise)
    ctx = context(english, vectors)
    versions = Versions(ctx, english)
    found = 0
    for source in english:
        for _ in range(5):
            picked = [english[int(i)] for i in rng.choice(len(english), 6, replace=False)]
            expected = old_newer_among(versions, source, picked)
            assert versions.newer_among(source, picked) == expected
            found += expected is not None
    assert found > 20


# --------------------------------------------------------------------------------------
# Better sources: the quick look never hides one
# --------------------------------------------------------------------------------------


def with_similarity(to: np.ndarray, value: float, rng) -> np.ndarray:
    """A unit vector whose cosine with the unit vector ``to`` is ``value``."""
    other = rng.standard_normal(to.shape)
    other -= (other @ to) * to
    other /= np.linalg.norm(other)
    return value * to + np.sqrt(1 - value * value) * other


def test_the_quick_look_keeps_every_translation_with_a_better_source():
    rng = np.random.default_rng(7)
    dim = 64
    rulings, vectors, contested = [], [], []
    margin = MARGIN.default
    edges = [MIN_RIVAL_SIMILARITY.default, UNPAIRED_MIN_SIMILARITY, 0.7 + margin, 0.8 + margin]
    for k in range(400):
        target = unit(rng.standard_normal((1, dim)))[0]
        mine = float(rng.choice([0.5, 0.7, 0.8, 0.9]))
        near = float(rng.choice(edges)) + float(rng.choice([-2e-5, -1e-6, 0.0, 1e-6, 2e-5]))
        values = [mine, near, *rng.uniform(0.0, 0.9, size=int(rng.integers(0, 4)))]
        group = [target] + [with_similarity(target, min(v, 0.9999), rng) for v in values]
        made = [
            ruling(f"es/{k}.txt:0", f"t{k}", "es", card=f"C{k}", doc=f"es/{k}"),
            *(
                ruling(f"en/{k}.txt:{n}", f"s{k}.{n}", "en", card=f"C{k}", doc=f"en/{k}")
                for n in range(len(values))
            ),
        ]
        rulings += made
        vectors += group
        paired = k % 3 != 0
        own = made[1] if paired else None
        row = Alignment(own.id if own else None, made[0].id, "es", 0.9, "embedding", mine, "g")
        contested.append((row, made[0], own, made[2:] if paired else made[1:]))
    ctx = context(rulings, np.asarray(vectors, dtype=np.float32))
    slack = _slack(ctx)
    kept = {id(row) for row, *item in contested if _may_be_better(ctx, *item, slack)}
    pool = SourcePool.build(ctx, [r for r in rulings if r.lang == "en"])
    marked = 0
    for row, target, own, rivals in contested:
        _better_rival(ctx, row, target, own, rivals, pool)
        if row.better_source is not None:
            marked += 1
            assert id(row) in kept
    assert marked > 50
    assert len(kept) < len(contested)


@pytest.mark.slow
def test_better_sources_found_a_document_at_a_time_are_the_same():
    """``find_better_sources`` reads only a row's own document and the sources, so it can run
    on each document's rows (and be kept with them) instead of on all rows at once."""
    rng = np.random.default_rng(11)
    rulings, vectors = [], []
    for c in range(60):
        card = f"Card {c}"
        base = unit(rng.standard_normal((4, 24)))
        for k in range(4):
            rulings.append(
                ruling(f"en/{c}.txt:{k}", f"Rule {c}.{k}.", "en", card=card, doc=f"en/{c}")
            )
            vectors.append(base[k])
        for lang in ("es", "zh"):
            for k in range(4):
                # Some translations are another line of the card's (a line pasted twice).
                line = (k + 1) % 4 if (c + k) % 7 == 0 else k
                rulings.append(
                    ruling(
                        f"{lang}/{c}.txt:{k}", f"{lang} {c}.{k}", lang, card=card, doc=f"{lang}/{c}"
                    )
                )
                vectors.append(base[line] + 0.4 * rng.standard_normal(24) / np.sqrt(24))
    vectors = unit(np.asarray(vectors))
    by_text = {r.text: v for r, v in zip(rulings, vectors, strict=True)}
    nothing = np.zeros(vectors.shape[1], dtype=np.float32)
    rows = align(rulings, lambda texts: np.array([by_text.get(t, nothing) for t in texts]))
    ctx = context(rulings, vectors)
    english = [r for r in rulings if r.lang == "en"]
    own_by_card: dict[str, list[Ruling]] = {}
    for item in english:
        own_by_card.setdefault(item.card, []).append(item)

    def fresh():
        found = [copy.copy(row) for row in rows]
        for row in found:
            row.better_source = row.better_similarity = None
        return found

    at_once = fresh()
    find_better_sources(ctx, at_once, SourcePool.build(ctx, english), own_by_card)
    by_document = fresh()
    pool = SourcePool.build(ctx, english)
    documents: dict[str | None, list[Alignment]] = {}
    for row in by_document:
        doc = ctx.by_id[row.target_id].doc if row.target_id else None
        documents.setdefault(doc, []).append(row)
    for part in documents.values():
        find_better_sources(ctx, part, pool, own_by_card)
    assert [(r.better_source, r.better_similarity) for r in at_once] == [
        (r.better_source, r.better_similarity) for r in by_document
    ]
    assert any(r.better_source for r in at_once)
