"""findings.xlf: the findings back where translators work, as notes on their XLIFF units.

XLIFF 1.2, one ``<file>`` per translated document: a bilingual input file gives one per
target language (its units in file order, with their ids, untranslated ones included); a
plain ruling document gives one too, each translated ruling a unit with the English it was
aligned with (units for the English rulings it lacks are added). Every finding is a
``<note from="rulings">`` on its unit (``CODE severity: message (expected …)``); findings
about a whole document are notes in the file's header. A unit with an error finding has
``state="needs-review-translation"``, so a CAT tool filters the units to fix. Inline-code
tokens become XLIFF inline elements again (``<g>``, ``<x/>``, ``<bx/>``...). The input
files are never modified; the same tables give the same bytes.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from lxml import etree

from ...model import Finding, Ruling, id_order
from ...tables import RunTables
from ...text.inline import inline_codes
from ...vocabulary import BILINGUAL_SOURCE_SUFFIX as SOURCE_SUFFIX
from ...vocabulary import TRANSLATION_METHODS, DocKind, Method, Severity, severity_rank
from .. import rulings_by_id, writer
from ..kept_rows import row_digest_from, rows_file
from ..markup import attribute, text, xml_safe
from ..markup import attributes as markup_attributes
from ..rows import finding_digests, line_digest_of

NAMESPACE = "urn:oasis:names:tc:xliff:document:1.2"
XLIFF = f"{{{NAMESPACE}}}"
NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
PRIORITY = {"error": "1", "warning": "5", "info": "9"}
STANDALONE = {"it": "x", "sc": "bx", "ec": "ex", "ut": "x"}
"""Standalone codes of other formats as XLIFF 1.2 writes them (others keep their name)."""
PAIRED = {"pc": "g"}
NEEDS_REVIEW = "needs-review-translation"


@writer("xliff", filename="findings.xlf", cost=11, reads=("rulings", "alignment", "findings"))
def write_xliff(run: RunTables, out: Path) -> Path:
    """XLIFF 1.2 for CAT tools: every translated document's units with the findings as
    notes on them, units with errors marked needs-review-translation."""
    tables = _Tables(run)
    path = out / "findings.xlf"
    digests = finding_digests(run)
    line = line_digest_of(run)
    start = f"<xliff{markup_attributes(ROOT_ATTRIBUTES)}"
    docs = sorted(tables.translated, key=id_order)
    with rows_file(path, "xliff", run.previous) as rows:
        if not docs:
            rows.piece(DECLARATION + (start + "/>\n").encode())
            return path
        rows.piece(DECLARATION + (start + ">").encode())
        # a run of documents at a time: a large run's whole document would not fit in memory
        for begin in range(0, len(docs), DOCUMENTS_AT_ONCE):
            files = [
                _file(doc, tables, run.source_lang, digests, line, run.document_keys.get(doc))
                for doc in docs[begin : begin + DOCUMENTS_AT_ONCE]
            ]
            rows.rows(
                files,
                [file.digest for file in files],
                lambda these: [
                    _file_text(file, tables, run.source_lang).encode() for file in these
                ],
            )
        rows.piece(f"{INDENTS[0]}</xliff>\n".encode())
    return path


DOCUMENTS_AT_ONCE = 256
"""Translated documents made into ``<file>`` elements together (their units and notes held
at once)."""


class _File(NamedTuple):
    """A translated document's ``<file>`` element before it is text: a row of the file
    (``kept_rows``), copied from the previous file when its digest is there."""

    doc: str
    members: list[Ruling]
    noted: list[tuple[_Unit, list[tuple[Finding, str]]]] | None
    """Its units with their notes, when its digest was made of them (else they are made when
    the element is written)."""
    digest: bytes | None


def _file(
    doc: str,
    tables: _Tables,
    source_lang: str,
    digests: dict,
    line: Callable[[Ruling | None], bytes | None],
    checked: str | None = None,
) -> _File:
    """A document's element: its units with their notes, and the digest of everything it is
    made of: each unit's rulings' lines (``rows.line_digest_of``), its notes' findings
    (``rows.finding_digests``), its id and what each note annotates, the header's findings
    and the element's attributes (None when one of those digests is: the element is then
    always written, ``kept_rows.row_digest_from``). ``checked``: the digest of what the
    document's checks read in this run (``RunTables.document_keys``), which stands for its
    units' rulings (``_checked_digest``)."""
    members = tables.translated[doc]
    lang = members[0].doc_lang
    if checked is not None and doc not in tables.bilingual:
        digest = _checked_digest(doc, checked, tables, source_lang, digests, line)
        return _File(doc, members, None, digest)
    noted = [(unit, _unit_notes(unit, tables, lang)) for unit in tables.units(doc)]
    made_of = _header_digests(doc, tables, digests)
    header = len(made_of)
    for unit, notes in noted:
        made_of += [line(unit.source), line(unit.target)]
        made_of += [digests[id(finding)] for finding, _ in notes]
    shape = [(unit.ident, [annotates for _, annotates in notes]) for unit, notes in noted]
    original = _original(doc, members, tables)
    digest = row_digest_from(made_of, header, shape, doc, original, source_lang, lang)
    return _File(doc, members, noted, digest)


