"""findings.csv: every finding as one spreadsheet row (UTF-8 with BOM, so Excel reads it)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ...model import Finding
from ...tables import RunTables
from .. import rulings_by_id, writer
from ..kept_rows import rows_file
from ..rows import COLUMNS, finding_digests, findings_in_review_order, row_of

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
    findings = findings_in_review_order(run)
    digests = finding_digests(run)
    by_id = rulings_by_id(run)

    def render(these: list[Finding]) -> list[bytes]:
        rows = (row_of(finding, by_id) for finding in these)
        return _csv_lines([as_text_cell(row[name]) for name in COLUMNS] for row in rows)

    with rows_file(path, "csv", run.previous) as rows:
        rows.piece(b"\xef\xbb\xbf" + b"".join(_csv_lines([COLUMNS])))
        rows.rows(findings, [digests[id(f)] for f in findings], render)
    return path


def _csv_lines(rows) -> list[bytes]:
    """Each row as a line of CSV in UTF-8 (``csv``'s quoting, a line feed at its end)."""
    buffer = io.StringIO(newline="")
    table = csv.writer(buffer, lineterminator="\n")
    ends = []
    for row in rows:
        table.writerow(row)
        ends.append(buffer.tell())
    text = buffer.getvalue()
    starts = [0, *ends][: len(ends)]
    return [text[start:end].encode("utf-8") for start, end in zip(starts, ends, strict=True)]


def as_text_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
