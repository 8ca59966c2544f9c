"""Write docs/checks.md from the finding catalogue: every code and what it means.

Usage (from the repository root): python tools/generate_checks_doc.py
tests/test_docs.py fails when the file is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipelines.catalogue import TABLE, explanation
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
        "codes marked *off* run only when `--select` names them.",
        "",
        "| code | category | severity | stage | summary |",
        "| --- | --- | --- | --- | --- |",
    ]
    rows = sorted(TABLE, key=lambda r: (CATEGORIES.index(r.category), r.code))
    for row in rows:
        state = "" if row.default else " (off)"
        lines.append(
            f"| [{row.code}](#{row.code.lower()}) | {row.category} | {row.severity}{state} "
            f"| {row.stage} | {row.summary} |"
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
