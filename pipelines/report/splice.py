"""Additions to a file's own bytes: what the annotated copies of the bilingual inputs are
made with (``writers/annotated.py``).

A copy is the input's bytes with text inserted at offsets (and, on request, an attribute's
value replaced): nothing is parsed and written again, so CDATA sections, entity references,
attribute quoting, the XML declaration, comments, line ends and the byte order mark stay as
they were. The file is held as text that maps one to one onto its bytes: an ASCII-compatible
encoding is read as Latin-1 (a byte is a character), UTF-16 and UTF-32 are decoded after
their byte order mark and encoded again the same way; what is inserted is encoded in the
file's own encoding, characters it cannot hold as character references.

``scan_xml`` finds every element of an XML text with the offsets of its start tag, its
attributes, its content and its end tag, in document order: the order in which lxml walks
the parsed tree, so that the n-th element lxml gives is the n-th element found here.
"""

from __future__ import annotations

import bisect
import codecs
import functools
import re
from dataclasses import dataclass, field

NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
XML_ENCODING = re.compile(rb"""^(?:\xef\xbb\xbf)?<\?xml[^>]*?\bencoding\s*=\s*["']([\w.:-]+)["']""")


class SpliceError(ValueError):
    """The file's markup is not what the scanner expects (it was parsed, so this is a bug or
    a construct the scanner does not know): the copy is not written."""


# --- bytes <-> text, one to one --------------------------------------------------------


@dataclass
class Text:
    """A file's bytes as text with one character per code unit of its encoding."""

    text: str
    encoding: str
    """The encoding insertions are written in."""
    wide: str | None = None
    """The codec of a UTF-16 or UTF-32 file (``utf-16-le``...), None for a byte encoding."""
    bom: bytes = b""

    @classmethod
    def of(cls, data: bytes, declared: str | None = None) -> Text:
        """``declared``: the encoding the file says it has (an XML declaration, a PO
        header's charset), when its bytes do not say (a byte order mark)."""
        for bom, codec in (
            (codecs.BOM_UTF32_LE, "utf-32-le"),
            (codecs.BOM_UTF32_BE, "utf-32-be"),
            (codecs.BOM_UTF16_LE, "utf-16-le"),
            (codecs.BOM_UTF16_BE, "utf-16-be"),
        ):
            if data.startswith(bom):
                body = data[len(bom) :]
                return cls(body.decode(codec), codec, codec, bom)
        if data[:4] in (b"<\x00?\x00", b"<\x00\x00\x00"):
            codec = "utf-16-le" if data[:4] == b"<\x00?\x00" else "utf-32-le"
            return cls(data.decode(codec), codec, codec)
        if data[:4] in (b"\x00<\x00?", b"\x00\x00\x00<"):
            codec = "utf-16-be" if data[:4] == b"\x00<\x00?" else "utf-32-be"
            return cls(data.decode(codec), codec, codec)
        encoding = _known(declared) or "utf-8"
        if codecs.lookup(encoding).name.startswith(("utf-16", "utf-32")):
            encoding = "utf-8"  # said, but not what the bytes are
        return cls(data.decode("latin-1"), encoding)

    def encode(self, text: str) -> str:
        """Inserted text as this text's characters (``text`` is what a reader sees)."""
        text = NOT_XML.sub("\ufffd", text)
        if self.wide:
            return text
        return text.encode(self.encoding, errors="xmlcharrefreplace").decode("latin-1")

    def decoded(self, start: int, end: int) -> str:
        """What a reader sees of ``text[start:end]``."""
        piece = self.text[start:end]
        if self.wide:
            return piece
        return piece.encode("latin-1").decode(self.encoding, errors="replace")

    def to_bytes(self, text: str) -> bytes:
        if self.wide:
            return self.bom + text.encode(self.wide)
        return text.encode("latin-1")


def _known(encoding: str | None) -> str | None:
    if not encoding:
        return None
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return None


def xml_encoding(data: bytes) -> str | None:
    """The encoding an XML declaration names."""
    found = XML_ENCODING.match(data[:200])
    return found.group(1).decode("ascii") if found else None


# --- escaping --------------------------------------------------------------------------


