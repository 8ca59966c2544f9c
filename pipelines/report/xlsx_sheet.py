"""XlsxWriter's worksheet with short paths for the cells findings.xlsx has (its own module:
XlsxWriter is imported only when a workbook is written)."""

from __future__ import annotations

from xlsxwriter.utility import xl_rowcol_to_cell_fast
from xlsxwriter.worksheet import (
    CellBlankTuple,
    CellNumberTuple,
    CellStringTuple,
    Worksheet,
)


class Sheet(Worksheet):
    """XlsxWriter's worksheet with shorter paths for the cells this workbook has: text,
    whole numbers and blanks, each with a format. The same calls and the same XML as the
    general ones (``tests/test_report_equivalence.py`` compares the bytes), without the
    dispatch on every type and option per cell, which took most of the writer's time on a
    large run. Anything else takes XlsxWriter's own way."""

    def write_values(self, row: int, values: list, cell_format) -> int:
        """``write_row(row, 0, values, cell_format)``: stops at the first cell that is
        not written whole (a string cut to Excel's limit), as ``write_row`` does."""
        if (
            self.write_handlers
            or self.strings_to_formulas
            or self.strings_to_urls
            or self.strings_to_numbers
            or self.constant_memory
        ):
            return self.write_row(row, 0, values, cell_format)
        for col, value in enumerate(values):
            kind = value.__class__
            if kind is str:
                if value == "":
                    error = self._write_blank(row, col, value, cell_format)
                else:
                    error = self._write_string(row, col, value, cell_format)
            elif kind is int:
                error = self._write_number(row, col, value, cell_format)
            else:
                error = self._write(row, col, value, cell_format)
            if error:
                return error
        return 0

    def _write_cell(self, row: int, col: int, cell) -> None:
        kind = cell.__class__
        cell_format = cell.format
        if cell_format is None or self.constant_memory or kind not in _SHORT_CELLS:
            super()._write_cell(row, col, cell)
            return
        reference = xl_rowcol_to_cell_fast(row, col)
        index = cell_format._get_xf_index()
        if kind is CellStringTuple:
            self.fh.write(f'<c r="{reference}" s="{index}" t="s"><v>{cell.string}</v></c>')
        elif kind is CellNumberTuple:
            self.fh.write(f'<c r="{reference}" s="{index}"><v>{cell.number:.16G}</v></c>')
        else:
            self.fh.write(f'<c r="{reference}" s="{index}"/>')


_SHORT_CELLS = (CellStringTuple, CellNumberTuple, CellBlankTuple)
