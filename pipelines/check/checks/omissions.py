"""Dropped passages, found by what is dropped: a template's variable, a condition."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from ...model import Mark
from ...resources import read_tsv
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import without_translator_notes
from ..registry import Problem, check


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
    """The source has more of a template's bracketed variables ([cost], [quality], [This
    permanent]) than the translation: a variable, or a whole template that holds one ("[This
    permanent] enters the battlefield with …", one of four), was left out. Translations
    write their own words in the brackets ([费用], [特性]), so the variables are counted, not
    compared; one the translation adds is not reported. Rules text only: a card's text
    writes loyalty costs in brackets ([+2]:) that printed translations write without."""
    if not pair.source.section:
        return
    ours = _found(pair.source_text, "variable", ctx.source_lang)
    theirs = _found(without_translator_notes(pair.target.text, pair.lang), "variable", pair.lang)
    if len(ours) <= len(theirs):
        return
    yield Problem(
        pair.target,
        f"The source has {len(ours)} bracketed variables ({_listed(ours)}) and the translation "
        f"{len(theirs)}: a variable or a template was left out.",
        {
            "expected": [m.group() for m in ours],
            "found": [m.group() for m in theirs],
        },
        source=pair.source,
        marks=[Mark.source(m.start(), m.end(), Role.MISSING) for m in ours],
    )


@check("OMIT002", scope=Scope.PAIR)
def dropped_condition(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A condition of the source is missing from the translation: a sentence of the source
    opens with If or Unless and the sentence that translates it (the same place, when both
    texts have as many sentences; else the translation as a whole) states no condition with
    the words its language states one with (如果, 若, 除非, 当…时; si, a menos que): the
    condition, and the clause it governs, were probably left out. The words are data
    (resources/dropped_passages.tsv). Rules text only (measured there); card text is
    templated otherwise."""
    if not pair.source.section or not _patterns("condition", pair.lang):
        return
    ours = _sentences(pair.source_text, ENGLISH_SENTENCE_END)
    theirs = _sentences(without_translator_notes(pair.target.text, pair.lang), SENTENCE_END)
    if len(ours) == len(theirs):
        missing = [
            (start, sentence)
            for (start, sentence), (_, translated) in zip(ours, theirs, strict=True)
            if _found(sentence, "condition", ctx.source_lang)
            and not _found(translated, "condition", pair.lang)
        ]
    else:
        stated = _found(" ".join(s for _, s in theirs), "condition", pair.lang)
        conditions = [(a, s) for a, s in ours if _found(s, "condition", ctx.source_lang)]
        missing = conditions if len(conditions) > len(stated) else []
    if not missing:
        return
    yield Problem(
        pair.target,
        f"{len(missing)} condition{'s' if len(missing) > 1 else ''} of the source "
        f"(\u201c{_opening(missing[0][1])}…\u201d) "
        f"{'are' if len(missing) > 1 else 'is'} not stated in the translation: probably left "
        "out with the clause it governs.",
        {"expected": [_opening(s) for _, s in missing], "found": None},
        source=pair.source,
        marks=[Mark.source(a, a + len(_opening(s)), Role.MISSING) for a, s in missing],
    )


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
