"""Dropped passages, found by what is dropped: a template's variable, a condition."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import cache

from ...model import Mark
from ...resources import read_tsv
from ...text.tokens import token_counts
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import without_translator_notes
from ..registry import Problem, check
from .terminology import PARAPHRASED


@cache
def _patterns(kind: str, lang: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(row["pattern"], re.IGNORECASE if kind == "condition" else 0)
        for row in read_tsv("dropped_passages.tsv")
        if row["kind"] == kind and row["lang"] in ("*", lang.split("-")[0])
    )


def _found(text: str, kind: str, lang: str) -> list[re.Match[str]]:
    return [m for pattern in _patterns(kind, lang) for m in pattern.finditer(text)]


@check("OMIT001", scope=Scope.PAIR)
def dropped_variable(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A template's bracketed variable ([cost], [quality], [P/T]) or a whole quoted template
    that holds one ("[This permanent] enters the battlefield as …", one of four) is missing
    from the translation: the translation has fewer variables than the source has different
    ones ([A] and [B] but one variable), or the source quotes more templates with a variable
    than the translation quotes passages at all.
    Translations write their own words in the brackets ([费用], [特性]), may say a
    repeated variable once (两个…同为[特性]生物 for "a [quality] creature … and another
    [quality] creature") and may say one in words (支付其返照费用 for "paying [cost]"), so
    fewer variables alone are not reported. Rules text only: a card's text writes loyalty
    costs in brackets ([+2]:) that printed translations write without."""
    if not pair.source.section:
        return
    target_text = without_translator_notes(pair.target.text, pair.lang)
    ours = _found(pair.source_text, "variable", ctx.source_lang)
    theirs = _found(target_text, "variable", pair.lang)
    if not ours:
        return
    our_templates = _templates(pair.source_text, ctx.source_lang)
    their_templates = len(_quoted(target_text))
    distinct = {m.group().casefold() for m in ours}
    if len(theirs) >= len(distinct) and our_templates <= their_templates:
        return
    what = (
        f"{our_templates} quoted templates with a variable and the translation "
        f"{their_templates} quoted passages: a template was left out"
        if len(theirs) >= len(distinct)
        else f"{len(distinct)} different bracketed variables ({_listed(ours)}) and the "
        f"translation {len(theirs) or 'none'}: a variable or the template that holds it was "
        "left out"
    )
    yield Problem(
        pair.target,
        f"The source has {what}.",
        {
            "expected": [m.group() for m in ours],
            "found": [m.group() for m in theirs],
            "templates": {"expected": our_templates, "found": their_templates},
        },
        source=pair.source,
        marks=[Mark.source(m.start(), m.end(), Role.MISSING) for m in ours],
    )


QUOTES = re.compile('[“”「」«»"]')


def _quoted(text: str) -> list[str]:
    """The quoted passages of a text, whichever way its quotation marks are typed (“…“ is
    common in Chinese): every other stretch between two quotation marks."""
    return QUOTES.split(text)[1::2]


def _templates(text: str, lang: str) -> int:
    """How many quoted passages of a text hold a bracketed variable."""
    return sum(1 for passage in _quoted(text) if _found(passage, "variable", lang))