def escape_text(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attribute(value: str) -> str:
    """A value for a double-quoted attribute; line breaks and tabs as references, so that
    they survive attribute-value normalisation."""
    value = escape_text(value).replace('"', "&quot;")
    return value.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")


# --- the elements of an XML text ---------------------------------------------------------

NAME = r"[^\s/>=\"'<]+"
START_TAG = re.compile(rf"<({NAME})((?:\s+{NAME}\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
ATTRIBUTE = re.compile(rf"({NAME})\s*=\s*(\"([^\"]*)\"|'([^']*)')")
END_TAG = re.compile(rf"</({NAME})\s*>")


@dataclass
class Attribute:
    name: str
    value: str
    """As written (entity references not expanded)."""
    start: int
    """Where the value starts (after the quote)."""
    end: int


@dataclass
class Element:
    name: str
    """The qualified name as written (``its:locQualityIssue``)."""
    start: int
    """The offset of ``<``."""
    start_end: int
    """The offset just after the start tag's ``>``."""
    empty: bool
    """``<name/>``."""
    attributes: list[Attribute]
    end_start: int = -1
    """The offset of the end tag's ``<`` (``start_end`` for an empty element)."""
    end: int = -1
    """The offset just after the element."""
    parent: int = -1
    children: list[int] = field(default_factory=list)
    last: int = -1
    """The index of its last descendant (itself when it has none)."""
    index: int = -1
    """Its own index in document order."""

    @property
    def local(self) -> str:
        return self.name.rpartition(":")[2]

    @property
    def prefix(self) -> str:
        """``p:`` of a prefixed name, "" otherwise."""
        head, colon, _ = self.name.rpartition(":")
        return head + colon

    def attribute(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)

    @property
    def attribute_at(self) -> int:
        """Where a new attribute goes: just before ``>`` or ``/>``."""
        return self.start_end - (2 if self.empty else 1)


@dataclass
class Run:
    """A piece of character data between markup (not a CDATA section)."""

    start: int
    end: int
    parent: int


@dataclass
class Scan:
    elements: list[Element]
    runs: list[Run]

    def runs_within(self, start: int, end: int) -> list[Run]:
        """The runs between two offsets."""
        first = bisect.bisect_left(self._starts, start)
        found = []
        for run in self.runs[first:]:
            if run.start >= end:
                break
            if run.end <= end:
                found.append(run)
        return found

    @functools.cached_property
    def _starts(self) -> list[int]:
        return [run.start for run in self.runs]


def scan_xml(text: str) -> Scan:
    """Every element and text run of an XML document, in document order."""
    elements: list[Element] = []
    runs: list[Run] = []
    stack: list[int] = []
    position = 0
    size = len(text)
    while position < size:
        lt = text.find("<", position)
        if lt < 0:
            lt = size
        if lt > position and stack:
            runs.append(Run(position, lt, stack[-1]))
        if lt >= size:
            break
        if text.startswith("<!--", lt):
            position = _after(text, "-->", lt)
        elif text.startswith("<![CDATA[", lt):
            position = _after(text, "]]>", lt)
        elif text.startswith("<?", lt):
            position = _after(text, "?>", lt)
        elif text.startswith("<!", lt):
            position = _declaration_end(text, lt)
        elif text.startswith("</", lt):
            match = END_TAG.match(text, lt)
            if match is None or not stack or elements[stack[-1]].name != match.group(1):
                raise SpliceError(f"unexpected end tag at offset {lt}")
            element = elements[stack.pop()]
            element.end_start, element.end = lt, match.end()
            element.last = len(elements) - 1
            position = match.end()
        else:
            match = START_TAG.match(text, lt)
            if match is None:
                raise SpliceError(f"unreadable start tag at offset {lt}")
            attributes = [
                Attribute(
                    a.group(1),
                    a.group(3) if a.group(3) is not None else a.group(4),
                    a.start(2) + 1,
                    a.end(2) - 1,
                )
                for a in ATTRIBUTE.finditer(text, match.start(2), match.end(2))
            ]
            index = len(elements)
            element = Element(match.group(1), lt, match.end(), bool(match.group(3)), attributes)
            element.index = index
            elements.append(element)
            if stack:
                element.parent = stack[-1]
                elements[stack[-1]].children.append(index)
            if element.empty:
                element.end_start = element.end = match.end()
                element.last = index
            else:
                stack.append(index)
            position = match.end()
    if stack:
        raise SpliceError("unclosed elements at the end")
    return Scan(elements, runs)


def _after(text: str, closer: str, start: int) -> int:
    end = text.find(closer, start)
    if end < 0:
        raise SpliceError(f"unterminated markup at offset {start}")
    return end + len(closer)


def _declaration_end(text: str, start: int) -> int:
    """The end of ``<!DOCTYPE ...>``, its internal subset (quoted strings, comments and
    declarations) included."""
    position = start + 2
    depth = 0
    quote = ""
    while position < len(text):
        char = text[position]
        if quote:
            if char == quote:
                quote = ""
        elif text.startswith("<!--", position):
            position = _after(text, "-->", position)
            continue
        elif char in "\"'":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == ">" and depth <= 0:
            return position + 1
        position += 1
    raise SpliceError(f"unterminated declaration at offset {start}")


# --- character data: what it says, and where each character is ---------------------------

PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
REFERENCE = re.compile(r"&(#x[0-9a-fA-F]+|#[0-9]+|[\w.:-]+);")


def run_text(source: Text, run: Run) -> tuple[str, list[int]]:
    """The text of a run as a reader sees it (predefined and character references expanded,
    other entity references kept as written) and, for each of its characters and its end,
    the offset in the file."""
    raw = source.text[run.start : run.end]
    parts: list[str] = []
    offsets: list[int] = []
    position = 0
    for match in REFERENCE.finditer(raw):
        _plain(source, run.start + position, run.start + match.start(), parts, offsets)
        name = match.group(1)
        if name.startswith("#"):
            try:
                value = chr(int(name[2:], 16) if name[1] in "xX" else int(name[1:]))
            except (ValueError, OverflowError):
                value = match.group(0)
        else:
            value = PREDEFINED.get(name, match.group(0))
        if len(value) == 1:
            parts.append(value)
            offsets.append(run.start + match.start())
        else:  # an entity kept as written: each character where it is
            parts.append(value)
            offsets.extend(range(run.start + match.start(), run.start + match.end()))
        position = match.end()
    _plain(source, run.start + position, run.end, parts, offsets)
    offsets.append(run.end)
    return "".join(parts), offsets


def _plain(source: Text, start: int, end: int, parts: list[str], offsets: list[int]) -> None:
    """Text without references: decoded, each character mapped to its first code unit."""
    if start >= end:
        return
    if source.wide:
        parts.append(source.text[start:end])
        offsets.extend(range(start, end))
        return
    raw = source.text[start:end].encode("latin-1")
    try:
        decoded = raw.decode(source.encoding)
    except UnicodeDecodeError:
        decoded = raw.decode(source.encoding, errors="replace")
    if len(decoded) == len(raw):
        parts.append(decoded)
        offsets.extend(range(start, end))
        return
    position = start
    for char in decoded:
        parts.append(char)
        offsets.append(position)
        position += len(char.encode(source.encoding, errors="replace"))


# --- the edits -----------------------------------------------------------------------------


@dataclass(order=True)
class Edit:
    """Text inserted at ``start`` (``end == start``) or put in place of ``start:end``. At
    the same offset, edits go in the order of ``rank`` then of their making."""

    start: int
    rank: int
    order: int
    end: int
    text: str


class Edits:
    """Edits of a ``Text``: what is inserted is given as a reader sees it, and held as the
    text's own characters (``Text.encode``)."""

    def __init__(self, text: Text) -> None:
        self.encode = text.encode
        self.edits: list[Edit] = []

    def insert(self, at: int, text: str, rank: int = 5) -> None:
        if text:
            self.edits.append(Edit(at, rank, len(self.edits), at, self.encode(text)))

    def replace(self, start: int, end: int, text: str) -> None:
        self.edits.append(Edit(start, 5, len(self.edits), end, self.encode(text)))

    def __bool__(self) -> bool:
        return bool(self.edits)

    def apply(self, text: str) -> str:
        pieces: list[str] = []
        position = 0
        for edit in sorted(self.edits):
            if edit.start < position:
                raise SpliceError(f"overlapping edits at offset {edit.start}")
            pieces.append(text[position : edit.start])
            pieces.append(edit.text)
            position = edit.end
        pieces.append(text[position:])
        return "".join(pieces)
