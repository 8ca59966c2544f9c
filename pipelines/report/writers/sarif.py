"""findings.sarif: SARIF 2.1.0, so CI code scanning shows findings on the file and line."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from ... import __version__, fastjson
from ...catalogue import CHECK, TABLE, Code, describe
from ...model import Finding
from ...tables import RunTables
from ...vocabulary import Category, Severity
from .. import writer
from ..kept_rows import row_digest_from, rows_file
from ..rows import finding_alone_digests

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RESULTS = '"results":[]'
"""The results list in the encoded document (a key in a JSON string would be escaped)."""


@writer("sarif", filename="findings.sarif", cost=3, reads=("findings", "suppressed"))
def write_sarif(run: RunTables, out: Path) -> Path:
    """Every finding as a SARIF result: the rule (finding code) with its category and
    explanation, the file relative to the INPUT folder and the line, and the finding's
    fingerprint as a partial fingerprint so that code-scanning tools track it. The team's
    checklist rules are rules of their own codes."""
    rules = [*TABLE, *run.codes]
    known = {row.code for row in rules}
    for finding in (*run.findings, *run.suppressed):
        if finding.code not in known:  # a team rule of a checklist this report was not given
            known.add(finding.code)
            rules.append(
                Code(
                    finding.code,
                    Category(finding.category),
                    Severity(finding.severity),
                    CHECK,
                    "A rule of the team's checklist.",
                )
            )
    rules.sort(key=lambda row: row.code)
    index = {rule.code: number for number, rule in enumerate(rules)}
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "rulings",
                        "version": __version__,
                        "rules": [
                            {
                                "id": rule.code,
                                "name": rule.code,
                                "shortDescription": {"text": rule.summary},
                                "fullDescription": {"text": describe(rule, run.explanations)},
                                "defaultConfiguration": {
                                    "level": LEVELS[rule.severity],
                                    "enabled": rule.default,
                                },
                                "properties": {
                                    "category": str(rule.category),
                                    "stage": rule.stage,
                                },
                            }
                            for rule in rules
                        ],
                    }
                },
                "originalUriBaseIds": {
                    "INPUT": {"description": {"text": "The INPUT folder the files were read from."}}
                },
                "columnKind": "unicodeCodePoints",
                "results": [],
            }
        ],
    }
    path = out / "findings.sarif"
    head, empty, tail = fastjson.text(document).partition(RESULTS)
    if not empty:
        raise ValueError("the SARIF document has no results list to fill")
    uris: dict[str, str] = {}

    def render(findings: list[Finding]) -> list[bytes]:
        return [fastjson.dumps(_result(finding, index, uris)) for finding in findings]

    # the results one by one: a large run's whole document would not fit in memory
    digests = finding_alone_digests(run)
    with rows_file(path, "sarif", run.previous) as rows:
        rows.piece((head + RESULTS[:-1]).encode())
        rows.rows(
            run.findings,
            [row_digest_from([digests[id(f)]], index[f.code]) for f in run.findings],
            render,
            separator=b",",
        )
        rows.piece(("]" + tail + "\n").encode())
    return path


def _result(finding: Finding, index: dict[str, int], uris: dict[str, str]) -> dict:
    """A finding's SARIF result (``uris``: the quoted paths so far, by path)."""
    location: dict = {}
    if finding.file:
        path = finding.file.partition("#")[0]
        if path not in uris:
            uris[path] = quote(path)
        physical: dict = {"artifactLocation": {"uri": uris[path], "uriBaseId": "INPUT"}}
        if finding.line is not None:
            physical["region"] = {"startLine": finding.line}
        location["physicalLocation"] = physical
    if finding.ruling_id and "#" in finding.ruling_id:
        location["logicalLocations"] = [
            {"fullyQualifiedName": finding.ruling_id, "kind": "element"}
        ]
    result = {
        "ruleId": finding.code,
        "ruleIndex": index[finding.code],
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "partialFingerprints": {"rulings/v1": finding.fingerprint},
        "properties": {
            "category": finding.category,
            "confidence": finding.confidence,
            "itsType": finding.its_type,
            "mqm": finding.mqm,
            "lang": finding.lang,
            "card": finding.card,
            "section": finding.section,
            "rulingId": finding.ruling_id,
            "sourceId": finding.source_id,
            "evidence": finding.evidence,
        },
    }
    if finding.confidence is not None:
        result["rank"] = round(100 * finding.confidence, 1)  # SARIF's 0-100 priority
    if location:
        result["locations"] = [location]
    return result
