"""A title line, then undated paragraphs: the fallback for any text document."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..source import SourceFile
from . import Output, reader
from ._common import Block, blocks, looks_like_title, ruling
from ._plain import split_title

FORMAT = "plain-paragraphs"

SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’»)）」』\]]*$")
"""The end of a sentence, with any closing quotes and brackets after it."""


def detect(doc: SourceFile) -> float:
    """Any text file with at least one paragraph, with the lowest confidence."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    return 0.05 if blocks(doc.lines) else 0.0


def paragraphs(block: Block) -> list[Block]:
    """The paragraphs of a block: the whole block, or one per line when every line ends a
    sentence (a file that writes one paragraph per line, like the Comprehensive Rules with
    their examples right under each rule) or every line is a short title (a table of
    contents). A paragraph wrapped over several lines has lines that end mid-sentence and a
    last line that ends one; a heading over its text ends none, its text does."""
    texts = block.texts
    if len(texts) > 1 and (
        all(SENTENCE_END.search(text) for text in texts)
        or all(looks_like_title(text) for text in texts)
    ):
        return [Block([line]) for line in block.lines]
    return [block]


@reader(FORMAT, detect=detect, ceiling=0.05)
def read_plain_paragraphs(doc: SourceFile) -> Iterator[Output]:
    """Title line, then one ruling per paragraph (lines up to a blank line, or each line of a
    block whose lines all end a sentence or are all titles), with no dates."""
    title, rest = split_title(blocks(doc.lines))
    found = [paragraph for block in rest for paragraph in paragraphs(block)]
    for position, block in enumerate(found):
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
