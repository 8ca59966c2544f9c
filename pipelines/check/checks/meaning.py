"""Meaning: a pair whose cross-lingual similarity is far below what such pairs usually get."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterator

from ...vocabulary import Scope
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check, corpus_fact

ROBUST_Z = -3.5
MIN_PAIRS = 20
MIN_WORDS = 10
FALLBACK_THRESHOLD = 0.35


@corpus_fact
def _statistics(ctx: CheckContext) -> dict[str, tuple[float, float]]:
    """Median and scaled median absolute deviation of similarity, per language."""
    values = defaultdict(list)
    for pair in ctx.pairs:
        if pair.alignment.similarity is not None:
            values[pair.lang].append(pair.alignment.similarity)
    stats = {}
    for lang, sims in values.items():
        if len(sims) >= MIN_PAIRS:
            median = statistics.median(sims)
            mad = statistics.median(abs(s - median) for s in sims) * 1.4826
            stats[lang] = (median, max(mad, 0.02))
    return stats


@check("MEAN001", scope=Scope.PAIR)
def meaning_differs(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation and its source are much less similar in meaning than aligned pairs
    of that language usually are (cross-lingual embedding similarity more than 3.5 robust
    standard deviations below the median): a sentence may be wrong, missing or extra, or
    the translation may belong to another ruling. Texts under ten words are not judged:
    short sentences score low for any embedder; nor is a card's text line whose source has
    reminder text the translation leaves out (the similarity measures the reminder)."""
    similarity = pair.alignment.similarity
    if similarity is None or len(pair.source_text.split()) < MIN_WORDS:
        return
    if pair.source_text != pair.source.text:
        return
    stats = _statistics(ctx).get(pair.lang)
    if stats:
        median, spread = stats
        z = (similarity - median) / spread
        if z >= ROBUST_Z:
            return
    elif similarity >= FALLBACK_THRESHOLD:
        return
    else:
        median, z = None, None
    yield Problem(
        pair.target,
        f"The translation is unusually far in meaning from its source (similarity "
        f"{similarity:.2f}" + (f", usual {median:.2f})." if median is not None else ")."),
        {"similarity": similarity, "usual": median, "robust_z": None if z is None else round(z, 2)},
        source=pair.source,
    )
