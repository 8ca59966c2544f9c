"""Input files: discovery, decoding (BOM, UTF-16, Latin-1), binary detection, lines.

What is read, and under which name, is documented in docs/inputs.md (the rules) and
docs/contract-ids.md (the ids).
"""

from __future__ import annotations

import atexit
import codecs
import io
import os
import re
import shutil
import stat
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

from ..catalogue import make_finding
from ..files import bytes_digest, file_digest
from ..hashing import hexdigest
from ..model import Finding
from . import set_parts
from .set_parts import SetPart

MAX_LINE_CHARS = 20_000
"""Longer lines are not ruling text (a ruling is at most a few thousand characters)."""

SNIFF_BYTES = 64 * 1024
WHOLE_READ_BYTES = 16 * 1024 * 1024
"""A file up to this size is read in one go, its sniffed head and its text from the same
bytes; a larger one (a JSON or XML file its reader streams) is sniffed, then streamed."""
BINARY_CONTROL_SHARE = 0.05
"""A file is binary when more than this share of its first bytes are control bytes (NUL and
the other C0 codes but tab, line feed, form feed and carriage return): compressed data,
images and archives hold about 11%, text almost none; a few NUL bytes in a text file are a
finding on their lines (PARSE013), not a reason to skip the file."""
STDIN = "-"
STREAM = re.compile(r"^/(?:dev/fd|proc/self/fd)/(\d+)$|^/dev/stdin$")
"""The names of an open stream given as INPUT: a process substitution (``<(cat x)``) or the
standard input."""
JSON_START = re.compile(r'[{\[]\s*(?:$|["{\[\]}\d-]|true|false|null)')
"""An object or array whose first value looks like JSON (not "[Note] ..." text)."""


class InputError(Exception):
    """An INPUT path that cannot be read at all: the command exits 2."""


NOT_READ_HIDDEN = "hidden"
NOT_READ_FOLDER = "folder"
SPECIAL_FILES = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


@dataclass
class SourceFile:
    """One input file, relative to the INPUT root it was found under (``rel``: its id in
    every table, unique across the run's inputs).

    ``not_read`` says why discovery decided not to open it: ``hidden`` (a dot-file inside an
    input folder), ``folder`` (a folder that is not read: hidden, or a run's outputs; its
    reason is in ``detail``), or what kind of special file it is (a FIFO, a socket, a
    device); empty for a file to read."""

    path: Path
    rel: str
    problems: list[Finding] = field(default_factory=list)
    _text: str | None = None
    not_read: str = ""
    detail: str = ""
    in_memory: bool = False
    """Made from bytes in memory (``from_bytes``): its path is not where they come from."""

    @classmethod
    def from_text(cls, rel: str, text: str) -> SourceFile:
        """An in-memory document (tests, generated input)."""
        source = cls(Path(rel), rel)
        source._text = text
        return source

    @classmethod
    def from_bytes(cls, path: Path, rel: str, data: bytes) -> SourceFile:
        """A UTF-8 document made in memory that stands for ``rel`` (a set cut out of an
        AllPrintings file: ``sets.py``)."""
        source = cls(path, rel, in_memory=True)
        source.__dict__.update(_whole=data, size=len(data), encoding="utf-8")
        return source

    @cached_property
    def head(self) -> bytes:
        if self._text is not None:
            return self._text[:SNIFF_BYTES].encode("utf-8")
        if self._whole is not None:
            return self._whole[:SNIFF_BYTES]
        with open(self.path, "rb") as handle:
            return handle.read(SNIFF_BYTES)

    @cached_property
    def _whole(self) -> bytes | None:
        """The file's bytes when it is small enough to hold (one read for its head and its
        text), else None; dropped once the text is decoded."""
        if self.size > WHOLE_READ_BYTES:
            return None
        with open(self.path, "rb") as handle:
            return handle.read()

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
        """A digest of the file's bytes (OSError when it cannot be read); of an
        AllPrintings-shaped file's sets when it is cut into them (``sets``)."""
        if self._text is not None:
            return hexdigest(self._text.encode("utf-8"))
        if not set_parts.may_split(self):
            return file_digest(self.path)
        return file_digest(
            self.path, lambda: self._split[1] if self._split else bytes_digest(self.path)
        )

    @property
    def sets(self) -> list[SetPart] | None:
        """The file's sets (``set_parts.SetPart``) when it is an AllPrintings-shaped file read set
        by set, else None: cut once, for the run's key or for its reading."""
        return self._split[0] if self._split else None

    @cached_property
    def _split(self) -> tuple[list[SetPart], str] | None:
        return set_parts.split_digested(self)

    def forget_contents(self) -> None:
        """Drop what was read of the file once it is read: its bytes, its head (the whole
        bytes of a small file), its text and its lines. The run holds every source until
        it ends, so a cold run held its whole input two or three times over (1,500 files of
        the 100k corpus: 8 MB) to the end; asked for again, they are read again. A
        document made in memory keeps them: it has nothing to read them from."""
        if not self.in_memory:
            for name in ("_whole", "head", "text", "lines"):
                self.__dict__.pop(name, None)

    def manifest_digest(self) -> str:
        """What the run manifest records for this input: its bytes' digest, or why it was
        not read (a FIFO is never opened: opening it could wait for a writer forever)."""
        if self.not_read == NOT_READ_HIDDEN:  # its finding gives its size
            try:
                return f"not read: hidden, {self.size} bytes"
            except OSError as error:
                return f"not read: hidden, {error.strerror or error}"
        if self.not_read:
            return f"not read: {self.not_read} {self.detail}".strip()
        try:
            return self.content_digest
        except OSError as error:
            return f"unreadable: {error.strerror or error}"

    def open_binary(self) -> BinaryIO:
        """The file's bytes as a stream (an in-memory document is encoded as UTF-8)."""
        if self._text is not None:
            return io.BytesIO(self._text.encode("utf-8"))
        if self.__dict__.get("_whole") is not None:
            return io.BytesIO(self._whole)
        return open(self.path, "rb")

    @cached_property
    def text(self) -> str:
        if self._text is not None:
            return self._text
        raw = self._whole if self._whole is not None else self.path.read_bytes()
        self.__dict__.pop("_whole", None)
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
        text = text.removeprefix("\ufeff")
        if "\x00" in text:
            self.problems.extend(nul_findings(self.rel, text))
            text = text.replace("\x00", "")
        return text

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


