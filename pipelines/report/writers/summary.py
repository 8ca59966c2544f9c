"""summary.json: the counts a CI job or a dashboard reads."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ... import __version__
from ...model import Ruling
from ...tables import RunTables
from .. import writer


@writer(
    "summary", filename="summary.json", reads=("rulings", "alignment", "findings", "suppressed")
)
def write_summary(run: RunTables, out: Path) -> Path:
    """Counts of documents, rulings per language, alignment methods and findings by
    severity, category, code and language."""
    corpus, alignment, findings = run.rulings, run.alignment, run.findings
    firsts: dict[str, Ruling] = {}
    for ruling in corpus:
        firsts.setdefault(ruling.doc, ruling)
    documents = list(firsts.values())
    finding_langs = [_or(f.lang, "none") for f in findings]
    by_lang_and_category: dict[str, list[str]] = {}
    for lang, finding in zip(finding_langs, findings, strict=True):
        by_lang_and_category.setdefault(lang, []).append(str(finding.category))
    summary = {
        "tool": {"name": "rulings", "version": __version__},
        "corpus": {
            "files": len({r.file for r in corpus if r.file is not None}),
            "documents": len(documents),
            "rulings": len(corpus),
            "rulings_by_lang": _counts(_or(r.lang, "unknown") for r in corpus),
            "documents_by_lang": _counts(_or(d.doc_lang, "unknown") for d in documents),
            "documents_by_kind": _counts(_or(d.doc_kind, "unknown") for d in documents),
        },
        "alignment": {
            "rows": len(alignment),
            "by_method": _counts(row.method for row in alignment),
            "by_lang": _counts(_or(row.lang, "unknown") for row in alignment),
        },
        "findings": {
            "total": len(findings),
            "suppressed_by_baseline": len(run.suppressed),
            "by_severity": _counts(str(f.severity) for f in findings),
            "by_category": _counts(str(f.category) for f in findings),
            "by_code": _counts(f.code for f in findings),
            "by_lang": _counts(finding_langs),
            "by_lang_and_category": {
                str(lang): _counts(categories)
                for lang, categories in sorted(by_lang_and_category.items())
            },
        },
    }
    path = out / "summary.json"
    path.write_text(
        json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return path


def _or(value: object, missing: str) -> str:
    """A text column's value, ``missing`` for none (what ``fillna`` gave)."""
    if value is None:
        return missing
    return value if isinstance(value, str) else str(value)


def _counts(values: Iterable[object]) -> dict[str, int]:
    """How often each value occurs (a missing one is not counted), sorted by value."""
    counts = Counter(
        value if isinstance(value, str) else str(value) for value in values if value is not None
    )
    return {key: count for key, count in sorted(counts.items())}
