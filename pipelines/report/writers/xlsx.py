"""findings.xlsx: one sheet per language, header frozen, autofilter, wrapped text.

Written with XlsxWriter: measured against openpyxl on the same 20,000-row workbook it was
2.8 times as fast (1.7 s against 4.6 s), used a third of the memory and, with its creation
date fixed, wrote the same bytes on every run, which openpyxl does not: it stamps the time
of saving into the file (benchmarks/results/xlsx_writers.md). XlsxWriter is imported when
a workbook is written, so that the other stages' commands do not pay for it; its cells'
short paths, and its shared strings written as text whatever their shape (XlsxWriter takes
text shaped like its rich string markup for markup), are ``report/xlsx_sheet.py``.

XlsxWriter writes the workbook with each findings sheet's header row only; the findings'
rows, inline strings without references, are put in after it in segments deflated apart,
those the previous workbook in the run's folder has copied from it still deflated
(``xlsx_sheet.write_with_rows``, ``kept_segments``).
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

from ...model import Finding
from ...tables import RunTables
from .. import (
    kept_segments,  # noqa: F401  (declares its kind before a workbook is written)
    rulings_by_id,
    writer,
)
from ..rows import (
    COLUMNS,
    finding_digests,
    findings_in_review_order,
    lang_counts,
    language_of,
    row_of,
)
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
    from ..xlsx_sheet import (  # XlsxWriter: 0.1 s to import, for this writer only
        Sheet,
        SheetRows,
        Workbook,
        row_markup,
        write_with_rows,
    )

    path = out / "findings.xlsx"
    template = io.BytesIO()
    workbook = Workbook(template, {**TEXT_ONLY, "in_memory": True})
    workbook.set_properties({"title": "rulings findings", "created": FIXED_DATE})
    header = workbook.add_format({"bold": True, "bg_color": "#E7E6E6", "border": 1})
    cell = workbook.add_format({"text_wrap": True, "valign": "top"})
    shades = {
        severity: workbook.add_format({"bg_color": colour, "valign": "top"})
        for severity, colour in SEVERITY_COLOURS.items()
    }
    # the formats' numbers in the workbook's styles, given before any is used
    styles = {severity: shade._get_xf_index() for severity, shade in shades.items()}
    cell_style = cell._get_xf_index()
    by_id = rulings_by_id(run)
    digests = finding_digests(run)

    def render(findings: list[Finding]) -> list[bytes]:
        rows = (row_of(finding, by_id) for finding in findings)
        return [
            row_markup(
                [row[name] for name in COLUMNS],
                [styles[row["severity"]]] + [cell_style] * (len(COLUMNS) - 1),
            ).encode()
            for row in rows
        ]

    counts = lang_counts(run)
    languages = sorted(counts, key=lambda lang: (lang == "", -counts[lang], lang)) or [""]
    by_language: dict[str, list[Finding]] = {lang: [] for lang in languages}
    for finding in findings_in_review_order(run):
        by_language[language_of(finding)].append(finding)
    sheets = []
    for lang in languages:
        sheet = workbook.add_worksheet((lang or NO_LANGUAGE)[:31], worksheet_class=Sheet)
        sheet.write_row(0, 0, COLUMNS, header)
        for number, name in enumerate(COLUMNS):
            sheet.set_column(number, number, WIDTHS.get(name, 14), cell)
        sheet.freeze_panes(1, 0)
        sheet.autofilter(0, 0, max(counts[lang], 1), len(COLUMNS) - 1)
        findings = by_language[lang]
        sheets.append(
            SheetRows(
                f"xl/worksheets/sheet{sheet.index + 1}.xml",
                f"xlsx {sheet.name}",
                findings,
                [digests[id(finding)] for finding in findings],
                render,
                len(COLUMNS),
            )
        )
    _updates_sheet(workbook, run, header, cell)
    workbook.close()
    write_with_rows(template.getvalue(), path, sheets, run.previous)
    return path


def _updates_sheet(workbook, run: RunTables, header, cell) -> None:
    """The update list (see ``report/updates.py``), when the English changed."""
    from ..xlsx_sheet import Sheet

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
