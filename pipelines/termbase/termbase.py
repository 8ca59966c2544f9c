"""The termbase: game terms per concept and language, their status, and a fast term finder.

The shipped termbase is two TSV files in ``pipelines/resources``: ``termbase.tsv``
(curated core vocabulary, enforced) and ``termbase_cr_glossary.tsv`` (generated from the
Comprehensive Rules glossary by ``tools/import_cr_glossary.py``, reference only). Extra
files, TSV or TBX 2 (``<martif>``, told apart by content), add concepts or extend them; a
later file may re-classify a form of a concept or change a concept's ``enforce``.

The termbase is loaded once per run and handed to the stages that need it.
``find`` scans text for every known form. See ``Termbase.find`` for the matching rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from operator import attrgetter
from pathlib import Path

from lxml import etree
from translate.misc.xml_helpers import getXMLlang
from translate.storage import tbx

from ..resources import resource_path
from ..vocabulary import is_unspaced
from .matcher import Matcher, key_text
from .model import (
    STATUSES,
    FileTerms,
    Term,
    TermbaseError,
    TermHit,
    fold,
    form_key,
    languages_related,
    normalize_lang,
)
from .tbx import TBX_STATUS, read_tbx
from .tsv import read_tsv, write_tsv

SHIPPED_FILES = ("termbase.tsv", "termbase_cr_glossary.tsv")
HIT_ORDER = attrgetter("start", "end", "concept", "status")


def read_terms(path: Path) -> list[Term]:
    """The rows of one TSV or TBX termbase file (format found from its content)."""
    return read_file(Path(path)).terms


def read_file(path: Path) -> FileTerms:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise TermbaseError(f"{path}:1", f"cannot read the file ({error.strerror})") from None
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return read_tbx(path, data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise TermbaseError(f"{path}:{line}", "not UTF-8 text") from None
    return read_tsv(path, text)


def merge(files: Sequence[FileTerms]) -> list[Term]:
    """Later files extend concepts; a form listed again takes the later status and note."""
    merged: list[Term] = []
    enforce: dict[str, bool] = {}
    for file in files:
        relisted = {(t.concept, t.lang, form_key(f)) for t in file.terms for f in t.forms}
        kept = []
        for term in merged:
            forms = tuple(
                f for f in term.forms if (term.concept, term.lang, form_key(f)) not in relisted
            )
            if forms:
                kept.append(term if forms == term.forms else replace(term, forms=forms))
        merged = kept
        for term in file.terms:
            enforce.setdefault(term.concept, False)
        enforce.update(file.enforce)
        merged.extend(file.terms)
    return [
        term
        if term.enforce == enforce[term.concept]
        else replace(term, enforce=enforce[term.concept])
        for term in merged
    ]


class Termbase:
    """Concepts and their terms per language, with a compiled finder per language."""

    def __init__(self, terms: Iterable[Term], *, source_lang: str = "en") -> None:
        """Concepts without a row in the source language cannot be matched against a source
        and are left out (``left_out``); a termbase left with no concept at all is an error."""
        self.source_lang = normalize_lang(source_lang)
        by_concept: dict[str, list[Term]] = {}
        for term in terms:
            by_concept.setdefault(term.concept, []).append(term)
        self.left_out = tuple(
            concept
            for concept, rows in by_concept.items()
            if not any(term.lang == self.source_lang for term in rows)
        )
        if by_concept and len(self.left_out) == len(by_concept):
            first = by_concept[self.left_out[0]][0]
            raise TermbaseError(
                first.origin,
                f"concept {first.concept!r} has no {self.source_lang!r} row, "
                "and no other concept has one: nothing is left to check against",
            )
        for concept in self.left_out:
            del by_concept[concept]
        self._by_concept = by_concept
        self._terms = tuple(term for rows in by_concept.values() for term in rows)
        for concept, terms_of_concept in self._by_concept.items():
            first = terms_of_concept[0]
            for term in terms_of_concept:
                if term.enforce != first.enforce:
                    raise TermbaseError(
                        term.origin, f"rows of concept {concept!r} disagree on enforce"
                    )
        self._enforced = {concept: rows[0].enforce for concept, rows in by_concept.items()}
        self._matchers: dict[str, tuple[Matcher, ...]] = {}

    @classmethod
    def load(
        cls, extra: Sequence[Path] = (), *, shipped: bool = True, source_lang: str = "en"
    ) -> Termbase:
        """The shipped termbase (unless ``shipped`` is false) extended by ``extra`` files."""
        paths = [resource_path(name) for name in SHIPPED_FILES] if shipped else []
        paths.extend(Path(path) for path in extra)
        terms = merge([read_file(path) for path in paths])
        try:
            return cls(terms, source_lang=source_lang)
        except TermbaseError:
            if not shipped:
                raise
            languages = ", ".join(sorted({term.lang for term in terms}))
            raise TermbaseError(
                f"--source-lang {source_lang}",
                f"the termbase has no terms in this language (it has {languages}); "
                "add a termbase with --termbase",
            ) from None

    @property
    def concepts(self) -> tuple[str, ...]:
        return tuple(sorted(self._by_concept))

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted({term.lang for term in self._terms}))

    def __len__(self) -> int:
        """The number of concepts."""
        return len(self._by_concept)

    def __iter__(self) -> Iterator[Term]:
        return iter(self._terms)

    def __contains__(self, concept: object) -> bool:
        return concept in self._by_concept

    def terms(self, concept: str, lang: str | None = None, status: str | None = None) -> list[Term]:
        """Rows of a concept in file order, for a language (and related tags) and a status."""
        try:
            rows = self._by_concept[concept]
        except KeyError:
            raise KeyError(f"unknown concept {concept!r}") from None
        query = normalize_lang(lang) if lang else None
        return [
            term
            for term in rows
            if (query is None or languages_related(term.lang, query))
            and (status is None or term.status == status)
        ]

    def is_enforced(self, concept: str) -> bool:
        """Whether a translation of a source naming the concept must use one of its terms."""
        try:
            return self._enforced[concept]
        except KeyError:
            raise KeyError(f"unknown concept {concept!r}") from None

    def concept_label(self, concept: str, lang: str) -> str | None:
        """The canonical approved form (else admitted form) of a concept, or None."""
        for status in ("approved", "admitted"):
            rows = self.terms(concept, lang, status)
            if rows:
                return rows[0].canonical
        return None

    def find(self, text: str, lang: str) -> list[TermHit]:
        """Every term of ``lang`` in ``text``, sorted by position.

        Matching ignores case, apostrophe style (' or ’) and the width of white space. In
        languages written with spaces a form matches whole words only ("exile" is not found
        in "exiled": inflections are listed as forms); in Chinese, Japanese and the like it
        matches anywhere. Forms compete leftmost first, then longest, so "法术力" (mana)
        hides "法术" (forbidden for spell) and "time counter" hides "counter". Enforced
        concepts and reference-only concepts are matched separately, so a glossary phrase
        ("delayed triggered ability") never hides a core term inside it ("triggered
        ability"): hits of the two layers may overlap. A form listed under several concepts
        ("habilidad activada": approved for activated-ability, forbidden for
        triggered-ability) gives one hit per concept with the same span.
        """
        query = normalize_lang(lang)
        matchers = self._matchers.get(query)
        if matchers is None:
            matchers = self._matchers[query] = self._build_matchers(query)
        if not matchers:
            return []
        keyed, offsets = key_text(fold(text))
        hits: list[TermHit] = []
        matchers[0].scan(text, keyed, offsets, hits)
        if len(matchers) > 1:
            core = len(hits)
            matchers[1].scan(text, keyed, offsets, hits)
            if 0 < core < len(hits):
                hits.sort(key=HIT_ORDER)
        return hits

    def _build_matchers(self, query: str) -> tuple[Matcher, ...]:
        spaced = not is_unspaced(query)
        related = [term for term in self._terms if languages_related(term.lang, query)]
        related.sort(key=lambda term: term.lang != query)  # exact language first
        layers = (
            [term for term in related if term.enforce],
            [term for term in related if not term.enforce],
        )
        built = (Matcher.build(layer, spaced) for layer in layers)
        return tuple(matcher for matcher in built if matcher is not None)

    # --- writing -----------------------------------------------------------------------

    def _ordered_rows(self) -> Iterator[tuple[str, str, list[Term]]]:
        """(concept, lang, rows by status) in a stable order: source language first."""
        for concept in self.concepts:
            rows = self._by_concept[concept]
            langs = sorted(
                {term.lang for term in rows}, key=lambda tag: (tag != self.source_lang, tag)
            )
            for lang in langs:
                in_lang = [term for term in rows if term.lang == lang]
                in_lang.sort(key=lambda term: STATUSES.index(term.status))
                yield concept, lang, in_lang

    def to_tsv(self, path: Path, comments: Sequence[str] = ()) -> Path:
        """Write the termbase as one TSV file, concepts sorted."""
        rows = [term for _, _, in_lang in self._ordered_rows() for term in in_lang]
        return write_tsv(path, rows, comments)

    def to_tbx(self, path: Path) -> Path:
        """Write a TBX 2 file: a termEntry per concept, a langSet per language, a tig per form.

        Each tig carries its status as ``termNote type="administrativeStatus"`` and the
        row's note as ``<note>``; the concept carries ``<note>enforce: yes|no</note>``.
        """
        store = tbx.tbxfile(sourcelanguage=self.source_lang)
        for paragraph in store.document.getroot().iter(store.namespaced("p")):
            paragraph.text = "rulings termbase"
        units: dict[str, tbx.tbxunit] = {}
        for concept, lang, rows in self._ordered_rows():
            unit = units.get(concept)
            if unit is None:
                unit = units[concept] = store.UnitClass(None)
                unit.setid(concept)
                store.addunit(unit)
            forms = [form for term in rows for form in term.forms]
            if lang == self.source_lang:
                unit.set_source_terms(forms, lang)
            else:
                unit.set_target_terms(forms, lang)
            langset = next(n for n in unit.getlanguageNodes() if getXMLlang(n) == lang)
            tigs = langset.findall(unit.namespaced("tig"))
            for tig, (term, _) in zip(tigs, _forms_with_terms(rows), strict=True):
                status = etree.SubElement(tig, unit.namespaced("termNote"))
                status.set("type", "administrativeStatus")
                status.text = TBX_STATUS[term.status]
                if term.note:
                    etree.SubElement(tig, unit.namespaced("note")).text = term.note
        for concept, unit in units.items():
            note = etree.Element(unit.namespaced("note"))
            note.text = f"enforce: {'yes' if self.is_enforced(concept) else 'no'}"
            unit.xmlelement.insert(0, note)  # TBX puts entry-level notes before langSets
        path = Path(path)
        path.write_bytes(bytes(store))
        return path


def _forms_with_terms(rows: Iterable[Term]) -> Iterator[tuple[Term, str]]:
    for term in rows:
        for form in term.forms:
            yield term, form
