"""Where a text names something rather than uses a game term: card names, subtypes, names
kept in another script, and capitalised multi-word names.

A game term found strictly inside such a name is not the term ("墓地" in the card name
墓地鼠群, "Power" in the land type Power-Plant, "Control" in Control Magic), so the term
checks mask names before they count terms. Longest names win: a shorter name inside a
longer one is part of it.
"""

from __future__ import annotations

import re
from functools import cache

from ..cards import CardIndex
from ..resources import read_tsv
from ..vocabulary import is_unspaced

Span = tuple[int, int]

BRACKETED = re.compile(r"\[[^\[\]]*[A-Za-z][^\[\]]*\]")
"""A name kept in English inside brackets in a translation ([Island of Wak-Wak], 外星人[Alien])."""
CAPITALISED = r"[A-Z][\w'’]*(?:-[\w'’]+)*"
CONNECTORS = r"(?:of|the|and|to|from|with|in|on|for|a|an|de|del|la|las|los|el|y)"
TITLE_CASE = re.compile(rf"{CAPITALISED}(?:\s+(?:{CONNECTORS}\s+)*{CAPITALISED})+")
"""Two or more capitalised words, with the small words names keep in lower case between
them: Graf Rats, Leyline of the Void, Wheel of Sun and Moon."""
HYPHENATED = re.compile(rf"(?<![\w-]){CAPITALISED}-{CAPITALISED}")
"""A capitalised hyphenated name: Power-Plant, Two-Headed Giant's first word."""


@cache
def _subtype_patterns() -> dict[str, re.Pattern[str] | None]:
    by_lang: dict[str, set[str]] = {}
    for row in read_tsv("subtypes.tsv"):
        for lang in ("en", "zh", "es"):
            name = row.get(lang, "").strip()
            if len(name) > 1:
                by_lang.setdefault(lang, set()).add(name)
    patterns = {}
    for lang, names in by_lang.items():
        body = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        patterns[lang] = re.compile(body if is_unspaced(lang) else rf"(?<!\w)(?:{body})(?!\w)")
    return patterns


def subtype_spans(text: str, lang: str) -> list[Span]:
    pattern = _subtype_patterns().get(lang.split("-")[0])
    return [m.span() for m in pattern.finditer(text)] if pattern else []


def name_spans(text: str, lang: str, cards: CardIndex, source_lang: str = "en") -> list[Span]:
    """Every stretch of the text that is a name (possibly overlapping)."""
    spans = [(m.start, m.end) for m in cards.mentions(text, [lang, source_lang])]
    spans += subtype_spans(text, lang)
    if is_unspaced(lang):
        spans += [m.span() for m in BRACKETED.finditer(text)]
    else:
        spans += [_without_opening_word(text, m) for m in TITLE_CASE.finditer(text)]
        spans += [m.span() for m in HYPHENATED.finditer(text)]
    return [(s, e) for s, e in spans if s < e]


SENTENCE_START = re.compile(r"(?:^|[.:;!?\"“(—–-]\s*)$")


def _without_opening_word(text: str, match: re.Match[str]) -> tuple[int, int]:
    """A capitalised run that opens a sentence, but for its first word: a sentence's first
    word is capitalised whatever it is ("Untap Torchling": the verb, then the name)."""
    start, end = match.span()
    if not SENTENCE_START.search(text[:start]):
        return start, end
    first = re.match(r"\S+\s+(?:(?:" + CONNECTORS + r")\s+)*", text[start:end])
    return (start + first.end(), end) if first else (end, end)


def inside_a_name(start: int, end: int, spans: list[Span], *, strictly: bool = True) -> bool:
    """Whether [start, end) lies inside a name span (a longer one, when ``strictly``)."""
    return any(
        s <= start and end <= e and (not strictly or (e - s) > (end - start)) for s, e in spans
    )
