"""Findings as flat rows for spreadsheets: the ``review`` table of the Python API
(``pipelines.api``), with missing values as empty cells and the evidence as JSON.

The rows are built here in plain Python, not through the API's DataFrames: those type every
column of the whole corpus and alignment, which took most of the report's time on a large
run, and the spreadsheets need only the findings and the texts they point at. The test suite
holds the two to the same values, types and order (``tests/test_report_equivalence.py``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from ..api import REVIEW_COLUMNS, evidence_text
from ..model import Finding, Ruling
from ..tables import CorpusDigests, RunTables, record_line_digest
from ..vocabulary import SEVERITY_RANKS
from . import computed_before_fork, rulings_by_id, shared
from .kept_rows import row_digest_from

COLUMNS = REVIEW_COLUMNS
_evidence_json = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode
"""The evidence column's JSON (one encoder for every row: ``json.dumps`` with options builds
one per call)."""


def finding_rows(run: RunTables, lang: str | None = None) -> Iterator[dict[str, object]]:
    """One dict per finding (of one ``lang`` column value, when given), most severe first,
    every cell a string or an int (or empty). Built as they are read, not kept: the
    spreadsheets write them one at a time, and on a million units the rows of every finding
    held 770 MB for the whole report."""
    by_id = rulings_by_id(run)
    for finding in findings_in_review_order(run):
        if lang is None or language_of(finding) == lang:
            yield row_of(finding, by_id)


def lang_counts(run: RunTables) -> Counter[str]:
    """How many rows each value of the ``lang`` column has."""
    return Counter(map(language_of, run.findings))


def language_of(finding: Finding) -> str:
    """A finding's cell of the ``lang`` column (empty for no language)."""
    return _text(finding.lang)


def findings_in_review_order(run: RunTables) -> list[Finding]:
    """The findings most severe first (shared by the writers of one report: do not change)."""
    return shared(run, _in_review_order)


@computed_before_fork
def _in_review_order(run: RunTables) -> list[Finding]:
    return sorted(run.findings, key=_review_order)


def finding_digests(run: RunTables) -> dict[int, bytes | None]:
    """Each finding's digest (by ``id``) of the finding and the texts of the ruling and the
    source it points at: what a row of it is made of (``kept_rows``). Shared by the writers
    of one report: do not change."""
    return shared(run, _finding_digests)


def suppressed_digests(run: RunTables) -> dict[int, bytes | None]:
    """``finding_digests`` of the findings the baseline suppressed."""
    return shared(run, _suppressed_digests)


def finding_alone_digests(run: RunTables) -> dict[int, bytes | None]:
    """Each finding's digest (by ``id``) of the finding alone: what a row that shows no
    text is made of (SARIF's, with its rule's index). Shared: do not change."""
    return shared(run, _finding_alone_digests)


def line_digest_of(run: RunTables) -> Callable[[Ruling | None], bytes | None]:
    """A ruling's line digest in corpus.jsonl, what a report row is made of instead of the
    ruling's texts (the run's digests, else each digested from its record as it is asked):
    ``b""`` for no ruling, None for a ruling no line can be written for (give it among
    ``row_digest_from``'s digests: its row is then always rendered)."""
    digests = shared(run, _corpus_digests)
    known = digests.line_digests()

    def line(ruling: Ruling | None) -> bytes | None:
        if ruling is None:
            return b""
        found = known(ruling.id)
        if found is not None:
            return found
        try:
            return digests.line_digest(ruling)
        except (TypeError, ValueError):  # UnicodeEncodeError included
            return None

    return line


@computed_before_fork
def _corpus_digests(run: RunTables) -> CorpusDigests:
    """The run's digests; for tables given without them, none (``line_digest`` then digests
    each ruling from its record as it is asked)."""
    return run.digests if run.digests is not None else CorpusDigests()


@computed_before_fork
def _finding_alone_digests(run: RunTables) -> dict[int, bytes | None]:
    return _alone(run, run.findings)


def _alone(run: RunTables, findings: list[Finding]) -> dict[int, bytes | None]:
    """Each finding's line digest in its table: the one the run took as the table was
    written or read, else one made from the record (the 216,355 findings of a million
    units were encoded again for it: 0.9 s)."""
    lines = run.finding_lines
    return {
        id(finding): lines.get(id(finding)) or record_line_digest(finding) for finding in findings
    }


@computed_before_fork
def _finding_digests(run: RunTables) -> dict[int, bytes | None]:
    return _digests(run, run.findings, finding_alone_digests(run))


@computed_before_fork
def _suppressed_digests(run: RunTables) -> dict[int, bytes | None]:
    return _digests(run, run.suppressed, _alone(run, run.suppressed))


def _digests(
    run: RunTables, findings: list[Finding], alone: dict[int, bytes | None]
) -> dict[int, bytes | None]:
    """Each finding's digest with the rulings it points at, made from its digest alone and
    theirs (nothing is encoded again for it)."""
    get = rulings_by_id(run).get
    line = line_digest_of(run)
    digests = {}
    for finding in findings:
        digests[id(finding)] = row_digest_from(
            [alone[id(finding)], line(get(finding.ruling_id)), line(get(finding.source_id))]
        )
    return digests


def _mqm_text(mqm: object) -> str:
    """ "Accuracy/major" of a finding's MQM dimension and severity."""
    return f"{mqm['category']}/{mqm['severity']}" if isinstance(mqm, dict) else ""


def row_of(finding: Finding, by_id: dict[str, Ruling]) -> dict[str, object]:
    """A finding's row: each column's cell."""
    evidence = finding.evidence
    ruling_id, source_id = finding.ruling_id, finding.source_id
    same = ruling_id is not None and source_id is not None and source_id == ruling_id
    return {
        "severity": str(finding.severity),
        "confidence": "" if finding.confidence is None else float(finding.confidence),
        "its_type": _text(finding.its_type),
        "mqm": _mqm_text(finding.mqm),
        "code": _text(finding.code),
        "category": str(finding.category),
        "lang": _text(finding.lang),
        "file": _text(finding.file),
        "line": "" if finding.line is None else int(finding.line),
        "card": _text(finding.card),
        "section": _text(finding.section),
        "message": _text(finding.message),
        "source_text": "" if same or source_id is None else _text_of(by_id, source_id),
        "translation": "" if ruling_id is None else _text_of(by_id, ruling_id),
        "expected": _text(evidence_text(evidence.get("expected"))),
        "found": _text(evidence_text(evidence.get("found"))),
        "ruling_id": _text(ruling_id),
        "source_id": _text(source_id),
        "evidence": _evidence_json(evidence),
        "fingerprint": _text(finding.fingerprint),
    }


def _text_of(by_id: dict[str, Ruling], ruling_id: str) -> str:
    """The text of a ruling, empty when it is not in the corpus."""
    ruling = by_id.get(ruling_id)
    return "" if ruling is None else _text(ruling.text)


def _text(value: Any) -> str:
    """A cell of a text column: missing is empty, anything else its string."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _review_order(finding: Finding) -> tuple:
    """Most severe first, the surest first within a severity (a finding of a run made before
    findings had a confidence counts as sure), then by file, line, code and fingerprint, a
    missing value before any other (the API's stable ``sort_values(...,
    na_position="first")``)."""
    return (
        SEVERITY_RANKS[finding.severity],
        -(1.0 if finding.confidence is None else finding.confidence),
        _missing_first(finding.file),
        _missing_first(finding.line),
        _missing_first(finding.code),
        _missing_first(finding.fingerprint),
    )


def _missing_first(value: object) -> tuple:
    return (0,) if value is None else (1, value)
