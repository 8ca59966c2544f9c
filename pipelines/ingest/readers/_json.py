"""What the JSON readers share: streaming input, JSON pointers, dates, card names, and
the findings for JSON that is broken or of an unexpected shape."""

from __future__ import annotations

import ast
import codecs
import datetime as dt
import io
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, BinaryIO

from ...catalogue import make_finding
from ...model import CardName, Finding, Ruling
from ...resources import read_tsv
from ..source import SourceFile
from . import Output
from ._common import normalize

ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
EVIDENCE_CHARS = 200
_NEWLINES_TO_SPACES = bytes.maketrans(b"\n\r", b"  ")
_END_OF_INPUT = (b"premature EOF", b"Incomplete JSON content", b"Incomplete string lexeme")


class CountingReader:
    """A binary file that knows how far it has been read and keeps its last chunk, so that
    a parse error can be placed at a byte offset."""

    def __init__(self, raw: BinaryIO, start: int = 0) -> None:
        self._raw = raw
        self.position = start
        self.chunk = b""
        self.chunk_start = start

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        if data:
            self.chunk, self.chunk_start = data, self.position
            self.position += len(data)
        return data


class _Utf8Transcoder:
    """Any text encoding in, UTF-8 bytes out (ijson reads UTF-8 only)."""

    def __init__(self, raw: BinaryIO, encoding: str) -> None:
        self._text = io.TextIOWrapper(raw, encoding=encoding, errors="replace")

    def read(self, size: int = -1) -> bytes:
        return self._text.read(size).encode("utf-8")


@contextmanager
def open_json(doc: SourceFile) -> Iterator[CountingReader]:
    """The document's bytes as UTF-8, for ijson; a byte-order mark is skipped.

    A file in another encoding is transcoded (and reported as not UTF-8); byte offsets then
    count its UTF-8 form.
    """
    with doc.open_binary() as raw:
        encoding = doc.encoding or "utf-8"
        if encoding == "utf-8-sig":
            raw.read(len(codecs.BOM_UTF8))
            yield CountingReader(raw, start=len(codecs.BOM_UTF8))
        elif encoding == "utf-8":
            yield CountingReader(raw)
        else:
            doc.problems.append(
                make_finding(
                    "PARSE002",
                    f"{doc.rel} is not UTF-8; it was read as {encoding}.",
                    file=doc.rel,
                    evidence={"encoding": encoding},
                )
            )
            yield CountingReader(_Utf8Transcoder(raw, encoding))


def json_head(doc: SourceFile) -> bytes:
    """The start of the file as UTF-8 without byte-order mark or leading whitespace; empty
    for binary files."""
    if doc.encoding is None:
        return b""
    head = doc.head
    if doc.encoding not in ("utf-8", "utf-8-sig"):
        head = head.decode(doc.encoding, errors="ignore").encode("utf-8")
    return head.removeprefix(codecs.BOM_UTF8).lstrip()


def pointer(*parts: str | int) -> str:
    """The JSON pointer (RFC 6901) of a path: ``pointer("data", "cards", 3)`` is
    ``/data/cards/3``."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


def describe(path: str) -> str:
    return f"at {path}" if path else "at the top level"


def json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


def iso_date(value: Any) -> str | None:
    """The date if ``value`` is a real ``YYYY-MM-DD`` date, else None."""
    if not isinstance(value, str) or not ISO_DATE.fullmatch(value.strip()):
        return None
    try:
        return dt.date.fromisoformat(value.strip()).isoformat()
    except ValueError:
        return None


def excerpt(value: Any) -> str:
    """A short JSON rendering of a value, for the evidence of a finding."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= EVIDENCE_CHARS else text[: EVIDENCE_CHARS - 1] + "…"


