"""Untranslated and half-translated text: the language of a ruling and of its runs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...model import Mark, Ruling
from ...resources import language_name
from ...vocabulary import Role, Scope
from ..context import CheckContext
from ..lexicon import is_legal, translator_notes
from ..registry import Problem, check

EXCERPT = 160
NAME_MAX_CHARS = 60


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


@check("UNTR001", scope=Scope.RULING)
def untranslated_ruling(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """A ruling of a translated document is still in the source language (an English ruling
    in a Spanish or Chinese file). It stands where a translation should be; it is never
    scored as a good translation. The evidence names the English ruling it copies, when
    the input has it."""
    if ruling.lang != ctx.source_lang:
        return
    row = ctx.untranslated.get(ruling.id)
    copied = ctx.by_id.get(row.source_id) if row and row.source_id else None
    if is_kept_name(ruling, copied):
        return
    yield Problem(
        ruling,
        f"This ruling of a {language_name(ruling.doc_lang)} document is still in "
        f"{language_name(ctx.source_lang)}.",
        {
            "expected_lang": ruling.doc_lang,
            "found_lang": ruling.lang,
            "found": _excerpt(ruling.text),
            "copies": copied.id if copied else None,
        },
        source=copied,
        marks=[Mark.target(0, len(ruling.text), Role.FOREIGN)],
    )


LATIN = "A-Za-z0-9\u00c0-\u024f"
LATIN_SEGMENT = re.compile(rf"[{LATIN}][{LATIN}'’\-. &/®™©]*")
"""A stretch of Latin-script text between Chinese characters and list punctuation (、，)."""
NAME_WORD = re.compile(r"[A-Za-z\u00c0-\u024f][A-Za-z0-9\u00c0-\u024f'’\-]*")
FUNCTION_WORDS = frozenset(
    {"a", "an", "and", "at", "by", "de", "del", "der", "for", "from", "in", "la", "le"}
    | {"of", "on", "the", "to", "van", "von", "with", "y"}
)
"""Words that stay in lower case inside English names (Fae of Wishes, Priest of Yawgmoth)."""
DOMAIN = re.compile(r"(?:[\w-]+\.)+[A-Za-z]{2,}(?:/\S*)?")


def _name_like(segment: str) -> bool:
    """Written as a name: its first word and at least half of its other words capitalised,
    the small words names keep in lower case aside (It That Betrays, Friends forever)."""
    found = [w for w in NAME_WORD.findall(segment) if w.casefold() not in FUNCTION_WORDS]
    if not found or not found[0][0].isupper():
        return False
    return sum(1 for word in found if word[0].isupper()) * 2 >= len(found)


def _comparable(text: str) -> str:
    return " ".join(text.replace("’", "'").casefold().split())


def kept_names(run: str, source: str | None) -> bool:
    """Whether a foreign run only holds names left in the source language on purpose:
    card, product or people's names (Fae of Wishes, Wizards of the Coast, Richard
    Garfield) and web addresses, each written as in the English source when there is one
    (in any case: It that Betrays for It That Betrays). Translations keep the English name
    of a card never printed in their language."""
    segments = [m.group().strip(" .-&/") for m in LATIN_SEGMENT.finditer(run)]
    segments = [segment for segment in segments if segment]
    if not segments:
        return False
    for segment in segments:
        if DOMAIN.fullmatch(segment):
            continue
        if not _name_like(segment) or (
            source is not None and _comparable(segment) not in _comparable(source)
        ):
            return False
    return True


QUOTED = re.compile(r"“[^“”]*”|「[^「」]*」|『[^『』]*』|\"[^\"]*\"|‘[^‘’]*’|«[^«»]*»|\[[^\[\]]*\]")
"""Quoted or bracketed passages: wording of the source talked about, names kept in English."""
WORD_CHAR = re.compile(r"[A-Za-z0-9\u00c0-\u024f'’\-]")


def word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """A run of text trimmed to its first and last letters, then widened to whole words (a
    language identifier may cut a name in the middle: "far" of "Abu Ja’far")."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    while start > 0 and WORD_CHAR.match(text[start - 1]):
        start -= 1
    while end < len(text) and WORD_CHAR.match(text[end]):
        end += 1
    return start, end


def kept_on_purpose(ruling: Ruling, start: int, end: int, source: str | None) -> bool:
    """A foreign run a translation keeps on purpose: inside a translator's note, quoted or
    bracketed wording of the source being talked about ("search for a copy" in quotes,
    [join forces], as the source writes it), or names written as in the source."""
    text = ruling.text
    start, end = word_bounds(text, start, end)
    if any(s <= start and end <= e for s, e in translator_notes(text, ruling.lang or "")):
        return True
    run = text[start:end]
    if source is not None and any(
        q.start() <= start and end <= q.end() for q in QUOTED.finditer(text)
    ):
        return _comparable(run) in _comparable(source)
    return kept_names(run, source)


def is_kept_name(ruling: Ruling, source: Ruling | None) -> bool:
    """A whole unit that is a name written as in its source (a card never printed in the
    language, in a list of names)."""
    return (
        source is not None
        and _comparable(ruling.text) == _comparable(source.text)
        and _name_like(ruling.text)
        and len(ruling.text) <= NAME_MAX_CHARS
    )


@check("MIX001", scope=Scope.RULING)
def half_translated(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """Part of a translated ruling is still in another language: a sentence finished in
    English ("意指一张(1) has suspend, (2) is in exile…"), a clause left over. The evidence
    lists each foreign run with its offsets. A run that is only a card name is reported as
    an untranslated card name (CARD003) instead; one that only holds names kept as in the
    English source (a card never printed in the language, a company or a person, written
    in capitals as names are) or web addresses is not reported."""
    if not ruling.spans or not ruling.doc_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    source = pair.source.text if pair else None
    if is_legal(source or ruling.text):
        return
    runs = [
        span
        for span in ruling.spans
        if span["lang"] != ruling.doc_lang
        and not ctx.is_card_name(ruling.text[span["start"] : span["end"]])
        and not kept_on_purpose(ruling, span["start"], span["end"], source)
    ]
    if not runs:
        return
    texts = [ruling.text[s["start"] : s["end"]] for s in runs]
    langs = sorted({s["lang"] for s in runs})
    yield Problem(
        ruling,
        f"Part of this {language_name(ruling.doc_lang)} ruling is in "
        f"{', '.join(map(language_name, langs))}: "
        f"\u201c{_excerpt(texts[0])}\u201d.",
        {
            "expected_lang": ruling.doc_lang,
            "runs": [{"lang": s["lang"], "text": t} for s, t in zip(runs, texts, strict=True)],
        },
        marks=[Mark.target(s["start"], s["end"], Role.FOREIGN) for s in runs],
    )
