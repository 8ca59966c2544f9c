"""Text normalisations the stages share: quotes, spacing and card names made uniform.

Two versions of one ruling count as the same text when they differ only in typography or in
the card they name: ``template_text`` (the alignment's notion of "the same English ruling")
and ``mask_card_names`` (the consistency check's notion of "the same translation").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ..bounded import TEXTS_REMEMBERED

if TYPE_CHECKING:
    from .cards import CardIndex
    from .model import Ruling

QUOTE_MARKS = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "「": '"',
        "」": '"',
        "『": '"',
        "』": '"',
        "‘": "'",
        "’": "'",
    }
)
QUOTE_MARK = re.compile("[" + "".join(map(chr, QUOTE_MARKS)) + "]")
CARD_PLACEHOLDER = "\u2063CARD\u2063"


_QUOTE_REPLACEMENTS = tuple((chr(mark), plain) for mark, plain in QUOTE_MARKS.items())
_ASCII_BLANKS = tuple(c for c in map(chr, range(128)) if c.isspace() and c != " ")
"""The ASCII characters ``str.split`` splits on, but the space."""


def plain_quotes(text: str) -> str:
    """Every quotation mark as a straight one, runs of white space as one space. (A replace
    per mark the text has: ``str.translate`` looks every character up in a dictionary, 24
    times as slow on English rulings, most of which have a curly quote.) An ASCII text has
    no curly quote, and one spaced as the result would be is given back as it is, not split
    into its words and joined again: the 359,011 English rulings of a million units in 0.4 s
    instead of 1.0 s (``benchmarks/results/work_layer.md``)."""
    if text.isascii():
        if (
            "  " in text
            or text[:1] == " "
            or text[-1:] == " "
            or any(blank in text for blank in _ASCII_BLANKS)
        ):
            return " ".join(text.split())
        return text
    if QUOTE_MARK.search(text):
        for mark, plain in _QUOTE_REPLACEMENTS:
            if mark in text:
                text = text.replace(mark, plain)
    return " ".join(text.split())


def template_text(ruling: Ruling) -> str:
    """The ruling's text with its own card's name replaced, quotes made plain and case
    folded: the same ruling on any card, whatever its typography."""
    return _template(ruling.text, ruling.card)


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _template(text: str, card: str | None) -> str:
    if card:
        text = text.replace(card, CARD_PLACEHOLDER)
    return plain_quotes(text).casefold()


def mask_card_names(text: str, lang: str, cards: CardIndex, own: str | None = None) -> str:
    """The text with plain quotes and every card name it mentions (in its language or in
    English, and its own card's names) replaced by one placeholder, longest first."""
    names = set()
    if own:
        names.add(own)
        localized = cards.name_in(own, lang) if lang else None
        if localized:
            names.add(localized)
    spans = [(m.start, m.end) for m in cards.mentions(text)]
    for name in sorted(names, key=len, reverse=True):
        start = text.find(name)
        while start >= 0:
            spans.append((start, start + len(name)))
            start = text.find(name, start + len(name))
    pieces, last = [], 0
    for start, end in sorted(spans):
        if start < last:
            continue
        pieces += [text[last:start], CARD_PLACEHOLDER]
        last = end
    pieces.append(text[last:])
    return plain_quotes("".join(pieces))
