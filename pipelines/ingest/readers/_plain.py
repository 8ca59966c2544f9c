"""The title line that plain ruling documents start with."""

from __future__ import annotations

from ...text import dates
from ._common import Block, looks_like_title


def split_title(found: list[Block]) -> tuple[tuple[int, str] | None, list[Block]]:
    """The document title (line number, text) if the first block is one, and the rest.

    A title is a first block of one short line that is not a date, followed by more text.
    """
    if len(found) >= 2:
        first = found[0]
        single = len(first.lines) == 1
        if single and looks_like_title(first.first) and dates.leading(first.first) is None:
            return first.lines[0], found[1:]
    return None, found


def text_lines_after_title(found: list[Block]) -> list[str]:
    _, rest = split_title(found)
    return [text for block in rest for _, text in block.lines]
