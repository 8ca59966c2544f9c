"""The Python API: a run's tables as pandas DataFrames.

    >>> from pipelines import load
    >>> run = load("reports")
    >>> run.findings.groupby(["card", "category"]).size()

``load(OUT)`` reads the stage files of an output folder and returns a ``Tables`` with four
DataFrames with typed columns:

- ``corpus``: one row per ruling (``corpus.jsonl``), indexed by ``id``;
- ``alignment``: one row per aligned unit (``alignment.jsonl``);
- ``findings``: one row per finding (``findings.jsonl``), ``severity`` an ordered
  categorical (error < warning < info) and ``category`` a categorical in the contract's order;
- ``review``: the findings joined with the texts a reviewer reads: ``translation`` (the
  text of the finding's unit), ``source_text`` (its English source), ``expected`` and
  ``found`` from the evidence, most severe first.

Text columns are pandas ``string``, line numbers nullable ``Int64``, scores ``Float64``;
lists and objects (spans, evidence, marks) stay Python values. Equal ones may be one object
shared by several rows (``model.SHARED_PARTS``: the memory of a large run), so copy a value
before changing it.

pandas is imported when a DataFrame is made, not with the module: the report writers share
the review table's columns (``REVIEW_COLUMNS``) and the command line does not use pandas.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import tables
from .model import CATEGORIES, Alignment, Finding, Ruling, column_names
from .vocabulary import SEVERITY_ORDER

if TYPE_CHECKING:
    import pandas as pd

INTEGER_COLUMNS = {"line", "end_line", "position"}
FLOAT_COLUMNS = {"score", "similarity", "confidence"}
REVIEW_COLUMNS = [
    "severity",
    "confidence",
    "its_type",
    "mqm",
    "code",
    "category",
    "lang",
    "file",
    "line",
    "card",
    "section",
    "message",
    "source_text",
    "translation",
    "expected",
    "found",
    "ruling_id",
    "source_id",
    "evidence",
    "fingerprint",
]


@dataclass
class Tables:
    corpus: pd.DataFrame
    alignment: pd.DataFrame
    findings: pd.DataFrame
    review: pd.DataFrame


def load(out: str | Path) -> Tables:
    """The tables of the run in output folder ``out`` as DataFrames."""
    return frames(tables.RunTables.load(Path(out)))


def frames(run: tables.RunTables) -> Tables:
    """DataFrames of a run's records (what ``load`` returns, from tables in memory)."""
    corpus = records_frame(run.rulings, Ruling).set_index("id", drop=False)
    findings = records_frame(run.findings, Finding)
    return Tables(
        corpus=corpus,
        alignment=records_frame(run.alignment, Alignment),
        findings=findings,
        review=review_frame(findings, corpus),
    )


def records_frame(records: list[Any], record_type: type) -> pd.DataFrame:
    """A DataFrame of records, one column per field, typed by what the field holds."""
    import pandas as pd

    names = list(column_names(record_type))
    frame = pd.DataFrame(
        [[getattr(record, name) for name in names] for record in records], columns=names
    )
    kinds = {f.name: str(f.type) for f in fields(record_type)}
    for name in names:
        if name in INTEGER_COLUMNS:
            frame[name] = frame[name].astype("Int64")
        elif name in FLOAT_COLUMNS:
            frame[name] = frame[name].astype("Float64")
        elif kinds[name].startswith("str"):
            frame[name] = frame[name].astype("string")
    if "severity" in frame:
        frame["severity"] = pd.Categorical(
            frame["severity"], categories=[str(s) for s in SEVERITY_ORDER], ordered=True
        )
    if "category" in frame:
        frame["category"] = pd.Categorical(frame["category"], categories=list(CATEGORIES))
    return frame


def review_frame(findings: pd.DataFrame, corpus: pd.DataFrame) -> pd.DataFrame:
    """Each finding with its unit's text, its source's text, and what was expected and found
    (most severe first, the surest first within a severity, then by file and line)."""
    import pandas as pd

    texts = corpus["text"] if len(corpus) else pd.Series(dtype="string")
    review = findings.copy()
    review["translation"] = review["ruling_id"].map(texts).astype("string")
    source = review["source_id"].map(texts).astype("string")
    same = review["source_id"] == review["ruling_id"]
    review["source_text"] = source.mask(same.fillna(False).astype(bool), pd.NA)
    review["expected"] = (
        review["evidence"].map(lambda e: evidence_text(e.get("expected"))).astype("string")
    )
    review["found"] = (
        review["evidence"].map(lambda e: evidence_text(e.get("found"))).astype("string")
    )
    review["mqm"] = (
        review["mqm"]
        .map(lambda m: f"{m['category']}/{m['severity']}" if isinstance(m, dict) else pd.NA)
        .astype("string")
    )
    review["its_type"] = review["its_type"].astype("string")
    review["unsure"] = -review["confidence"].fillna(1.0).astype(float)
    review = review.sort_values(
        ["severity", "unsure", "file", "line", "code", "fingerprint"],
        na_position="first",
        kind="stable",
    )
    return review[REVIEW_COLUMNS].reset_index(drop=True)


def evidence_text(value: Any) -> str | None:
    """An evidence value (``expected``, ``found``) as the text a table shows."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return "; ".join(str(evidence_text(v)) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)
