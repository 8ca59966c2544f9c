"""Align a card's translated rulings with English rulings: 1-1, unordered.

Candidates are the card's own English rulings and, because many rulings are the same text on
many cards (all the suspend rulings), the nearest English rulings of other cards (method
``template``). Each pair is scored by similarity, margin (how much it stands out from the
other neighbours), the same date (a strong prior) and own card over template; an optimal
assignment makes the pairs 1-1, so near-duplicate rulings cannot swap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..model import Alignment, Ruling
from .calibration import calibrated
from .context import AlignContext
from .margin import margin_scores

MIN_SIMILARITY = 0.30
"""Below this cross-lingual similarity two rulings are never the same ruling."""
ACCEPT_SCORE = 0.5
"""A pair is kept when its calibrated score says it is more likely right than wrong."""
SAME_DATE_BONUS = 0.08
OWN_CARD_BONUS = 0.04
MARGIN_WEIGHT = 0.5
TEMPLATE_NEIGHBOURS = 3
SUPERSEDED_SIMILARITY = 0.80
"""A newer English ruling at least this similar replaces an older one (not missing)."""
UNTRANSLATED_MIN_SIMILARITY = 0.80
CHUNK = 2048


@dataclass
class SourcePool:
    """Every English card ruling, de-duplicated by (text, date): the template candidates."""

    rulings: list[Ruling]
    vectors: np.ndarray

    @classmethod
    def build(cls, ctx: AlignContext, english: list[Ruling]) -> SourcePool:
        chosen: dict[tuple[str, str | None], Ruling] = {}
        for item in english:
            key = (template_text(item), item.date)
            chosen.setdefault(key, item)
        rulings = list(chosen.values())
        rows = [ctx.row[r.id] for r in rulings]
        vectors = ctx.vectors[rows] if rows else np.zeros((0, ctx.vectors.shape[1]), np.float32)
        return cls(rulings, vectors)

    def nearest(self, queries: np.ndarray, k: int, exclude_docs: set[str]) -> list[list[int]]:
        """Indices of the k most similar pool rulings for each query vector."""
        if not self.rulings:
            return [[] for _ in range(len(queries))]
        allowed = np.array([r.doc not in exclude_docs for r in self.rulings])
        found = []
        for start in range(0, len(queries), CHUNK):
            scores = queries[start : start + CHUNK] @ self.vectors.T
            scores[:, ~allowed] = -np.inf
            k_here = min(k, scores.shape[1])
            top = np.argpartition(-scores, k_here - 1, axis=1)[:, :k_here]
            for row, candidates in zip(scores, top, strict=True):
                ordered = sorted(candidates, key=lambda c: (-row[c], c))
                found.append([int(c) for c in ordered if np.isfinite(row[c])])
        return found


def template_text(ruling: Ruling) -> str:
    """The ruling's text with its own card's name replaced: the same ruling on any card."""
    text = ruling.text
    if ruling.card:
        text = text.replace(ruling.card, "\u2063CARD\u2063")
    return " ".join(text.casefold().split())


def align_card_document(
    ctx: AlignContext,
    members: list[Ruling],
    own_sources: list[Ruling],
    pool: SourcePool,
    embedder: str,
) -> list[Alignment]:
    """Pairs for the translated rulings of one document, plus what is missing or extra."""
    lang = members[0].doc_lang
    group = members[0].card or members[0].doc
    doc_ids = {members[0].doc}
    targets = [r for r in members if ctx.is_target(r)]
    strays = [r for r in members if ctx.is_source(r)]
    rows = [_untranslated(ctx, stray, own_sources, pool, lang, group) for stray in strays]
    if not targets:
        return rows
    candidates = _candidates(ctx, targets, own_sources, pool, doc_ids)
    own = {r.id for r in own_sources}
    similarity = ctx.matrix(candidates, targets)
    margin = margin_scores(similarity)
    bonus = np.zeros_like(similarity)
    for i, source in enumerate(candidates):
        bonus[i] += OWN_CARD_BONUS if source.id in own else 0.0
        for j, target in enumerate(targets):
            if source.date and source.date == target.date:
                bonus[i, j] += SAME_DATE_BONUS
    combined = similarity + MARGIN_WEIGHT * margin + bonus
    source_index, target_index = linear_sum_assignment(-combined) if candidates else ([], [])
    paired_targets, paired_sources = set(), set()
    for i, j in zip(source_index, target_index, strict=True):
        source, target = candidates[i], targets[j]
        if source.id in own:
            method = "date+embedding" if source.date and source.date == target.date else "embedding"
        else:
            method = "template"
        score = calibrated(float(similarity[i, j]), float(margin[i, j]), method, embedder)
        if similarity[i, j] < MIN_SIMILARITY or score < ACCEPT_SCORE:
            continue
        paired_targets.add(j)
        paired_sources.add(source.id)
        rows.append(
            Alignment(
                source_id=source.id,
                target_id=target.id,
                lang=lang,
                score=score,
                method=method,
                similarity=round(float(similarity[i, j]), 4),
                group=group,
            )
        )
    rows.extend(
        Alignment(None, target.id, lang, 0.0, "no-source", None, group)
        for j, target in enumerate(targets)
        if j not in paired_targets
    )
    rows.extend(
        Alignment(source.id, None, lang, 0.0, "no-translation", None, group)
        for source in own_sources
        if source.id not in paired_sources and not _superseded(ctx, source, pool)
    )
    return rows


def _candidates(
    ctx: AlignContext,
    targets: list[Ruling],
    own_sources: list[Ruling],
    pool: SourcePool,
    exclude_docs: set[str],
) -> list[Ruling]:
    queries = ctx.vectors[[ctx.row[t.id] for t in targets]]
    chosen = {r.id: r for r in own_sources}
    for neighbours in pool.nearest(queries, TEMPLATE_NEIGHBOURS, exclude_docs):
        for index in neighbours:
            candidate = pool.rulings[index]
            chosen.setdefault(candidate.id, candidate)
    return sorted(chosen.values(), key=lambda r: ctx.row[r.id])


def _superseded(ctx: AlignContext, source: Ruling, pool: SourcePool) -> bool:
    """Whether a newer English ruling says nearly the same thing (so this one is not due)."""
    if not source.date or not pool.rulings:
        return False
    similarity = pool.vectors @ ctx.vectors[ctx.row[source.id]]
    return any(
        similarity[i] >= SUPERSEDED_SIMILARITY and newer.date and newer.date > source.date
        for i, newer in enumerate(pool.rulings)
    )


def _untranslated(
    ctx: AlignContext,
    stray: Ruling,
    own_sources: list[Ruling],
    pool: SourcePool,
    lang: str | None,
    group: str,
) -> Alignment:
    """A source-language ruling standing in a translation: paired with the English ruling
    it copies, if there is one, but marked ``untranslated`` and never scored as a good
    translation."""
    candidates = {r.id: r for r in [*own_sources, *pool.rulings] if r.doc != stray.doc}
    ordered = sorted(candidates.values(), key=lambda r: ctx.row[r.id])
    similarity = ctx.matrix(ordered, [stray])[:, 0] if ordered else np.zeros(0)
    best = int(np.argmax(similarity)) if len(similarity) else -1
    found = best >= 0 and similarity[best] >= UNTRANSLATED_MIN_SIMILARITY
    return Alignment(
        source_id=ordered[best].id if found else None,
        target_id=stray.id,
        lang=lang,
        score=0.0,
        method="untranslated",
        similarity=round(float(similarity[best]), 4) if found else None,
        group=group,
    )
