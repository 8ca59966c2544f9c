"""XlsxWriter's workbook and worksheet with short paths for what findings.xlsx has (its own
module: XlsxWriter is imported only when a workbook is written)."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xlsxwriter.packager import Packager
from xlsxwriter.sharedstrings import SharedStrings
from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.workbook import Workbook as XlsxWorkbook
from xlsxwriter.worksheet import (
    CellBlankTuple,
    CellNumberTuple,
    CellStringTuple,
    Worksheet,
)
from xlsxwriter.xmlwriter import XMLwriter

from ..files import file_digest
from .kept_rows import PreviousReports
from .kept_segments import KeptSegments, SegmentedSheet, SheetSegments, keep
from .zip_writer import MemberInfo, ZipWriter


class Workbook(XlsxWorkbook):
    """XlsxWriter's workbook, its shared strings written by ``TextSharedStrings``."""

    def _get_packager(self) -> Packager:  # XlsxWriter's own hook for another packager
        return _Packager()


class _Packager(Packager):
    def _write_shared_strings_file(self) -> None:
        """XlsxWriter's, with ``TextSharedStrings``."""
        table = TextSharedStrings()
        table.string_table = self.workbook.str_table
        if not self.workbook.str_table.count:
            return
        table._set_xml_writer(self._filename("xl/sharedStrings.xml"))
        table._assemble_xml_file()


class TextSharedStrings(SharedStrings):
    """The shared strings, every one written as text.

    XlsxWriter writes a string that starts with ``<r>`` and ends with ``</r>`` as it is, as
    the markup of a rich string (which it keeps so): corpus text of that shape ("<r>…</r>")
    became markup in the file, a damaged or altered workbook. Here no string is markup.
    Every other string gets XlsxWriter's bytes (``tests/test_report_equivalence.py``), in
    parts of a thousand: at a million units its call per string took 8 of the workbook's 40
    s profiled."""

    def _write_sst_strings(self) -> None:
        strings = self.string_table.string_array
        for start in range(0, len(strings), 1000):
            self.fh.write("".join(map(_shared_string, strings[start : start + 1000])))


_NEEDS_ESCAPES = re.compile(r"_x[0-9a-fA-F]{4}_|[\x00-\x08\x0b-\x1f\ufffe\uffff]")
"""What XlsxWriter writes as an ``_xHHHH_`` escape (``XMLwriter._escape_control_characters``)."""


def _shared_string(text: str) -> str:
    """XlsxWriter's ``<si>`` of a string (``SharedStrings._write_si``) that is not markup."""
    return f"<si>{_text_markup(text)}</si>"


def _text_markup(text: str) -> str:
    """A string's ``<t>`` element as XlsxWriter writes it: control characters escaped,
    leading or trailing whitespace (``\\s``, what ``str.isspace`` tells) kept, markup
    characters escaped."""
    if _NEEDS_ESCAPES.search(text):
        text = XMLwriter._escape_control_characters(text)
    if "&" in text or "<" in text or ">" in text:
        text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if text[:1].isspace() or text[-1:].isspace():
        return f'<t xml:space="preserve">{text}</t>'
    return f"<t>{text}</t>"


class Sheet(Worksheet):
    """XlsxWriter's worksheet with shorter paths for the cells this workbook has: text,
    whole numbers and blanks, each with a format. The same calls and the same XML as the
    general ones (``tests/test_report_equivalence.py`` compares the bytes), without the
    dispatch on every type and option per cell, which took most of the writer's time on a
    large run: a row's cells are stored in one pass (its dimensions checked once), and
    written as one piece of text. Anything else takes XlsxWriter's own way."""

    def write_values(self, row: int, values: list, cell_format) -> int:
        """``write_row(row, 0, values, cell_format)``: stops at the first cell that is
        not written whole (a string cut to Excel's limit), as ``write_row`` does."""
        if (
            self.write_handlers
            or self.strings_to_formulas
            or self.strings_to_urls
            or self.strings_to_numbers
            or self.constant_memory
            or cell_format is None
            or not 0 <= row < self.xls_rowmax
            or len(values) > self.xls_colmax
        ):
            return self.write_row(row, 0, values, cell_format)
        cells = self.table[row]
        index_of = self.str_table._get_shared_string_index
        short = self.xls_strmax // 2
        stored = -1  # the last column stored here, whose dimensions are not checked yet
        error = 0
        for col, value in enumerate(values):
            kind = value.__class__
            if kind is str and len(value) <= short:
                if value:
                    cells[col] = CellStringTuple(index_of(value), cell_format)
                else:
                    cells[col] = CellBlankTuple(cell_format)
                stored = col
            elif kind is int:
                cells[col] = CellNumberTuple(value, cell_format)
                stored = col
            else:
                error = self._write(row, col, value, cell_format)
                if error:
                    break
        if stored >= 0:
            self._check_dimensions(row, 0)
            self._check_dimensions(row, stored)
        return error

    def _write_rows(self) -> None:
        """XlsxWriter's ``_write_rows``, a row's cells of the short kinds written as one
        piece of text."""
        if self.constant_memory or self.comments:
            super()._write_rows()
            return
        self._calculate_spans()
        first, last = self.dim_colmin, self.dim_colmax
        names = {col: xl_col_to_name(col) for col in range(first, last + 1)}
        write = self.fh.write
        for row_num in range(self.dim_rowmin, self.dim_rowmax + 1):
            cells = self.table[row_num]
            if row_num not in self.row_info and not cells:
                continue
            span = self.row_spans.get(int(row_num / 16))
            if not cells:
                self._write_empty_row(row_num, span, self.row_info[row_num])
                continue
            self._write_row(row_num, span, self.row_info.get(row_num))
            number = str(row_num + 1)
            parts: list[str] = []
            for col_num in range(first, last + 1):
                cell = cells.get(col_num)
                if cell is None:
                    continue
                kind = cell.__class__
                cell_format = cell.format
                if cell_format is None or kind not in _SHORT_CELLS:
                    write("".join(parts))
                    parts = []
                    super()._write_cell(row_num, col_num, cell)
                    continue
                start = f'<c r="{names[col_num]}{number}" s="{cell_format._get_xf_index()}"'
                if kind is CellStringTuple:
                    parts.append(f'{start} t="s"><v>{cell.string}</v></c>')
                elif kind is CellNumberTuple:
                    parts.append(f"{start}><v>{cell.number:.16G}</v></c>")
                else:
                    parts.append(start + "/>")
            write("".join(parts))
            self._xml_end_tag("row")