def nul_findings(rel: str, text: str) -> Iterator[Finding]:
    """A PARSE013 finding for each line that holds NUL characters (the line is read
    without them)."""
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), 1):
        if "\x00" not in line:
            continue
        columns = [match.start() + 1 for match in re.finditer("\x00", line)]
        kept = line.replace("\x00", "")
        yield make_finding(
            "PARSE013",
            f"Line {number} of {rel} holds {len(columns)} NUL "
            f"{'byte' if len(columns) == 1 else 'bytes'}; the line was read without "
            f"{'it' if len(columns) == 1 else 'them'}.",
            file=rel,
            line=number,
            evidence={"nul_bytes": len(columns), "columns": columns[:20], "line": kept[:120]},
        )


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
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    if head and controls / len(head) > BINARY_CONTROL_SHARE:
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 4:
            return "cp1252" if _decodes(head, "cp1252") else "latin-1"
    return "utf-8"


RUN_MANIFEST = "run-manifest.json"
"""A folder holding this file is a rulings output folder: never read back as input."""
OWN_WORKING_NAME = re.compile(r"^\.(?:.+\.)?rulings-(?:staging|previous|lock|probe)")
"""What rulings itself keeps beside an output folder while it writes a run (``outputs``: the
staging folder, the previous run set aside, the lock, the probe of a writable folder): never
input, and not the user's, so passed over without a finding."""


def discover(inputs: list[Path], skip: Iterable[Path] = ()) -> Iterator[SourceFile]:
    """Every file under the INPUT paths, sorted, each named relative to the INPUT it came
    from (a file given directly: its name) and, where names clash, with as many of its
    root's last path segments as make every name unique (``unique_ids``).

    Only regular files are read: FIFOs, sockets and devices are yielded with ``not_read``
    set (a PARSE010 finding, never opened), but ``-`` (the standard input) and a process
    substitution given as INPUT, whose bytes are read once into a temporary file. Hidden
    files inside input folders are yielded as ``hidden`` (one PARSE014 each); hidden
    folders, the folders in ``skip`` (the run's output folder) and any folder holding a
    run manifest are not entered, and yielded as ``folder`` (one PARSE015 lists them). A
    link that leads nowhere or into a loop is yielded like a file: reading it becomes a
    parse finding, not the end of the batch. The same path reached twice is one input.
    """
    skipped = {_resolved(path) for path in skip}
    found: list[_Found] = []
    seen: set[str] = set()
    for root in inputs:
        if not input_exists(root):
            raise InputError(f"no such file or folder: {root}")
        for item in _found_under(root, skipped):
            where = os.path.join(item.base, item.rel)
            if where not in seen:
                seen.add(where)
                found.append(item)
    for item, rel in zip(found, unique_ids(found), strict=True):
        yield SourceFile(item.path, rel, not_read=item.not_read, detail=item.detail)


def input_exists(path: Path) -> bool:
    """Whether an INPUT names something to read (a stream name always does)."""
    return stream_name(path) is not None or path.exists() or path.is_symlink()


def stream_name(path: Path) -> str | None:
    """The id of a stream given as INPUT (``stdin``, ``fd-63``), or None for a path."""
    name = os.fspath(path)
    if name == STDIN:
        return "stdin"
    match = STREAM.match(name)
    if match is None:
        return None
    return f"fd-{match.group(1)}" if match.group(1) else "stdin"


