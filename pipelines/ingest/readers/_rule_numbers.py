"""Rule-number patterns shared by the Comprehensive Rules readers."""

from __future__ import annotations

import re

RULE = re.compile(
    r"^(?P<number>\d{3}\.\d+[a-z]?)\.?(?:(?:\s+|(?=[\u3000-\u9fff\uff00-\uffef“「（]))(?P<text>.*))?$"
)
"""A numbered rule or sub-rule: ``100.1.``, ``702.62a``, ``502.81.`` followed by its text
(in Chinese sometimes with no space between: ``100.6b牌手可以…``)."""

SECTION = re.compile(r"^(?P<number>\d{3})\.\s+(?P<text>\S.*)$")
"""A section heading: ``708. Face-Down Spells and Permanents``."""

CHAPTER = re.compile(r"^(?P<number>\d)\.\s+(?P<text>\S.*)$")
"""A chapter heading: ``7. Additional Rules``."""

SUMMARY_ITEM = re.compile(r"^[-–•]\s*(?P<number>\d{3}\.\d+[a-z]?)\.?\s+(?P<text>.*)$")
"""An item of a section summary: ``- 708.1 Title text…``."""

BULLET = re.compile(r"^[*•]\s+(?P<text>.*)$")
"""A ruling under a rule: ``* Playing a card by using its retrace ability…``."""

SEPARATOR = re.compile(r"^[-=_*]{3,}$")
"""A line that separates parts of a file (``-----``)."""


def heading_number(line: str) -> tuple[str, str] | None:
    """(number, title) of a section or chapter heading line."""
    match = SECTION.match(line) or CHAPTER.match(line)
    return (match["number"], match["text"].strip()) if match else None
