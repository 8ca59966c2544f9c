"""The generated documentation is up to date with the code."""

from __future__ import annotations

import sys
from pathlib import Path

from pipelines.rules import all_rules

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from generate_checks_doc import TARGET, render  # noqa: E402


def test_checks_doc_is_current():
    assert TARGET.read_text(encoding="utf-8") == render(), (
        "docs/checks.md is out of date: run python tools/generate_checks_doc.py"
    )


def test_every_code_has_a_category_severity_and_explanation():
    for rule in all_rules():
        assert rule.explanation and len(rule.explanation.split()) >= 8, rule.code
        assert rule.code[:-3].isalpha() and rule.code[-3:].isdigit(), rule.code
