"""summary.json: the counts a CI job or a dashboard reads."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from operator import attrgetter
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
            "files": len(set(map(attrgetter("file"), corpus)) - {None}),
            "documents": len(documents),
            "rulings": len(corpus),
            "rulings_by_lang": _column_counts(corpus, "lang", "unknown"),
            "documents_by_lang": _column_counts(documents, "doc_lang", "unknown"),
            "documents_by_kind": _column_counts(documents, "doc_kind", "unknown"),
        },
        "alignment": {
            "rows": len(alignment),
            "by_method": _column_counts(alignment, "method"),
            "by_lang": _column_counts(alignment, "lang", "unknown"),
        },
        "findings": {
            "total": len(findings),
            "suppressed_by_baseline": len(run.suppressed),
            "by_severity": _column_counts(findings, "severity"),
            "by_category": _column_counts(findings, "category"),
            "by_code": _column_counts(findings, "code"),
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


def _column_counts(records: list[object], name: str, missing: str | None = None) -> dict[str, int]:
    """How often each value of a column occurs, a missing one counted as ``missing`` (not
    counted when None), sorted by value: the values are counted first, so a column of a
    million rows costs one pass in C (the counts of an AllPrintings file's 190,000 rulings
    took 0.2 s value by value)."""
    counts: Counter[str] = Counter()
    for value, count in Counter(map(attrgetter(name), records)).items():
        if value is not None or missing is not None:
            counts[missing if value is None else str(value)] += count
    return {key: count for key, count in sorted(counts.items())}


def _counts(values: Iterable[object]) -> dict[str, int]:
    """How often each value occurs (a missing one is not counted), sorted by value."""
    counts = Counter(
        value if isinstance(value, str) else str(value) for value in values if value is not None
    )
    return {key: count for key, count in sorted(counts.items())}
