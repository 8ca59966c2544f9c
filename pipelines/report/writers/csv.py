"""findings.csv: every finding as one spreadsheet row (UTF-8 with BOM, so Excel reads it)."""

from __future__ import annotations

import csv
from pathlib import Path

from ...tables import RunTables
from .. import writer
from ..rows import COLUMNS, finding_rows

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a CSV cell as a formula (OWASP, CSV injection)."""


@writer("csv", filename="findings.csv", cost=8, reads=("rulings", "alignment", "findings"))
def write_csv(run: RunTables, out: Path) -> Path:
    """All findings as CSV, most severe first, with the source text and the translation.

    Corpus text is untrusted and a spreadsheet evaluates a cell that starts with = + - or @
    ("=HYPERLINK(…)", even "+1/+1 counters" becomes a broken formula): such a cell gets a
    leading apostrophe, so it is shown as text. findings.jsonl and findings.xlsx keep the
    text exactly."""
    path = out / "findings.csv"
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        table = csv.writer(handle, lineterminator="\n")
        table.writerow(COLUMNS)
        table.writerows([as_text_cell(row[name]) for name in COLUMNS] for row in finding_rows(run))
    return path


def as_text_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
