"""summary.json: the counts a CI job or a dashboard reads."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ... import __version__
from ...tables import RunTables
from .. import writer


@writer("summary", filename="summary.json")
def write_summary(run: RunTables, out: Path) -> Path:
    """Counts of documents, rulings per language, alignment methods and findings by
    severity, category, code and language."""
    findings = run.findings
    summary = {
        "tool": {"name": "rulings", "version": __version__},
        "corpus": {
            "files": len({r.file for r in run.rulings}),
            "documents": len({r.doc for r in run.rulings}),
            "rulings": len(run.rulings),
            "rulings_by_lang": _counts(r.lang or "unknown" for r in run.rulings),
            "documents_by_lang": _counts(
                lang or "unknown" for _, lang in {(r.doc, r.doc_lang) for r in run.rulings}
            ),
        },
        "alignment": {
            "rows": len(run.alignment),
            "by_method": _counts(a.method for a in run.alignment),
            "by_lang": _counts(a.lang or "unknown" for a in run.alignment),
        },
        "findings": {
            "total": len(findings),
            "suppressed_by_baseline": len(run.suppressed),
            "by_severity": _counts(f.severity for f in findings),
            "by_category": _counts(f.category for f in findings),
            "by_code": _counts(f.code for f in findings),
            "by_lang": _counts(f.lang or "none" for f in findings),
            "by_lang_and_category": {
                lang: _counts(f.category for f in findings if (f.lang or "none") == lang)
                for lang in sorted({f.lang or "none" for f in findings})
            },
        },
    }
    path = out / "summary.json"
    path.write_text(
        json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return path


def _counts(values) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))
