"""Term lists and bilingual glossaries: a headword (pair) per entry, then its definitions.

Two layouts are recognised:

- headings that pair a term with its translation (``### Ability / 异能``, HTML tags such as
  ``<span id=…>`` stripped), each followed by its definition lines in one or both
  languages, entries separated by ``----`` lines (the Chinese Comprehensive Rules glossary);
- tab-separated term lists (``ability<TAB>异能``, two or more columns a line).

Every definition line is a ``glossary`` unit whose ``term`` is the headword in the line's
script and whose ``context`` is the entry's headword line; the document is a glossary
(``doc_kind``): it is never aligned as a translation, and its term pairs are offered as a
termbase (the ``terms`` report). Headings, separators and front matter are carried by the
next unit.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...vocabulary import DocKind
from ..source import SourceFile
from . import Output, reader
from ._common import non_blank, normalize, ruling
from ._rule_numbers import SEPARATOR

FORMAT = "glossary"

TAG = re.compile(r"<[^<>]*>")
HEADWORD_PAIR = re.compile(r"^#{1,6}\s*(?P<first>[^/]+?)\s+/\s+(?P<second>[^/]+?)\s*$")
"""A heading naming a term and its translation: ``### Ability / 异能``."""
HEADING = re.compile(r"^#{1,6}\s")
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
MIN_ENTRIES = 10
MIN_SHARE = 0.1
"""A glossary has at least this many headword pairs, and they are at least this share of
its lines (a rules text with a few headings is not one)."""
TSV_MIN_SHARE = 0.8


def _plain(line: str) -> str:
    return normalize(TAG.sub("", line))


def _pair(line: str) -> tuple[str, str] | None:
    match = HEADWORD_PAIR.match(_plain(line))
    if not match:
        return None
    first, second = match["first"].strip(), match["second"].strip()
    return (first, second) if first and second and first != second else None


def _tsv_cells(line: str) -> list[str] | None:
    cells = [cell.strip() for cell in line.split("\t")]
    if len(cells) >= 2 and all(cells[:2]) and all(len(cell) <= 80 for cell in cells[:2]):
        return cells
    return None


def detect(doc: SourceFile) -> float:
    """Many headword-pair headings, or mostly tab-separated term rows."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    lines = [text for _, text in non_blank(doc.lines)]
    if not lines:
        return 0.0
    pairs = sum(1 for line in lines if _pair(line))
    if pairs >= MIN_ENTRIES and pairs / len(lines) >= MIN_SHARE:
        return 0.97
    rows = sum(1 for line in lines if _tsv_cells(line))
    if rows >= MIN_ENTRIES and rows / len(lines) >= TSV_MIN_SHARE:
        return 0.9
    return 0.0


def _headword_for(line: str, pair: tuple[str, str]) -> str:
    """The headword in the script of a definition line (Han or not)."""
    han_line = bool(HAN.search(line))
    for headword in pair:
        if bool(HAN.search(headword)) == han_line:
            return headword
    return pair[0]


@reader(FORMAT, detect=detect, priority=60, ceiling=0.97)
def read_glossary(doc: SourceFile) -> Iterator[Output]:
    """One ``glossary`` unit per definition line (or per term of a term-list row)."""
    lines = non_blank(doc.lines)
    if sum(1 for _, text in lines if _tsv_cells(text)) / max(1, len(lines)) >= TSV_MIN_SHARE:
        yield from _read_term_list(doc, lines)
        return
    pending: list[int] = []
    pair: tuple[str, str] | None = None
    position = 0
    last = None
    for number, text in lines:
        found = _pair(text)
        if found or SEPARATOR.match(text) or HEADING.match(text) or pair is None:
            if found:
                pair = found
            pending.append(number)
            continue
        unit = ruling(
            doc,
            FORMAT,
            number,
            _plain(text),
            kind="glossary",
            term=_headword_for(text, pair),
            carried_lines=pending,
            position=position,
        )
        unit.context = f"{pair[0]} / {pair[1]}"
        unit.doc_kind = DocKind.GLOSSARY
        position += 1
        pending = []
        last = unit
        yield unit
    if pending and last is not None:
        last.carried = last.carried + [
            {"line": n, "text": normalize(doc.lines[n - 1])} for n in pending
        ]
    elif pending:
        yield from _front_matter_only(doc, pending)


def _read_term_list(doc: SourceFile, lines: list[tuple[int, str]]) -> Iterator[Output]:
    for position, (number, text) in enumerate(lines):
        cells = _tsv_cells(text) or [text]
        unit = ruling(
            doc,
            FORMAT,
            number,
            " / ".join(cells),
            kind="glossary",
            term=cells[0],
            position=position,
        )
        unit.context = " / ".join(cells[:2])
        unit.doc_kind = DocKind.GLOSSARY
        yield unit


def _front_matter_only(doc: SourceFile, pending: list[int]) -> Iterator[Output]:
    """Headings with no definition at all: one unit of the first, carrying the rest."""
    first, *rest = pending
    unit = ruling(
        doc,
        FORMAT,
        first,
        _plain(doc.lines[first - 1]),
        kind="heading",
        carried_lines=rest,
    )
    unit.doc_kind = DocKind.GLOSSARY
    yield unit
