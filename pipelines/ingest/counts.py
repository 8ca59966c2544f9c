"""The rulings counted by language as the run's summary shows them (``console.ingest_summary``),
a unit at a time: each unit's counts are kept with its passed reading (``passes.PassedFile``)
and a run adds them up, instead of going through every ruling again (a document is one
unit's)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import Ruling

Counts = list[tuple[str | None, int]]
"""A count per language (None: not told), in the languages' order."""


@dataclass
class LanguageCounts:
    documents: Counts = field(default_factory=list)
    """Documents by their language."""
    rulings: Counts = field(default_factory=list)
    """Rulings by their own language."""
    mixed: Counts = field(default_factory=list)
    """Rulings with a passage in another language, by their own language."""

    @classmethod
    def of(cls, rulings: Iterable[Ruling]) -> LanguageCounts:
        documents: dict[str, str | None] = {}
        by_lang: Counter[str | None] = Counter()
        mixed: Counter[str | None] = Counter()
        for ruling in rulings:
            documents.setdefault(ruling.doc, ruling.doc_lang)
            by_lang[ruling.lang] += 1
            if ruling.spans:
                mixed[ruling.lang] += 1
        return cls(_ordered(Counter(documents.values())), _ordered(by_lang), _ordered(mixed))

    @classmethod
    def added(cls, parts: Iterable[LanguageCounts]) -> LanguageCounts:
        documents: Counter[str | None] = Counter()
        by_lang: Counter[str | None] = Counter()
        mixed: Counter[str | None] = Counter()
        for part in parts:
            documents.update(dict(part.documents))
            by_lang.update(dict(part.rulings))
            mixed.update(dict(part.mixed))
        return cls(_ordered(documents), _ordered(by_lang), _ordered(mixed))


def _ordered(counts: Counter[str | None]) -> Counts:
    return sorted(counts.items(), key=lambda item: (item[0] is None, item[0] or ""))
