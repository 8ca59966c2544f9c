"""One input file through the reader that recognises it: what it gave (``FileResult``), its
problems as findings, and every line a reader left out accounted for."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import msgspec

from ..catalogue import make_finding
from ..model import CardName, Finding, Ruling
from .readers import READERS, Output, choose
from .source import NOT_READ_HIDDEN, SourceFile

READ_RESOURCES = (
    "card_names.tsv",
    "card_names_manual.tsv",
    "example_cues.tsv",
    "its_mqm.tsv",
    "month_names.tsv",
    "mtgjson_languages.tsv",
    "notation.tsv",
    "placeholder_patterns.tsv",
    "subtypes.tsv",
)
"""The shipped data the readers and the passes over their readings read: their bytes are in
the versions of the ingest kinds of unit."""


@dataclass
class FileResult:
    """What one input file gave (the record of a file's reading, ``READ``)."""

    rulings: list[Ruling] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    card_names: list[CardName] = field(default_factory=list)
    format: str | None = None

    def add(self, item: Output) -> None:
        """One of a reader's outputs, in the list of its kind."""
        if isinstance(item, Ruling):
            self.rulings.append(item)
        elif isinstance(item, Finding):
            self.findings.append(item)
        else:
            self.card_names.append(item)


_CARD_NAMES = msgspec.json.Decoder(CardName)


def card_names_of(lines: bytes) -> list[CardName]:
    """Card-name entries from their lines in cards.jsonl (``tables.Lines.encoded``)."""
    return _CARD_NAMES.decode_lines(lines) if lines else []


def keepable(read: FileResult) -> bool:
    """Whether a reading may be kept in the work cache: not one of a file that could not be
    read (PARSE010: the next run tries again)."""
    return not any(f.code == "PARSE010" for f in read.findings)


def read_file(doc: SourceFile) -> FileResult:
    """One file through the reader that recognises it; problems become findings."""
    try:
        return _read_file(doc)
    finally:
        doc.forget_contents()


def not_read(doc: SourceFile) -> Finding:
    """The finding of a file discovery left unopened: a hidden file, or a special file."""
    if doc.not_read == NOT_READ_HIDDEN:
        return make_finding(
            "PARSE014",
            f"{doc.rel} is a hidden file (its name starts with a dot) and was not read; "
            "rename it, or give it as INPUT, to have it read.",
            file=doc.rel,
            evidence={"bytes": _size(doc)},
        )
    return make_finding(
        "PARSE010",
        f"{doc.rel} is {doc.not_read}, not a regular file; it was not read.",
        file=doc.rel,
        evidence={"error": f"not a regular file: {doc.not_read}"},
    )


def _size(doc: SourceFile) -> int | None:
    try:
        return doc.size
    except OSError:
        return None


def _read_file(doc: SourceFile) -> FileResult:
    result = FileResult()
    if doc.not_read:
        result.findings.append(not_read(doc))
        return result
    try:
        encoding = doc.encoding
    except OSError as error:
        result.findings.append(
            make_finding(
                "PARSE010",
                f"{doc.rel} cannot be read ({error.strerror or error}); it was skipped.",
                file=doc.rel,
                evidence={"error": f"{type(error).__name__}: {error.strerror or error}"},
            )
        )
        return result
    if encoding is None:
        result.findings.append(
            make_finding(
                "PARSE001",
                f"{doc.rel} is not a text file; it was skipped.",
                file=doc.rel,
                evidence={"bytes": doc.size},
            )
        )
        return result
    name = choose(doc)
    if name is None and doc.is_json:
        doc.problems.append(
            make_finding(
                "PARSE009",
                f"{doc.rel} is JSON of a shape no reader knows (not MTGJSON or Scryfall).",
                file=doc.rel,
                evidence={"bytes": doc.size, "json_path": ""},
            )
        )
    elif name is None and not doc.problems:
        doc.problems.append(
            make_finding(
                "PARSE003", f"{doc.rel} has no text.", file=doc.rel, evidence={"bytes": doc.size}
            )
        )
    elif name is not None:
        result.format = name
        take(result, lambda: READERS[name].target(doc), name, doc)
        if not doc.is_json:
            result.findings.extend(
                unaccounted_lines(doc, result.rulings, result.findings + doc.problems)
            )
    result.findings.extend(doc.problems)
    return result


def accounted_lines(rulings: Iterable[Ruling], findings: Iterable[Finding]) -> set[int]:
    """The input lines that rulings (text and carried lines) and findings account for."""
    lines: set[int] = set()
    for item in rulings:
        if item.line is not None:
            lines.update(range(item.line, (item.end_line or item.line) + 1))
        lines.update(item.carried_lines)
    for finding in findings:
        if finding.line is not None:
            lines.add(finding.line)
        lines.update(finding.evidence.get("lines", ()))
    return lines


def unaccounted_lines(
    doc: SourceFile, rulings: list[Ruling], findings: list[Finding]
) -> list[Finding]:
    """A safety net: every non-blank line a reader left out becomes a PARSE004 finding."""
    accounted = accounted_lines(rulings, findings)
    return [
        make_finding(
            "PARSE004",
            f"Line {number} of {doc.rel} was not understood.",
            file=doc.rel,
            line=number,
            evidence={"line": line.strip()},
        )
        for number, line in enumerate(doc.lines, 1)
        if line.strip() and number not in accounted
    ]


def take(
    result: FileResult, read: Callable[[], Iterable[Output]], name: str, doc: SourceFile
) -> None:
    """What ``read`` gives (a reader's outputs) sorted into ``result``; a reader that fails
    (a bug: it must not stop the batch), when called or on the way, is a PARSE007 after
    what it gave."""
    try:
        for item in read():
            result.add(item)
    except Exception as error:
        result.findings.append(
            make_finding(
                "PARSE007",
                f"The {name} reader failed on {doc.rel}: {error}",
                file=doc.rel,
                evidence={"reader": name, "error": f"{type(error).__name__}: {error}"},
            )
        )
