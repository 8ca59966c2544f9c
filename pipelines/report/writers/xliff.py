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

import re
from collections import Counter, defaultdict
from pathlib import Path

from lxml import etree

from ...model import Finding, Ruling, id_order
from ...tables import RunTables
from ...text.inline import inline_codes
from ...vocabulary import BILINGUAL_SOURCE_SUFFIX as SOURCE_SUFFIX
from ...vocabulary import TRANSLATION_METHODS, DocKind, Method, Severity
from .. import writer

NAMESPACE = "urn:oasis:names:tc:xliff:document:1.2"
XLIFF = f"{{{NAMESPACE}}}"
NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
PRIORITY = {"error": "1", "warning": "5", "info": "9"}
STANDALONE = {"it": "x", "sc": "bx", "ec": "ex", "ut": "x"}
"""Standalone codes of other formats as XLIFF 1.2 writes them (others keep their name)."""
PAIRED = {"pc": "g"}
NEEDS_REVIEW = "needs-review-translation"


@writer("xliff", filename="findings.xlf")
def write_xliff(run: RunTables, out: Path) -> Path:
    """XLIFF 1.2 for CAT tools: every translated document's units with the findings as
    notes on them, units with errors marked needs-review-translation."""
    tables = _Tables(run)
    root = etree.Element(f"{XLIFF}xliff", nsmap={None: NAMESPACE}, version="1.2")
    for doc in sorted(tables.translated, key=id_order):
        members = tables.translated[doc]
        bilingual = any(m.counterpart for m in members)
        units = tables.bilingual_units(members) if bilingual else tables.plain_units(members)
        root.append(_file_element(doc, members, units, tables, run.source_lang))
    _indent(root)
    path = out / "findings.xlf"
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n")
    return path


class _Unit:
    def __init__(self, ident: str, source: Ruling | None, target: Ruling | None) -> None:
        self.ident, self.source, self.target = ident, source, target


class _Tables:
    """The run's tables indexed for the writer: documents, pairs, findings by unit."""

    def __init__(self, run: RunTables) -> None:
        self.by_id = run.by_id
        self.documents: dict[str, list[Ruling]] = defaultdict(list)
        for item in run.rulings:
            self.documents[item.doc].append(item)
        for members in self.documents.values():
            members.sort(key=lambda r: r.position)
        self.translated = {
            doc: members
            for doc, members in self.documents.items()
            if members[0].doc_kind == DocKind.TRANSLATION
        }
        self.targets_per_file = Counter(members[0].file for members in self.translated.values())
        self.source_of: dict[str, Ruling] = {}
        self.groups: dict[str, set] = defaultdict(set)
        self.missing: dict[tuple, list[str]] = defaultdict(list)
        owners: dict[tuple, str] = {}
        for row in run.alignment:
            target = self.by_id.get(row.target_id or "")
            if row.method == Method.NO_TRANSLATION and row.source_id:
                self.missing[(row.lang, row.group)].append(row.source_id)
            if target is None:
                continue
            self.groups[target.doc].add(row.group)
            if row.source_id and row.method in TRANSLATION_METHODS | {Method.UNTRANSLATED}:
                self.source_of[target.id] = self.by_id[row.source_id]
            key = (row.lang, row.group)
            if not target.counterpart and (
                key not in owners or id_order(target.doc) < id_order(owners[key])
            ):
                owners[key] = target.doc
        self.owners = owners
        self.by_target: dict[str, list[Finding]] = defaultdict(list)
        self.by_source: dict[tuple[str, str | None], list[Finding]] = defaultdict(list)
        self.by_document: dict[str, list[Finding]] = defaultdict(list)
        first_lines = {(r.file, r.line): r.doc for r in run.rulings if r.doc in self.translated}
        for finding in run.findings:
            ruling = self.by_id.get(finding.ruling_id or "")
            if ruling is not None and ruling.doc in self.translated:
                self.by_target[ruling.id].append(finding)
            elif ruling is not None:
                self.by_source[(ruling.id, finding.lang)].append(finding)
            elif (finding.file, finding.line) in first_lines:
                self.by_document[first_lines[(finding.file, finding.line)]].append(finding)

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
        units = [_Unit(m.id, self.source_of.get(m.id), m) for m in members]
        for group in sorted(self.groups[doc], key=lambda g: g or ""):
            if self.owners.get((lang, group)) == doc:
                units += [
                    _Unit(f"{source_id} ({lang})", self.by_id[source_id], None)
                    for source_id in self.missing.get((lang, group), [])
                ]
        return units