_SHORT_CELLS = (CellStringTuple, CellNumberTuple, CellBlankTuple)


# --- the findings sheets: rows of inline strings, put into XlsxWriter's workbook -------------

STRING_LIMIT = 32_767
"""The most characters a cell holds (Excel's limit, XlsxWriter's ``xls_strmax``): a longer
text is cut there."""


def row_markup(values: Sequence[object], styles: Sequence[int]) -> str:
    """A row of text, whole numbers, decimals and blanks (empty text), each cell with its
    style (an XlsxWriter format's ``_get_xf_index()``), as XlsxWriter writes them in its
    constant-memory mode: text as inline strings, so that a row's markup is the same
    wherever the row is. Neither the row nor its cells carry a reference (``r``, optional in
    the format): Excel, LibreOffice and openpyxl number them in order, so a row's markup
    does not depend on its place either."""
    cells = []
    for value, style in zip(values, styles, strict=True):
        if type(value) is str:
            if value:
                text = _text_markup(value[:STRING_LIMIT])
                cells.append(f'<c s="{style}" t="inlineStr"><is>{text}</is></c>')
            else:
                cells.append(f'<c s="{style}"/>')
        else:
            cells.append(f'<c s="{style}"><v>{value:.16G}</v></c>')
    return "<row>" + "".join(cells) + "</row>"


@dataclass
class SheetRows:
    """The rows of one findings sheet: its part in the workbook, its name for the kept rows
    (``kept_rows``), its items with their digests and how a list of them is rendered, and
    its last column."""

    part: str
    name: str
    items: Sequence[Any]
    digests: Sequence[bytes | None]
    render: Callable[[list[Any]], list[bytes]]
    columns: int


def write_with_rows(
    template: bytes, path: Path, sheets: Sequence[SheetRows], previous: PreviousReports | None
) -> None:
    """The workbook at ``path``: ``template`` (XlsxWriter's workbook, each findings sheet with
    its header row only) with every sheet's rows after its header, each part deflated as
    XlsxWriter deflates it but the findings sheets, written in segments (``kept_segments``):
    those the previous workbook in the run's folder has are copied from it, deflated."""
    by_part = {sheet.part: sheet for sheet in sheets}
    kept = {sheet.name: KeptSegments.of(previous, sheet.name, path.name) for sheet in sheets}
    indexes: dict[str, SheetSegments] = {}
    with zipfile.ZipFile(io.BytesIO(template)) as source, open(path, "wb") as handle:
        archive = ZipWriter(handle)
        for info in source.infolist():
            member = MemberInfo(
                info.filename, info.date_time, info.external_attr, info.create_system
            )
            data = source.read(info)
            sheet = by_part.get(info.filename)
            if sheet is None:
                archive.add_bytes(member, data)
                continue
            head, end, tail = data.partition(b"</sheetData>")
            if not end:
                raise ValueError(f"{info.filename}: no sheet data to add rows to")
            last = f"{xl_col_to_name(sheet.columns - 1)}{len(sheet.items) + 1}"
            head = _DIMENSION.sub(f'<dimension ref="A1:{last}"/>'.encode(), head, count=1)
            segments = SegmentedSheet(kept[sheet.name])
            segments.piece(head)
            segments.rows(sheet.items, sheet.digests, sheet.render)
            segments.piece(end + tail)
            segments.finish()
            start = archive.add(member, segments.pieces, segments.crc, segments.size)
            indexes[sheet.name] = segments.index(start)
        archive.close()
    if previous is not None:
        digest = file_digest(path)
        for name, index in indexes.items():
            keep(previous, name, digest, index)


_DIMENSION = re.compile(rb'<dimension ref="[^"]*"/>')
