"""A workbook sheet's rows written as segments, those of the previous workbook copied deflated.

A sheet of findings.xlsx is one zip member: at a million units, 260 MB of XML deflated into
24 MB. Copying the unchanged rows of the previous sheet (``kept_rows``) still meant
inflating all of it and deflating all of it again, 3.8 s of an edited run. Here the rows
are cut into segments where their digests say (a row whose digest is 0 modulo
``SEGMENT_ROWS`` ends one: the cuts move with the rows, not with their places, so an edit
moves no cut but its own), each segment is deflated on its own (``zip_writer``), and a
segment the previous sheet has (the same rows' digests, in the same order) is copied as the
previous archive holds it, deflated. Only the segments with a changed row are rendered and
deflated. The bytes are those of a cold run: a segment's deflated bytes depend on its rows
only.

Where each segment is in the previous workbook is kept in the work store (kind
``workbook-segments``), like the row indexes (``kept_rows.PreviousReports``), under the
sheet's name, the workbook's digest and the version of zlib that deflated it.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from ..file_bytes import FileBytes
from ..work import kind
from .kept_rows import DIGEST_SIZE, PreviousReports, row_digest_from
from .zip_writer import FINAL_BLOCK, crc32_combine, deflate_segment

SEGMENT_ROWS = 256
"""Rows per segment on average: a row whose digest is 0 modulo this ends a segment. A
segment is then a few hundred KB of XML, rendered and deflated in milliseconds when one of
its rows changed. Deflated apart, each segment starts without the previous one's 32 KB to
refer to: the workbook of the 100k benchmark is 6.6% larger than one stream per sheet with
128 rows, 3.1% with 256, 1.7% with 512, 0.9% with 1,024 (2.7% at a million units with
256; benchmarks/results/work_layer.md)."""
MAX_SEGMENT_ROWS = 4 * SEGMENT_ROWS
"""A segment ends after this many rows whatever their digests."""


class SheetSegments(msgspec.Struct, frozen=True):
    """Where a sheet's segments are in a workbook: each one's key (``DIGEST_SIZE`` bytes, the
    digest of its rows' digests: ``kept_rows.row_digest_from``), and four unsigned 64-bit
    integers in the machine's byte order: where its deflated bytes start and end in the
    file, its size before deflating and its CRC-32."""

    keys: bytes
    places: bytes


SEGMENTS_KEPT = kind(
    "workbook-segments", "workbook segments kept", SheetSegments, version="1", share=False
)
_SALT = f"zlib {zlib.ZLIB_RUNTIME_VERSION}"


def segment_bounds(digests: Sequence[bytes | None]) -> list[tuple[int, int]]:
    """The rows' segments, as (first, end) slices: a segment ends at a row whose digest is 0
    modulo ``SEGMENT_ROWS`` (a row without one ends none), or after ``MAX_SEGMENT_ROWS``."""
    bounds, start = [], 0
    for number, digest in enumerate(digests, 1):
        if number - start >= MAX_SEGMENT_ROWS or (
            digest is not None and int.from_bytes(digest[:4], "little") % SEGMENT_ROWS == 0
        ):
            bounds.append((start, number))
            start = number
    if start < len(digests):
        bounds.append((start, len(digests)))
    return bounds


class KeptSegments:
    """The previous workbook's segments by key (a segment it has twice: its first place)."""

    def __init__(self, data: FileBytes, index: SheetSegments) -> None:
        places = array("Q")
        places.frombytes(index.places)
        count = len(index.keys) // DIGEST_SIZE
        if len(places) != 4 * count or any(end > len(data) for end in places[1::4]):
            raise ValueError("the segment index does not fit the file")
        self.data = data
        self.where: dict[bytes, tuple[int, int, int, int]] = {}
        for number in range(count - 1, -1, -1):
            key = index.keys[number * DIGEST_SIZE : (number + 1) * DIGEST_SIZE]
            self.where[key] = tuple(places[4 * number : 4 * number + 4])  # type: ignore[assignment]

    @classmethod
    def of(cls, previous: PreviousReports | None, name: str, filename: str) -> KeptSegments | None:
        """The segments of sheet ``name`` in the previous workbook, when their index is kept."""
        if previous is None:
            return None
        return previous.opened(name, filename, cls, SEGMENTS_KEPT, _SALT)


class SegmentedSheet:
    """A sheet member's deflated data: its head, its rows in segments, its tail. ``pieces``,
    ``crc`` and ``size`` are the member's for ``zip_writer.ZipWriter.add``; ``copied`` the
    segments taken from the previous workbook."""

    def __init__(self, kept: KeptSegments | None) -> None:
        self.kept = kept
        self.pieces: list[bytes] = []
        self.crc = self.size = self.offset = 0
        self.keys: list[bytes] = []
        self.places = array("Q")
        self.segments = self.copied = 0

    def piece(self, data: bytes) -> None:
        """Bytes that are no row (the sheet's head and tail), deflated on their own."""
        self._add(deflate_segment(data), zlib.crc32(data), len(data), None)

    def rows(
        self,
        items: Sequence[Any],
        digests: Sequence[bytes | None],
        render: Callable[[list[Any]], list[bytes]],
    ) -> None:
        """``items`` as rows, segment by segment: copied deflated when the previous workbook
        has the segment, else rendered (``render``: the rows of a list of items) and
        deflated."""
        find = self.kept.where.get if self.kept is not None else {}.get
        for start, end in segment_bounds(digests):
            key = row_digest_from(digests[start:end])
            place = find(key) if key is not None else None
            self.segments += 1
            if place is not None:
                first, last, size, crc = place
                self._add(self.kept.data[first:last], crc, size, key)  # type: ignore[union-attr]
                self.copied += 1
                continue
            data = b"".join(render(list(items[start:end])))
            self._add(deflate_segment(data), zlib.crc32(data), len(data), key)

    def finish(self) -> None:
        """The end of the deflate stream."""
        self.pieces.append(FINAL_BLOCK)

    def index(self, data_start: int) -> SheetSegments:
        """Where the keyed segments are, the member's data starting at ``data_start``."""
        places = array("Q", self.places)
        for at in range(0, len(places), 4):
            places[at] += data_start
            places[at + 1] += data_start
        return SheetSegments(b"".join(self.keys), places.tobytes())

    def _add(self, deflated: bytes, crc: int, size: int, key: bytes | None) -> None:
        if key is not None:
            self.keys.append(key)
            self.places.extend((self.offset, self.offset + len(deflated), size, crc))
        self.pieces.append(deflated)
        self.offset += len(deflated)
        self.crc = crc32_combine(self.crc, crc, size)
        self.size += size


def keep(previous: PreviousReports | None, name: str, digest: str, index: SheetSegments) -> None:
    """Keep a sheet's segment index under the workbook's digest."""
    if previous is not None:
        previous.keep(name, digest, index, SEGMENTS_KEPT, _SALT)
