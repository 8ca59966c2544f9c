"""Translation families: the translations, across documents and languages, of one ruling.

A family is named after an English ruling: every translation aligned with that text (on any
card: the suspend rulings repeat) joins it. Translations with no English source in the input
are grouped with each other when they clearly translate the same ruling (a very close
paraphrase in the same language, or a mutual best cross-lingual match between two
documents), so that two Spanish versions of a ruling are compared even without the English.
The inconsistent-translation and date checks read the families.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..model import Alignment, id_order
from ..vocabulary import Method
from .context import AlignContext
from .versions import Versions

SAME_LANGUAGE_SIMILARITY = 0.85
CROSS_LANGUAGE_SIMILARITY = 0.60
CHUNK = 2048


def assign_families(ctx: AlignContext, rows: list[Alignment], versions: Versions) -> None:
    """Set ``family`` on every row with a translation (and ``superseded_by`` on pairs)."""
    representative = _english_representatives(ctx, versions)
    orphans: list[Alignment] = []
    says_several = {row.target_id for row in rows if row.method == Method.MERGED}
    for row in rows:
        if row.target_id is None:
            continue
        if row.target_id in says_several:
            row.family = None  # a paragraph that says several lines translates none alone
            continue
        if row.source_id is not None:
            source = ctx.rulings[ctx.row[row.source_id]]
            row.family = representative.get(versions.template(source), source.id)
        else:
            orphans.append(row)
    _group_orphans(ctx, orphans)
    for row in rows:
        if row.source_id and row.target_id and row.method != Method.UNTRANSLATED:
            if row.target_id in says_several:
                continue
            row.superseded_by = _followed_old_version(ctx, row, versions)


def _english_representatives(ctx: AlignContext, versions: Versions) -> dict[str, str]:
    """Template text -> the first English ruling with it (natural id order). Only the ids of
    a text several rulings share are put in that order (most texts are one ruling's: on a
    million units, sorting every English ruling took 2.3 s profiled)."""
    with_text: dict[str, list[str]] = defaultdict(list)
    for item in ctx.rulings:
        if ctx.is_source(item):
            with_text[versions.template(item)].append(item.id)
    return {
        text: ids[0] if len(ids) == 1 else min(ids, key=id_order) for text, ids in with_text.items()
    }


def _group_orphans(ctx: AlignContext, orphans: list[Alignment]) -> None:
    """Join translations without a source that translate the same ruling.

    Two documents share a ruling at most once: between each pair of documents, candidate
    matches (a close paraphrase in the same language, or a mutual nearest neighbour across
    languages) are taken best first, each unit matching at most one unit of the other
    document, so that the rulings of two cards about the same mechanic do not chain into one
    family. Untranslated rows (English left in a translation) join no family: they are not
    translations."""
    rows = [row for row in orphans if row.method != Method.UNTRANSLATED]
    for row in orphans:
        if row.method == Method.UNTRANSLATED:
            row.family = None
    targets = [ctx.rulings[ctx.row[row.target_id]] for row in rows]
    if not targets:
        return
    parent = list(range(len(targets)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    vectors = ctx.vectors[[ctx.vector_row[t.id] for t in targets]]
    docs = [t.doc for t in targets]
    langs = np.array([t.lang or "" for t in targets], dtype=object)
    candidates: list[tuple[float, int, int]] = []
    for start in range(0, len(targets), CHUNK):
        block = np.round(vectors[start : start + CHUNK] @ vectors.T, 5)
        rows_found, columns = np.nonzero(block >= SAME_LANGUAGE_SIMILARITY)
        for i, j in zip(rows_found + start, columns, strict=True):
            if i < j and docs[i] != docs[j] and langs[i] == langs[j]:
                candidates.append((float(block[i - start, j]), int(i), int(j)))
    for i, j in _mutual_best_across_languages(vectors, langs):
        candidates.append((float(vectors[i] @ vectors[j]), min(i, j), max(i, j)))
    matched: set[tuple[int, str]] = set()
    for _, i, j in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        if (i, docs[j]) in matched or (j, docs[i]) in matched:
            continue
        matched.update({(i, docs[j]), (j, docs[i])})
        a, b = find(i), find(j)
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(targets)):
        groups[find(i)].append(i)
    for members in groups.values():
        name = min((targets[i].id for i in members), key=id_order)
        for i in members:
            rows[i].family = name


def _mutual_best_across_languages(vectors: np.ndarray, langs: np.ndarray) -> list[tuple[int, int]]:
    """Pairs of translations into two languages that are each other's nearest neighbour in
    the other language, and close enough to be the same ruling."""
    found = []
    for lang_a in sorted(set(langs)):
        for lang_b in sorted(set(langs)):
            if lang_a >= lang_b:
                continue
            rows_a = np.flatnonzero(langs == lang_a)
            rows_b = np.flatnonzero(langs == lang_b)
            best_b, score_b = _nearest(vectors[rows_a], vectors[rows_b])
            best_a, _ = _nearest(vectors[rows_b], vectors[rows_a])
            for i, j in enumerate(best_b):
                if best_a[j] == i and score_b[i] >= CROSS_LANGUAGE_SIMILARITY:
                    found.append((int(rows_a[i]), int(rows_b[j])))
    return found


def _nearest(queries: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index and similarity of each query's nearest candidate, in chunks."""
    best = np.zeros(len(queries), dtype=np.int64)
    score = np.zeros(len(queries), dtype=np.float32)
    for start in range(0, len(queries), CHUNK):
        block = queries[start : start + CHUNK] @ candidates.T
        best[start : start + CHUNK] = block.argmax(axis=1)
        score[start : start + CHUNK] = block.max(axis=1)
    return best, score


def _followed_old_version(ctx: AlignContext, row: Alignment, versions: Versions) -> str | None:
    """The newer English version, when the translation matches the older one better."""
    newer = versions.newer(ctx.rulings[ctx.row[row.source_id]])
    if newer is None:
        return None
    target = ctx.vectors[ctx.vector_row[row.target_id]]
    old_similarity = float(ctx.vectors[ctx.vector_row[row.source_id]] @ target)
    new_similarity = float(ctx.vectors[ctx.vector_row[newer]] @ target)
    return newer if old_similarity > new_similarity else None