@check("OMIT003", scope=Scope.PAIR)
def fewer_variables(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation has fewer bracketed template variables than the source, though it
    has as many as the source has different ones and every template (OMIT001 reports the
    rest): a repeated variable ([cost] twice) said once. Often right (two placeholders for
    three of one variable, 其返照费用 for the second [cost]), sometimes a dropped one; off
    by default. Rules text only."""
    if not pair.source.section:
        return
    ours = _found(pair.source_text, "variable", ctx.source_lang)
    theirs = _found(without_translator_notes(pair.target.text, pair.lang), "variable", pair.lang)
    if len(theirs) >= len(ours) or any(True for _ in dropped_variable(pair, ctx)):
        return
    yield Problem(
        pair.target,
        f"The source has {len(ours)} bracketed variables ({_listed(ours)}) and the "
        f"translation {len(theirs)}: a repeated variable is said fewer times, or one was "
        "left out.",
        {"expected": [m.group() for m in ours], "found": [m.group() for m in theirs]},
        source=pair.source,
        marks=[Mark.source(m.start(), m.end(), Role.MISSING) for m in ours],
    )


@check("OMIT002", scope=Scope.PAIR)
def dropped_condition(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A condition of the source is missing from the translation: a sentence of the source
    opens with If or Unless and the sentence that translates it (the same place, when both
    texts have as many sentences; else the translation as a whole) states no condition with
    the words its language states one with (如果, 若, 除非, 当…时; si, a menos que), and
    what the condition says went with it: a game term it names, a symbol or a number it has
    is nowhere in the translation (a translation often folds a
    condition into the sentence, "由咒语创造的延迟触发式异能" for "If a spell creates a
    delayed triggered ability, …", and keeps every term of it: OMIT004, off by default,
    reports those too). The words are data (resources/dropped_passages.tsv). Rules text
    only (measured there); card text is templated otherwise."""
    target_text = without_translator_notes(pair.target.text, pair.lang)
    missing = [
        (a, s)
        for a, s in _unstated_conditions(pair, ctx)
        if _clause_lost(s, target_text, pair.lang, ctx)
    ]
    if missing:
        yield _condition_problem(pair, missing)


@check("OMIT004", scope=Scope.PAIR)
def unstated_condition(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source states a condition (a sentence opening with If or Unless) that the
    translation does not state with a condition word, whatever it says of it: often folded
    into the sentence with its meaning kept, sometimes left out (OMIT002 reports those whose
    terms went too); off by default. Rules text only."""
    if any(True for _ in dropped_condition(pair, ctx)):
        return
    missing = _unstated_conditions(pair, ctx)
    if missing:
        yield _condition_problem(pair, missing)


def _unstated_conditions(pair: AlignedPair, ctx: CheckContext) -> list[tuple[int, str]]:
    """(start, sentence) of the source's conditions the translation states with no
    condition word (sentence by sentence when both have as many)."""
    if not pair.source.section or not _patterns("condition", pair.lang):
        return []
    ours = _sentences(pair.source_text, ENGLISH_SENTENCE_END)
    theirs = _sentences(without_translator_notes(pair.target.text, pair.lang), SENTENCE_END)
    if len(ours) == len(theirs):
        return [
            (start, sentence)
            for (start, sentence), (_, translated) in zip(ours, theirs, strict=True)
            if _found(sentence, "condition", ctx.source_lang)
            and not _found(translated, "condition", pair.lang)
        ]
    stated = _found(" ".join(s for _, s in theirs), "condition", pair.lang)
    conditions = [(a, s) for a, s in ours if _found(s, "condition", ctx.source_lang)]
    return conditions if len(conditions) > len(stated) else []


def _condition_problem(pair: AlignedPair, missing: list[tuple[int, str]]) -> Problem:
    return Problem(
        pair.target,
        f"{len(missing)} condition{'s' if len(missing) > 1 else ''} of the source "
        f"(\u201c{_opening(missing[0][1])}…\u201d) "
        f"{'are' if len(missing) > 1 else 'is'} not stated in the translation: probably left "
        "out with the clause it governs.",
        {"expected": [_opening(s) for _, s in missing], "found": None},
        source=pair.source,
        marks=[Mark.source(a, a + len(_opening(s)), Role.MISSING) for a, s in missing],
    )


def _clause_lost(sentence: str, target: str, lang: str, ctx: CheckContext) -> bool:
    """Whether the condition clause of a sentence (after its If, up to the next comma)
    names a game term, or has a symbol or number, that the translation has nowhere.
    (Counting mentions instead would not tell a dropped clause from a folded one that says
    its noun once: "由咒语创造的延迟触发式异能的来源" for "If a spell creates a delayed
    triggered ability, the source of that delayed triggered ability".)"""
    opening = _found(sentence, "condition", ctx.source_lang)
    start = opening[0].end() if opening else 0
    clause = sentence[start:].split(",", 1)[0]
    named = {
        c
        for c in ctx.named_concepts(clause, ctx.source_lang) - PARAPHRASED
        if ctx.termbase.terms(c, lang, "approved")
    }
    if named - set(ctx.concept_counts(target, lang)):
        return True
    clause_tokens, target_tokens = token_counts(clause), token_counts(target)
    if any(found - target_tokens.get(kind, Counter()) for kind, found in clause_tokens.items()):
        return True
    return bool(set(re.findall(r"\d+", clause)) - set(re.findall(r"\d+", target)))


ENGLISH_SENTENCE_END = re.compile(r"[.!?;][”\"’)]*\s+(?=[A-Z“\"(])")
SENTENCE_END = re.compile(r"[。！？；][”」’）)]*|[.!?;][”\"’)]*(?=\s|$)")


def _sentences(text: str, end: re.Pattern[str]) -> list[tuple[int, str]]:
    """(start, sentence) of a text's sentences, empty ones left out."""
    found, start = [], 0
    for match in end.finditer(text):
        if match.end() > start and text[start : match.end()].strip():
            found.append((start, text[start : match.end()]))
        start = match.end()
    if text[start:].strip():
        found.append((start, text[start:]))
    return found


def _opening(sentence: str) -> str:
    return " ".join(sentence.split()[:6])


def _listed(found: list[re.Match[str]]) -> str:
    return ", ".join(m.group() for m in found)
