"""Rows of a report file taken from the file the previous run wrote into the same folder.

A file such as findings.csv is a head, one row per finding and a tail. After one edited
document of a million units nearly every row is a row the previous run wrote, and the
previous file holds its bytes. A writer that writes rows (``RowsWriter``) gives each row a
digest of everything its bytes are made of (the finding, the texts it points at, what else
the writer puts in the row); a row whose digest the previous file has is copied from it,
consecutive rows as one piece, and only the others are rendered. So the file is the one a
cold run writes, as long as a row's bytes depend only on what its digest covers.

Where each row was is kept in the work store (kind ``report-rows``), under the writer's name,
the digest of the file's bytes and the salt of the run's code and options
(``carried.settings_salt``): a file changed by hand, or written by other code or with other
options, has no index and is written whole. Only ``rulings run`` hands the writers the folder
it replaces (``RunTables.previous``); ``rulings report`` writes every row.
"""

from __future__ import annotations

import contextlib
import hashlib
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import msgspec

from ..file_bytes import FileBytes
from ..files import file_digest, wrote
from ..hashing import Hasher
from ..work import Cache, Kind, kind

T = TypeVar("T")
DIGEST_SIZE = 16
ROWS_PER_PART = 4096
"""Rows rendered at once: a writer renders a part's missing rows in one call."""
FLUSH_BYTES = 1 << 20
"""Pieces and rows are written (and digested) a megabyte at a time."""


class RowIndex(msgspec.Struct, frozen=True):
    """Where the rows of one report file are: each row's digest (``DIGEST_SIZE`` bytes) and
    its start and end offsets (two unsigned 64-bit integers in the machine's byte order) in
    the file."""

    digests: bytes
    spans: bytes


ROWS_KEPT = kind("report-rows", "report rows kept", RowIndex, version="1", share=False)


@dataclass(frozen=True)
class PreviousReports:
    """The folder a run replaces (its report files are the previous run's) and the work
    cache that keeps the files' row indexes, its keys salted with the run's code and
    options (``stages.previous_reports``)."""

    folder: Path
    cache: Cache

    def index(
        self, name: str, filename: str, kept: Kind = ROWS_KEPT, *salt: str
    ) -> tuple[Path, Any] | None:
        """The previous file of writer ``name`` (or of one of its parts) and its index (a
        ``RowIndex``, or a record of kind ``kept`` kept with ``salt``), when that is kept
        for the file's bytes."""
        path = self.folder / filename
        try:
            if not path.is_file():
                return None
            key = self.cache.key(kept, [name, file_digest(path), *salt])
            data = self.cache.get_many(kept, [key]).get(key) if key else None
            return None if data is None else (path, kept.decode(data))
        except (OSError, msgspec.DecodeError):
            return None

    def rows(self, name: str, filename: str) -> KeptRows | None:
        """The rows of the previous file of writer ``name``, when its index is kept."""
        return self.opened(name, filename, KeptRows)

    def opened(
        self,
        name: str,
        filename: str,
        open_with: Callable[[FileBytes, Any], T],
        kept: Kind = ROWS_KEPT,
        *salt: str,
    ) -> T | None:
        """``open_with`` the previous file's bytes and its index (``index``), when the index
        is kept and fits the file (``open_with`` raises ValueError when it does not)."""
        found = self.index(name, filename, kept, *salt)
        if found is None:
            return None
        try:
            return open_with(FileBytes.of(found[0]), found[1])
        except (OSError, ValueError):
            return None

    def keep(
        self, name: str, file_bytes_digest: str, index: Any, kept: Kind = ROWS_KEPT, *salt: str
    ) -> None:
        """Keep a file's row index (or a record of kind ``kept``, with ``salt``), unless the
        store holds it already (the same bytes were written before: a run of the same input
        into another folder writes nothing)."""
        key = self.cache.key(kept, [name, file_bytes_digest, *salt])
        if key is not None and not self.cache.get_many(kept, [key]):
            self.cache.put_many(kept, [(key, kept.encode(index))])


class KeptRows:
    """The previous file's rows by digest (a row the file has twice: its first place)."""

    def __init__(self, data: FileBytes | bytes, index: RowIndex) -> None:
        spans = array("Q")
        spans.frombytes(index.spans)
        digests = index.digests
        count = len(digests) // DIGEST_SIZE
        if len(spans) != 2 * count or any(end > len(data) for end in spans[1::2]):
            raise ValueError("the row index does not fit the file")
        self.data = data
        self.where: dict[bytes, tuple[int, int]] = {}
        for number in range(count - 1, -1, -1):
            digest = digests[number * DIGEST_SIZE : (number + 1) * DIGEST_SIZE]
            self.where[digest] = (spans[2 * number], spans[2 * number + 1])


@contextlib.contextmanager
def rows_file(path: Path, name: str, previous: PreviousReports | None) -> Iterator[RowsWriter]:
    """A report file of writer ``name`` written through a ``RowsWriter`` that copies rows
    from the previous run's file; the index of its rows is kept when it is written."""
    kept = previous.rows(name, path.name) if previous is not None else None
    with open(path, "wb") as handle:
        rows = RowsWriter(handle, kept)
        yield rows
        rows.flush()
    digest = rows.hash.hexdigest()
    wrote(path, digest)
    if previous is not None:
        previous.keep(name, digest, rows.index())


