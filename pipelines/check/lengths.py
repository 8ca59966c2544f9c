"""How long translations into a language usually are against their source, in this run."""

from __future__ import annotations

import statistics
from collections import defaultdict

from ..thresholds import CHECK, threshold
from .context import AlignedPair, CheckContext
from .registry import corpus_fact

MIN_SOURCE_CHARS = threshold(
    "truncation.min-source-chars",
    40,
    """TRUNC002 and TERM002's condensed class: sources shorter than this many characters are
    not measured (a short line's length says little).""",
    stage=CHECK,
    minimum=1,
    integer=True,
)
DEFAULT_RATIOS = {"es": 1.15, "zh": 0.32, "fr": 1.2, "de": 1.15, "it": 1.1, "pt": 1.1}
"""Translated characters per source character when a run has too few pairs to measure."""
MEASURED_PAIRS = 20


@corpus_fact
def length_ratios(ctx: CheckContext) -> dict[str, float]:
    """The median target/source length ratio per language over this run's pairs."""
    ratios = defaultdict(list)
    shortest = ctx.threshold(MIN_SOURCE_CHARS)
    for pair in ctx.pairs:
        source, target = pair.source.text, pair.target
        if len(source) >= shortest:
            ratios[target.lang or ""].append(len(target.text) / len(source))
    return {
        lang: statistics.median(values)
        if len(values) >= MEASURED_PAIRS
        else DEFAULT_RATIOS.get(lang, 1.0)
        for lang, values in ratios.items()
    }


def usual_ratio(ctx: CheckContext, lang: str) -> float:
    """Translated characters per source character into ``lang`` in this run."""
    return length_ratios(ctx).get(lang, DEFAULT_RATIOS.get(lang, 1.0))


def length_share(pair: AlignedPair, ctx: CheckContext) -> float | None:
    """The translation's length as a share of the usual for its source (1.0: as usual; 0.5:
    half as long), or None for a source too short to measure. The source is measured as the
    checks read it (``pair.source_text``: a card's line without its reminder text)."""
    source_length = len(pair.source_text)
    if source_length < ctx.threshold(MIN_SOURCE_CHARS):
        return None
    return len(pair.target.text) / source_length / usual_ratio(ctx, pair.lang)
