"""Numbers: digits and number words must agree (three / tres / 三, second / segunda / 第二)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from ...model import Mark
from ...resources import read_tsv
from ...text.card_text import REMINDER_TEXT
from ...text.tokens import in_source_notation
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import (
    digit_counts,
    digit_values,
    first_words,
    is_legal,
    number_counts,
    numbers,
    stated_values,
    translator_notes,
)
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


def _without_card_names(ctx: CheckContext, text: str, lang: str, title: str) -> str:
    spans = [(m.start, m.end) for m in ctx.cards.mentions(text, [lang, ctx.source_lang])]
    if len(title) > 2:
        start = text.find(title)
        while start >= 0:
            spans.append((start, start + len(title)))
            start = text.find(title, start + len(title))
    for start, end in spans:
        if numbers(text[start:end], lang):
            text = text[:start] + " " * (end - start) + text[end:]
    return text


ONE = "1"
ARTICLE_LIKE = frozenset({"1", "2"})
"""Values whose words a translation uses without stating a quantity (an article; "both")."""
LIST_MARKER = re.compile(r"[(（]\s*\d{1,2}\s*[)）]")
"""(1), （2）: markers of the items of a list, not numbers of the text."""


@cache
def _patterns(resource: str, lang: str) -> re.Pattern[str] | None:
    """The patterns of a language in a resource of ``lang``/``pattern`` rows, as one."""
    rows = [row["pattern"] for row in read_tsv(resource) if row["lang"] == lang]
    return re.compile("|".join(f"(?:{p})" for p in rows)) if rows else None


def _without_explicit_counts(text: str, lang: str) -> str:
    """The text without the counts a translation adds to spell out what the source lists
    (这三个模式 for "the attack left, attack right, and attack multiple players options";
    resources/explicit_counts.tsv)."""
    pattern = _patterns("explicit_counts.tsv", lang.split("-")[0])
    return pattern.sub(lambda m: " " * len(m.group()), text) if pattern else text


def _without_rate_units(text: str, lang: str) -> str:
    """The text with the 1s of a rate blanked: a translation may say "1 vida por cada
    punto de daño" (每防止1点伤害，你便获得1点生命) for "life equal to the damage"
    (resources/rate_phrases.tsv). Offsets are kept."""
    pattern = _patterns("rate_phrases.tsv", lang.split("-")[0])
    if pattern is None:
        return text
    return pattern.sub(lambda m: re.sub(r"(?<![\d/+\-−])1(?![\d/])", " ", m.group()), text)


def _value(number: str) -> str:
    return number.split(":")[1]


def _by_value(found: Counter[str]) -> Counter[str]:
    """How often each value is stated, whatever its kind (四个, 第四个)."""
    values: Counter[str] = Counter()
    for number, count in found.items():
        values[_value(number)] += count
    return values


def _comparable(ctx: CheckContext, text: str, lang: str, title: str = "") -> str:
    """The text as numbers are compared: in the source's notation (903.6-11 is
    903.6–903.11), without game terms that contain a number word, card names (the card
    index's, and the document's title: "Approach of the Second Sun" states no second), list
    markers, translator's notes and the unit of a rate ("1 vida por cada"). Offsets are
    kept."""
    text = in_source_notation(text, lang)
    text = _without_rate_units(text, lang)
    text = _without_term_names(ctx, text, lang)
    text = _without_card_names(ctx, text, lang, title)
    text = LIST_MARKER.sub(lambda m: " " * len(m.group()), text)
    for start, end in translator_notes(text, lang):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


@dataclass(frozen=True, slots=True)
class Reading:
    """The numbers of one text as NUM001 compares them (read once per text and language;
    values to read, not to change)."""

    text: str
    """The text as numbers are compared (``_comparable``)."""
    numbers: Counter[str]
    digits: Counter[str]
    strict_words: frozenset[str]
    """Cardinal words of three or more stated strictly, counts that spell out a list aside."""


def _reading(ctx: CheckContext, text: str, lang: str, title: str = "") -> Reading:
    key = ("NUM001 reading", text, lang, title)
    found = ctx.memo.get(key)
    if found is None:
        comparable = _comparable(ctx, text, lang, title)
        counts = number_counts(comparable, lang)
        uncounted = _without_explicit_counts(comparable, lang)
        counted = counts if uncounted == comparable else number_counts(uncounted, lang)
        strict = {_value(v) for v in counted if v.startswith("cardinal")} - ARTICLE_LIKE
        found = ctx.memo[key] = Reading(
            comparable, counts, digit_counts(comparable), frozenset(strict)
        )
    return found


def _where(text: str, value: str) -> list[tuple[int, int]]:
    """Where a number stands in the source, when it is written in digits."""
    return [m.span() for m in re.finditer(rf"(?<![\d.]){re.escape(value)}(?![\d])", text)]


def _adds_an_aside(pair: AlignedPair) -> bool:
    return len(REMINDER_TEXT.findall(pair.target.text)) > len(
        REMINDER_TEXT.findall(pair.source.text)
    )


def _outside_asides(ctx: CheckContext, pair: AlignedPair) -> set[str]:
    """The numbers a rule's translation states (in digits or strictly) outside its
    parenthetical asides, for a translation with more asides than its source: the added
    one is the translator's explanation ("（起始总生命为30，且得到15个中毒指示物输去游戏）",
    what 810.4 and 810.8d say of a team of two, in 810.11), whose numbers are not the
    source's to copy. (On a card, an added aside is reminder text, which restates the
    keyword and its numbers: 占卜3's "四张牌" is reported.)"""
    text = REMINDER_TEXT.sub(lambda m: " " * len(m.group()), pair.target.text)
    reading = _reading(ctx, text, pair.lang, _card_title(pair.target))
    return digit_values(reading.text) | reading.strict_words


