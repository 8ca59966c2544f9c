"""The termbase: game terms per concept and language, their status, and a fast term finder.

A concept (``triggered-ability``) has rows per language. Each row lists a canonical form
and its inflected forms, a status (``approved``, ``admitted``, ``forbidden``, ``obsolete``),
whether a translation of a source naming the concept must use an approved or admitted
term (``enforce``), and a note for translators. English rows are the source side.

The shipped termbase is two TSV files in ``pipelines/resources``: ``termbase.tsv``
(curated core vocabulary, enforced) and ``termbase_cr_glossary.tsv`` (generated from the
Comprehensive Rules glossary by ``tools/import_cr_glossary.py``, reference only). Extra
files, TSV or TBX 2 (``<martif>``, told apart by content), add concepts or extend them; a
later file may re-classify a form of a concept or change a concept's ``enforce``.

``find`` scans text for every known form. See ``Termbase.find`` for the matching rules.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path

from lxml import etree
from translate.misc.xml_helpers import getXMLlang, parse_xml
from translate.storage import tbx

from ..resources import resource_path

HEADER = ("concept", "lang", "term", "status", "enforce", "note")
STATUSES = ("approved", "admitted", "forbidden", "obsolete")
SHIPPED_FILES = ("termbase.tsv", "termbase_cr_glossary.tsv")
ENFORCE_VALUES = {"yes": True, "no": False}

# Languages written without spaces between words (or, for Korean, with particles glued
# to nouns): forms are found as substrings, not as whole words.
UNSPACED_LANGS = frozenset({"zh", "ja", "ko", "th", "lo", "km", "my"})

TBX_STATUS = {
    "approved": "preferredTerm-admn-sts",
    "admitted": "admittedTerm-admn-sts",
    "forbidden": "deprecatedTerm-admn-sts",
    "obsolete": "supersededTerm-admn-sts",
}
# administrativeStatus values read from TBX (TBX 2 and TBX-Basic spellings), normalised by
# ``_tbx_status_key``.
_TBX_STATUS_READ = {
    "preferred": "approved",
    "standardized": "approved",
    "legal": "approved",
    "regulated": "approved",
    "admitted": "admitted",
    "deprecated": "forbidden",
    "notrecommended": "forbidden",
    "superseded": "obsolete",
    "obsolete": "obsolete",
}
_ENFORCE_NOTE = re.compile(r"enforce:\s*(yes|no)", re.IGNORECASE)
_KEBAB_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_FOREIGN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_LANG_TAG = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{1,8})*")
_WHITESPACE = re.compile(r"\s+")
_HIT_ORDER = attrgetter("start", "end", "concept", "status")
_TIG_NAMES = frozenset({"tig", "ntig"})


class TermbaseError(Exception):
    """A termbase file that cannot be used; the message is ``"<path>:<line>: <problem>"``."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Term:
    """One row: the forms of a concept in a language that share a status and a note."""

    concept: str
    lang: str
    forms: tuple[str, ...]
    status: str
    enforce: bool
    note: str
    origin: str

    @property
    def canonical(self) -> str:
        return self.forms[0]


@dataclass(frozen=True, slots=True)
class TermHit:
    """A form of a concept found in a text; ``form`` is the text as written there."""

    concept: str
    lang: str
    form: str
    status: str
    start: int
    end: int


@dataclass(slots=True)
class _FileTerms:
    """The terms of one file, and the concepts whose ``enforce`` the file states."""

    terms: list[Term] = field(default_factory=list)
    enforce: dict[str, bool] = field(default_factory=dict)


