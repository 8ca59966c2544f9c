"""Align a translated rules document with its English source, in order.

Rule numbers pair units directly (method ``rule``); everything else (units without numbers,
or a translation whose numbers were lost) is paired by order and cross-lingual similarity
(``order+embedding``). Source units inside the stretch the translation covers that find no
partner are missing translations; target units with no partner are extra.
"""

from __future__ import annotations

from collections import Counter

from ..model import Alignment, Ruling
from . import kept_scan
from .calibration import calibrated
from .context import AlignContext
from .margin import BlockScores, MatrixScores, Scores
from .sequence import Pair, align_ordered

METHODS = {
    "key": "rule",
    "anchor": "order+embedding",
    "gap": "order+embedding",
    "reorder": "embedding",
}


def unit_keys(members: list[Ruling]) -> dict[tuple, int]:
    """(kind, section, n-th of that kind and section) -> position, for numbered units."""
    seen: Counter[tuple] = Counter()
    keys = {}
    for position, item in enumerate(members):
        if item.section is None:
            continue
        base = (item.kind, item.section)
        keys[(*base, seen[base])] = position
        seen[base] += 1
    return keys


def shared_keys(source: list[Ruling], target: list[Ruling]) -> int:
    return len(unit_keys(source).keys() & unit_keys(target).keys())


def depth(section: str | None) -> int:
    if not section:
        return 0
    parts = section.split(".")
    return len(parts) + (1 if parts[-1][-1:].isalpha() else 0)


def align_document(
    ctx: AlignContext, source: list[Ruling], target: list[Ruling], embedder: str
) -> list[Alignment]:
    lang = target[0].doc_lang
    group = source[0].doc
    source_keys, target_keys = unit_keys(source), unit_keys(target)
    fixed = [
        (source_keys[k], target_keys[k]) for k in sorted(source_keys.keys() & target_keys.keys())
    ]
    scores = document_scores(ctx, source, target)
    versions = {source[0].doc_version, target[0].doc_version}
    if None not in versions and len(versions) > 1:
        fixed = same_text_keys(scores, fixed)
    pairs = in_sequence(align_ordered(scores, fixed))
    rows = []
    paired_sources, paired_targets = set(), set()
    for pair in pairs:
        src, tgt = source[pair.source], target[pair.target]
        paired_sources.add(pair.source)
        paired_targets.add(pair.target)
        method = METHODS[pair.anchored_by]
        if tgt.lang == ctx.source_lang:
            method = "untranslated"
        rows.append(
            Alignment(
                source_id=src.id,
                target_id=tgt.id,
                lang=lang,
                score=calibrated(pair.similarity, pair.margin, method, embedder),
                method=method,
                similarity=round(pair.similarity, 4),
                group=group,
            )
        )
    rows.extend(_missing(source, target, paired_sources, lang, group))
    rows.extend(
        Alignment(None, item.id, lang, 0.0, "no-source", None, group)
        for position, item in enumerate(target)
        if position not in paired_targets
    )
    return rows


KEY_MIN_SIMILARITY = 0.5
KEY_NEIGHBOURS = 12
"""Between releases rule numbers move (the 2023 rules renumbered 210-211 and all of 712-714):
a translation of another release than its source keeps a rule-number pair only when it
looks like the same text, at least this similar and the closest of the units this near on
both sides; the other units are paired by order and similarity."""


def _same_text(similarity, s: int, t: int) -> bool:
    value = similarity[s, t]
    rows = similarity[max(0, s - KEY_NEIGHBOURS) : s + KEY_NEIGHBOURS + 1, t]
    columns = similarity[s, max(0, t - KEY_NEIGHBOURS) : t + KEY_NEIGHBOURS + 1]
    return value >= KEY_MIN_SIMILARITY and value >= rows.max() and value >= columns.max()