def _unit_id(source: Ruling) -> str:
    """``<file>#<unit id>/source[n]`` -> ``<unit id>[n]``."""
    ident = source.id[len(source.file) + 1 :]
    head, _, form = ident.rpartition(SOURCE_SUFFIX)
    return head + form


def _file_element(doc, members, units, tables: _Tables, source_lang: str):
    first = members[0]
    bilingual = any(m.counterpart for m in members)
    original = first.file if bilingual and tables.targets_per_file[first.file] == 1 else doc
    element = etree.Element(
        f"{XLIFF}file",
        original=_xml(original),
        datatype="plaintext",
    )
    element.set("source-language", source_lang)
    if first.doc_lang:
        element.set("target-language", first.doc_lang)
    header = etree.SubElement(element, f"{XLIFF}header")
    tool = etree.SubElement(header, f"{XLIFF}tool")
    tool.set("tool-id", "rulings")
    tool.set("tool-name", "rulings")
    for finding in _ordered(tables.by_document.get(doc, [])):
        _note(header, finding, "general")
    body = etree.SubElement(element, f"{XLIFF}body")
    for unit in units:
        body.append(_unit_element(unit, tables, first.doc_lang))
    return element


def _unit_element(unit: _Unit, tables: _Tables, lang: str | None):
    element = etree.Element(f"{XLIFF}trans-unit", id=_xml(unit.ident))
    source = etree.SubElement(element, f"{XLIFF}source")
    _fill(source, unit.source.text if unit.source else "")
    notes: list[tuple[Finding, str]] = []
    if unit.source is not None:
        notes += [(f, "general") for f in tables.by_source.get((unit.source.id, lang), [])]
    if unit.target is not None:
        target = etree.SubElement(element, f"{XLIFF}target")
        _fill(target, unit.target.text)
        notes += [(f, "target") for f in tables.by_target.get(unit.target.id, [])]
        if any(f.severity == Severity.ERROR for f, _ in notes):
            target.set("state", NEEDS_REVIEW)
        elif (state := _recorded_state(unit.target)) is not None:
            target.set("state", state)
    for finding, annotates in sorted(notes, key=lambda n: _finding_order(n[0])):
        _note(element, finding, annotates)
    return element


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
    return (Severity(finding.severity).rank, finding.code, finding.message, finding.fingerprint)


def _ordered(items: list[Finding]) -> list[Finding]:
    return sorted(items, key=_finding_order)


def _note(parent, finding: Finding, annotates: str) -> None:
    note = etree.SubElement(parent, f"{XLIFF}note")
    note.set("from", "rulings")
    note.set("priority", PRIORITY[finding.severity])
    note.set("annotates", annotates)
    note.text = _xml(note_text(finding))


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


def _indent(root, level: int = 0) -> None:
    """Line breaks and indentation between structural elements only (mixed content of
    source, target and note is left exactly as it is)."""
    if local(root) in ("source", "target", "note"):
        return
    children = list(root)
    if not children:
        return
    inner = "\n" + "  " * (level + 1)
    root.text = inner
    for child in children:
        _indent(child, level + 1)
        child.tail = inner
    children[-1].tail = "\n" + "  " * level


def local(element) -> str:
    return element.tag.rsplit("}", 1)[-1]
