"""Input files: discovery, decoding (BOM, UTF-16, Latin-1), binary detection, lines."""

from __future__ import annotations

import codecs
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

from ..model import Finding
from ..rules import define, emit

MAX_LINE_CHARS = 20_000
"""Longer lines are not ruling text (a ruling is at most a few thousand characters)."""

SNIFF_BYTES = 64 * 1024
JSON_START = re.compile(r'[{\[]\s*(?:$|["{\[\]}\d-]|true|false|null)')
"""An object or array whose first value looks like JSON (not "[Note] ..." text)."""

define(
    "PARSE001",
    "parse",
    "error",
    """The file is not text (it contains NUL bytes or other binary data) and was skipped.
    Every other file of the batch is still read.""",
)
define(
    "PARSE002",
    "parse",
    "warning",
    """The file is not UTF-8. It was decoded with the encoding its byte-order mark names, or
    as Windows-1252/Latin-1; accented letters may be wrong if that guess is wrong. Save the
    file as UTF-8.""",
)
define(
    "PARSE003",
    "parse",
    "warning",
    """The file is empty or holds only blank lines, so it contributes no rulings.""",
)
define(
    "PARSE006",
    "parse",
    "error",
    f"""A line is longer than {MAX_LINE_CHARS:,} characters, far longer than any ruling, so it
    was not read as ruling text. Its start is shown in the evidence.""",
)


class InputError(Exception):
    """An INPUT path that cannot be read at all: the command exits 2."""


@dataclass
class SourceFile:
    """One input file, relative to the INPUT root it was found under."""

    path: Path
    rel: str
    problems: list[Finding] = field(default_factory=list)
    _text: str | None = None

    @classmethod
    def from_text(cls, rel: str, text: str) -> SourceFile:
        """An in-memory document (tests, generated input)."""
        source = cls(Path(rel), rel)
        source._text = text
        return source

    @cached_property
    def head(self) -> bytes:
        if self._text is not None:
            return self._text[:SNIFF_BYTES].encode("utf-8")
        with open(self.path, "rb") as handle:
            return handle.read(SNIFF_BYTES)

    @cached_property
    def size(self) -> int:
        if self._text is not None:
            return len(self._text.encode("utf-8"))
        return self.path.stat().st_size

    @cached_property
    def encoding(self) -> str | None:
        """The encoding to read the file with, or None for binary data."""
        return sniff_encoding(self.head)

    @property
    def is_json(self) -> bool:
        if self.encoding is None:
            return False
        start = self.head.decode(self.encoding, errors="ignore").lstrip("\ufeff \t\r\n")
        return bool(JSON_START.match(start))

    def open_binary(self) -> BinaryIO:
        """The file's bytes as a stream (an in-memory document is encoded as UTF-8)."""
        if self._text is not None:
            return io.BytesIO(self._text.encode("utf-8"))
        return open(self.path, "rb")

    @cached_property
    def text(self) -> str:
        if self._text is not None:
            return self._text
        raw = self.path.read_bytes()
        encoding = self.encoding or "latin-1"
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError:
            encoding = "cp1252" if _decodes(raw, "cp1252") else "latin-1"
            text = raw.decode(encoding)
        if encoding not in ("utf-8", "utf-8-sig"):
            self.problems.append(
                emit(
                    "PARSE002",
                    f"{self.rel} is not UTF-8; it was read as {encoding}.",
                    file=self.rel,
                    evidence={"encoding": encoding},
                )
            )
        return text.removeprefix("\ufeff")

    @cached_property
    def lines(self) -> list[str]:
        """The file's lines (1-based line i is ``lines[i-1]``); overlong lines are blanked."""
        lines = self.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for number, line in enumerate(lines, 1):
            if len(line) > MAX_LINE_CHARS:
                self.problems.append(
                    emit(
                        "PARSE006",
                        f"Line {number} is {len(line):,} characters long and was not read "
                        "as a ruling.",
                        file=self.rel,
                        line=number,
                        evidence={"length": len(line), "start": line[:120]},
                    )
                )
                lines[number - 1] = ""
        return lines


def _decodes(raw: bytes, encoding: str) -> bool:
    try:
        raw.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def sniff_encoding(head: bytes) -> str | None:
    """utf-8, utf-8-sig, utf-16 (with a BOM or by its zero-byte pattern), cp1252, or None."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in head:
        sample = head[:4096]
        even_zeros = sample[0::2].count(0)
        odd_zeros = sample[1::2].count(0)
        half = max(len(sample) // 2, 1)
        if odd_zeros / half > 0.3 and even_zeros / half < 0.05:
            return "utf-16-le"
        if even_zeros / half > 0.3 and odd_zeros / half < 0.05:
            return "utf-16-be"
        return None
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    if head and controls / len(head) > 0.05:
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:
            return "cp1252" if _decodes(head, "cp1252") else "latin-1"
    return "utf-8"


def discover(inputs: list[Path]) -> Iterator[SourceFile]:
    """Every file under the INPUT paths, sorted, each relative to the INPUT it came from.

    A file given directly is relative to its own folder. Hidden files and folders are skipped.
    """
    seen: set[str] = set()
    for root in inputs:
        if not root.exists():
            raise InputError(f"no such file or folder: {root}")
        found = [(root.name, root)] if root.is_file() else list(_walk(root))
        for rel, path in sorted(found):
            if rel in seen:
                rel = f"{root.resolve().name}/{rel}"
            seen.add(rel)
            yield SourceFile(path, rel)


def _walk(root: Path) -> Iterator[tuple[str, Path]]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith("."):
                path = Path(folder) / name
                yield path.relative_to(root).as_posix(), path
