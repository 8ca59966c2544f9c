"""Comprehensive Rules text: numbered rules, examples, ``*`` rulings, glossary, front matter.

Reads the full Comprehensive Rules in any language (front matter, table of contents, rules,
glossary, credits) as well as excerpts such as a file of new mechanics with ``* `` rulings
under a rule and several languages separated by ``-----`` lines. Every non-blank line
becomes a unit (kind ``rule``, ``example``, ``ruling``, ``heading``, ``contents``,
``glossary`` or ``text``) or is carried as the document title, or is reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...catalogue import make_finding
from ...model import Ruling
from ...text import dates
from ...vocabulary import DocKind
from ..source import SourceFile
from . import Output, at_most, reader
from ._common import (
    Block,
    add_carried,
    blocks,
    is_blank,
    looks_like_title,
    normalize,
    ruling,
)
from ._rule_numbers import BULLET, RULE, SEPARATOR, heading_number

FORMAT = "cr-text"


def detect(doc: SourceFile) -> float:
    """Numbered rule lines (``100.1.``, ``702.62a``) and ``*`` rulings under them."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    lines = [line.strip() for line in doc.lines if not is_blank(line)]
    if not lines:
        return 0.0
    rules = sum(1 for line in lines if RULE.match(line))
    if not rules:
        return 0.0
    bullets = sum(1 for line in lines if BULLET.match(line))
    return 0.95 * min(1.0, 1.5 * (rules + bullets) / len(lines))


@dataclass
class _Part:
    """A part of the file between separator lines: one document in one language."""

    number: int
    separator_line: int | None
    lines: list[str]
    offset: int
    """Line number of the part's first line, minus one."""
    blocks: list[Block] = field(default_factory=list)


@reader(FORMAT, detect=detect, priority=40, ceiling=at_most(0.95))
def read_cr_text(doc: SourceFile) -> Iterator[Output]:
    """Numbered rules and sub-rules, their examples and ``*`` rulings, headings, glossary.

    Parts separated by ``-----`` lines are separate documents (``doc`` = ``file#part-N``);
    a heading with nothing under it (for example at the end of the file) is reported.
    """
    parts = _split_parts(doc.lines)
    file_title: tuple[int, str] | None = None
    for part in parts:
        found = blocks(part.lines)
        for block in found:
            block.lines = [(number + part.offset, text) for number, text in block.lines]
        part.blocks = found
        if part.number == 1:
            file_title = _title(found)
            if file_title:
                part.blocks = found[1:]
        yield from _read_part(doc, part, file_title)


def _split_parts(lines: list[str]) -> list[_Part]:
    parts = [_Part(1, None, [], 0)]
    for number, line in enumerate(lines, 1):
        if SEPARATOR.match(line.strip()):
            parts.append(_Part(len(parts) + 1, number, [], number))
        else:
            parts[-1].lines.append(line)
    return parts


def _title(found: list[Block]) -> tuple[int, str] | None:
    if len(found) >= 2 and len(found[0].lines) == 1:
        line = found[0].first
        if looks_like_title(line) and not RULE.match(line) and not heading_number(line):
            return found[0].lines[0]
    return None