@dataclass
class _Found:
    path: Path
    rel: str
    """Relative to the INPUT root (a folder's ends with ``/``)."""
    base: str
    """The absolute folder ``rel`` is relative to: its segments qualify a clashing name."""
    not_read: str = ""
    detail: str = ""


def unique_ids(found: list[_Found]) -> list[str]:
    """Each input's id: its path relative to its root, unless another input has that id
    too; then every input of the clash is prefixed with its root's last segment, two, and
    so on, until no id is another's (at worst an input's id is its absolute path)."""
    names = [item.rel for item in found]
    depth = [0] * len(found)
    while True:
        counts = Counter(names)
        clashing = [i for i, name in enumerate(names) if counts[name] > 1]
        if not clashing:
            return names
        for i in clashing:
            depth[i] += 1
            names[i] = _qualified(found[i], depth[i])


def _qualified(item: _Found, depth: int) -> str:
    segments = Path(item.base).parts[1:]
    if depth > len(segments):
        return f"{item.base.rstrip(os.sep)}/{item.rel}"
    return "/".join([*segments[len(segments) - depth :], item.rel])


def _found_under(root: Path, skipped: set[Path]) -> list[_Found]:
    name = stream_name(root)
    if name is not None:
        return [_Found(_spooled(root), name, os.sep + "dev")]
    base = os.path.abspath(root)
    if root.is_dir():
        return sorted(_walk(root, base, skipped), key=lambda item: item.rel)
    return [_Found(root, root.name, os.path.dirname(base), _special_kind(root))]


def _special_kind(path: Path | str) -> str:
    """What kind of special file ``path`` is (a FIFO, a socket, a device), "" for a regular
    file or one that cannot be looked at (reading it says why)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    return SPECIAL_FILES.get(stat.S_IFMT(mode), "")


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _walk(root: Path, base: str, skipped: set[Path]) -> Iterator[_Found]:
    """What is under a folder; folder links are followed once (a loop ends there)."""
    visited: set[Path] = set()
    for folder, dirs, files in os.walk(root, followlinks=True):
        here = _resolved(Path(folder))
        rel = Path(folder).relative_to(root).as_posix()
        if here in visited:
            dirs[:] = []
            continue
        if here in skipped or RUN_MANIFEST in files:
            dirs[:] = []
            yield _Found(Path(folder), f"{rel}/", base, NOT_READ_FOLDER, "a rulings output folder")
            continue
        visited.add(here)
        dirs[:] = [d for d in dirs if not OWN_WORKING_NAME.match(d)]
        for name in sorted(d for d in dirs if d.startswith(".")):
            hidden = Path(folder) / name
            where = hidden.relative_to(root).as_posix()
            yield _Found(hidden, f"{where}/", base, NOT_READ_FOLDER, "a hidden folder")
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here_path, prefix = Path(folder), "" if rel == "." else f"{rel}/"
        for name in files:  # names joined as text: a path parsed per file took 2 s at 112,505
            if OWN_WORKING_NAME.match(name):
                continue
            hidden = (
                NOT_READ_HIDDEN
                if name.startswith(".")
                else _special_kind(os.path.join(folder, name))
            )
            yield _Found(here_path / name, prefix + name, base, hidden)


_SPOOLED: dict[tuple, tuple[object, Path]] = {}
"""The streams this process read, each once, by what they are (``_identity``), with the
temporary file holding the bytes (and the stream object, kept so that its id is not reused)."""


def _spooled(stream: Path) -> Path:
    """A temporary file with the bytes of a stream given as INPUT, read in full the first
    time the stream is discovered (the run key and the ingest both discover the inputs;
    a pipe can be read only once)."""
    name = os.fspath(stream)
    try:
        if name == STDIN:
            if sys.stdin is None:
                raise InputError("-: there is no standard input to read")
            handle = sys.stdin.buffer
        else:
            handle = None
        key, owner = _identity(name, handle)
        if key in _SPOOLED:
            return _SPOOLED[key][1]
        folder = Path(tempfile.mkdtemp(prefix="rulings-input-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        target = folder / (stream_name(stream) or "stream")
        with open(target, "wb") as sink:
            if handle is not None:
                shutil.copyfileobj(handle, sink)
            else:
                with open(stream, "rb") as source:
                    shutil.copyfileobj(source, sink)
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}") from None
    _SPOOLED[key] = (owner, target)
    return target


def _identity(name: str, handle: BinaryIO | None) -> tuple[tuple, object]:
    """What a stream is: its device and inode (a pipe's are its own while it is open; a
    file's with its size and time), or the object itself when it has no descriptor (a
    test's standard input)."""
    try:
        status = os.fstat(handle.fileno()) if handle is not None else os.stat(name)
    except (AttributeError, OSError, ValueError):
        return (name, id(handle)), handle
    if not stat.S_ISREG(status.st_mode):  # a pipe's size and time change as it is read
        return (name, status.st_dev, status.st_ino), None
    return (name, status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns), None
