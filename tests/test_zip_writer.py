"""The zip writer of members made of deflated segments (``report/zip_writer.py``): archives
that ``zipfile`` reads back, the bytes ``zipfile`` writes for a whole member, ZIP64 where
sizes and offsets need it, and the CRC-32 of two strings from theirs."""

from __future__ import annotations

import io
import random
import zipfile
import zlib

from hypothesis import given
from hypothesis import strategies as st

from pipelines.report import zip_writer
from pipelines.report.zip_writer import (
    FINAL_BLOCK,
    MemberInfo,
    ZipWriter,
    crc32_combine,
    deflate_segment,
)

WHEN = (2000, 1, 1, 0, 0, 0)


@given(st.binary(max_size=300), st.binary(max_size=3000))
def test_crc32_combine_gives_the_crc_of_the_two_strings_joined(first: bytes, second: bytes):
    combined = crc32_combine(zlib.crc32(first), zlib.crc32(second), len(second))
    assert combined == zlib.crc32(first + second)


def test_crc32_combine_over_long_lengths():
    """Lengths of many bits (a segment of megabytes after gigabytes of others)."""
    rng = random.Random(7)
    first = rng.randbytes(1000)
    for length in (1 << 20, (1 << 20) + 12345, 5_000_017):
        second = rng.randbytes(length)
        assert crc32_combine(zlib.crc32(first), zlib.crc32(second), length) == zlib.crc32(
            first + second
        )


def _segmented(parts: list[bytes]) -> tuple[list[bytes], int, int]:
    crc = 0
    for part in parts:
        crc = crc32_combine(crc, zlib.crc32(part), len(part))
    return [deflate_segment(part) for part in parts] + [FINAL_BLOCK], crc, sum(map(len, parts))


def test_segments_deflated_apart_are_one_member_zipfile_reads():
    rows = [f"<row><c>{n} {'x' * (n % 50)}</c></row>".encode() for n in range(3000)]
    parts = [b"".join(rows[start : start + 128]) for start in range(0, len(rows), 128)]
    handle = io.BytesIO()
    archive = ZipWriter(handle)
    archive.add_bytes(MemberInfo("[Content_Types].xml", WHEN), b"<Types/>")
    start = archive.add(MemberInfo("xl/worksheets/sheet1.xml", WHEN), *_segmented(parts))
    archive.close()
    data = handle.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as read:
        assert read.testzip() is None
        assert read.read("xl/worksheets/sheet1.xml") == b"".join(rows)
        assert read.read("[Content_Types].xml") == b"<Types/>"
        info = read.getinfo("xl/worksheets/sheet1.xml")
    assert data[start : start + 4] == deflate_segment(parts[0])[:4]  # where its data starts
    assert info.header_offset < start


def test_a_whole_member_is_the_bytes_zipfile_writes():
    """The parts of a workbook that are not written in segments are zipfile's bytes."""
    members = [
        (MemberInfo("a.xml", WHEN), b"<a>" * 500),
        (MemberInfo("docProps/b.xml", (2021, 7, 9, 13, 45, 31), 0o644 << 16, 0), b"b" * 10),
        (MemberInfo("empty", WHEN), b""),
        (MemberInfo("hoja ñ/名.xml", WHEN), "ñ".encode() * 40),
    ]
    ours = io.BytesIO()
    archive = ZipWriter(ours)
    for info, data in members:
        archive.add_bytes(info, data)
    archive.close()
    theirs = io.BytesIO()
    with zipfile.ZipFile(theirs, "w", zipfile.ZIP_DEFLATED) as target:
        for info, data in members:
            part = zipfile.ZipInfo(info.name, info.date_time)
            part.compress_type = zipfile.ZIP_DEFLATED
            part.external_attr, part.create_system = info.external_attr, info.create_system
            target.writestr(part, data)
    assert ours.getvalue() == theirs.getvalue()


def test_sizes_and_offsets_past_the_limit_take_zip64_records(monkeypatch):
    """With the limit lowered, a member larger than it and members after it: zipfile reads
    their sizes and places from the ZIP64 records."""
    monkeypatch.setattr(zip_writer, "ZIP64_LIMIT", 200)
    big = bytes(range(256)) * 8  # deflates to more than 200 bytes too
    handle = io.BytesIO()
    archive = ZipWriter(handle)
    archive.add(MemberInfo("big", WHEN), *_segmented([big[:1000], big[1000:]]))
    archive.add_bytes(MemberInfo("after", WHEN), b"small")
    archive.close()
    data = handle.getvalue()
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data
    with zipfile.ZipFile(io.BytesIO(data)) as read:
        assert read.testzip() is None
        assert read.read("big") == big
        assert read.read("after") == b"small"
        assert read.getinfo("after").header_offset > 200
