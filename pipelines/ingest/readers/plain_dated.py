"""A title line, then one ruling per line, each starting with its date."""

from __future__ import annotations

from collections.abc import Iterator

from ...catalogue import make_finding
from ...text import dates
from ..source import SourceFile
from . import Output, at_most, reader
from ._common import blocks, ruling
from ._plain import split_title, text_lines_after_title

FORMAT = "plain-dated"


def detect(doc: SourceFile) -> float:
    """The share of lines (after the title) that start with a date followed by text."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    lines = text_lines_after_title(blocks(doc.lines))
    if not lines:
        return 0.0
    dated = 0
    for line in lines:
        found = dates.leading(line)
        if found and found[1]:
            dated += 1
    return 0.9 * dated / len(lines) if dated else 0.0


@reader(FORMAT, detect=detect, priority=20, ceiling=at_most(0.9))
def read_plain_dated(doc: SourceFile) -> Iterator[Output]:
    """Title line, then one ruling per line that starts with a date.

    A line without a date directly under a ruling continues it; one after a blank line is a
    ruling of its own, with no date (the date checks report it).
    """
    title, rest = split_title(blocks(doc.lines))
    title_text = title[1] if title else None
    carried = [title[0]] if title else []
    position = 0
    for block in rest:
        pending = None
        for number, line in block.lines:
            found = dates.leading(line)
            if found and not found[1]:
                if pending:
                    yield pending
                    pending = None
                yield make_finding(
                    "PARSE004",
                    f"Line {number} is a date with no ruling text after it.",
                    file=doc.rel,
                    line=number,
                    evidence={"line": line},
                )
                continue
            if found is None and pending is not None:
                pending.text = f"{pending.text} {' '.join(line.split())}"
                pending.end_line = number
                continue
            if pending:
                yield pending
            date_raw, text = (found[0].raw, found[1]) if found else (None, line)
            pending = ruling(
                doc,
                FORMAT,
                number,
                text,
                doc_title=title_text,
                date_raw=date_raw,
                carried_lines=carried,
                position=position,
            )
            position += 1
        if pending:
            yield pending
