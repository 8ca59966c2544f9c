"""Card text lines: what a card's printed text is (as opposed to rulings and rules), and its
reminder text, which printed cards give or leave out as space allows."""

from __future__ import annotations

import re
from functools import cache

from ..model import Ruling
from ..resources import read_tsv
from ..vocabulary import CAT_FORMATS

RULES_FORMATS = frozenset({"cr-text", "cr-summary"})
REMINDER_TEXT = re.compile(r"\s*[(（][^()（）]*[)）]")
"""Reminder text: a parenthesised explanation of a keyword on a card's text line."""


UNDATED_FORMATS = frozenset({"plain-paragraphs"})
"""The formats whose undated units may be card text whatever card they are about."""


def is_card_text(ruling: Ruling) -> bool:
    """A line of a card's text: undated, not rules text, and about a card or in undated
    paragraphs (a card no card data names yet)."""
    return (
        not ruling.date
        and ruling.format not in RULES_FORMATS
        and ruling.section is None
        and (ruling.card is not None or ruling.format in UNDATED_FORMATS)
    )


def is_card_document_line(ruling: Ruling) -> bool:
    """A line of a card document's text (``is_card_text``), not a segment of a translator's
    bilingual file that holds one (``CAT_FORMATS``): printed card text runs lines together
    and drops reminder text, a CAT file pairs its segments itself."""
    return is_card_text(ruling) and ruling.format not in CAT_FORMATS


def is_reminder_line(ruling: Ruling) -> bool:
    """A card's text line that only a printing has: reminder text alone ("({R/W} puede
    pagarse con {R} o con {W}.)"), which printed cards add or leave out as space allows, or
    a sentence the current Oracle text says otherwise (a colour as a sentence, "Visión
    ancestral es azul.": resources/printed_only_lines.tsv). One with no English counterpart
    is nobody's translation and no extra."""
    if not is_card_text(ruling):
        return False
    text = ruling.text.strip()
    if REMINDER_TEXT.fullmatch(text):
        return True
    pattern = _printed_only().get((ruling.lang or "").split("-")[0])
    return bool(pattern and pattern.fullmatch(text))


@cache
def _printed_only() -> dict[str, re.Pattern[str]]:
    by_lang: dict[str, list[str]] = {}
    for row in read_tsv("printed_only_lines.tsv"):
        by_lang.setdefault(row["lang"], []).append(f"(?:{row['pattern']})")
    return {lang: re.compile("|".join(p), re.IGNORECASE) for lang, p in by_lang.items()}


def sentence_pieces(text: str) -> list[str]:
    """A card text line's sentences, reminder text kept with the sentence before it
    ("Vuela. Cuando la Narcomiba…" -> "Vuela.", "Cuando la Narcomiba…"): the parts a
    printed paragraph that runs several lines of the card into one is made of."""
    pieces, start, depth = [], 0, 0
    for at, char in enumerate(text):
        if char in "(（":
            depth += 1
        elif char in ")）":
            depth = max(0, depth - 1)
            ends = at > 0 and text[at - 1] in ".!?。！？"
            following = text[at + 1 :].lstrip()[:1]
            if depth == 0 and ends and (following.isupper() or following in ("{", "“", '"')):
                pieces.append(text[start : at + 1].strip())  # "…no puede atacar.)Vuela."
                start = at + 1 + len(text[at + 1 :]) - len(text[at + 1 :].lstrip())
            elif depth == 0 and ends and "\u4e00" <= following <= "\u9fff":
                pieces.append(text[start : at + 1].strip())
                start = at + 1
        elif depth == 0 and char in ".;!?。；！？":
            end = at + 1
            rest = text[end:]
            gap = len(rest) - len(rest.lstrip())
            if end + gap < len(text) and not rest[gap:].startswith(("(", "（")):
                pieces.append(text[start:end].strip())
                start = end + gap
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]
