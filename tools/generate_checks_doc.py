"""Write docs/checks.md from the rule catalogue: every finding code and what it means.

Usage (from the repository root): python tools/generate_checks_doc.py
tests/test_docs.py fails when the file is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipelines.model import CATEGORIES
from pipelines.rules import all_rules

TARGET = Path(__file__).resolve().parents[1] / "docs" / "checks.md"


def render() -> str:
    rules = all_rules()
    lines = [
        "# Checks",
        "",
        "Every finding code `rulings` can report, generated from the code by "
        "`tools/generate_checks_doc.py` (`rulings rules` prints the same catalogue). "
        "Select or ignore them with `--select` / `--ignore` (codes, code prefixes or "
        "categories).",
        "",
        "| code | category | severity | stage | summary |",
        "| --- | --- | --- | --- | --- |",
    ]
    for rule in sorted(rules, key=lambda r: (CATEGORIES.index(r.category), r.code)):
        lines.append(
            f"| [{rule.code}](#{rule.code.lower()}) | {rule.category} | {rule.severity} "
            f"| {rule.stage} | {rule.summary} |"
        )
    for category in CATEGORIES:
        members = sorted((r for r in rules if r.category == category), key=lambda r: r.code)
        if not members:
            continue
        lines += ["", f"## {category}"]
        for rule in members:
            lines += [
                "",
                f"### {rule.code}",
                "",
                f"*{rule.severity}, {rule.stage} stage.* {rule.explanation}",
            ]
    return "\n".join(lines) + "\n"


def main() -> int:
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