def _checked_digest(
    doc: str,
    checked: str,
    tables: _Tables,
    source_lang: str,
    digests: dict,
    line: Callable[[Ruling | None], bytes | None],
) -> bytes | None:
    """The digest of a plain document's element made of what its checks read, which holds
    the lines of its rulings and of every ruling of the documents its alignment rows point
    into, and those rows (``check.Reads.document_digest``): so each unit's rulings need not be
    looked at, only those with notes (the findings, what each annotates) and the English
    rulings of its groups it lacks (their lines and notes). At a million units, digesting
    every unit's rulings took 3.4 s of the writer's 8."""
    members = tables.translated[doc]
    lang = members[0].doc_lang
    made_of = _header_digests(doc, tables, digests)
    header = len(made_of)
    shape: list[tuple[str, list[str]]] = []
    noted = tables.noted.get(doc)
    units = [tables.unit_of(m) for m in members if m.id in noted] if noted else []
    missing = tables.missing_units(doc, lang)
    for unit in units + missing:
        notes = _unit_notes(unit, tables, lang)
        made_of += [digests[id(finding)] for finding, _ in notes]
        shape.append((unit.ident, [annotates for _, annotates in notes]))
    made_of += [line(unit.source) for unit in missing]
    return row_digest_from(made_of, "checked", checked, header, shape, doc, source_lang, lang)


def _header_digests(doc: str, tables: _Tables, digests: dict) -> list[bytes | None]:
    """The digests of the findings noted in a document's header, in order."""
    return [digests[id(finding)] for finding in _ordered(tables.by_document.get(doc, []))]


def _file_text(file: _File, tables: _Tables, source_lang: str) -> str:
    """A document's ``<file>`` element, indented as the root's child."""
    lang = file.members[0].doc_lang
    noted = file.noted
    if noted is None:
        noted = [(unit, _unit_notes(unit, tables, lang)) for unit in tables.units(file.doc)]
    head, tail = _file_element(file.doc, file.members, bool(noted), tables, source_lang)
    units = INDENTS[UNIT_LEVEL].join(_unit_element(*item, lang) for item in noted)
    return INDENTS[1] + head + units + tail


class _Unit:
    __slots__ = ("ident", "source", "target")

    def __init__(self, ident: str, source: Ruling | None, target: Ruling | None) -> None:
        self.ident, self.source, self.target = ident, source, target