class RowsWriter:
    """A file written as pieces and rows: ``piece`` writes bytes that are no row, ``rows``
    writes rows, each copied from ``kept`` (the previous file's) when its digest is there.
    ``start``: where in its file the first byte written goes (what the index counts from);
    the bytes written are digested on the way (``hash``)."""

    def __init__(self, handle: BinaryIO, kept: KeptRows | None = None, start: int = 0) -> None:
        self.handle = handle
        self.kept = kept
        self.offset = self.flushed = start
        self.pending: list[bytes] = []
        self.hash = Hasher()
        self.digests: list[bytes | None] = []
        self.spans = array("Q")
        self.copied = 0

    def piece(self, data: bytes) -> None:
        self._write(data)

    def rows(
        self,
        items: Sequence[T],
        digests: Sequence[bytes | None],
        render: Callable[[list[T]], list[bytes]],
        separator: bytes = b"",
    ) -> None:
        """Write ``items`` as rows (``separator`` between them, not part of a row).
        ``digests[i]``: the digest of everything ``items[i]``'s row is made of (None: the
        row is rendered, and not kept); ``render``: the rows of a list of items. Rows that
        follow each other in the previous file (with as many bytes between them as the
        separator has) are copied in one piece, the separator put between them."""
        find = self.kept.where.get if self.kept is not None else {}.get
        data = self.kept.data if self.kept is not None else b""
        gap = len(separator)
        first = True
        for start in range(0, len(items), ROWS_PER_PART):
            part = digests[start : start + ROWS_PER_PART]
            spans = [None if d is None else find(d) for d in part]
            missing = [start + k for k, span in enumerate(spans) if span is None]
            rendered = iter(render([items[i] for i in missing]) if missing else ())
            pieces: list[bytes] = []
            offset = self.offset
            copy = _Copy(data, separator)
            for digest, span in zip(part, spans, strict=True):
                between, first = gap > 0 and not first, False
                if between:
                    offset += gap
                if span is not None and copy.joins(span, between):
                    length = span[1] - span[0]
                    self.copied += 1
                else:
                    copy.flush(pieces)
                    if between:
                        pieces.append(separator)
                    if span is not None:
                        copy.start(span)
                        length = span[1] - span[0]
                        self.copied += 1
                    else:
                        row = next(rendered)
                        pieces.append(row)
                        length = len(row)
                self.digests.append(digest)
                self.spans.extend((offset, offset + length))
                offset += length
            copy.flush(pieces)
            self._write(b"".join(pieces))
            if offset != self.offset:
                raise AssertionError("rows written do not add up")

    def index(self) -> RowIndex:
        """Where the rows written are (those that have a digest)."""
        kept = [(d, i) for i, d in enumerate(self.digests) if d is not None]
        spans = array("Q")
        for _, i in kept:
            spans.extend(self.spans[2 * i : 2 * i + 2])
        return RowIndex(b"".join(d for d, _ in kept), spans.tobytes())

    def _write(self, data: bytes) -> None:
        self.pending.append(data)
        self.offset += len(data)
        if self.offset - self.flushed >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        """Write and digest what is pending (pieces and rows, written as one)."""
        data = b"".join(self.pending)
        self.pending.clear()
        self.handle.write(data)
        self.hash.update(data)
        self.flushed = self.offset


class _Copy:
    """Rows of the previous file that follow each other there, copied as one piece."""

    def __init__(self, data: FileBytes | bytes, separator: bytes) -> None:
        self.data, self.separator = data, separator
        self.begin = self.end = -1
        self.between: list[int] = []
        """Where separators go in the piece (the previous file has as many bytes there)."""

    def start(self, span: tuple[int, int]) -> None:
        self.begin, self.end = span
        self.between = []

    def joins(self, span: tuple[int, int], between: bool) -> bool:
        """Whether the row at ``span`` follows the piece (after a separator, if
        ``between``), and so is added to it."""
        gap = len(self.separator) if between else 0
        if self.end < 0 or span[0] != self.end + gap:
            return False
        if gap:
            self.between.append(self.end - self.begin)
        self.end = span[1]
        return True

    def flush(self, pieces: list[bytes]) -> None:
        """The piece's bytes, with the separator where one goes (the bytes there are a
        separator, unless the previous file had something else of its length between
        two rows: what goes there is written, whatever was)."""
        if self.end < 0:
            return
        chunk = self.data[self.begin : self.end]
        gap = len(self.separator)
        wrong = [at for at in self.between if chunk[at : at + gap] != self.separator]
        if wrong:
            patched = bytearray(chunk)
            for at in wrong:
                patched[at : at + gap] = self.separator
            chunk = bytes(patched)
        pieces.append(chunk)
        self.begin = self.end = -1


def row_digest(*parts: Any) -> bytes | None:
    """The digest of a row's parts (records, texts, numbers); None when they cannot be
    encoded (the row is then always rendered)."""
    try:
        return hashlib.blake2b(_ENCODER.encode(parts), digest_size=DIGEST_SIZE).digest()
    except (TypeError, ValueError, OverflowError):
        return None


def row_digest_from(digests: Sequence[bytes | None], *parts: Any) -> bytes | None:
    """``row_digest`` of rows made of what ``digests`` were made of (a finding's row digest,
    ``report.rows.finding_digests``) and ``parts``, without encoding that again; None when
    one of ``digests`` is None (what it was made of could not be digested: the row is
    always rendered, never taken for another such row's)."""
    if None in digests:
        return None
    return row_digest(*digests, *parts)


_ENCODER = msgspec.msgpack.Encoder()
