"""Newer versions of English rulings: a reworded ruling with a later date replaces the old one.

An old version is not missing from a translation that has the new one, and a translation
that matches the old version better than the new one is outdated.
"""

from __future__ import annotations

import difflib
import re
from functools import cached_property

import numpy as np

from ..model import Alignment, Ruling
from ..text import template_text
from ..vocabulary import Method
from .context import AlignContext

NEWER_VERSION_SIMILARITY = 0.65
NEWER_VERSION_WORDS = 0.30
"""A later English ruling of the same card (or shared by it) is a newer version of an older
one when it is this similar in meaning and shares this share of its words in order: the
2024 suspend ruling rewords the 2021 one (0.70 and 0.36); two different rulings about
mana costs are close in meaning (0.81) but share few words (0.24)."""
WORD = re.compile(r"\w+")


class Versions:
    def __init__(
        self, ctx: AlignContext, english: list[Ruling], templates: dict[str, str] | None = None
    ) -> None:
        self.ctx = ctx
        self.english = [r for r in english if r.date]
        self._found: dict[str, str | None] = {}
        self._among: dict[tuple[str, ...], str | None] = {}
        self._by_card: dict[str | None, list[int]] = {}
        self._by_id: dict[str, int] = {}
        self._templates: dict[str, str] = {}
        self._words: dict[str, list[str]] = {}
        self._shared: dict[tuple[str, str], bool] = {}
        for index, item in enumerate(self.english):
            self._by_card.setdefault(item.card, []).append(index)
            self._by_id[item.id] = index
            self._templates[item.id] = (
                templates[item.id] if templates is not None else template_text(item)
            )

    @cached_property
    def _rows(self) -> np.ndarray:
        """Each English ruling's row of ``ctx.vectors`` (gathered per search, not copied
        whole: a copy is one vector per ruling)."""
        return np.array([self.ctx.vector_row[r.id] for r in self.english], dtype=np.int64)

    def newer(self, source: Ruling) -> str | None:
        """The id of a later version of an English ruling among its card's rulings, or None."""
        if source.id not in self._found:
            self._found[source.id] = self._search(source, self._by_card.get(source.card, []))
        return self._found[source.id]

    def know(self, found: dict[str, str | None]) -> None:
        """Take ``newer``'s answers found before (by an earlier run with the same English)."""
        self._found.update(found)

    def found(self) -> dict[str, str | None]:
        """``newer``'s answers so far, by ruling id."""
        return dict(self._found)

    def newer_among(self, source: Ruling, candidates: list[Ruling]) -> str | None:
        """A later version of the ruling among the given English rulings (any card)."""
        key = (source.id, *(r.id for r in candidates))
        if key not in self._among:
            indices = sorted({self._by_id[r.id] for r in candidates if r.id in self._by_id})
            self._among[key] = self._search(source, indices)
        return self._among[key]

    def template(self, ruling: Ruling) -> str:
        """``template_text`` of a ruling, computed once per ruling."""
        found = self._templates.get(ruling.id)
        if found is None:
            found = self._templates[ruling.id] = template_text(ruling)
        return found

    def _words_of(self, ruling: Ruling) -> list[str]:
        text = self.template(ruling)
        found = self._words.get(text)
        if found is None:
            found = self._words[text] = WORD.findall(text)
        return found

    def _search(self, source: Ruling, indices: list[int]) -> str | None:
        if not source.date or not indices:
            return None
        vectors = self.ctx.vectors
        similarity = vectors[self._rows[indices]] @ vectors[self.ctx.vector_row[source.id]]
        text = self.template(source)
        found = sorted(
            (
                (float(similarity[k]), self.english[i].id, i)
                for k, i in enumerate(indices)
                if self.english[i].date > source.date
                and similarity[k] >= NEWER_VERSION_SIMILARITY
                and self.template(self.english[i]) != text
            ),
            reverse=True,
        )
        for _, found_id, i in found:
            if self._shares_words(source, self.english[i]):
                return found_id
        return None

    def _shares_words(self, old: Ruling, new: Ruling) -> bool:
        """Whether two rulings share enough words in order (once per pair of texts: the
        same rulings repeat on many cards)."""
        key = (self.template(old), self.template(new))
        found = self._shared.get(key)
        if found is None:
            found = self._shared[key] = shares_words(
                self._words_of(old), self._words_of(new), NEWER_VERSION_WORDS
            )
        return found


def shared_words(left: str, right: str) -> float:
    """The share of words two texts have in common, in order (0..1)."""
    return difflib.SequenceMatcher(
        a=WORD.findall(left), b=WORD.findall(right), autojunk=False
    ).ratio()


def shares_words(left: list[str], right: list[str], minimum: float) -> bool:
    """Whether ``shared_words`` of the texts of these words is at least ``minimum`` (a
    text far shorter than the other cannot share enough: no matching needed)."""
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    return matcher.real_quick_ratio() >= minimum and matcher.ratio() >= minimum


def outdated_not_missing(rows: list[Alignment]) -> list[Alignment]:
    """Without the rows that call a current English version missing from a translation
    that has an older version of it: that translation is outdated (OUT001), which says
    more than a missing and an extra translation would."""
    outdated = {(row.lang, row.superseded_by) for row in rows if row.superseded_by}
    return [
        row
        for row in rows
        if not (row.method == Method.NO_TRANSLATION and (row.lang, row.source_id) in outdated)
    ]