def same_text_keys(scores: Scores, fixed: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The rule-number pairs that pass ``_same_text``, each read in a rectangle of the
    similarities around it: pairs taken by source, as many in one rectangle as
    ``scores.tile_cells`` allows (a rectangle starting KEY_NEIGHBOURS before the first, or
    at 0, gives ``_same_text`` the same slices as the whole matrix)."""
    n_source, n_target = scores.shape
    kept: set[tuple[int, int]] = set()
    run: list[tuple[int, int]] = []
    box = (0, 0, 0, 0)  # the rectangle of the run's neighbourhoods

    def widened(s: int, t: int) -> tuple[int, int, int, int]:
        low = (max(0, s - KEY_NEIGHBOURS), max(0, t - KEY_NEIGHBOURS))
        high = (min(n_source, s + KEY_NEIGHBOURS + 1), min(n_target, t + KEY_NEIGHBOURS + 1))
        if not run:
            return low[0], high[0], low[1], high[1]
        return min(box[0], low[0]), max(box[1], high[0]), min(box[2], low[1]), max(box[3], high[1])

    def flush() -> None:
        s0, s1, t0, t1 = box
        similarity = scores.similarity(s0, s1, t0, t1)
        kept.update((s, t) for s, t in run if _same_text(similarity, s - s0, t - t0))
        run.clear()

    for s, t in sorted(set(fixed)):
        bigger = widened(s, t)
        if run and (bigger[1] - bigger[0]) * (bigger[3] - bigger[2]) > scores.tile_cells:
            flush()
            bigger = widened(s, t)
        run.append((s, t))
        box = bigger
    if run:
        flush()
    return [pair for pair in fixed if pair in kept]


FULL_MATRIX_CELLS = 25_000_000
"""A document pair up to this many cells (the Comprehensive Rules are 4,150 x 4,150 units,
17 million) is aligned on its whole similarity matrix (about 20 bytes a cell at the peak,
with its margins); a longer one on blocks of it (BlockScores: memory linear in its length,
the same alignment)."""


def document_scores(ctx: AlignContext, source: list[Ruling], target: list[Ruling]) -> Scores:
    if len(source) * len(target) <= FULL_MATRIX_CELLS:
        return MatrixScores(ctx.matrix(source, target))
    kept = kept_scan.slot(source[0].doc, target[0].doc)
    return BlockScores(ctx.vectors_of(source), ctx.vectors_of(target), kept=kept)


MAX_JUMP = 30
"""Consecutive units of a translation whose sources lie further apart than this are in
different stretches of the source."""
MIN_STRETCH = 3
"""A stretch of fewer pairs than this, none fixed by its rule number, is a doubtful match
(a summary item the source release does not have, paired with a far-away rule), not a part
of the source the translation covers."""


def in_sequence(pairs: list[Pair]) -> list[Pair]:
    """The pairs that belong to a stretch of the source the translation follows: taken in
    the translation's order, pairs are cut into stretches wherever the source jumps more
    than MAX_JUMP units; a short stretch with no rule-number pair is left out, and its units
    stay unpaired."""
    if not pairs:
        return []
    ordered = sorted(pairs, key=lambda p: p.target)
    stretches: list[list[Pair]] = [[ordered[0]]]
    for pair in ordered[1:]:
        if abs(pair.source - stretches[-1][-1].source) > MAX_JUMP:
            stretches.append([])
        stretches[-1].append(pair)
    kept = [
        pair
        for stretch in stretches
        if len(stretch) >= MIN_STRETCH or any(p.anchored_by == "key" for p in stretch)
        for pair in stretch
    ]
    return sorted(kept, key=lambda p: (p.source, p.target))


def _missing(
    source: list[Ruling], target: list[Ruling], paired: set[int], lang: str | None, group: str
) -> list[Alignment]:
    """Source units the translation should have had: inside the stretch of the source its
    pairs cover, of a kind and rule depth the translation uses (a section summary does not
    miss sub-rules)."""
    if not paired:
        return []
    first, last = min(paired), max(paired)
    numbered = any(item.section for item in target)
    expected = {(item.kind, depth(item.section)) for item in target}
    return [
        Alignment(item.id, None, lang, 0.0, "no-translation", None, group)
        for position, item in enumerate(source)
        if first <= position <= last
        and position not in paired
        and (not numbered or (item.kind, depth(item.section)) in expected)
    ]