class _Tables:
    """The run's tables indexed for the writer: documents, pairs, findings by unit."""

    def __init__(self, run: RunTables) -> None:
        self.by_id = rulings_by_id(run)
        doc_order = functools.cache(id_order)
        self.documents: dict[str, list[Ruling]] = defaultdict(list)
        self.bilingual: set[str] = set()
        """The documents with a ruling that has a counterpart (a bilingual file's)."""
        for item in run.rulings:
            self.documents[item.doc].append(item)
            if item.counterpart:
                self.bilingual.add(item.doc)
        for members in self.documents.values():
            members.sort(key=_POSITION)
        self.translated = {
            doc: members
            for doc, members in self.documents.items()
            if members[0].doc_kind == DocKind.TRANSLATION
        }
        self.targets_per_file = Counter(members[0].file for members in self.translated.values())
        self.source_of: dict[str, Ruling] = {}
        self.groups: dict[str, set] = defaultdict(set)
        """Each translated document's groups among those that lack an English ruling."""
        self.missing: dict[tuple, list[str]] = defaultdict(list)
        owners: dict[tuple, str] = {}
        paired = TRANSLATION_METHODS | {Method.UNTRANSLATED}
        by_id, no_translation = self.by_id, Method.NO_TRANSLATION
        source_of, groups, missing = self.source_of, self.groups, self.missing
        for row in run.alignment:
            if row.method == no_translation and row.source_id:
                missing[(row.lang, row.group)].append(row.source_id)
        # only the groups that lack an English ruling in some language have units to add,
        # and owners to find (the owner of every group's took 0.5 s at a million units)
        lacking = {group for _, group in missing}
        for row in run.alignment:
            target = by_id.get(row.target_id or "")
            if target is None:
                continue
            if row.source_id and row.method in paired:
                source_of[target.id] = by_id[row.source_id]
            if row.group not in lacking:
                continue
            groups[target.doc].add(row.group)
            key = (row.lang, row.group)
            owner = owners.get(key)
            if not target.counterpart and (
                owner is None
                # most rows are the owner's own: no natural order to compare (0.7 s of an
                # edited million-unit run's 9.3 s in this writer)
                or (owner != target.doc and doc_order(target.doc) < doc_order(owner))
            ):
                owners[key] = target.doc
        self.owners = owners
        """The first document (in natural order) of each language aligned in each group that
        lacks an English ruling in that language."""
        self.by_target: dict[str, list[Finding]] = defaultdict(list)
        self.by_source: dict[str | None, dict[str, list[Finding]]] = defaultdict(
            lambda: defaultdict(list)
        )
        """The findings about English rulings, by the language they are about, then by id."""
        self.by_document: dict[str, list[Finding]] = defaultdict(list)
        about_no_ruling: list[Finding] = []
        for finding in run.findings:
            ruling = self.by_id.get(finding.ruling_id or "")
            if ruling is not None and ruling.doc in self.translated:
                self.by_target[ruling.id].append(finding)
            elif ruling is not None:
                self.by_source[finding.lang][ruling.id].append(finding)
            else:
                about_no_ruling.append(finding)
        # a finding about a whole document is on a line of it: only the lines of such
        # findings looked for (a key for every ruling's took 0.26 s at a million units)
        lines: dict[str, set[int | None]] = defaultdict(set)
        for finding in about_no_ruling:
            lines[finding.file].add(finding.line)
        translated = self.translated
        docs_at = {
            (r.file, r.line): r.doc
            for r in run.rulings
            if r.file in lines and r.line in lines[r.file] and r.doc in translated
        }
        for finding in about_no_ruling:
            if (finding.file, finding.line) in docs_at:
                self.by_document[docs_at[(finding.file, finding.line)]].append(finding)
        self.noted: dict[str, set[str]] = defaultdict(set)
        """The ids of each translated document's rulings whose units have notes."""
        for ruling_id in self.by_target:
            self.noted[self.by_id[ruling_id].doc].add(ruling_id)
        about_sources = {ruling_id for found in self.by_source.values() for ruling_id in found}
        for target_id, source in self.source_of.items() if about_sources else ():
            if source.id in about_sources:
                doc = self.by_id[target_id].doc
                members = self.translated.get(doc)
                if members and source.id in self.by_source.get(members[0].doc_lang, {}):
                    self.noted[doc].add(target_id)

    def units(self, doc: str) -> list[_Unit]:
        """A translated document's units, in order."""
        members = self.translated[doc]
        return self.bilingual_units(members) if doc in self.bilingual else self.plain_units(members)

    def unit_of(self, member: Ruling) -> _Unit:
        """A plain document's unit of one of its rulings."""
        return _Unit(member.id, self.source_of.get(member.id), member)

    def bilingual_units(self, members: list[Ruling]) -> list[_Unit]:
        """The file's units in order: each target with its source, and the sources no
        target of this document translates."""
        docs = {self.by_id[m.counterpart].doc for m in members if m.counterpart in self.by_id}
        translated = {m.counterpart: m for m in members if m.counterpart}
        units = [
            _Unit(_unit_id(source), source, translated.get(source.id))
            for doc in sorted(docs, key=id_order)
            for source in self.documents[doc]
        ]
        units += [_Unit(m.id.partition("#")[2], None, m) for m in members if not m.counterpart]
        return units

    def plain_units(self, members: list[Ruling]) -> list[_Unit]:
        """Each translated ruling with the English it was aligned with, then the English
        rulings of its group it lacks (in the first document of the language aligned in
        that group)."""
        doc, lang = members[0].doc, members[0].doc_lang
        source_of = self.source_of
        return [_Unit(m.id, source_of.get(m.id), m) for m in members] + self.missing_units(
            doc, lang
        )

    def missing_units(self, doc: str, lang: str | None) -> list[_Unit]:
        """The units of the English rulings a plain document's groups lack, where it is
        the first document of its language aligned in the group."""
        units = []
        for group in sorted(self.groups.get(doc, ()), key=lambda g: g or ""):
            if self.owners.get((lang, group)) == doc:
                units += [
                    _Unit(f"{source_id} ({lang})", self.by_id[source_id], None)
                    for source_id in self.missing.get((lang, group), [])
                ]
        return units


