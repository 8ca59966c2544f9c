"""A Comprehensive Rules section summary: a ``708. Title`` heading, then ``- 708.1 …`` items."""

from __future__ import annotations

from collections.abc import Iterator

from ...catalogue import make_finding
from ..source import SourceFile
from . import Output, at_most, reader
from ._common import looks_like_title, non_blank, normalize, ruling
from ._rule_numbers import SUMMARY_ITEM, heading_number

FORMAT = "cr-summary"


def detect(doc: SourceFile) -> float:
    """A section heading first, and mostly ``- NNN.N`` items after it."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    lines = non_blank(doc.lines)
    if len(lines) < 2 or not heading_number(lines[0][1]):
        return 0.0
    items = sum(1 for _, line in lines[1:] if SUMMARY_ITEM.match(line))
    return 0.95 * items / (len(lines) - 1) if items else 0.0


@reader(FORMAT, detect=detect, priority=30, ceiling=at_most(0.95))
def read_cr_summary(doc: SourceFile) -> Iterator[Output]:
    """Heading ``708. Title``, optional sub-heading lines, then one rule per ``- 708.N`` item.

    The heading is a unit of its own (kind ``heading``) and the document title. Items repeat
    the section title before their text (``- 708.1 Hechizos y permanentes boca abajo Algunas
    cartas…``); that repeated title belongs to the heading, not to the rule text.
    """
    lines = non_blank(doc.lines)
    heading_line, heading = lines[0]
    section, title = heading_number(heading)
    yield ruling(
        doc, FORMAT, heading_line, title, doc_title=heading, section=section, kind="heading"
    )
    carried: list[int] = []
    position = 1
    for number, line in lines[1:]:
        match = SUMMARY_ITEM.match(line)
        if match is None:
            if looks_like_title(line):
                carried.append(number)
                continue
            yield make_finding(
                "PARSE004",
                f"Line {number} is not an item of the section summary.",
                file=doc.rel,
                line=number,
                evidence={"line": line},
            )
            continue
        text = normalize(match["text"])
        if text.casefold().startswith(title.casefold() + " "):
            text = text[len(title) + 1 :]
        yield ruling(
            doc,
            FORMAT,
            number,
            text,
            doc_title=heading,
            section=match["number"],
            kind="rule",
            carried_lines=carried,
            position=position,
        )
        position += 1