class _PartReader:
    """Walks the blocks of one part, keeping the current rule, mode and pending heading."""

    def __init__(self, doc: SourceFile, part: _Part, title: tuple[int, str] | None) -> None:
        self.doc = doc
        self.part = part
        self.doc_id = doc.rel if part.number == 1 else f"{doc.rel}#part-{part.number}"
        self.title = title[1] if title else None
        self.carried = [title[0]] if (title and part.number == 1) else []
        if part.separator_line:
            self.carried.append(part.separator_line)
        self.units: list[Ruling] = []
        self.problems: list[Output] = []
        self.rule: str | None = None
        self.back_matter: list[str] = []
        self.contents_sections: set[str] = set()
        self.in_contents = False
        self.mode = "rules"
        self.open_heading: Ruling | None = None
        self.next_block: Block | None = None
        self.term_list_title: tuple[int, str] | None = None
        self.term_units: list[Ruling] = []

    def unit(self, line: int, text: str, kind: str, **fields) -> Ruling:
        made = ruling(
            self.doc,
            FORMAT,
            line,
            text,
            doc_id=self.doc_id,
            doc_title=self.title,
            kind=kind,
            position=len(self.units),
            **fields,
        )
        self.units.append(made)
        return made

    def heading(self, line: int, text: str, section: str | None) -> None:
        self.close_heading()
        self.open_heading = self.unit(line, text, "heading", section=section)

    def content(self) -> None:
        self.open_heading = None
        self.in_contents = False

    def close_heading(self, at_end: bool = False) -> None:
        """Report the open heading if nothing came under it.

        A numbered section followed by the next numbered section is an empty section (the
        Comprehensive Rules have ``600. General``), not a loss; an unnumbered heading with
        nothing under it, or any heading at the end of a part, is reported.
        """
        heading = self.open_heading
        self.open_heading = None
        if heading is None or (heading.section and not at_end):
            return
        at = next(i for i in reversed(range(len(self.units))) if self.units[i] is heading)
        del self.units[at]  # found by identity from the end: ``remove`` compares every field
        self.problems.append(
            make_finding(
                "PARSE005",
                f"The heading \u201c{heading.text}\u201d on line {heading.line} has no "
                "content under it.",
                file=self.doc.rel,
                line=heading.line,
                section=heading.section,
                evidence={"heading": heading.text},
            )
        )

    def read(self) -> None:
        blocks = self.part.blocks
        for index, block in enumerate(blocks):
            self.next_block = blocks[index + 1] if index + 1 < len(blocks) else None
            self.block(block)
        self.close_heading(at_end=True)
        for position, unit in enumerate(self.units):
            unit.position = position
        self.attach_carried()

    def attach_carried(self) -> None:
        """Give the title and separator lines to the part's first unit, or to its first problem."""
        if not self.carried:
            return
        if self.units:
            first = self.units[0]
            add_carried(self.doc, first, self.carried)
        elif self.problems:
            self.problems[0].evidence["lines"] = self.carried
        else:
            self.problems.append(
                make_finding(
                    "PARSE004",
                    f"Nothing follows the separator on line {self.part.separator_line}.",
                    file=self.doc.rel,
                    line=self.part.separator_line,
                    evidence={"lines": self.carried},
                )
            )

    def block(self, block: Block) -> None:
        first = block.first
        single = len(block.lines) == 1
        if self.mode == "glossary" and _is_term_list(block):
            self.term_list(block)
        elif RULE.match(first) or BULLET.match(first):
            self.rules_block(block)
        elif not single and self.rule is None and all(map(_heading_like, block.texts)):
            self.contents_block(block)
        elif single and (numbered := heading_number(first)):
            self.numbered_heading(block.start, *numbered)
        elif single and looks_like_title(first):
            self.unnumbered_heading(block)
        elif not single and (
            self.mode == "glossary"
            or (self.mode == "rules" and looks_like_title(first) and self.rule)
        ):
            self.glossary_block(block)
        else:
            self.content()
            self.unit(block.start, block.joined(), "text", end_line=block.end)

    def numbered_heading(self, line: int, number: str, title: str) -> None:
        if self.in_contents and number not in self.contents_sections:
            self.contents_entry(line, title, number)
            return
        self.in_contents = False
        self.rule = None
        self.heading(line, title, number)

    def contents_entry(self, line: int, text: str, section: str | None) -> None:
        self.unit(line, text, "contents", section=section)
        if section:
            self.contents_sections.add(section)

    def unnumbered_heading(self, block: Block) -> None:
        text = block.first
        if self.in_contents:
            self.contents_entry(block.start, text, None)
            self.back_matter.append(text)
            return
        if text in self.back_matter:
            self.mode = "glossary" if text == self.back_matter[0] else "text"
        elif self.mode == "glossary" and self.next_block and _is_term_list(self.next_block):
            self.term_list_title = block.lines[0]
            return
        elif self.mode == "glossary":
            self.problems.append(
                make_finding(
                    "PARSE005",
                    f"The glossary entry \u201c{text}\u201d on line {block.start} has no "
                    "definition.",
                    file=self.doc.rel,
                    line=block.start,
                    evidence={"heading": text},
                )
            )
            return
        self.heading(block.start, text, None)

    def rules_block(self, block: Block) -> None:
        self.content()
        current: Ruling | None = None
        for number, text in block.lines:
            if match := RULE.match(text):
                self.rule = match["number"]
                current = self.unit(number, match["text"] or "", "rule", section=self.rule)
            elif match := BULLET.match(text):
                current = self.unit(number, match["text"], "ruling", section=self.rule)
            elif current is not None and current.kind == "ruling":
                current.text = normalize(f"{current.text} {text}")
                current.end_line = number
            else:
                current = self.unit(number, text, "example", section=self.rule)

    def contents_block(self, block: Block) -> None:
        """A table of contents: its unnumbered entries after the last numbered one name the
        back matter (Glossary, Credits) that follows the rules."""
        self.content()
        for number, text in block.lines:
            numbered = heading_number(text)
            self.contents_entry(number, *(numbered[::-1] if numbered else (text, None)))
            if not numbered:
                self.back_matter.append(text)
        self.in_contents = True

    def term_list(self, block: Block) -> None:
        """A list of term pairs in the back matter ("Abandon: 终止", the Chinese rules'
        provisional names): a glossary of its own (``doc`` ``<file>#terms``), never aligned
        with the rules; its title line is carried by its first entry."""
        self.content()
        doc_id = f"{self.doc_id}#terms"
        title = self.term_list_title
        for number, text in block.lines:
            term, _, translation = text.partition(":" if ":" in text else "：")
            unit = ruling(
                self.doc,
                FORMAT,
                number,
                text,
                doc_id=doc_id,
                doc_title=title[1] if title else self.title,
                kind="glossary",
                term=term.strip(),
                position=len(self.term_units),
                carried_lines=[title[0]] if title and not self.term_units else None,
            )
            unit.context = f"{term.strip()} / {translation.strip()}"
            unit.doc_kind = DocKind.GLOSSARY
            self.term_units.append(unit)
        self.term_list_title = None

    def glossary_block(self, block: Block) -> None:
        self.content()
        for entry_block in _glossary_entries(block):
            entry = self.unit(
                entry_block.lines[1][0],
                entry_block.joined(skip=1),
                "glossary",
                term=entry_block.first,
                end_line=entry_block.end,
            )
            add_carried(self.doc, entry, [entry_block.start])


