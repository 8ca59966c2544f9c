"""findings.csv: every finding as one spreadsheet row (UTF-8 with BOM, so Excel reads it)."""

from __future__ import annotations

import csv
from pathlib import Path

from ...tables import RunTables
from .. import writer
from ..rows import COLUMNS, finding_rows


@writer("csv", filename="findings.csv")
def write_csv(run: RunTables, out: Path) -> Path:
    """All findings as CSV, most severe first, with the source text and the translation."""
    path = out / "findings.csv"
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        table = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        table.writeheader()
        table.writerows(finding_rows(run))
    return path
