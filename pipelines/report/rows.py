"""Findings as flat rows for spreadsheets: contract fields plus the texts a translator needs."""

from __future__ import annotations

import json

from ..model import Finding
from ..tables import RunTables

COLUMNS = [
    "severity",
    "code",
    "category",
    "lang",
    "file",
    "line",
    "card",
    "section",
    "message",
    "source_text",
    "translation",
    "expected",
    "found",
    "ruling_id",
    "source_id",
    "evidence",
    "fingerprint",
]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def finding_rows(run: RunTables) -> list[dict[str, object]]:
    """One row per finding, most severe first, then by file and line."""
    by_id = run.by_id
    rows = []
    for finding in sorted(run.findings, key=_order):
        ruling = by_id.get(finding.ruling_id or "")
        source = by_id.get(finding.source_id or "")
        evidence = finding.evidence
        rows.append(
            {
                "severity": finding.severity,
                "code": finding.code,
                "category": finding.category,
                "lang": finding.lang or "",
                "file": finding.file or "",
                "line": finding.line if finding.line is not None else "",
                "card": finding.card or "",
                "section": finding.section or "",
                "message": finding.message,
                "source_text": source.text if source and source is not ruling else "",
                "translation": ruling.text if ruling else "",
                "expected": _plain(evidence.get("expected")),
                "found": _plain(evidence.get("found")),
                "ruling_id": finding.ruling_id or "",
                "source_id": finding.source_id or "",
                "evidence": json.dumps(evidence, ensure_ascii=False, sort_keys=True),
                "fingerprint": finding.fingerprint,
            }
        )
    return rows


def _plain(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "; ".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _order(finding: Finding) -> tuple:
    return (
        SEVERITY_ORDER[finding.severity],
        finding.file or "",
        finding.line if finding.line is not None else -1,
        finding.code,
        finding.fingerprint,
    )
