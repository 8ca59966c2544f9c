"""Align a bilingual file's translations as the file pairs them (method ``given``), verified.

A CAT file (XLIFF, TMX, PO) says which source each translation translates: every target row
names its source row (``counterpart``). The pairing is kept, but scored: the similarity of
the pair and its margin over the best competing pair among the units near it (a target that
matches a neighbouring unit's source better than its own has a negative margin), through
the calibration of pairs matched by an identifier (rule numbers), so a misaligned segment
gets a low score. A target still in the source language
is ``untranslated``; a source no target of the document translates is ``no-translation``.
"""

from __future__ import annotations

import numpy as np

from ..model import Alignment, Ruling
from ..vocabulary import Method
from .calibration import calibrated
from .context import AlignContext

WINDOW = 25
"""Units on each side of a pair that its margin is measured against: a misaligned segment
is shifted by a few units, never across a whole file (which would cost n² products)."""
BLOCK = 200
"""Targets scored together in one matrix product."""


def has_counterparts(members: list[Ruling]) -> bool:
    return any(member.counterpart for member in members)


def align_given(ctx: AlignContext, members: list[Ruling], embedder: str) -> list[Alignment]:
    """The rows of one target document of a bilingual file."""
    lang = members[0].doc_lang
    group = members[0].file
    sources = _source_documents(ctx, members)
    order = {item.id: index for index, item in enumerate(sources)}
    paired = [m for m in members if m.counterpart in order]
    similarity, margin = _scores(ctx, sources, paired, order)
    rows = []
    for index, target in enumerate(paired):
        source_id = target.counterpart
        if target.lang == ctx.source_lang:
            method, score = Method.UNTRANSLATED, 0.0
        else:
            method = Method.GIVEN
            score = calibrated(similarity[index], margin[index], Method.RULE, embedder)
        rows.append(
            Alignment(
                source_id=source_id,
                target_id=target.id,
                lang=lang,
                score=score,
                method=str(method),
                similarity=round(similarity[index], 4),
                group=group,
            )
        )
    rows.extend(
        Alignment(None, m.id, lang, 0.0, str(Method.NO_SOURCE), None, group)
        for m in members
        if m.counterpart not in order
    )
    translated = {m.counterpart for m in paired}
    rows.extend(
        Alignment(s.id, None, lang, 0.0, str(Method.NO_TRANSLATION), None, group)
        for s in sources
        if s.id not in translated
    )
    return rows


def _source_documents(ctx: AlignContext, members: list[Ruling]) -> list[Ruling]:
    """The units of the source documents the targets point into, in file order."""
    docs = sorted(
        {ctx.rulings[ctx.row[m.counterpart]].doc for m in members if m.counterpart in ctx.row}
    )
    return [item for doc in docs for item in ctx.documents.get(doc, [])]


def _scores(
    ctx: AlignContext, sources: list[Ruling], targets: list[Ruling], order: dict[str, int]
) -> tuple[list[float], list[float]]:
    """Similarity of each target with its own source, and its margin: how much more similar
    the pair is than the best competing pair nearby (the target with another source, or the
    source with another translated target), negative when another unit fits better. Targets go in
    blocks, each against the sources within WINDOW of its own ones and the targets within
    WINDOW of it."""
    similarity, margin = [], []
    for start in range(0, len(targets), BLOCK):
        block = targets[start : start + BLOCK]
        own = [order[t.counterpart] for t in block]
        near_sources = sorted(
            {i for o in own for i in range(max(0, o - WINDOW), min(len(sources), o + WINDOW + 1))}
        )
        first, last = max(0, start - WINDOW), min(len(targets), start + len(block) + WINDOW)
        near_targets = targets[first:last]
        matrix = ctx.matrix([sources[i] for i in near_sources], near_targets)
        rivals = matrix.copy()
        rivals[:, [t.lang == ctx.source_lang for t in near_targets]] = -1.0
        row_of = {index: row for row, index in enumerate(near_sources)}
        for offset, index in enumerate(own):
            row, column = row_of[index], start + offset - first
            value = float(matrix[row, column])
            others = [*np.delete(matrix[:, column], row), *np.delete(rivals[row, :], column)]
            similarity.append(value)
            margin.append(value - float(max(others)) if others else 0.0)
    return similarity, margin