def unexpected(
    doc: SourceFile,
    path: str,
    problem: str,
    *,
    found: Any = None,
    severity: str | None = None,
) -> Finding:
    """PARSE009: the part of the file at ``path`` is not what the format prescribes."""
    evidence = {"json_path": path, "problem": problem}
    if found is not None:
        evidence["found"] = excerpt(found)
    return make_finding(
        "PARSE009",
        f"{doc.rel} {describe(path)}: {problem}.",
        file=doc.rel,
        evidence=evidence,
        severity=severity,
    )


def master_ruling(
    doc: SourceFile,
    path: str,
    *,
    fmt: str,
    text: str,
    date_raw: Any,
    date_field: str,
    title: str,
    card: str | None,
    doc_id: str,
    position: int,
) -> Iterator[Output]:
    """An English master ruling read from JSON at ``path``. A ruling without a date is kept
    (undated) and reported as a warning at ``path/date_field``."""
    if not isinstance(date_raw, str) or not date_raw.strip():
        yield unexpected(
            doc,
            f"{path}/{date_field}",
            "the ruling has no date",
            found=date_raw,
            severity="warning",
        )
        date_raw = None
    yield Ruling(
        id=f"{doc.rel}#{path}",
        file=doc.rel,
        line=None,
        format=fmt,
        doc_title=title,
        card=card,
        section=None,
        doc_lang="en",
        lang="en",
        spans=[],
        date=iso_date(date_raw),
        date_raw=date_raw,
        text=normalize(text),
        doc=doc_id,
        kind="ruling",
        position=position,
    )


def malformed(doc: SourceFile, error: Exception, stream: CountingReader, path: str) -> Finding:
    """PARSE008: the JSON broke at a byte offset, inside the value at ``path``."""
    reason, offset = _locate(error, stream)
    return make_finding(
        "PARSE008",
        f"{doc.rel} is not valid JSON from byte {offset:,} ({describe(path)}): {reason}; "
        "what came before was read.",
        file=doc.rel,
        evidence={"byte_offset": offset, "json_path": path, "error": reason},
    )


def _locate(error: Exception, stream: CountingReader) -> tuple[str, int]:
    """The first line of the parser's message, and the byte offset where the JSON broke.

    yajl (ijson's C backend) quotes the 30 bytes before and after the byte where it stopped,
    with a caret one column after that byte; finding the quote in the chunk being parsed
    gives the offset (0-based, within a token of the culprit). A truncated file broke at its
    end. Otherwise the start of the chunk is the best known place.
    """
    message = str(error)
    if message[:2] in ("b'", 'b"'):
        raw = ast.literal_eval(message)
    else:
        raw = message.encode("utf-8", errors="replace")
    lines = raw.split(b"\n")
    reason = lines[0].decode("utf-8", errors="replace").strip()
    if any(marker in lines[0] for marker in _END_OF_INPUT):
        return reason, stream.position
    if len(lines) >= 3 and b"(right here)" in lines[2] and b"^" in lines[2]:
        quoted = lines[1].lstrip(b" ")
        indent = len(lines[1]) - len(quoted)
        caret = lines[2].index(b"^")
        haystack = stream.chunk.translate(_NEWLINES_TO_SPACES)
        found = haystack.find(quoted) if quoted else -1
        if found >= 0 and haystack.find(quoted, found + 1) < 0:
            return reason, stream.chunk_start + found + (caret - 1 - indent)
    return reason, stream.chunk_start


@cache
def card_languages(column: str) -> dict[str, str]:
    """A card-data source's language names (``mtgjson``) or codes (``scryfall``) -> ours."""
    return {row[column]: row["lang"] for row in read_tsv("mtgjson_languages.tsv")}


class CardNames:
    """The card-name index entries of one file, each given once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._seen: set[tuple[str, str, str]] = set()

    def add(self, name: Any, lang: str, card: str) -> Iterator[CardName]:
        if not isinstance(name, str) or not name.strip():
            return
        name = " ".join(name.split())
        key = (name, lang, card)
        if key not in self._seen:
            self._seen.add(key)
            yield CardName(name=name, lang=lang, card=card, source=self.source)
