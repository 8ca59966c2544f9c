"""Findings as flat rows for spreadsheets: the ``review`` table of the Python API
(``pipelines.api``), with missing values as empty cells and the evidence as JSON.

The rows are built here in plain Python, not through the API's DataFrames: those type every
column of the whole corpus and alignment, which took most of the report's time on a large
run, and the spreadsheets need only the findings and the texts they point at. The test suite
holds the two to the same values, types and order (``tests/test_report_equivalence.py``).
"""

from __future__ import annotations

import json
from typing import Any

from ..api import REVIEW_COLUMNS, evidence_text
from ..model import Finding
from ..tables import RunTables
from ..vocabulary import SEVERITY_ORDER
from . import computed_before_fork, rulings_by_id, shared

COLUMNS = REVIEW_COLUMNS
SEVERITY_POSITION = {str(severity): rank for rank, severity in enumerate(SEVERITY_ORDER)}


def finding_rows(run: RunTables) -> list[dict[str, object]]:
    """One dict per finding, most severe first, every cell a string or an int (or empty)
    (shared by the writers of one report: do not change them)."""
    return shared(run, _finding_rows)


@computed_before_fork
def _finding_rows(run: RunTables) -> list[dict[str, object]]:
    by_id = rulings_by_id(run)
    texts = {ruling_id: _text(ruling.text) for ruling_id, ruling in by_id.items()}
    ordered = sorted(run.findings, key=_review_order)
    return [_row(finding, texts) for finding in ordered]


def _row(finding: Finding, texts: dict[str, str]) -> dict[str, object]:
    evidence = finding.evidence
    ruling_id, source_id = finding.ruling_id, finding.source_id
    same = ruling_id is not None and source_id is not None and source_id == ruling_id
    return {
        "severity": str(finding.severity),
        "code": _text(finding.code),
        "category": str(finding.category),
        "lang": _text(finding.lang),
        "file": _text(finding.file),
        "line": "" if finding.line is None else int(finding.line),
        "card": _text(finding.card),
        "section": _text(finding.section),
        "message": _text(finding.message),
        "source_text": "" if same or source_id is None else texts.get(source_id, ""),
        "translation": "" if ruling_id is None else texts.get(ruling_id, ""),
        "expected": _text(evidence_text(evidence.get("expected"))),
        "found": _text(evidence_text(evidence.get("found"))),
        "ruling_id": _text(ruling_id),
        "source_id": _text(source_id),
        "evidence": json.dumps(evidence, ensure_ascii=False, sort_keys=True),
        "fingerprint": _text(finding.fingerprint),
    }


def _text(value: Any) -> str:
    """A cell of a text column: missing is empty, anything else its string."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _review_order(finding: Finding) -> tuple:
    """Most severe first, then by file, line, code and fingerprint, a missing value before
    any other (the API's stable ``sort_values(..., na_position="first")``)."""
    return (
        SEVERITY_POSITION[finding.severity],
        _missing_first(finding.file),
        _missing_first(finding.line),
        _missing_first(finding.code),
        _missing_first(finding.fingerprint),
    )


def _missing_first(value: object) -> tuple:
    return (0,) if value is None else (1, value)
