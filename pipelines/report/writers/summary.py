"""summary.json: the counts a CI job or a dashboard reads."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ... import __version__
from ...api import frames
from ...tables import RunTables
from .. import writer


@writer("summary", filename="summary.json")
def write_summary(run: RunTables, out: Path) -> Path:
    """Counts of documents, rulings per language, alignment methods and findings by
    severity, category, code and language."""
    tables = frames(run)
    corpus, alignment, findings = tables.corpus, tables.alignment, tables.findings
    documents = corpus.drop_duplicates("doc")
    findings = findings.assign(
        lang=findings["lang"].fillna("none"),
        severity=findings["severity"].astype(str),
        category=findings["category"].astype(str),
    )
    summary = {
        "tool": {"name": "rulings", "version": __version__},
        "corpus": {
            "files": int(corpus["file"].nunique()),
            "documents": len(documents),
            "rulings": len(corpus),
            "rulings_by_lang": _counts(corpus["lang"].fillna("unknown")),
            "documents_by_lang": _counts(documents["doc_lang"].fillna("unknown")),
            "documents_by_kind": _counts(documents["doc_kind"].fillna("unknown")),
        },
        "alignment": {
            "rows": len(alignment),
            "by_method": _counts(alignment["method"]),
            "by_lang": _counts(alignment["lang"].fillna("unknown")),
        },
        "findings": {
            "total": len(findings),
            "suppressed_by_baseline": len(run.suppressed),
            "by_severity": _counts(findings["severity"]),
            "by_category": _counts(findings["category"]),
            "by_code": _counts(findings["code"]),
            "by_lang": _counts(findings["lang"]),
            "by_lang_and_category": {
                str(lang): _counts(group["category"])
                for lang, group in sorted(findings.groupby("lang"), key=lambda item: item[0])
            },
        },
    }
    path = out / "summary.json"
    path.write_text(
        json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return path


def _counts(values: pd.Series) -> dict[str, int]:
    return {str(key): int(count) for key, count in sorted(values.value_counts().items())}
