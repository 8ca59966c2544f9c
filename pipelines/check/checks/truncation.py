"""Truncation: text cut off with an ellipsis, or far shorter than its source."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...model import Mark, Ruling
from ...thresholds import CHECK, threshold
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lengths import length_share, usual_ratio
from ..registry import Problem, check

CUT = re.compile(r"(?:…|\.\.\.|\. \. \.)\s*$")
SENTENCE_END = re.compile(r"[.!?。！？][\"'”»」)）]*\s*(?:…|\.\.\.)$")
QUOTED_ELLIPSIS = re.compile(r"[\[\[]?\.\s?\.\s?\.[\]”\"»]")
SHORT_RATIO = threshold(
    "truncation.short-ratio",
    0.5,
    """TRUNC002: a translation shorter than this share of the usual length ratio of its
    language is too short.""",
    stage=CHECK,
    minimum=0,
    maximum=1,
)


@check("TRUNC001", scope=Scope.RULING)
def cut_off(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """The ruling ends with an ellipsis in the middle of a sentence ("…de modo que las
    habilidades de entrar al campo de batalla del…"): the text was cut off, typically by a
    tool with a length limit."""
    text = ruling.text.rstrip()
    if not CUT.search(text) or SENTENCE_END.search(text):
        return
    cut = CUT.search(text)
    yield Problem(
        ruling,
        "The text stops mid-sentence with an ellipsis: it was cut off.",
        {"ending": text[-60:], "length": len(text)},
        marks=[Mark.target(cut.start(), cut.end(), Role.CUT)],
    )


@check("TRUNC002", scope=Scope.PAIR)
def far_too_short(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation is less than half as long as translations into its language usually
    are relative to their source: a sentence or clause is probably missing. (The usual
    ratio is the median of this run's pairs, e.g. about 1.15 for Spanish and 0.32 for
    Chinese characters per English character; a card's text line is measured without the
    reminder text its translation leaves out.)"""
    source_length = len(pair.source_text)
    share = length_share(pair, ctx)
    if share is None or share >= ctx.threshold(SHORT_RATIO):
        return
    if CUT.search(pair.target.text.rstrip()):
        return
    usual = usual_ratio(ctx, pair.lang)
    ratio = len(pair.target.text) / source_length
    yield Problem(
        pair.target,
        f"The translation is {ratio / usual:.0%} of the usual length for its source: "
        "part of it is probably missing.",
        {
            "source_chars": source_length,
            "target_chars": len(pair.target.text),
            "ratio": round(ratio, 3),
            "usual_ratio": round(usual, 3),
        },
        source=pair.source,
    )
