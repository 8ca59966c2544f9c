"""Untranslated and half-translated text: the language of a ruling and of its runs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...allowlists import covered
from ...model import Mark, Ruling
from ...resources import language_name
from ...termbase import USABLE
from ...text import CARD_PLACEHOLDER, mask_card_names
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
    the input has it. A unit the project's allow lists let stay in English is not
    reported."""
    if ruling.lang != ctx.source_lang:
        return
    row = ctx.untranslated.get(ruling.id)
    copied = ctx.by_id.get(row.source_id) if row and row.source_id else None
    if (
        is_kept_name(ruling, copied, ctx)
        or _allowed(ruling, ruling.doc_lang, ctx)
        or _kept_terms(ruling, ctx)
    ):
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


def _allowed(ruling: Ruling, lang: str | None, ctx: CheckContext) -> bool:
    """A whole unit that the allow lists let stay in English (for translations into
    ``lang``)."""
    return _all_of(ctx.allowed(ruling.text, lang or ""), ruling.text)


def _kept_terms(ruling: Ruling, ctx: CheckContext) -> bool:
    """A whole unit made of the termbase's usable forms for the document's language."""
    hits = ctx.term_hits(ruling.text, ruling.doc_lang or "")
    return _all_of([(hit.start, hit.end) for hit in hits if hit.status in USABLE], ruling.text)


def _all_of(spans: list[tuple[int, int]], text: str) -> bool:
    """Whether the spans cover the whole text."""
    return bool(spans) and covered(spans, text, 0, len(text))


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


SYMBOL = re.compile(r"\{[^{}]*\}")


def _name_like(segment: str) -> bool:
    """Written as a name: its first word and at least half of its other words capitalised,
    the small words names keep in lower case aside (It That Betrays, Friends forever)."""
    words = NAME_WORD.findall(SYMBOL.sub(" ", segment))
    found = [w for w in words if w.casefold() not in FUNCTION_WORDS]
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
    if _glossed(text, start, end):
        return True
    quote = next((q for q in QUOTED.finditer(text) if q.start() <= start and end <= q.end()), None)
    if source is not None and quote is not None and _fills(run, quote.group()[1:-1]):
        return _comparable(run) in _comparable(source)
    return kept_names(run, source)


GLOSS_AFTER = re.compile(r"\s*[(（][^()（）A-Za-z]*[^\W\d_][^()（）A-Za-z]*[)）]")
"""A bracket right after a run that holds its translation and no Latin letter."""


def _glossed(text: str, start: int, end: int) -> bool:
    """A name given with its translation right after it in brackets (“Plane — New
    Phyrexia（时空～新非瑞克西亚）”, a translator showing the English wording): kept on
    purpose, as a gloss."""
    return _name_like(text[start:end]) and bool(GLOSS_AFTER.match(text, end))


def _fills(run: str, quoted: str) -> bool:
    """A run that is (nearly) the whole quoted passage: a quoted English wording, not the
    English second half of a translated quote ("Esta criatura … gets +1/+1")."""
    letters = sum(1 for c in quoted if c.isalpha())
    return letters > 0 and sum(1 for c in run if c.isalpha()) >= 0.8 * letters


def is_kept_name(ruling: Ruling, source: Ruling | None, ctx: CheckContext) -> bool:
    """A whole unit that is a name written as in its source (a card never printed in the
    language, in a list of names), not a game term ("Flying", "Enchant creature")."""
    return (
        source is not None
        and len(ruling.text) <= NAME_MAX_CHARS
        and not SYMBOL.search(ruling.text)
        and _comparable(ruling.text) == _comparable(source.text)
        and _name_like(ruling.text)
        and not ctx.term_hits(ruling.text, ctx.source_lang)
    )


LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
MIN_COPIED_WORDS = 3