SENTENCE_END = re.compile(r"[.。!?！？][”\"’」』)）]*$")
NUMBERED_SENSE = re.compile(r"^\d+\.\s")


TERM_PAIR = re.compile(r"^(?P<term>[A-Za-z][^:：]{0,60})[:：]\s*(?P<translation>\S.*)$")
TERM_LIST_SHARE = 0.8


def _is_term_list(block: Block) -> bool:
    """Lines that pair a term with its translation in another script ("Planeswalk: 时空换境"),
    one pair a line, at least three."""
    pairs = 0
    for text in block.texts:
        match = TERM_PAIR.match(text)
        if match and re.search(r"[^\x00-\u024f\s\d\W]", match["translation"]):
            pairs += 1
    return len(block.lines) >= 3 and pairs >= TERM_LIST_SHARE * len(block.lines)


def _glossary_entries(block: Block) -> list[Block]:
    """A glossary block split where a term line follows a finished definition with no blank
    line between ("…“Adventurer Cards.”" then "Affinity" then its definition): each entry
    its own unit. A term line is short, ends no sentence and is no numbered sense ("2. A
    status a permanent may have.")."""
    entries = [Block([block.lines[0]])]
    lines = block.lines
    for k in range(1, len(lines)):
        text = lines[k][1]
        starts_entry = (
            len(entries[-1].lines) >= 2
            and k + 1 < len(lines)
            and looks_like_title(text)
            and not SENTENCE_END.search(text)
            and not NUMBERED_SENSE.match(text)
            and bool(SENTENCE_END.search(lines[k - 1][1]))
        )
        if starts_entry:
            entries.append(Block([lines[k]]))
        else:
            entries[-1].lines.append(lines[k])
    return entries


def _heading_like(line: str) -> bool:
    return bool(heading_number(line)) or looks_like_title(line)


def _read_part(doc: SourceFile, part: _Part, title: tuple[int, str] | None) -> Iterator[Output]:
    walker = _PartReader(doc, part, title)
    walker.read()
    effective = _effective_date(walker.units)
    for unit in walker.units:
        unit.date_raw = effective
    yield from walker.units
    yield from walker.term_units
    yield from walker.problems


def _effective_date(units: list[Ruling]) -> str | None:
    """The date of the front matter (``These rules are effective as of October 13, 2023.``)."""
    for unit in units:
        if unit.kind in ("rule", "contents", "ruling"):
            return None
        if unit.kind == "text" and (found := dates.search(unit.text)):
            return found.raw
    return None
