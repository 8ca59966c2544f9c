"""Where a text names something rather than uses a game term: card names, subtypes, names
kept in another script, and capitalised multi-word names.

A game term found strictly inside such a name is not the term ("墓地" in the card name
墓地鼠群, "Power" in the land type Power-Plant, "Control" in Control Magic), so the term
checks mask names before they count terms. Longest names win: a shorter name inside a
longer one is part of it.
"""

from __future__ import annotations

import bisect
import re
from functools import cache

import ahocorasick

from ..cards import CardIndex
from ..resources import read_tsv
from ..vocabulary import is_unspaced

Span = tuple[int, int]

BRACKETED = re.compile(r"\[[^\[\]]*[A-Za-z][^\[\]]*\]")
"""A name kept in English inside brackets in a translation ([Island of Wak-Wak], 外星人[Alien])."""
LATIN_WORD_CHAR = r"[^\W\u2e80-\u9fff\uf900-\ufaff]"
"""A word character that is no Han character (a Chinese text runs on after a name kept in
English with no space: "Worms of the Earth具有…")."""
CAPITALISED = rf"[A-Z](?:{LATIN_WORD_CHAR}|['’])*(?:-(?:{LATIN_WORD_CHAR}|['’])+)*"
CONNECTORS = r"(?:of|the|and|to|from|with|in|on|for|a|an|de|del|la|las|los|el|y)"
TITLE_CASE = re.compile(rf"{CAPITALISED}(?:\s+(?:{CONNECTORS}\s+)*{CAPITALISED})+")
"""Two or more capitalised words, with the small words names keep in lower case between
them: Graf Rats, Leyline of the Void, Wheel of Sun and Moon."""
HYPHENATED = re.compile(rf"(?<![\w-]){CAPITALISED}-{CAPITALISED}")
"""A capitalised hyphenated name: Power-Plant, Two-Headed Giant's first word."""


class NameFinder:
    """Where names of a list stand in a text, as the alternation of them (longest first)
    would find them with ``finditer`` (case as written; in languages written with spaces,
    no word character, as ``\\w`` means it, on either side), in one Aho-Corasick pass
    instead of one expression over hundreds of alternatives."""

    def __init__(self, names: set[str], spaced: bool) -> None:
        self.spaced = spaced
        self.automaton = ahocorasick.Automaton()
        for name in names:
            self.automaton.add_word(name, len(name))
        self.automaton.make_automaton()

    def spans(self, text: str) -> list[Span]:
        found = []
        size = len(text)
        for last, length in self.automaton.iter(text):
            end = last + 1
            start = end - length
            if self.spaced and (
                (start and _is_word(text[start - 1])) or (end < size and _is_word(text[end]))
            ):
                continue
            found.append((start, -end))
        found.sort()  # leftmost, then longest: what the alternation tries first
        taken, reach = [], 0
        for start, negative_end in found:
            if start >= reach:
                reach = -negative_end
                taken.append((start, reach))
        return taken


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


@cache
def _subtype_finders() -> dict[str, NameFinder]:
    by_lang: dict[str, set[str]] = {}
    for row in read_tsv("subtypes.tsv"):
        for lang in ("en", "zh", "es"):
            name = row.get(lang, "").strip()
            if len(name) > 1:
                by_lang.setdefault(lang, set()).add(name)
    return {lang: NameFinder(names, not is_unspaced(lang)) for lang, names in by_lang.items()}


def subtype_spans(text: str, lang: str) -> list[Span]:
    finder = _subtype_finders().get(lang.split("-")[0])
    return finder.spans(text) if finder else []


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


class Names:
    """The name spans of a text, to ask of many stretches whether a longer name holds them,
    in a look-up each: a span holds a stretch when it starts before it and reaches its
    end, or starts where it starts and ends after it."""

    def __init__(self, spans: list[Span]) -> None:
        ordered = sorted(spans)
        self.starts = [start for start, _ in ordered]
        self.reach: list[int] = []  # the furthest end of the spans up to each one
        furthest = -1
        for _, end in ordered:
            furthest = max(furthest, end)
            self.reach.append(furthest)
        self.longest_at: dict[int, int] = {}
        for start, end in ordered:
            self.longest_at[start] = end

    def hold(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self.starts, start)
        return (before > 0 and self.reach[before - 1] >= end) or self.longest_at.get(
            start, -1
        ) > end