def _card_title(ruling) -> str:
    """A card document's title (its card's name), for a unit of one."""
    return (ruling.doc_title or "") if ruling.section is None else ""


@check("NUM001", scope=Scope.PAIR)
def changed_number(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A number the source states (in digits or words, cardinal or ordinal) is stated
    nowhere in the translation: "three time counters" translated with 两个, "the second
    triggered ability" as "la primera". The translation is read loosely, since languages
    state numbers their own way: a number counts in digits or words, cardinal or ordinal
    (四个座位 or 第四个座位 for "four seats"), with or without its classifier (通常为七,
    三字符), as a Chinese numeral (十一, 十六位, 一百), and "the second" as 后者 / "another"
    / 再次 where the source contrasts two things or says "a second time"; but a number the
    translation states strictly (in digits, or a word with its classifier) that the source
    states in no form marks a replaced number, which is reported, and so is a number
    written in digits that the source does not state at all (numbers are copied, never
    made up). Words for one and two are not compared that way (languages use one as an
    article, and "both" is often rendered "the two", 这两个), nor is a source's 1 that the
    translation leaves to an article ("the next 1 damage", "el siguiente punto de daño");
    nor are numbers inside the name of a game term ("split second", 双头巨人), list markers
    ((1), (2)), a translator's note, a number word that is a pronoun ("the two need not be
    the same"), or an ordinal that opens a step of an enumeration ("Third, the active
    player…", often rendered 然后). A number word of three or more that the translation
    adds with its classifier (四张牌 where the source says nothing of four) is reported, but
    not a count that spells out what the source lists (这三个模式 for "the attack left,
    attack right, and attack multiple players options", 有三种：…), nor an ordinal (第三个效应
    for "another effect")."""
    if is_legal(pair.source.text):
        return
    ours = _reading(ctx, pair.source_text, ctx.source_lang, _card_title(pair.source))
    theirs = _reading(ctx, pair.target.text, pair.lang, _card_title(pair.target))
    source, target, strict_words = ours.numbers, theirs.numbers, theirs.strict_words
    if not source and not theirs.digits and not strict_words:
        return  # nothing the source states can be missing, nothing can be made up
    source_text, target_text = ours.text, theirs.text
    stated = stated_values(target_text, pair.lang)
    miscited = ctx.uncontested_citations(pair)["number"]
    digits = digit_values(target_text)
    source_values = {_value(v) for v in source}
    missing = sorted(
        {
            value
            for value in source
            if _value(value) not in stated
            and _value(value) not in miscited
            and _value(value) != ONE
        }
    )
    extra = [v for v in target if _value(v) not in source_values and _value(v) not in miscited]
    source_by_value, target_by_value = _by_value(source), _by_value(target)
    source_digits, target_digits = ours.digits, theirs.digits
    surplus = {
        value
        for value, count in target_by_value.items()
        if value not in miscited
        and (
            count > source_by_value[value]
            if value not in ARTICLE_LIKE
            else target_digits[value] > source_digits[value]
        )
    }
    if surplus:
        # a number replaced by another: the loose reading must not hide it (the source
        # says three twice, "Suspend 3 … three time counters", the translation 3 and 四;
        # "scry 1, then scry 2" translated 占卜2，然后占卜2)
        short = {
            value
            for value, count in source_by_value.items()
            if count > target_by_value[value] and value not in miscited
        }
        missing = sorted(set(missing) | {v for v in source if _value(v) in short})
    source_states = stated_values(source_text, ctx.source_lang)
    invented = sorted(
        v for v in digits | strict_words if v not in source_states and v not in miscited
    )
    if invented and pair.target.section and _adds_an_aside(pair):
        outside = _outside_asides(ctx, pair)
        invented = [v for v in invented if v in outside]
    if not missing and not invented:
        return
    firsts = first_words(pair.target.text, pair.lang)
    if missing and all(_value(v) in source_digits for v in missing):
        # a number written in digits (a rule, 709) is not "replaced" by a word for two
        extra = [v for v in extra if _value(v) not in ARTICLE_LIKE or _value(v) in digits]
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
