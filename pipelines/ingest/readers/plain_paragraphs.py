"""A title line, then undated paragraphs: the fallback for any text document."""

from __future__ import annotations

from collections.abc import Iterator

from ..source import SourceFile
from . import Output, reader
from ._common import blocks, ruling
from ._plain import split_title

FORMAT = "plain-paragraphs"


def detect(doc: SourceFile) -> float:
    """Any text file with at least one paragraph, with the lowest confidence."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    return 0.05 if blocks(doc.lines) else 0.0


@reader(FORMAT, detect=detect)
def read_plain_paragraphs(doc: SourceFile) -> Iterator[Output]:
    """Title line, then one ruling per paragraph (lines up to a blank line), with no dates."""
    title, rest = split_title(blocks(doc.lines))
    for position, block in enumerate(rest):
        yield ruling(
            doc,
            FORMAT,
            block.start,
            block.joined(),
            end_line=block.end,
            doc_title=title[1] if title else None,
            carried_lines=[title[0]] if title else [],
            position=position,
        )
