"""updates.csv: the update list, what to retranslate after the English changed."""

from __future__ import annotations

import csv
from pathlib import Path

from ...tables import RunTables
from .. import writer
from ..updates import COLUMNS, update_rows
from .csv import as_text_cell


@writer("updates", filename="updates.csv", reads=("rulings", "alignment", "findings"))
def write_updates(run: RunTables, out: Path) -> Path:
    """The update list as CSV (UTF-8 with BOM): per translated document, in the English's
    order, every unit to update (the English was reworded: old and current English and the
    change as [-removed-]{+added+}), to translate (new in the English), to remove (no
    longer in the English) or to check (a translation of an older release that disagrees
    with the newer English). Only the header when the English did not change."""
    path = out / "updates.csv"
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        table = csv.writer(handle, lineterminator="\n")
        table.writerow(COLUMNS)
        for row in update_rows(run):
            table.writerow([as_text_cell(cell) for cell in row.cells()])
    return path