_POSITION = attrgetter("position")


def _unit_id(source: Ruling) -> str:
    """``<file>#<unit id>/source[n]`` -> ``<unit id>[n]``."""
    ident = source.id[len(source.file) + 1 :]
    head, _, form = ident.rpartition(SOURCE_SUFFIX)
    return head + form


def _file_element(
    doc, members, has_units: bool, tables: _Tables, source_lang: str
) -> tuple[str, str]:
    """A document's ``<file>`` element before its first unit and after its last (its units
    go between, one line each)."""
    first = members[0]
    attributes = [
        ("original", _xml(_original(doc, members, tables))),
        ("datatype", "plaintext"),
        ("source-language", _checked(source_lang)),
    ]
    if first.doc_lang:
        attributes.append(("target-language", _checked(first.doc_lang)))
    header = [TOOL] + [
        _note(finding, "general") for finding in _ordered(tables.by_document.get(doc, []))
    ]
    start = f"<file{markup_attributes(attributes)}>{INDENTS[2]}{_element('header', (), header, 2)}"
    if not has_units:
        return start + INDENTS[2] + "<body/>" + INDENTS[1] + "</file>", ""
    return (
        start + INDENTS[2] + "<body>" + INDENTS[UNIT_LEVEL],
        INDENTS[2] + "</body>" + INDENTS[1] + "</file>",
    )


def _original(doc: str, members: list[Ruling], tables: _Tables) -> str:
    """What a document's ``<file>`` names as its original: its input file when it is the
    file's one translated document of a bilingual file, else the document."""
    first = members[0]
    bilingual = doc in tables.bilingual
    return first.file if bilingual and tables.targets_per_file[first.file] == 1 else doc


