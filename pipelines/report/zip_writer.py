"""A zip archive whose members are written from deflated segments the caller gives.

The standard library's ``zipfile`` deflates each member as one stream, so a member can only
be written by deflating all of it. A findings sheet of a million-unit run is 260 MB of XML,
and deflating it took 3.3 s of an edited run that changed a few of its rows. Here a
member's data is a series of segments, each deflated on its own (a fresh compressor, ended
on a byte boundary: ``deflate_segment``), followed by ``FINAL_BLOCK``: one valid deflate
stream, which any zip reader reads. A segment's compressed bytes depend on its own bytes
only, so a rerun copies those of unchanged segments from the previous archive, and the
member's checksum is combined from the segments' (``crc32_combine``) without reading them.

The archive is what ``zipfile`` writes for the same members (local headers without data
descriptors, a central directory, ZIP64 records only where a size, an offset or the count
needs them), so any reader of ``zipfile``'s archives reads it.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import BinaryIO

LEVEL = zlib.Z_DEFAULT_COMPRESSION
"""The level ``zipfile`` deflates at (``ZIP_DEFLATED`` without ``compresslevel``)."""
FINAL_BLOCK = zlib.compressobj(LEVEL, zlib.DEFLATED, -15).flush()
"""An empty last block: what ends a member made of ``deflate_segment`` segments."""
ZIP64_LIMIT = (1 << 31) - 1
"""Sizes and offsets above this take ZIP64 records (``zipfile``'s limit)."""
DEFLATED, VERSION, VERSION_ZIP64 = 8, 20, 45
UTF8_NAME = 0x800
DEFAULT_ATTRIBUTES = 0o600 << 16
"""A member's attributes when it has none (``zipfile.ZipFile.writestr``'s: read and write)."""

_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")
_END64 = struct.Struct("<4sQ2H2L4Q")
_LOCATOR64 = struct.Struct("<4sLQL")


def deflate_segment(data: bytes) -> bytes:
    """``data`` deflated on its own, ended on a byte boundary and not as the last block: such
    segments joined, and ``FINAL_BLOCK`` after them, are one deflate stream."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)


def deflate_whole(data: bytes) -> bytes:
    """``data`` deflated as ``zipfile`` deflates a member: one stream, at its level."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


@dataclass(frozen=True)
class MemberInfo:
    """What a member's headers say besides its data: ``zipfile.ZipInfo``'s fields."""

    name: str
    date_time: tuple[int, int, int, int, int, int]
    external_attr: int = 0
    create_system: int = 3


@dataclass(frozen=True)
class _Written:
    info: MemberInfo
    crc: int
    compressed: int
    size: int
    offset: int


class ZipWriter:
    """Members written one after the other into ``handle`` (at its start), deflated data
    given; ``close`` writes the central directory."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.offset = 0
        self.members: list[_Written] = []

    def add(self, info: MemberInfo, pieces: Sequence[bytes], crc: int, size: int) -> int:
        """A deflated member: ``pieces`` its deflated data, ``crc`` and ``size`` those of its
        bytes before deflating. The offset of its data in the archive."""
        compressed = sum(len(piece) for piece in pieces)
        name, flags = _encoded_name(info.name)
        zip64 = size > ZIP64_LIMIT or compressed > ZIP64_LIMIT
        extra = struct.pack("<2H2Q", 1, 16, size, compressed) if zip64 else b""
        sizes = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (compressed, size)
        header = _LOCAL.pack(
            b"PK\x03\x04",
            VERSION_ZIP64 if zip64 else VERSION,
            0,
            flags,
            DEFLATED,
            *_dos_time(info.date_time),
            crc,
            *sizes,
            len(name),
            len(extra),
        )
        self.members.append(_Written(info, crc, compressed, size, self.offset))
        self._write(header + name + extra)
        start = self.offset
        for piece in pieces:
            self._write(piece)
        return start

    def add_bytes(self, info: MemberInfo, data: bytes) -> None:
        """A member of ``data``, deflated as ``zipfile`` deflates it."""
        self.add(info, [deflate_whole(data)], zlib.crc32(data), len(data))

    def close(self) -> None:
        """The central directory and the end records."""
        start = self.offset
        for member in self.members:
            self._write(_central_entry(member))
        size, count = self.offset - start, len(self.members)
        if count > 0xFFFF or size > ZIP64_LIMIT or start > ZIP64_LIMIT:
            end64 = self.offset
            self._write(
                _END64.pack(
                    b"PK\x06\x06", 44, VERSION_ZIP64, VERSION_ZIP64, 0, 0, count, count, size, start
                )
            )
            self._write(_LOCATOR64.pack(b"PK\x06\x07", 0, end64, 1))
            count, size, start = min(count, 0xFFFF), min(size, 0xFFFFFFFF), 0xFFFFFFFF
        self._write(_END.pack(b"PK\x05\x06", 0, 0, count, count, size, start, 0))

    def _write(self, data: bytes) -> None:
        self.handle.write(data)
        self.offset += len(data)


def _central_entry(member: _Written) -> bytes:
    fields = []
    sizes = [member.compressed, member.size]
    if member.size > ZIP64_LIMIT or member.compressed > ZIP64_LIMIT:
        fields += [member.size, member.compressed]
        sizes = [0xFFFFFFFF, 0xFFFFFFFF]
    offset = member.offset
    if offset > ZIP64_LIMIT:
        fields.append(offset)
        offset = 0xFFFFFFFF
    extra = struct.pack(f"<2H{len(fields)}Q", 1, 8 * len(fields), *fields) if fields else b""
    version = VERSION_ZIP64 if fields else VERSION
    name, flags = _encoded_name(member.info.name)
    return (
        _CENTRAL.pack(
            b"PK\x01\x02",
            version,
            member.info.create_system,
            version,
            0,
            flags,
            DEFLATED,
            *_dos_time(member.info.date_time),
            member.crc,
            *sizes,
            len(name),
            len(extra),
            0,
            0,
            0,
            member.info.external_attr or DEFAULT_ATTRIBUTES,
            offset,
        )
        + name
        + extra
    )


def _encoded_name(name: str) -> tuple[bytes, int]:
    """A member's name and its flags: ASCII as it is, anything else in UTF-8 with the flag
    that says so (as ``zipfile`` writes them)."""
    try:
        return name.encode("ascii"), 0
    except UnicodeEncodeError:
        return name.encode("utf-8"), UTF8_NAME


def _dos_time(date_time: tuple[int, ...]) -> tuple[int, int]:
    year, month, day, hour, minute, second = date_time
    return (hour << 11) | (minute << 5) | (second // 2), ((year - 1980) << 9) | (month << 5) | day


_POLYNOMIAL = 0xEDB88320


def _times_mod_p(a: int, b: int) -> int:
    """a times b modulo the CRC-32 polynomial (zlib's ``multmodp``: bit 31 is x^0)."""
    product, mask = 0, 1 << 31
    while a:
        if a & mask:
            product ^= b
            a ^= mask
        mask >>= 1
        b = (b >> 1) ^ _POLYNOMIAL if b & 1 else b >> 1
    return product


def _powers() -> list[int]:
    """x^(2^k) modulo the polynomial, k = 0..31."""
    table = [1 << 30]
    for _ in range(31):
        table.append(_times_mod_p(table[-1], table[-1]))
    return table


_X_TO_TWO_TO = _powers()


def crc32_combine(first: int, second: int, second_length: int) -> int:
    """The CRC-32 of two byte strings one after the other, from the first's CRC, the
    second's CRC and the second's length (zlib's ``crc32_combine``, which Python's zlib
    does not offer)."""
    power, k, n = 1 << 31, 3, second_length  # x^(8 * n): n bytes of zeros after the first
    while n:
        if n & 1:
            power = _times_mod_p(_X_TO_TWO_TO[k & 31], power)
        n >>= 1
        k += 1
    return _times_mod_p(power, first) ^ second
