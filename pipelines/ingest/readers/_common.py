"""What the text readers share: blocks of lines, title lines, ruling construction."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model import Ruling
from ..source import SourceFile

TITLE_MAX_CHARS = 80


@dataclass(slots=True)
class Block:
    """Consecutive non-blank lines: (1-based line number, text) pairs."""

    lines: list[tuple[int, str]] = field(default_factory=list)

    @property
    def start(self) -> int:
        return self.lines[0][0]

    @property
    def end(self) -> int:
        return self.lines[-1][0]

    @property
    def first(self) -> str:
        return self.lines[0][1]

    @property
    def texts(self) -> list[str]:
        return [text for _, text in self.lines]

    def joined(self, skip: int = 0) -> str:
        return normalize(" ".join(text for _, text in self.lines[skip:]))


def normalize(text: str) -> str:
    """Whitespace-normalized text: runs of spaces (NBSP included) become one space."""
    return " ".join(text.split())


def is_blank(line: str) -> bool:
    return not line.strip()


def blocks(lines: list[str]) -> list[Block]:
    found: list[Block] = []
    current = Block()
    for number, line in enumerate(lines, 1):
        if is_blank(line):
            if current.lines:
                found.append(current)
                current = Block()
        else:
            current.lines.append((number, line.strip()))
    if current.lines:
        found.append(current)
    return found


def non_blank(lines: list[str]) -> list[tuple[int, str]]:
    return [(number, line.strip()) for number, line in enumerate(lines, 1) if not is_blank(line)]


def looks_like_title(line: str) -> bool:
    """A short line that does not end like a sentence: a document or section title."""
    text = line.strip()
    return 0 < len(text) <= TITLE_MAX_CHARS and text[-1] not in ".。!?！？:：;；,，"


def carried_entries(doc: SourceFile, lines: list[int]) -> list[dict]:
    """Carried input lines with their text (a heading, a title, a date line), in order."""
    return [{"line": line, "text": normalize(doc.lines[line - 1])} for line in sorted(set(lines))]


def add_carried(doc: SourceFile, unit: Ruling, lines: list[int]) -> None:
    """Give a unit more carried lines."""
    unit.carried = carried_entries(doc, [*unit.carried_lines, *lines])


def ruling(
    doc: SourceFile,
    fmt: str,
    line: int,
    text: str,
    *,
    end_line: int | None = None,
    doc_id: str | None = None,
    doc_title: str | None = None,
    section: str | None = None,
    date_raw: str | None = None,
    kind: str = "ruling",
    carried_lines: list[int] | None = None,
    term: str | None = None,
    position: int = 0,
) -> Ruling:
    return Ruling(
        id=f"{doc.rel}:{line}",
        file=doc.rel,
        line=line,
        format=fmt,
        doc_title=doc_title,
        card=None,
        section=section,
        doc_lang=None,
        lang=None,
        spans=[],
        date=None,
        date_raw=date_raw,
        text=normalize(text),
        doc=doc_id or doc.rel,
        kind=kind,
        end_line=end_line if end_line is not None else line,
        carried=carried_entries(doc, carried_lines or []),
        term=term,
        position=position,
    )
