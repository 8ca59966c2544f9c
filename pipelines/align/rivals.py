"""Swapped and misplaced translations: a translation that matches another source clearly
better than its own.

Every aligner pairs under constraints (rule numbers, order, one source per translation, a
file's own pairing), so a translation pasted onto the wrong card, rule or segment can end up
paired with the unit whose place it took, or with nothing. For each translation this pass
compares its own source with its rivals, the sources it could belong to instead: the other
units of its card (and the nearest rulings of other cards), or the units of its rules
document or file near its source (as in bitext mining, a rival must stand out by a margin).
The best rival that beats the pair's own similarity by ``MARGIN`` is recorded on the row
(``better_source``); a translation with no pair gets one when a rival matches it well. A
rival that says what the own source says (a rule restated in another section) is none.
"""

from __future__ import annotations

import numpy as np

from ..model import Alignment, Ruling
from ..text.card_text import is_reminder_line
from ..thresholds import ALIGN, threshold
from ..vocabulary import TRANSLATION_METHODS, Method
from .card_rulings import TEMPLATE_MIN_CARDS, SourcePool, covers_more, head_template
from .context import AlignContext, is_rules_unit

MARGIN = threshold(
    "align.better-source-margin",
    0.12,
    """MEAN002: how much closer another English unit must be to a translation than its own
    source for the translation to be taken for that unit's.""",
    stage=ALIGN,
    minimum=0,
    maximum=2,
)
MIN_RIVAL_SIMILARITY = threshold(
    "align.better-source-min-similarity",
    0.55,
    """MEAN002: the other English unit must itself be this close to the translation (a
    likely translation pair).""",
    stage=ALIGN,
    minimum=-1,
    maximum=1,
)
UNPAIRED_MIN_SIMILARITY = 0.60
"""A translation with no source is another unit's translation when close to it (and a copy
of a paired translation of its document always is)."""
UNPAIRED_TEMPLATE_MIN_SIMILARITY = 0.80
"""... but a text many cards share, which the aligner had among its candidates and did not
take, only when very close: a 2024 ruling on suspend is near every suspend ruling."""
SAME_MEANING = 0.85
"""A rival this close to the translation's own source says the same thing ("Damage dealt to
a battle causes…" in 120.3h, "…results in…" in 310.6): the translation cannot belong to it
more than to its own source."""
WINDOW = 8
"""Units of an ordered document on each side of the pair's source that are rivals."""
TEMPLATE_RIVALS = 3


def find_better_sources(
    ctx: AlignContext,
    rows: list[Alignment],
    pool: SourcePool,
    own_by_card: dict[str, list[Ruling]],
) -> None:
    """Set ``better_source`` and ``better_similarity`` on rows whose translation belongs
    elsewhere. A row's answer reads only the rows of its own document and the sources: the
    rows can be given a document at a time."""
    by_id = ctx.by_id
    sources_of_doc = ctx.sources_of
    position = ctx.source_position
    card_targets = [
        by_id[row.target_id]
        for row in rows
        if row.target_id and _is_card_row(row, by_id) and row.method != Method.UNTRANSLATED
    ]
    pool.prepare(ctx, card_targets)
    copies = _paired_texts(rows, by_id)
    slack = _slack(ctx)
    says_several = {row.target_id for row in rows if row.method == Method.MERGED}
    for row in rows:
        if not row.target_id or row.method == Method.UNTRANSLATED:
            continue
        if row.target_id in says_several:  # measured against its lines joined, not one
            continue
        target = by_id[row.target_id]
        own = by_id.get(row.source_id) if row.method in TRANSLATION_METHODS else None
        if own is None and (row.method != Method.NO_SOURCE or is_reminder_line(target)):
            continue
        copied = copies.get((target.doc, target.text))
        if (
            copied is not None
            and copied is not row
            and (
                own is None
                or (
                    _fits_worse(ctx, target, own, by_id[copied.source_id])
                    and float(ctx.matrix([own], [by_id[copied.source_id]])[0, 0]) < SAME_MEANING
                )
            )
        ):
            row.better_source = copied.source_id
            row.better_similarity = copied.similarity
            continue
        if own is not None and _another_cards_own_text(row, target, own, pool, own_by_card):
            row.better_source = own.id
            row.better_similarity = row.similarity
            continue
        rivals = _rivals(ctx, target, own, row, by_id, sources_of_doc, position, pool, own_by_card)
        rivals = [r for r in rivals if own is None or r.id != own.id]
        if rivals and _may_be_better(ctx, target, own, rivals, slack):
            _better_rival(ctx, row, target, own, rivals, pool)