def _unit_notes(unit: _Unit, tables: _Tables, lang: str | None) -> list[tuple[Finding, str]]:
    """The findings noted on a unit, each with what it annotates, in order."""
    notes: list[tuple[Finding, str]] = []
    if unit.source is not None:
        notes += [(f, "general") for f in tables.by_source.get(lang, {}).get(unit.source.id, ())]
    if unit.target is not None:
        notes += [(f, "target") for f in tables.by_target.get(unit.target.id, ())]
    if len(notes) > 1:
        notes.sort(key=lambda n: _finding_order(n[0]))
    return notes


def _unit_element(unit: _Unit, notes: list[tuple[Finding, str]], lang: str | None) -> str:
    children = [_text_element("source", (), unit.source.text if unit.source else "")]
    if unit.target is not None:
        state = (
            NEEDS_REVIEW
            if any(f.severity == Severity.ERROR for f, _ in notes)
            else _recorded_state(unit.target)
        )
        attributes = [("state", state)] if state is not None else ()
        children.append(_text_element("target", attributes, unit.target.text))
    children += [_note(finding, annotates) for finding, annotates in notes]
    inner = INDENTS[UNIT_LEVEL + 1]
    return (
        f'<trans-unit id="{attribute(_xml(unit.ident))}">{inner}{inner.join(children)}'
        f"{INDENTS[UNIT_LEVEL]}</trans-unit>"
    )


def _recorded_state(target: Ruling) -> str | None:
    """An unfinished state the input gave the unit (kept in its context)."""
    for part in (target.context or "").split(" | "):
        if part.startswith("state: ") and part[7:] in _STATES_1_2:
            return part[7:]
    return None


_STATES_1_2 = frozenset(
    {"new", "needs-translation", "needs-l10n", "needs-adaptation"}
    | {"needs-review-translation", "needs-review-l10n", "needs-review-adaptation"}
)


def _finding_order(finding: Finding) -> tuple:
    return (severity_rank(finding.severity), finding.code, finding.message, finding.fingerprint)


def _ordered(items: list[Finding]) -> list[Finding]:
    return sorted(items, key=_finding_order)


def _note(finding: Finding, annotates: str) -> str:
    priority = PRIORITY[finding.severity]
    return (
        f'<note from="rulings" priority="{priority}" annotates="{annotates}">'
        f"{text(_xml(note_text(finding)))}</note>"
    )


def note_text(finding: Finding) -> str:
    """``CODE severity: message (expected …)``."""
    text = f"{finding.code} {finding.severity}: {finding.message}"
    expected = finding.evidence.get("expected") if isinstance(finding.evidence, dict) else None
    if isinstance(expected, list):
        expected = ", ".join(str(item) for item in expected)
    if isinstance(expected, str | int) and str(expected) and str(expected) not in text:
        text += f" (expected {expected})"
    return text


def _fill(element, text: str) -> None:
    """Text with inline-code tokens as XLIFF 1.2 inline elements; a paired code that does
    not nest in this text is written as an isolated begin (``bx``) or end (``ex``)."""
    text = _xml(text)
    if "<" not in text:  # no inline code (each token starts with "<")
        if text:
            element.text = (element.text or "") + text
        return
    codes = inline_codes(text)
    matched = _matched_pairs(codes)
    stack = [element]
    last: list = [None]
    position = 0

    def add_text(value: str) -> None:
        if not value:
            return
        if last[-1] is None:
            stack[-1].text = (stack[-1].text or "") + value
        else:
            last[-1].tail = (last[-1].tail or "") + value

    for index, code in enumerate(codes):
        add_text(text[position : code.start])
        position = code.end
        if code.role == "open" and index in matched:
            child = etree.SubElement(stack[-1], _paired_tag(code.kind), id=code.ident)
            if code.kind == "mrk":
                child.attrib.pop("id")
                child.set("mtype", "protected")
                child.set("mid", code.ident)
            stack.append(child)
            last.append(None)
            continue
        if code.role == "close" and index in matched:
            child = stack.pop()
            last.pop()
            last[-1] = child
            continue
        name = {"open": "bx", "close": "ex"}.get(code.role) or STANDALONE.get(code.kind, code.kind)
        child = etree.SubElement(stack[-1], f"{XLIFF}{name}", id=code.ident)
        last[-1] = child
    add_text(text[position:])


