"""A workbook's findings sheets written in segments (``report/kept_segments.py``): cuts that
move with the rows, the previous workbook's segments copied deflated, and a workbook that is
the one a cold run writes, which openpyxl reads."""

from __future__ import annotations

import datetime as dt
import io
import itertools
from pathlib import Path

import openpyxl
import pytest
from test_kept_rows import previous_in

from pipelines.files import file_digest
from pipelines.report import kept_segments
from pipelines.report.kept_rows import DIGEST_SIZE, row_digest, row_digest_from
from pipelines.report.kept_segments import (
    MAX_SEGMENT_ROWS,
    SEGMENTS_KEPT,
    SegmentedSheet,
    SheetSegments,
    segment_bounds,
)
from pipelines.report.xlsx_sheet import Sheet, SheetRows, Workbook, row_markup, write_with_rows

COLUMNS = ["severity", "code", "message", "translation"]


def _digests(count: int, seed: str = "") -> list[bytes]:
    return [row_digest(seed, number) for number in range(count)]  # type: ignore[misc]


def test_cuts_move_with_the_rows_not_their_places():
    """A row inserted moves no cut but the one of its own segment: every other segment is
    the same rows as before."""
    digests = _digests(5000)
    before = segment_bounds(digests)
    assert before[0][0] == 0 and before[-1][1] == len(digests)
    assert all(end == start for (_, end), (start, _) in itertools.pairwise(before))
    assert 5000 / len(before) > kept_segments.SEGMENT_ROWS / 2  # about one cut in 256 rows
    edited = [*digests[:2500], row_digest("inserted"), *digests[2500:]]
    after = segment_bounds(edited)
    keys_before = {row_digest_from(digests[a:b]) for a, b in before}
    keys_after = [row_digest_from(edited[a:b]) for a, b in after]
    assert sum(key not in keys_before for key in keys_after) == 1


def test_a_segment_ends_after_the_most_rows_and_a_row_without_digest_keys_none():
    never = [b"\x01" * DIGEST_SIZE] * (MAX_SEGMENT_ROWS * 2 + 5)  # no digest ends a segment
    bounds = segment_bounds(never)
    assert [end - start for start, end in bounds] == [MAX_SEGMENT_ROWS, MAX_SEGMENT_ROWS, 5]
    assert row_digest_from([never[0], None]) is None
    assert segment_bounds([]) == []


def _row(number: int, edit: str = "") -> list[object]:
    return [
        ["error", "warning", "info"][number % 3],
        f"TERM{number % 7:03d}",
        f"Finding {number}{edit}: “habilidad activada” where the termbase has another term",
        f"Texto traducido {number} & <{number % 11}>",
    ]


def _workbook(path: Path, sheets: dict[str, list[list[object]]], previous) -> list[SegmentedSheet]:
    """findings.xlsx with a sheet of each list of rows, as the xlsx writer makes it; the
    sheets' segment writers."""
    template = io.BytesIO()
    workbook = Workbook(template, {"in_memory": True})
    workbook.set_properties({"created": dt.datetime(2000, 1, 1)})
    cell = workbook.add_format({"text_wrap": True})
    style = cell._get_xf_index()
    rows = []
    for name, items in sheets.items():
        sheet = workbook.add_worksheet(name, worksheet_class=Sheet)
        sheet.write_row(0, 0, COLUMNS)
        rows.append(
            SheetRows(
                f"xl/worksheets/sheet{sheet.index + 1}.xml",
                f"xlsx {name}",
                items,
                [row_digest(item) for item in items],
                lambda these: [row_markup(item, [style] * len(COLUMNS)).encode() for item in these],
                len(COLUMNS),
            )
        )
    workbook.close()
    made: list[SegmentedSheet] = []
    original = SegmentedSheet.__init__

    def remembered(self, kept):
        original(self, kept)
        made.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SegmentedSheet, "__init__", remembered)
        write_with_rows(template.getvalue(), path, rows, previous)
    return made


def test_an_edited_workbook_copies_the_unchanged_segments_and_is_a_cold_runs(tmp_path: Path):
    previous = previous_in(tmp_path / "before", "salt", tmp_path / "cache")
    previous.folder.mkdir()
    es = [_row(n) for n in range(3000)]
    zh = [_row(n, " 中文") for n in range(700)]
    first = _workbook(previous.folder / "findings.xlsx", {"es": es, "zh": zh}, previous)
    assert all(sheet.copied == 0 for sheet in first)

    edited = [*es[:100], _row(100, " edited"), *es[101:2000], _row(9999), *es[2000:2998]]
    rerun, cold = tmp_path / "rerun", tmp_path / "cold"
    rerun.mkdir()
    cold.mkdir()
    made = _workbook(rerun / "findings.xlsx", {"es": edited, "zh": zh}, previous)
    _workbook(cold / "findings.xlsx", {"es": edited, "zh": zh}, None)
    assert (rerun / "findings.xlsx").read_bytes() == (cold / "findings.xlsx").read_bytes()
    spanish, chinese = made
    assert spanish.segments > 8
    assert spanish.segments - 3 <= spanish.copied < spanish.segments  # edited, added, last
    assert chinese.copied == chinese.segments > 1

    book = openpyxl.load_workbook(rerun / "findings.xlsx", read_only=True)
    read = [list(row) for row in book["es"].iter_rows(values_only=True)]
    assert read[0] == COLUMNS
    assert read[1:] == edited
    assert len(list(book["zh"].iter_rows(values_only=True))) == len(zh) + 1


def test_a_segment_index_that_does_not_fit_the_file_is_not_used(tmp_path: Path):
    """An index kept for a workbook that says its segments end past the file's end (a
    damaged store): nothing is copied with it, and the workbook is the same bytes."""
    previous = previous_in(tmp_path / "before", "salt", tmp_path / "cache")
    previous.folder.mkdir()
    rows = [_row(n) for n in range(600)]
    path = previous.folder / "findings.xlsx"
    _workbook(path, {"es": rows}, previous)
    key = previous.cache.key(SEGMENTS_KEPT, ["xlsx es", file_digest(path), kept_segments._SALT])
    [kept] = previous.cache.get_many(SEGMENTS_KEPT, [key]).values()
    index = SEGMENTS_KEPT.decode(kept)
    damaged = SheetSegments(index.keys, b"\xff" * len(index.places))
    previous.cache.put_many(SEGMENTS_KEPT, [(key, SEGMENTS_KEPT.encode(damaged))])
    out = tmp_path / "again"
    out.mkdir()
    [sheet] = _workbook(out / "findings.xlsx", {"es": rows}, previous)
    assert sheet.kept is None and sheet.copied == 0 < sheet.segments
    assert (out / "findings.xlsx").read_bytes() == path.read_bytes()