def _better_rival(
    ctx: AlignContext,
    row: Alignment,
    target: Ruling,
    own: Ruling | None,
    rivals: list[Ruling],
    pool: SourcePool,
) -> None:
    """Record the best rival of a translation, when it matches the translation clearly better
    than its own source (or, unpaired, well enough)."""
    if own is not None:
        same = ctx.matrix(rivals, [own])[:, 0]
        rivals = [r for r, value in zip(rivals, same, strict=True) if value < SAME_MEANING]
    rivals = [r for r in rivals if not covers_more(target, r)]
    if not rivals:
        return
    similarity = ctx.matrix(rivals, [target])[:, 0]
    best = int(np.argmax(similarity))
    value = float(similarity[best])
    if own is not None:
        mine = float(ctx.matrix([own], [target])[0, 0])
        better = value >= ctx.threshold(MIN_RIVAL_SIMILARITY) and value >= mine + ctx.threshold(
            MARGIN
        )
    else:
        shared = pool.cards_with_text_of(rivals[best]) >= TEMPLATE_MIN_CARDS
        better = value >= (UNPAIRED_TEMPLATE_MIN_SIMILARITY if shared else UNPAIRED_MIN_SIMILARITY)
    if better:
        row.better_source = rivals[best].id
        row.better_similarity = round(value, 4)


SLACK = 1e-3
"""Well above what two computations of one similarity can differ by (float32 sums of 512
products of unit vectors differ by 1e-4 at worst, rounding to 5 decimals adds 1e-5);
scaled by the squared norm of the longest vector when the vectors are not unit vectors."""


def _slack(ctx: AlignContext) -> float:
    return SLACK * max(1.0, ctx.largest_square_norm)


def _may_be_better(
    ctx: AlignContext, target: Ruling, own: Ruling | None, rivals: list[Ruling], slack: float
) -> bool:
    """Whether a rival could beat the translation's own source, by a quick look at the
    similarities (one product, each within ``slack`` of the value ``_better_rival``
    computes): nearly every translation has none, whatever their exact values."""
    group = [own, *rivals] if own is not None else rivals
    values = (
        ctx.vectors[[ctx.vector_row[r.id] for r in group]] @ ctx.vectors[ctx.vector_row[target.id]]
    )
    if own is None:
        return float(values.max()) >= UNPAIRED_MIN_SIMILARITY - slack
    wanted = max(ctx.threshold(MIN_RIVAL_SIMILARITY), float(values[0]) + ctx.threshold(MARGIN))
    return float(values[1:].max()) >= wanted - slack


COPY_MARGIN = 0.05
"""A copy of another translation of its document needs less margin: the text is the same."""


def _fits_worse(ctx: AlignContext, target: Ruling, own: Ruling, other: Ruling) -> bool:
    """Whether a translation fits its own source clearly worse than another source."""
    mine, theirs = ctx.matrix([own, other], [target])[:, 0]
    return float(theirs) >= float(mine) + COPY_MARGIN


def _another_cards_own_text(
    row: Alignment,
    target: Ruling,
    source: Ruling,
    pool: SourcePool,
    own_by_card: dict[str, list[Ruling]],
) -> bool:
    """A translation in a card's document paired, as a template, with a text that only one
    other card has (not a ruling shared by many cards, such as the suspend rulings), while
    the card's own English is in the input: a line pasted from the other card. Not when the
    text is one of the card's own lines with reminder text ("Flash (You may cast…)" for the
    card's bare "Flash"): that is the card's own line."""
    own = own_by_card.get(target.card or "", [])
    return (
        row.method == Method.TEMPLATE
        and bool(target.card)
        and bool(own)
        and source.card not in (None, target.card)
        and pool.cards_with_text_of(source) == 1
        and head_template(source) not in {head_template(r) for r in own}
    )


def _paired_texts(rows: list[Alignment], by_id: dict[str, Ruling]) -> dict:
    """(document, text) -> the row that pairs a translation with that text best: another
    unit of the document with the same text (unpaired, or paired less well) is a copy of
    it, a line pasted twice."""
    found: dict[tuple[str, str], Alignment] = {}
    for row in rows:
        if row.source_id and row.target_id and row.method in TRANSLATION_METHODS:
            target = by_id[row.target_id]
            key = (target.doc, target.text)
            if key not in found or (row.similarity or 0) > (found[key].similarity or 0):
                found[key] = row
    return found


def _is_card_row(row: Alignment, by_id: dict[str, Ruling]) -> bool:
    """A row of card rulings or card text (the card may be one no card data names)."""
    target = by_id[row.target_id]
    return not is_rules_unit(target) and not target.counterpart


def _rivals(
    ctx: AlignContext,
    target: Ruling,
    own: Ruling | None,
    row: Alignment,
    by_id: dict[str, Ruling],
    sources_of_doc: dict[str, list[Ruling]],
    position: dict[str, int],
    pool: SourcePool,
    own_by_card: dict[str, list[Ruling]],
) -> list[Ruling]:
    if _is_card_row(row, by_id):
        own_units = own_by_card.get(target.card, []) if target.card else []
        if not own_units and row.group in sources_of_doc:  # paired with a document by content
            own_units = sources_of_doc[row.group]
        found = {r.id: r for r in own_units if r.doc != target.doc}
        for index in pool.nearest(ctx, [target], TEMPLATE_RIVALS, {target.doc})[0]:
            rival = pool.rulings[index]
            found.setdefault(rival.id, rival)
        return sorted(found.values(), key=lambda r: ctx.row[r.id])
    if own is None:
        return []
    at = position.get(own.id)
    if at is None:
        return []
    return sources_of_doc[own.doc][max(0, at - WINDOW) : at + WINDOW + 1]
