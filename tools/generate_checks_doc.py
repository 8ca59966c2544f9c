"""Write docs/checks.md from the finding catalogue: every code and what it means.

Usage (from the repository root): python tools/generate_checks_doc.py
tests/test_docs.py fails when the file is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipelines.catalogue import TABLE, explanation, quality
from pipelines.check.registry import CHECKS
from pipelines.model import CATEGORIES

TARGET = Path(__file__).resolve().parents[1] / "docs" / "checks.md"


def render() -> str:
    lines = [
        "# Checks",
        "",
        "Every finding code `rulings` can report, generated from the catalogue "
        "(`pipelines/catalogue.py`) and the checks' docstrings by "
        "`tools/generate_checks_doc.py` (`rulings rules` prints the same). Select or ignore "
        "them with `--select` / `--ignore` (codes, code prefixes or categories, any case); "
        "codes marked *off* run only when `--select` names them. Each code's W3C ITS 2.0 "
        "Localization Quality Issue type and MQM dimension and severity are data "
        "(`pipelines/resources/its_mqm.tsv`), carried by every finding (`its_type`, `mqm`).",
        "",
        "| code | category | severity | stage | ITS 2.0 type | MQM | summary |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    rows = sorted(TABLE, key=lambda r: (CATEGORIES.index(r.category), r.code))
    for row in rows:
        state = "" if row.default else " (off)"
        its_type, mqm = quality(row.code, str(row.category))
        lines.append(
            f"| [{row.code}](#{row.code.lower()}) | {row.category} | {row.severity}{state} "
            f"| {row.stage} | {its_type} | {mqm['category']}, {mqm['severity']} | {row.summary} |"
        )
    for category in CATEGORIES:
        members = [row for row in rows if row.category == category]
        if not members:
            continue
        lines += ["", f"## {category}"]
        for row in members:
            function = CHECKS[row.code].target if row.code in CHECKS else None
            state = ", off by default" if not row.default else ""
            lines += [
                "",
                f"### {row.code}",
                "",
                f"*{row.severity}, {row.stage} stage{state}.* {explanation(row.code, function)}",
            ]
            if row.note:
                lines += ["", f"*Measured:* {row.note}"]
            if row.covers:
                lines += ["", f"*Folds:* {', '.join(row.covers)} on the same unit."]
    return "\n".join(lines) + "\n"


def main() -> int:
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
