"""What a project file says about findings once they are found: codes not reported on some
paths (``per-path-ignores``), and the severity a code is reported with (``severity``)."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pathspec

from ..model import Finding


@cache
def _spec(pattern: str) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines([pattern])


def _matches(code: str, category: str, pattern: str) -> bool:
    return code.startswith(pattern) or category == pattern


def path_ignored(
    findings: list[Finding], path_ignores: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[Finding]:
    """The findings but those whose file matches a pattern that ignores their code."""
    if not path_ignores:
        return findings
    kept = []
    for finding in findings:
        file = (finding.file or "").replace("\\", "/")
        if file and any(
            any(_matches(finding.code, finding.category, c) for c in codes)
            and _spec(pattern).match_file(file)
            for pattern, codes in path_ignores
        ):
            continue
        kept.append(finding)
    return kept


def severity_for(code: str, category: str, severities: dict[str, str]) -> str | None:
    """The overriding severity of a code: its own entry, else its longest prefix's, else
    its category's."""
    if code in severities:
        return severities[code]
    prefixes = [p for p in severities if code.startswith(p) and p.isupper()]
    if prefixes:
        return severities[max(prefixes, key=len)]
    return severities.get(category)


def with_severities(
    findings: list[Finding], severities: tuple[tuple[str, str], ...]
) -> list[Finding]:
    """The findings, each with the severity the project file gives its code (if any). The
    fingerprint does not depend on the severity: a baseline still matches."""
    if not severities:
        return findings
    table = dict(severities)
    changed = []
    for finding in findings:
        severity = severity_for(finding.code, finding.category, table)
        if severity and severity != finding.severity:
            finding = replace(finding, severity=severity)
        changed.append(finding)
    return changed
