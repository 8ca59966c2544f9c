"""Numbers: digits and number words must agree (three / tres / 三, second / segunda / 第二)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from ...vocabulary import Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import numbers
from ..registry import Problem, check


def _describe(values) -> list[str]:
    return sorted(
        f"{v.split(':')[1]}{' (ordinal)' if v.startswith('ordinal') else ''}" for v in values
    )


@cache
def _states_a_number(form: str, lang: str) -> bool:
    return bool(numbers(form, lang))


def _without_term_names(ctx: CheckContext, text: str, lang: str) -> str:
    """The text with game terms that contain a number word blanked ("split second",
    "double strike"): a keyword's name states no quantity. Offsets are kept."""
    for hit in ctx.term_hits(text, lang):
        if _states_a_number(hit.form, lang):
            text = text[: hit.start] + " " * (hit.end - hit.start) + text[hit.end :]
    return text


@check("NUM001", scope=Scope.PAIR)
def changed_number(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A number of the source (in digits or words, cardinal or ordinal) is missing from the
    translation or replaced by another: "three time counters" translated with 两个, "the
    second triggered ability" as "la primera". Words for one are not compared, since
    languages use them as articles, nor numbers inside the name of a game term ("split
    second")."""
    source = numbers(_without_term_names(ctx, pair.source.text, ctx.source_lang), ctx.source_lang)
    target = numbers(_without_term_names(ctx, pair.target.text, pair.lang), pair.lang)
    missing = source - target
    extra = target - source
    if not missing:
        return
    yield Problem(
        pair.target,
        f"The source says {', '.join(_describe(missing.elements()))}"
        + (
            f" where the translation says {', '.join(_describe(extra.elements()))}."
            if extra
            else ", which the translation lacks."
        ),
        {
            "expected": _describe(source.elements()),
            "found": _describe(target.elements()),
            "missing": _describe(missing.elements()),
            "extra": _describe(extra.elements()),
        },
        source=pair.source,
    )
