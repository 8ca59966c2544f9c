"""findings.xlsx: one sheet per language, header frozen, autofilter, wrapped text.

Written with XlsxWriter: measured against openpyxl on the same 20,000-row workbook it was
2.8 times as fast (1.7 s against 4.6 s), used a third of the memory and, with its creation
date fixed, wrote the same bytes on every run, which openpyxl does not: it stamps the time
of saving into the file (benchmarks/results/xlsx_writers.md).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import xlsxwriter
from xlsxwriter.utility import xl_rowcol_to_cell_fast
from xlsxwriter.worksheet import (
    CellBlankTuple,
    CellNumberTuple,
    CellStringTuple,
    Worksheet,
)

from ...tables import RunTables
from .. import writer
from ..rows import COLUMNS, finding_rows, lang_counts
from ..updates import COLUMNS as UPDATE_COLUMNS
from ..updates import update_rows

FIXED_DATE = dt.datetime(2000, 1, 1)
TEXT_ONLY = {"strings_to_urls": False, "strings_to_formulas": False, "strings_to_numbers": False}
"""Corpus text is untrusted: a ruling that starts with "=" or looks like a link or a number
is written as the text it is, never as a formula, hyperlink or number."""
WIDTHS = {"message": 60, "source_text": 60, "translation": 60, "evidence": 40}
SEVERITY_COLOURS = {"error": "#F8D7DA", "warning": "#FFF3CD", "info": "#DDEBF7"}
NO_LANGUAGE = "no language"
UPDATES_SHEET = "updates"
UPDATE_WIDTHS = {"old_english": 50, "current_english": 50, "changes": 50, "translation": 50}


@writer("xlsx", filename="findings.xlsx", cost=17, reads=("rulings", "alignment", "findings"))
def write_xlsx(run: RunTables, out: Path) -> Path:
    """A workbook for translators: a sheet per language (the languages with most findings
    first, findings that belong to no language last), frozen header, autofilter, wrapped
    text, severity colours; and, when the English changed, an ``updates`` sheet with the
    update list."""
    path = out / "findings.xlsx"
    workbook = xlsxwriter.Workbook(str(path), TEXT_ONLY)
    workbook.set_properties({"title": "rulings findings", "created": FIXED_DATE})
    header = workbook.add_format({"bold": True, "bg_color": "#E7E6E6", "border": 1})
    cell = workbook.add_format({"text_wrap": True, "valign": "top"})
    shades = {
        severity: workbook.add_format({"bg_color": colour, "valign": "top"})
        for severity, colour in SEVERITY_COLOURS.items()
    }
    counts = lang_counts(run)
    languages = sorted(counts, key=lambda lang: (lang == "", -counts[lang], lang)) or [""]
    for lang in languages:
        sheet = workbook.add_worksheet((lang or NO_LANGUAGE)[:31], worksheet_class=Sheet)
        sheet.write_row(0, 0, COLUMNS, header)
        for number, name in enumerate(COLUMNS):
            sheet.set_column(number, number, WIDTHS.get(name, 14), cell)
        for index, row in enumerate(finding_rows(run, lang), 1):
            sheet.write_values(index, [row[name] for name in COLUMNS], cell)
            sheet.write(index, 0, row["severity"], shades[row["severity"]])
        sheet.freeze_panes(1, 0)
        sheet.autofilter(0, 0, max(counts[lang], 1), len(COLUMNS) - 1)
    _updates_sheet(workbook, run, header, cell)
    workbook.close()
    return path


def _updates_sheet(workbook, run: RunTables, header, cell) -> None:
    """The update list (see ``report/updates.py``), when the English changed."""
    rows = update_rows(run)
    if not rows:
        return
    sheet = workbook.add_worksheet(UPDATES_SHEET, worksheet_class=Sheet)
    sheet.write_row(0, 0, UPDATE_COLUMNS, header)
    for number, name in enumerate(UPDATE_COLUMNS):
        sheet.set_column(number, number, UPDATE_WIDTHS.get(name, 14), cell)
    for index, row in enumerate(rows, 1):
        sheet.write_values(index, row.cells(), cell)
    sheet.freeze_panes(1, 0)
    sheet.autofilter(0, 0, len(rows), len(UPDATE_COLUMNS) - 1)


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