def copied_stretches(text: str, source: str) -> list[tuple[int, int]]:
    """Stretches of at least three consecutive words of a translation that stand, in that
    order, in its English source (case aside), two of them longer than two letters."""
    words = list(LATIN_WORD.finditer(text))
    if len(words) < MIN_COPIED_WORDS:
        return []
    source_words = [w.casefold() for w in LATIN_WORD.findall(source)]
    grams = {
        tuple(source_words[i : i + MIN_COPIED_WORDS])
        for i in range(len(source_words) - MIN_COPIED_WORDS + 1)
    }
    keys = [w.group().casefold() for w in words]
    stretches: list[list[int]] = []
    for i in range(len(keys) - MIN_COPIED_WORDS + 1):
        gram = tuple(keys[i : i + MIN_COPIED_WORDS])
        if gram not in grams or sum(1 for w in gram if len(w) > 2) < 2:
            continue
        if stretches and i <= stretches[-1][1]:
            stretches[-1][1] = i + MIN_COPIED_WORDS - 1
        else:
            stretches.append([i, i + MIN_COPIED_WORDS - 1])
    return [(words[a].start(), words[b].end()) for a, b in stretches]


@check("UNTR002", scope=Scope.RULING)
def copy_of_the_source(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """A unit of a translated document is its English source all over again (leaving aside
    symbols, numbers, card names, punctuation and case), or, with no source to compare, is
    made only of English game terms the termbase knows ("Flying", "Trample, haste") with no
    term of its own language: still in English, whatever the language identifier said (it
    cannot tell the language of a word or two, and takes the document's). A unit made
    only of English game terms ("Reach, deathtouch") is reported even when it differs from
    its source. A unit that is only a name kept as in the source, or that the project's
    allow lists let stay in English, is not reported, nor one made of its own language's
    approved terms that are spelt as in English ("Indestructible.")."""
    if not ruling.lang or ruling.lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    if pair is not None and (is_kept_name(ruling, pair.source, ctx) or is_legal(pair.source.text)):
        return
    if _allowed(ruling, ruling.lang, ctx):
        return
    if pair is not None and _same_words(ruling, pair.source, ctx):
        if _own_terms_only(ruling, ctx):
            return  # the language's own term is the English word ("Indestructible.")
        how = "is its English source, unchanged"
    elif english_terms_only(ruling, ctx):
        how = "is made of English game terms only"
    else:
        return
    yield Problem(
        ruling,
        f"This unit of a {language_name(ruling.doc_lang)} document {how}: it is not translated.",
        {"expected_lang": ruling.doc_lang, "found": _excerpt(ruling.text)},
        source=pair.source if pair else None,
        marks=[Mark.target(0, len(ruling.text), Role.FOREIGN)],
    )


NOT_WORDS = re.compile(r"\{[^{}]*\}|[\d+\-−/]+|[^\w\s]|_")


def _same_words(ruling: Ruling, source: Ruling, ctx: CheckContext) -> bool:
    """Whether a unit's words (``_bare``) are its source's, and there are some. Each word of
    a text's ``_bare`` stands in the text (in lower case): a unit that lacks one of its
    source's words says others, and its own need not be worked out."""
    words = _bare(source.text, source, ctx)
    if not words:
        return False
    text = ruling.text.casefold()
    if any(word not in text for word in words.split(" ")):
        return False
    return _bare(ruling.text, ruling, ctx) == words


def _bare(text: str, ruling: Ruling, ctx: CheckContext) -> str:
    """The words of a text, card names and symbols and numbers aside, in lower case."""
    key = ("bare", text, ruling.lang or "", ruling.card)
    found = ctx.memo.get(key)
    if found is None:
        masked = mask_card_names(text, ruling.lang or "", ctx.cards, own=ruling.card)
        masked = masked.replace(CARD_PLACEHOLDER, " ")
        found = ctx.memo[key] = " ".join(NOT_WORDS.sub(" ", masked).casefold().split())
    return found


def _own_terms_only(ruling: Ruling, ctx: CheckContext) -> bool:
    """Every word of the unit is part of a term its language's termbase approves."""
    hits = [h for h in ctx.term_hits(ruling.text, ruling.lang or "") if h.status in USABLE]
    covered = {i for hit in hits for i in range(hit.start, hit.end)}
    letters = [i for m in re.finditer(r"[^\W\d_]+", ruling.text) for i in range(*m.span())]
    return bool(letters) and all(i in covered for i in letters)


def english_terms_only(ruling: Ruling, ctx: CheckContext) -> bool:
    """Every word of the unit is part of an English term, and none of its language's."""
    if ctx.term_hits(ruling.text, ruling.lang or ""):
        return False
    hits = ctx.term_hits(ruling.text, ctx.source_lang)
    if not hits:
        return False
    covered = set()
    for hit in hits:
        covered.update(range(hit.start, hit.end))
    return all(
        i in covered for m in re.finditer(r"[^\W\d_]+", ruling.text) for i in range(*m.span())
    )


def _copied(ctx: CheckContext, text: str, source: str) -> list[tuple[int, int]]:
    """``copied_stretches`` once per translation and source (to read, not to change)."""
    key = ("copied", text, source)
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = copied_stretches(text, source)
    return found


MIN_SAME_SCRIPT_WORDS = 4
"""A run the language identifier calls another language of the same script (English in a
Spanish ruling) counts from this many words: two or three words ("conjuro y tribal.",
"marea son") are called English as often as not (lingua: 0.59 and 0.54)."""
CJK = frozenset({"zh", "ja", "ko"})


def _enough_evidence(
    ruling: Ruling, span: dict, source_lang: str, copied: list[tuple[int, int]]
) -> bool:
    """Whether a foreign run found by the language identifier is one: a run in another
    script always is (Latin in Chinese); a short one in the same script only when it
    copies the English source."""
    if (span["lang"] in CJK) != (ruling.doc_lang in CJK):
        return True
    start, end = span["start"], span["end"]
    if len(LATIN_WORD.findall(ruling.text[start:end])) >= MIN_SAME_SCRIPT_WORDS:
        return True
    return any(s < end and start < e for s, e in copied)


@check("MIX001", scope=Scope.RULING)
def half_translated(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """Part of a translated ruling is still in another language: a sentence finished in
    English ("意指一张(1) has suspend, (2) is in exile…"), a clause left over. The evidence
    lists each foreign run with its offsets. A run that is only a card name is reported as
    an untranslated card name (CARD003) instead; one that only holds names kept as in the
    English source (a card never printed in the language, a company or a person, written
    in capitals as names are) or web addresses is not reported. Besides the runs the
    language identifier finds, a stretch of three or more words copied from the English
    source ("Puedes jugar it any time you could cast an instant") counts, however short:
    identifiers cannot tell a short clause's language; for the same reason a run of fewer
    than four words that the identifier calls another language of the same script
    ("conjuro y tribal." in Spanish) counts only when it copies the source. Words the
    project's allow lists let stay in English are never a foreign run."""
    if not ruling.doc_lang or ruling.lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    source = pair.source.text if pair else None
    if is_legal(source or ruling.text):
        return
    copied = _copied(ctx, ruling.text, source) if source is not None else []
    found = [
        dict(span)
        for span in ruling.spans
        if span["lang"] != ruling.doc_lang
        and _enough_evidence(ruling, span, ctx.source_lang, copied)
    ]
    found += [
        {"lang": ctx.source_lang, "start": start, "end": end}
        for start, end in copied
        if not any(s["start"] <= start and end <= s["end"] for s in found)
    ]
    allowed = ctx.allowed(ruling.text, ruling.doc_lang)
    runs = [
        span
        for span in sorted(found, key=lambda s: (s["start"], s["end"]))
        if not ctx.is_card_name(ruling.text[span["start"] : span["end"]])
        and not kept_on_purpose(ruling, span["start"], span["end"], source)
        and not covered(allowed, ruling.text, span["start"], span["end"])
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
