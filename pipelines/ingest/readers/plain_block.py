"""A title line, then blocks of a date line, a blank line and a paragraph."""

from __future__ import annotations

from collections.abc import Iterator

from ...catalogue import make_finding
from ...text import dates
from ..source import SourceFile
from . import Output, at_most, reader
from ._common import blocks, ruling
from ._plain import split_title

FORMAT = "plain-block"


def detect(doc: SourceFile) -> float:
    """How regularly date-only lines alternate with paragraphs after the title."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    _, rest = split_title(blocks(doc.lines))
    if not rest:
        return 0.0
    date_lines = sum(1 for block in rest if dates.is_date_line(block.first))
    if not date_lines:
        return 0.0
    paragraphs = len(rest) - date_lines
    return 0.9 * min(date_lines, paragraphs) / max(date_lines, paragraphs, 1)


@reader(FORMAT, detect=detect, priority=10, ceiling=at_most(0.9))
def read_plain_block(doc: SourceFile) -> Iterator[Output]:
    """Title line, then date line, blank line, paragraph; the date applies to what follows.

    Every paragraph under a date line is a ruling with that date; a date line with no
    paragraph before the next date (or the end) is reported, as is text before any date.
    """
    title, rest = split_title(blocks(doc.lines))
    title_text = title[1] if title else None
    title_lines = [title[0]] if title else []
    date_line: tuple[int, str] | None = None
    date_used = True
    position = 0
    for block in rest:
        lines = block.lines
        if dates.is_date_line(block.first):
            if not date_used:
                yield _dangling_date(doc, date_line)
            date_line, date_used = lines[0], False
            lines = lines[1:]
            if not lines:
                continue
        date_raw = dates.leading(date_line[1])[0].raw if date_line else None
        carried = title_lines + ([date_line[0]] if date_line else [])
        yield ruling(
            doc,
            FORMAT,
            lines[0][0],
            " ".join(text for _, text in lines),
            end_line=lines[-1][0],
            doc_title=title_text,
            date_raw=date_raw,
            carried_lines=carried,
            position=position,
        )
        position += 1
        date_used = True
    if not date_used:
        yield _dangling_date(doc, date_line)


def _dangling_date(doc: SourceFile, date_line: tuple[int, str] | None) -> Output:
    number, text = date_line
    return make_finding(
        "PARSE004",
        f"Line {number} is a date with no ruling under it.",
        file=doc.rel,
        line=number,
        evidence={"line": text},
    )
