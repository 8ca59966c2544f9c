"""Numbers: digits and number words must agree (three / tres / 三, second / segunda / 第二)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from ...model import Mark
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import digit_values, first_words, is_legal, numbers, stated_values
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


def _where(text: str, value: str) -> list[tuple[int, int]]:
    """Where a number stands in the source, when it is written in digits."""
    return [m.span() for m in re.finditer(rf"(?<![\d.]){re.escape(value)}(?![\d])", text)]


@check("NUM001", scope=Scope.PAIR)
def changed_number(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A number the source states (in digits or words, cardinal or ordinal) is stated
    nowhere in the translation: "three time counters" translated with 两个, "the second
    triggered ability" as "la primera". The translation is read loosely, since languages
    state numbers their own way: a number counts in digits or words, cardinal or ordinal,
    with or without its classifier (通常为七, 三字符), as a Chinese numeral (十一, 一百),
    and "the second" as 后者 / "another" where the source contrasts two things; but a number
    the translation states strictly (in digits, or a word with its classifier) that the
    source does not state marks a replaced number, which is reported, and a number written
    in digits, or a number word of three or more with its classifier, that the source does
    not state at all is reported too (numbers are copied, never made up; "two" is left out
    here, since "both" is often rendered "the two"). Words for
    one are not compared (languages use them as articles), nor numbers inside the name of a
    game term ("split second"), nor an ordinal that opens a step of an enumeration ("Third,
    the active player…", often rendered 然后)."""
    if is_legal(pair.source.text):
        return
    source_text = _without_term_names(ctx, pair.source.text, ctx.source_lang)
    source = numbers(source_text, ctx.source_lang)
    stated = stated_values(_without_term_names(ctx, pair.target.text, pair.lang), pair.lang)
    miscited = ctx.miscited_in_source(pair)["number"]
    missing = sorted(
        {
            value
            for value in source
            if value.split(":")[1] not in stated and value.split(":")[1] not in miscited
        }
    )
    target = numbers(pair.target.text, pair.lang)
    extra = [v for v in target if v not in source and v.split(":")[1] not in miscited]
    if extra:  # a number replaced by another: the loose reading must not hide it
        replaced = {v for v in source - target if v.split(":")[1] not in miscited}
        missing = sorted(set(missing) | replaced)
    source_states = stated_values(source_text, ctx.source_lang)
    strict_words = {v.split(":")[1] for v in target if v.split(":")[1] not in ("1", "2")}
    invented = sorted(
        v
        for v in digit_values(pair.target.text) | strict_words
        if v not in source_states and v not in miscited
    )
    if not missing and not invented:
        return
    firsts = first_words(pair.target.text, pair.lang)
    says = _describe(extra)
    if not says and firsts and any(value.startswith("ordinal") for value in missing):
        says = [f"\u201c{firsts[0]}\u201d (first)"]
    if missing:
        message = f"The source says {', '.join(_describe(missing))}" + (
            f"; the translation says {', '.join(says)} instead."
            if says
            else "; the translation does not."
        )
    else:
        message = f"The translation says {', '.join(invented)}, which the source does not say."
    yield Problem(
        pair.target,
        message,
        {
            "expected": _describe(source.elements()),
            "found": _describe(target.elements()),
            "missing": _describe(missing),
            "extra": says or invented,
        },
        source=pair.source,
        marks=[
            Mark.source(start, end, Role.MISSING)
            for value in missing
            for start, end in _where(pair.source.text, value.split(":")[1])
        ],
    )
