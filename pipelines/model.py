"""The records that flow between stages, and their table schemas.

Files -> ``Ruling`` table -> ``Alignment`` table -> ``Finding`` list -> reports.
The contract fields come first, in the order of DESIGN.md; extension fields follow.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, fields
from functools import cache
from typing import Any

import pandas as pd

CATEGORIES = (
    "terminology",
    "untranslated",
    "mixed-language",
    "placeholder",
    "number",
    "card-name",
    "truncation",
    "date",
    "missing-translation",
    "extra-translation",
    "inconsistent-translation",
    "meaning",
    "outdated",
    "style",
    "parse",
)
SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


@dataclass(slots=True)
class Span:
    """A run of one language inside a ruling's text, as character offsets."""

    lang: str
    start: int
    end: int


@dataclass(slots=True)
class Ruling:
    """One ruling, rule, example or glossary entry, in one language."""

    id: str
    file: str
    line: int | None
    format: str
    doc_title: str | None
    card: str | None
    section: str | None
    doc_lang: str | None
    lang: str | None
    spans: list[dict[str, Any]]
    date: str | None
    date_raw: str | None
    text: str
    # Extensions of the contract.
    doc: str = ""
    """Identity of the document the ruling belongs to (a file, a part of a file, a JSON card)."""
    kind: str = "ruling"
    """ruling | rule | example | heading | glossary | text"""
    end_line: int | None = None
    carried_lines: list[int] = field(default_factory=list)
    """Input lines outside ``text`` that this ruling carries: title, section heading, date line."""
    term: str | None = None
    """Glossary headword, for glossary entries."""
    position: int = 0
    """Order of the ruling within its document, from 0."""


@dataclass(slots=True)
class Alignment:
    """One aligned unit: a source and its translation, or one side alone."""

    source_id: str | None
    target_id: str | None
    lang: str | None
    score: float
    method: str
    # Extensions of the contract.
    similarity: float | None = None
    """Raw cross-lingual cosine similarity of the two texts, when both exist."""
    group: str | None = None
    """The card or rules document the pair was aligned within."""
    family: str | None = None
    """The ruling this translation belongs to across documents and languages: the id of an
    English ruling with that text, or of the first translation when none is in the input."""
    superseded_by: str | None = None
    """A newer, reworded English version of the source that the translation does not follow
    (it matches the older version better): the translation is outdated."""


@dataclass(slots=True)
class Finding:
    """One problem a translator or reviewer should act on."""

    code: str
    category: str
    severity: str
    lang: str | None
    file: str | None
    line: int | None
    ruling_id: str | None
    source_id: str | None
    card: str | None
    section: str | None
    message: str
    evidence: dict[str, Any]
    fingerprint: str = ""

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown finding category {self.category!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        if not self.fingerprint:
            self.fingerprint = fingerprint(self)


def fingerprint(finding: Finding, anchor: str = "") -> str:
    """A hash that survives unrelated edits: no line numbers, only what the finding is about.

    It combines the code, the file, the ruling's card/section, the evidence and an anchor
    (normally the text of the ruling it is about), so moving a ruling within its file, or
    editing another ruling, keeps the fingerprint; editing the ruling itself renews it.
    """
    key = "\x1f".join(
        str(part)
        for part in (
            finding.code,
            finding.lang,
            finding.file,
            finding.card,
            finding.section,
            " ".join(anchor.split()),
            _stable_repr(finding.evidence),
        )
    )
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def _stable_repr(value: Any) -> str:
    if isinstance(value, dict):
        items = sorted((k, _stable_repr(v)) for k, v in value.items() if not k.startswith("_"))
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_stable_repr(v) for v in value) + "]"
    return repr(value)


@cache
def column_names(record_type: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(record_type))


RULING_COLUMNS = column_names(Ruling)
ALIGNMENT_COLUMNS = column_names(Alignment)
FINDING_COLUMNS = column_names(Finding)


def records_to_frame(records: list[Any], record_type: type) -> pd.DataFrame:
    columns = list(column_names(record_type))
    frame = pd.DataFrame([asdict(r) for r in records], columns=columns)
    return frame.astype(object).where(frame.notna(), None) if len(frame) else frame


def frame_to_records(frame: pd.DataFrame, record_type: type) -> list[Any]:
    names = list(column_names(record_type))
    rows = frame[names].astype(object).where(frame[names].notna(), None)
    return [record_type(**dict(zip(names, row, strict=True))) for row in rows.itertuples(False)]
