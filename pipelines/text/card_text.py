"""Card text lines: what a card's printed text is (as opposed to rulings and rules), and its
reminder text, which printed cards give or leave out as space allows."""

from __future__ import annotations

import re

from ..model import Ruling

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


def is_reminder_line(ruling: Ruling) -> bool:
    """A card's text line that is only reminder text ("({R/W} puede pagarse con {R} o con
    {W}.)"): printed cards add or leave out such lines as space allows, so one with no
    English counterpart is nobody's translation and no extra."""
    return is_card_text(ruling) and REMINDER_TEXT.fullmatch(ruling.text.strip()) is not None
