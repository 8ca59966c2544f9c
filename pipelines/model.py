"""The records that flow between stages.

Files -> ``Ruling`` table -> ``Alignment`` table -> ``Finding`` list -> reports. The
contract fields come first, in the order of DESIGN.md; extension fields follow. Every record
holds only JSON values, so a stage file is one record per line.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from functools import cache
from operator import attrgetter
from typing import Any

from .vocabulary import Category, Role, Severity, Side

CATEGORIES = tuple(str(c) for c in Category)
SEVERITIES = tuple(str(s) for s in Severity)


@dataclass(slots=True)
class Ruling:
    """One ruling, rule, example, card-text line or glossary entry, in one language."""

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
    """ruling | rule | example | heading | contents | glossary | text | unit"""
    end_line: int | None = None
    carried: list[dict[str, Any]] = field(default_factory=list)
    """Input lines outside ``text`` that this ruling carries (its document title, section
    heading, date line, separator), each as ``{"line": n, "text": "..."}``."""
    term: str | None = None
    """Glossary headword, for glossary entries."""
    position: int = 0
    """Order of the ruling within its document, from 0."""
    doc_kind: str | None = None
    """source | translation | glossary | other (``vocabulary.DocKind``)."""
    doc_version: str | None = None
    """ISO date of the release or version the document is (a rules release's effective
    date, a ruling's date), or None."""
    context: str | None = None
    """What the input says about the unit besides its text (a CAT file's note or context)."""
    counterpart: str | None = None
    """For a translation unit of a bilingual file (XLIFF, TMX, PO): the id of the source
    unit the file pairs it with."""

    @property
    def carried_lines(self) -> list[int]:
        return [entry["line"] for entry in self.carried]


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
    """The current English version of the source, when the translation follows an older one
    (it matches the older version better): the translation is outdated."""
    release: str | None = None
    """What the current release of a rules document did to this unit's English (``Release``:
    reworded, removed, new), when the translation follows an older release."""
    better_source: str | None = None
    """Another source unit (of the same card, document or file) that the translation matches
    clearly better than its own: a swapped or misplaced translation."""
    better_similarity: float | None = None


@dataclass(frozen=True, slots=True)
class Mark:
    """Where in a text a finding points: a range of the translation or of the source."""

    side: Side
    start: int
    end: int
    role: Role

    def as_dict(self) -> dict[str, Any]:
        return {
            "side": str(self.side),
            "start": self.start,
            "end": self.end,
            "role": str(self.role),
        }

    @classmethod
    def target(cls, start: int, end: int, role: Role = Role.WRONG) -> Mark:
        return cls(Side.TARGET, start, end, role)

    @classmethod
    def source(cls, start: int, end: int, role: Role = Role.MISSING) -> Mark:
        return cls(Side.SOURCE, start, end, role)


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
    # Extensions of the contract.
    marks: list[dict[str, Any]] = field(default_factory=list)
    """Ranges of the translation (``side: target``) or the source the finding points at,
    each ``{"side", "start", "end", "role"}`` in code points (``Mark``)."""
    folded: list[dict[str, Any]] = field(default_factory=list)
    """Findings on the same unit that follow from this one (``code``, ``message``)."""
    confidence: float | None = None
    """How likely the finding is right, 0..1 (``check.confidence``): its code's judged
    precision, times the likelihood that the pair it is about is a true pair."""
    its_type: str | None = None
    """The W3C ITS 2.0 Localization Quality Issue type of the code (``catalogue.quality``)."""
    mqm: dict[str, str] | None = None
    """The MQM core dimension and severity of the code: ``{"category", "severity"}``."""

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


@dataclass(frozen=True, slots=True)
class CardName:
    """A card's name in one language, as the card data gives it (``cards.jsonl``)."""

    name: str
    lang: str
    card: str
    """The canonical English name."""
    source: str


REPEATED_COLUMNS: dict[type, frozenset[str]] = {
    Ruling: frozenset(
        {"id", "file", "format", "doc_title", "card", "section", "doc_lang", "lang", "date"}
        | {"date_raw", "doc", "kind", "doc_kind", "doc_version"}
    ),
    Alignment: frozenset(
        {"source_id", "target_id", "lang", "method", "group", "family", "superseded_by"}
        | {"release", "better_source"}
    ),
    Finding: frozenset(
        {"code", "category", "severity", "lang", "file", "ruling_id", "source_id", "card"}
        | {"section"}
    ),
    CardName: frozenset({"lang", "card", "source"}),
}
"""The columns whose values repeat from row to row (a document's file, title and card on
each of its units) or from table to table (a ruling's id in the alignment and the findings):
a table read keeps one copy of each such value, a third of the memory of a corpus of a
million units."""

SHARED_PARTS: dict[type, frozenset[str]] = {
    Ruling: frozenset({"spans", "carried"}),
    Finding: frozenset({"evidence"}),
}
"""The columns whose lists, dicts and strings are often equal from row to row (the versions
of a translation family, in the evidence of each of its findings; the empty spans of most
units): a table read keeps one object for equal ones, so they are to be read, not changed.
At a million units the findings took 1,266 MB read, most of it copies of the same
versions."""


@cache
def column_names(record_type: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(record_type))


def as_dict(record: Any) -> dict[str, Any]:
    """A record's fields in declaration order (records hold only JSON values, so a shallow
    dict is enough: ``dataclasses.asdict`` would deep-copy)."""
    return {name: getattr(record, name) for name in column_names(type(record))}


@cache
def field_getter(record_type: type) -> Callable[[Any], tuple]:
    """A function giving a record's field values in declaration order, as a tuple."""
    names = column_names(record_type)
    getter = attrgetter(*names)
    return getter if len(names) > 1 else lambda record: (getter(record),)


def as_values(record: Any) -> list[Any]:
    """A record's field values in declaration order: how the work cache keeps records (half
    the bytes of ``as_dict`` and faster to read back; the code version is in every key, so
    the order is always today's)."""
    return list(field_getter(type(record))(record))


_NUMBER = re.compile(r"(\d+)")


def id_order(ruling_id: str | None) -> tuple:
    """Natural sort key of a ruling id: file:12 before file:100.

    An id is mostly its file's name (``es/00006_fe6af5ad099f5014.txt:12``, a run of digits
    every few characters), the same for every ruling of the file: the key of what comes
    before the last run of digits is remembered (``_parts_order``), and the last number
    added to it. A million rows' keys took 13 s otherwise."""
    if ruling_id is None:
        return ((1,),)
    head = ruling_id.rstrip("0123456789")
    if len(head) == len(ruling_id) or (head and head[-1].isdecimal()):
        return _parts_order(ruling_id)  # no last number, or one with other decimal digits
    return (*_parts_order(head), (0, int(ruling_id[len(head) :])), (1, ""))


def shared_head_numbers(ruling_ids: Iterable[str | None]) -> list[int] | None:
    """Ids that differ only in their last number, as those numbers (-1 for None): in the
    order ``id_order`` puts them in, at a fraction of its cost; None when any two differ
    elsewhere, or one has no last number ``id_order`` reads as such."""
    numbers: list[int] = []
    head = None
    for ruling_id in ruling_ids:
        if ruling_id is None:
            numbers.append(-1)  # None's key, ((1,),), comes before every id's
            continue
        this = ruling_id.rstrip("0123456789")
        if len(this) == len(ruling_id) or (this and this[-1].isdecimal()):
            return None
        if head is None:
            head = this
        elif this != head:
            return None
        numbers.append(int(ruling_id[len(this) :]))
    return numbers


@functools.lru_cache(maxsize=4096)
def _parts_order(text: str) -> tuple:
    """The natural sort key of a text: its runs of digits as numbers, the rest as text."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _NUMBER.split(text))
