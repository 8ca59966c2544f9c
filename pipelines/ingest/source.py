"""Input files: discovery, decoding (BOM, UTF-16, Latin-1), binary detection, lines."""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

from ..catalogue import make_finding
from ..files import file_digest
from ..model import Finding

MAX_LINE_CHARS = 20_000
"""Longer lines are not ruling text (a ruling is at most a few thousand characters)."""

SNIFF_BYTES = 64 * 1024
JSON_START = re.compile(r'[{\[]\s*(?:$|["{\[\]}\d-]|true|false|null)')
"""An object or array whose first value looks like JSON (not "[Note] ..." text)."""


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

    @property
    def content_digest(self) -> str:
        """A digest of the file's bytes (OSError when it cannot be read)."""
        if self._text is not None:
            return hashlib.blake2b(self._text.encode("utf-8"), digest_size=16).hexdigest()
        return file_digest(self.path)

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
                make_finding(
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
                    make_finding(
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


RUN_MANIFEST = "run-manifest.json"
"""A folder holding this file is a rulings output folder: never read back as input."""


def discover(inputs: list[Path], skip: Iterable[Path] = ()) -> Iterator[SourceFile]:
    """Every file under the INPUT paths, sorted, each relative to the INPUT it came from.

    A file given directly is relative to its own folder. Hidden files and folders, the
    folders in ``skip`` (the run's output folder) and any folder holding a run manifest
    are skipped. A link that leads nowhere or into a loop is yielded like a file: reading it
    becomes a parse finding, not the end of the batch.
    """
    skipped = {_resolved(path) for path in skip}
    seen: set[str] = set()
    for root in inputs:
        if not root.exists() and not root.is_symlink():
            raise InputError(f"no such file or folder: {root}")
        found = list(_walk(root, skipped)) if root.is_dir() else [(root.name, root)]
        for rel, path in sorted(found):
            if rel in seen:
                rel = f"{_resolved(root).name}/{rel}"
            seen.add(rel)
            yield SourceFile(path, rel)


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _walk(root: Path, skipped: set[Path]) -> Iterator[tuple[str, Path]]:
    """Files under a folder; folder links are followed once (a loop ends there)."""
    visited: set[Path] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        here = _resolved(Path(folder))
        if here in visited or here in skipped or RUN_MANIFEST in files:
            dirs[:] = []
            continue
        visited.add(here)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith("."):
                path = Path(folder) / name
                yield path.relative_to(root).as_posix(), path
