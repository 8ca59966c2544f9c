"""The catalogue of finding codes: every code any stage can emit, with its metadata.

Checks register here through ``pipelines.check.registry.check``; the ingest stage registers
its parse and identity problems through ``define``. ``rulings rules`` prints this catalogue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .model import CATEGORIES, SEVERITIES, Finding, fingerprint


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    category: str
    severity: str
    stage: str
    """ingest | align | check: which stage emits it."""
    explanation: str
    function: Callable[..., Any] | None = None

    @property
    def summary(self) -> str:
        return self.explanation.split(". ")[0].rstrip(".") + "."


RULES: dict[str, Rule] = {}


def define(
    code: str,
    category: str,
    severity: str,
    explanation: str,
    stage: str = "ingest",
    function: Callable[..., Any] | None = None,
) -> Rule:
    if category not in CATEGORIES:
        raise ValueError(f"{code}: unknown category {category!r}")
    if severity not in SEVERITIES:
        raise ValueError(f"{code}: unknown severity {severity!r}")
    if code in RULES:
        raise ValueError(f"finding code {code} is defined twice")
    rule = Rule(code, category, severity, stage, " ".join(explanation.split()), function)
    RULES[code] = rule
    return rule


def emit(
    code: str,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    lang: str | None = None,
    ruling_id: str | None = None,
    source_id: str | None = None,
    card: str | None = None,
    section: str | None = None,
    evidence: dict[str, Any] | None = None,
    severity: str | None = None,
    anchor: str = "",
) -> Finding:
    """A finding of a catalogued code, with the code's category and default severity."""
    rule = RULES[code]
    finding = Finding(
        code=code,
        category=rule.category,
        severity=severity or rule.severity,
        lang=lang,
        file=file,
        line=line,
        ruling_id=ruling_id,
        source_id=source_id,
        card=card,
        section=section,
        message=message,
        evidence=evidence or {},
        fingerprint="-",
    )
    finding.fingerprint = fingerprint(finding, anchor)
    return finding


def all_rules() -> list[Rule]:
    """Every code, after importing the modules that define them."""
    from . import check, ingest  # noqa: F401  (their imports fill RULES)
    from .check.registry import CHECKS
    from .ingest.readers import READERS

    CHECKS.names()
    READERS.names()
    return sorted(RULES.values(), key=lambda r: r.code)