def concept_id(text: str) -> str:
    """Kebab-case id of an English headword: ``City’s Blessing`` -> ``citys-blessing``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = re.sub(r"['’]", "", ascii_text.lower())
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text))


def normalize_lang(tag: str) -> str:
    """Lower-case BCP-47 tag with hyphens: ``zh_Hans`` -> ``zh-hans``."""
    return tag.strip().replace("_", "-").lower()


def _languages_related(term_lang: str, query: str) -> bool:
    """``es`` terms serve ``es-MX`` text and ``es-ES`` terms serve ``es`` text."""
    return (
        term_lang == query or term_lang.startswith(query + "-") or query.startswith(term_lang + "-")
    )


def _form_key(form: str) -> str:
    """What two spellings of a form share: case, apostrophe style and spacing are ignored."""
    return _WHITESPACE.sub(" ", _fold(form)).replace("’", "'").strip()


def _fold(text: str) -> str:
    """Lower-cased text of the same length, so that offsets stay valid."""
    folded = text.lower()
    if len(folded) == len(text):
        return folded
    return "".join(char.lower() if len(char.lower()) == 1 else char for char in text)


# --- reading files ---------------------------------------------------------------------


def read_terms(path: Path) -> list[Term]:
    """The rows of one TSV or TBX termbase file (format found from its content)."""
    return _read_file(Path(path)).terms


def _read_file(path: Path) -> _FileTerms:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise TermbaseError(f"{path}:1", f"cannot read the file ({error.strerror})") from None
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return _read_tbx(path, data)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise TermbaseError(f"{path}:{line}", "not UTF-8 text") from None
    return _read_tsv(path, text)


def _read_tsv(path: Path, text: str) -> _FileTerms:
    result = _FileTerms()
    enforce_origin: dict[str, str] = {}
    seen_forms: dict[tuple[str, str, str], str] = {}
    header_seen = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{path}:{number}"
        cells = line.split("\t")
        if not header_seen:
            if tuple(cell.strip() for cell in cells) != HEADER:
                raise TermbaseError(where, f"expected the header line {' '.join(HEADER)!r}")
            header_seen = True
            continue
        if len(cells) == len(HEADER) - 1:  # an editor dropped the tab before an empty note
            cells.append("")
        if len(cells) != len(HEADER):
            raise TermbaseError(
                where, f"expected {len(HEADER)} tab-separated columns, found {len(cells)}"
            )
        concept, lang, term, status, enforce_text, note = (cell.strip() for cell in cells)
        if not _KEBAB_ID.fullmatch(concept):
            raise TermbaseError(where, f"concept id {concept!r} is not kebab-case")
        lang = normalize_lang(lang)
        if not _LANG_TAG.fullmatch(lang):
            raise TermbaseError(where, f"language {lang!r} is not a BCP-47 tag")
        if status not in STATUSES:
            raise TermbaseError(
                where, f"unknown status {status!r} (expected one of {', '.join(STATUSES)})"
            )
        if enforce_text not in ENFORCE_VALUES:
            raise TermbaseError(where, f"enforce must be 'yes' or 'no', not {enforce_text!r}")
        enforce = ENFORCE_VALUES[enforce_text]
        if concept in result.enforce and result.enforce[concept] != enforce:
            raise TermbaseError(
                where,
                f"concept {concept!r} has enforce={enforce_text} here but "
                f"enforce={'yes' if result.enforce[concept] else 'no'} at "
                f"{enforce_origin[concept]}",
            )
        result.enforce[concept] = enforce
        enforce_origin.setdefault(concept, where)
        forms = _split_forms(term, where)
        _check_new_forms(concept, lang, forms, where, seen_forms)
        result.terms.append(Term(concept, lang, forms, status, enforce, note, where))
    if not header_seen:
        raise TermbaseError(f"{path}:1", f"empty termbase: no header line {' '.join(HEADER)!r}")
    return result


def _split_forms(term: str, where: str) -> tuple[str, ...]:
    forms = tuple(_WHITESPACE.sub(" ", form).strip() for form in term.split("|"))
    if not term.strip():
        raise TermbaseError(where, "empty term")
    if any(not form for form in forms):
        raise TermbaseError(where, f"empty form in {term!r}")
    return forms


def _check_new_forms(
    concept: str,
    lang: str,
    forms: Iterable[str],
    where: str,
    seen: dict[tuple[str, str, str], str],
) -> None:
    """A form may appear once per concept and language within one file."""
    for form in forms:
        key = (concept, lang, _form_key(form))
        if key in seen:
            raise TermbaseError(
                where, f"form {form!r} of {concept!r} ({lang}) is already listed at {seen[key]}"
            )
        seen[key] = where


def _read_tbx(path: Path, data: bytes) -> _FileTerms:
    try:
        store = tbx.tbxfile.parsestring(data)
    except etree.XMLSyntaxError as error:
        raise TermbaseError(f"{path}:{error.lineno}", f"not well-formed XML: {error.msg}") from None
    except AssertionError:  # translate-toolkit asserts what the root element is
        _check_tbx_root(path, parse_xml(data))
        raise TermbaseError(f"{path}:1", "not a TBX file translate-toolkit can read") from None
    _check_tbx_root(path, store.document.getroot())
    result = _FileTerms()
    seen_forms: dict[tuple[str, str, str], str] = {}
    for unit in store.units:
        _read_tbx_entry(path, unit, result, seen_forms)
    return result


def _check_tbx_root(path: Path, root: etree._Element) -> None:
    name = etree.QName(root).localname
    if name == "tbx":
        raise TermbaseError(
            f"{path}:{root.sourceline}", "TBX 3 (<tbx>) is not supported; use TBX 2 (<martif>)"
        )
    if name != "martif":
        raise TermbaseError(
            f"{path}:{root.sourceline}", f"not TBX: the root element is <{name}>, not <martif>"
        )


def _read_tbx_entry(
    path: Path,
    unit: tbx.tbxunit,
    result: _FileTerms,
    seen_forms: dict[tuple[str, str, str], str],
) -> None:
    """One termEntry: consecutive tigs with the same status and note make one Term."""
    entry = unit.xmlelement
    entry_where = f"{path}:{entry.sourceline}"
    concept = _tbx_concept_id(unit, entry_where)
    for note in entry.iterchildren(unit.namespaced("note")):
        found = _ENFORCE_NOTE.fullmatch(_element_text(note))
        if found:
            result.enforce[concept] = found.group(1).lower() == "yes"
    enforce = result.enforce.get(concept, False)
    for langset in unit.getlanguageNodes():
        lang = normalize_lang(getXMLlang(langset) or "")
        if not _LANG_TAG.fullmatch(lang):
            raise TermbaseError(
                f"{path}:{langset.sourceline}", f"langSet without a valid xml:lang ({lang!r})"
            )
        in_langset: list[Term] = []
        for child in langset:
            if not isinstance(child.tag, str) or etree.QName(child).localname not in _TIG_NAMES:
                continue
            form, status, note, where = _read_tig(path, unit, child)
            _check_new_forms(concept, lang, [form], where, seen_forms)
            last = in_langset[-1] if in_langset else None
            if last is not None and (last.status, last.note) == (status, note):
                in_langset[-1] = replace(last, forms=(*last.forms, form))
            else:
                in_langset.append(Term(concept, lang, (form,), status, enforce, note, where))
        result.terms.extend(in_langset)


def _tbx_concept_id(unit: tbx.tbxunit, where: str) -> str:
    written = (unit.xmlelement.get("id") or "").strip()
    if written:
        if not _FOREIGN_ID.fullmatch(written):
            raise TermbaseError(where, f"termEntry id {written!r} is not usable as a concept id")
        return written
    for term in unit.xmlelement.iter(unit.namespaced("term")):
        derived = concept_id(_element_text(term))
        if derived:
            return derived
    raise TermbaseError(where, "termEntry without an id or an English-like term to name it")


def _read_tig(path: Path, unit: tbx.tbxunit, tig: etree._Element) -> tuple[str, str, str, str]:
    where = f"{path}:{tig.sourceline}"
    term = next(tig.iter(unit.namespaced("term")), None)
    form = _WHITESPACE.sub(" ", _element_text(term)).strip() if term is not None else ""
    if not form:
        raise TermbaseError(where, "empty term")
    status = "approved"
    for node in tig.iter(unit.namespaced("termNote")):
        if node.get("type") == "administrativeStatus":
            value = _element_text(node)
            status = _TBX_STATUS_READ.get(_tbx_status_key(value), "")
            if not status:
                raise TermbaseError(
                    f"{path}:{node.sourceline}", f"unknown administrativeStatus {value!r}"
                )
    notes = [_element_text(node) for node in tig.iter(unit.namespaced("note"))]
    return form, status, "; ".join(note for note in notes if note), where


def _tbx_status_key(value: str) -> str:
    key = value.strip().lower().replace("-admn-sts", "").replace("admnsts", "")
    return key.removesuffix("term").replace("-", "")


def _element_text(element: etree._Element) -> str:
    return "".join(element.itertext()).strip()


# --- merging files ---------------------------------------------------------------------


def _merge(files: Sequence[_FileTerms]) -> list[Term]:
    """Later files extend concepts; a form listed again takes the later status and note."""
    merged: list[Term] = []
    enforce: dict[str, bool] = {}
    for file in files:
        relisted = {(t.concept, t.lang, _form_key(f)) for t in file.terms for f in t.forms}
        kept = []
        for term in merged:
            forms = tuple(
                f for f in term.forms if (term.concept, term.lang, _form_key(f)) not in relisted
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


# --- matching --------------------------------------------------------------------------


def _trie_pattern(keys: Iterable[str]) -> str:
    """One regular expression for many literal keys that prefers the longest one."""
    trie: dict[str, dict] = {}
    for key in keys:
        node = trie
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node_pattern(trie)


def _node_pattern(node: dict[str, dict]) -> str:
    branches = [
        _char_pattern(char) + _node_pattern(child) for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


def _char_pattern(char: str) -> str:
    if char == " ":
        return r"\s+"
    if char == "'":
        return "['’]"
    return re.escape(char)


@dataclass(frozen=True, slots=True)
class _Matcher:
    """Every form of one layer of concepts in one language, compiled into one expression."""

    pattern: re.Pattern[str]
    entries: dict[str, tuple[tuple[str, str, str], ...]]  # form key -> (concept, status, lang)

    @classmethod
    def build(cls, terms: Iterable[Term], spaced: bool) -> _Matcher | None:
        entries: dict[str, list[tuple[str, str, str]]] = {}
        for term in terms:
            for form in term.forms:
                owners = entries.setdefault(_form_key(form), [])
                owner = (term.concept, term.status, term.lang)
                if owner not in owners:
                    owners.append(owner)
        if not entries:
            return None
        body = _trie_pattern(sorted(entries))
        pattern = rf"(?<!\w)(?:{body})(?!\w)" if spaced else body
        return cls(
            re.compile(pattern), {key: tuple(sorted(value)) for key, value in entries.items()}
        )

    def scan(self, text: str, folded: str, hits: list[TermHit]) -> None:
        """Append the hits of this matcher in ``text`` (``folded`` is its lower-case twin)."""
        entries = self.entries
        for match in self.pattern.finditer(folded):
            found = match.group()
            owners = entries.get(found)
            if owners is None:  # other spacing or apostrophe than the listed form
                owners = entries.get(_form_key(found), ())
            start, end = match.span()
            form = text[start:end]
            for concept, status, lang in owners:
                hits.append(TermHit(concept, lang, form, status, start, end))


# --- the termbase ----------------------------------------------------------------------


class Termbase:
    """Concepts and their terms per language, with a compiled finder per language."""

    def __init__(self, terms: Iterable[Term], *, source_lang: str = "en") -> None:
        self.source_lang = normalize_lang(source_lang)
        self._terms = tuple(terms)
        self._by_concept: dict[str, list[Term]] = {}
        for term in self._terms:
            self._by_concept.setdefault(term.concept, []).append(term)
        for concept, terms_of_concept in self._by_concept.items():
            first = terms_of_concept[0]
            if not any(term.lang == self.source_lang for term in terms_of_concept):
                raise TermbaseError(
                    first.origin, f"concept {concept!r} has no {self.source_lang!r} row"
                )
            for term in terms_of_concept:
                if term.enforce != first.enforce:
                    raise TermbaseError(
                        term.origin, f"rows of concept {concept!r} disagree on enforce"
                    )
        self._matchers: dict[str, tuple[_Matcher, ...]] = {}

    @classmethod
    def load(
        cls, extra: Sequence[Path] = (), *, shipped: bool = True, source_lang: str = "en"
    ) -> Termbase:
        """The shipped termbase (unless ``shipped`` is false) extended by ``extra`` files."""
        paths = [resource_path(name) for name in SHIPPED_FILES] if shipped else []
        paths.extend(Path(path) for path in extra)
        return cls(_merge([_read_file(path) for path in paths]), source_lang=source_lang)

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
            if (query is None or _languages_related(term.lang, query))
            and (status is None or term.status == status)
        ]

    def is_enforced(self, concept: str) -> bool:
        """Whether a translation of a source naming the concept must use one of its terms."""
        return self.terms(concept)[0].enforce

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
        folded = _fold(text)
        hits: list[TermHit] = []
        matchers[0].scan(text, folded, hits)
        if len(matchers) > 1:
            core = len(hits)
            matchers[1].scan(text, folded, hits)
            if 0 < core < len(hits):
                hits.sort(key=_HIT_ORDER)
        return hits

    def _build_matchers(self, query: str) -> tuple[_Matcher, ...]:
        spaced = query.split("-")[0] not in UNSPACED_LANGS
        related = [term for term in self._terms if _languages_related(term.lang, query)]
        related.sort(key=lambda term: term.lang != query)  # exact language first
        layers = (
            [term for term in related if term.enforce],
            [term for term in related if not term.enforce],
        )
        built = (_Matcher.build(layer, spaced) for layer in layers)
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


def write_tsv(path: Path, terms: Iterable[Term], comments: Sequence[str] = ()) -> Path:
    """Write rows in the termbase TSV format, with ``#`` comment lines first."""
    lines = [f"# {comment}".rstrip() for comment in comments]
    lines.append("\t".join(HEADER))
    for term in terms:
        cells = (
            term.concept,
            term.lang,
            "|".join(term.forms),
            term.status,
            "yes" if term.enforce else "no",
            term.note,
        )
        if any("\t" in cell or "\n" in cell for cell in cells):
            raise ValueError(f"{term.origin}: a tab or newline cannot be written to TSV")
        lines.append("\t".join(cells))
    path = Path(path)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