def _paired_tag(kind: str) -> str:
    return f"{XLIFF}{PAIRED.get(kind, kind)}"


def _matched_pairs(codes) -> set[int]:
    """Indices of opening and closing tokens that pair up and nest."""
    matched: set[int] = set()
    stack: list[tuple[int, str]] = []
    for index, code in enumerate(codes):
        key = code.kind + code.ident
        if code.role == "open":
            stack.append((index, key))
        elif code.role == "close" and stack and stack[-1][1] == key:
            opened, _ = stack.pop()
            matched.update({opened, index})
    return matched


def _xml(text: str) -> str:
    """Text without the characters XML 1.0 cannot hold."""
    return NOT_XML.sub("\ufffd", text)


# --- the markup, as lxml writes it ------------------------------------------------------------
#
# The file is written as text (``report/markup.py``): building an lxml tree of a large run
# (an element per unit, source, target and note) took most of the writer's time. The text is
# what lxml wrote for that tree: an XML declaration in single quotes, the namespace declared
# on the root, an element without content closed in place (``<source/>``), and line breaks
# and indentation between structural elements only (the mixed content of source, target and
# note is left exactly as it is). A text with inline codes is still built with lxml
# (``_fill``) and serialized on its own.

UNIT_LEVEL = 3
"""The depth of a ``<trans-unit>``: xliff > file > body > trans-unit."""
INDENTS = ["\n" + "  " * level for level in range(UNIT_LEVEL + 2)]
DECLARATION = b"<?xml version='1.0' encoding='UTF-8'?>\n"
ROOT_ATTRIBUTES = (("xmlns", NAMESPACE), ("version", "1.2"))
TOOL = '<tool tool-id="rulings" tool-name="rulings"/>'
XMLNS = f' xmlns="{NAMESPACE}"'


def _element(tag: str, attributes, children: list[str], level: int) -> str:
    """An element whose children are elements, each on its own line one level deeper than
    the element (at ``level``); without children it is closed in place."""
    return "".join(_element_parts(tag, attributes, children, level))


def _element_parts(tag: str, attributes, children: Iterable[str], level: int) -> Iterator[str]:
    """``_element`` a child at a time."""
    start = f"<{tag}{markup_attributes(attributes)}"
    inner = INDENTS[level + 1]
    empty = True
    for child in children:
        yield (start + ">" if empty else "") + inner + child
        empty = False
    yield start + "/>" if empty else f"{INDENTS[level]}</{tag}>"


def _text_element(tag: str, attributes, content: str) -> str:
    """An element with a unit's text, its inline codes as elements (``_fill``); without
    text it is closed in place."""
    content = _xml(content)
    if "<" in content:  # perhaps inline codes: lxml builds and writes them
        element = etree.Element(f"{XLIFF}{tag}", nsmap={None: NAMESPACE})
        for name, value in attributes:
            element.set(name, value)
        _fill(element, content)
        markup = etree.tostring(element, encoding="unicode", with_tail=False)
        return markup.replace(XMLNS, "", 1)
    start = f"<{tag}{markup_attributes(attributes)}" if attributes else f"<{tag}"
    if not content:
        return start + "/>"
    return f"{start}>{text(content)}</{tag}>"


def _checked(value: str) -> str:
    """A value from the options or the input that did not go through ``_xml``: lxml
    refused a character XML cannot hold, and so does this writer."""
    if not xml_safe(value):
        raise ValueError(f"not a character XML can hold: {value!r}")
    return value
