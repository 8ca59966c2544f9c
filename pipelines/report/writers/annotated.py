"""findings-xliff/: each bilingual input back, annotated with its findings.

For every XLIFF 1.2, XLIFF 2.x, PO and TMX input, ``findings-xliff/<input path>`` (the path
relative to its INPUT root, the file name unchanged; PO and TMX files go to the same folder)
is the input's own bytes with only the tool's additions inserted (``report/splice.py``):
same version, namespaces, attributes, notes, CDATA, entities, inline codes. Each addition
says it is the tool's, so it can be told apart and removed again:

- XLIFF 1.2: a ``<note from="rulings">`` per finding in its ``<trans-unit>`` (after the
  unit's own notes, before any extension element), and ITS 2.0 Localization Quality Issue
  markup: a ``<mrk mtype="x-its">`` with ``its:locQualityIssueType``, ``…Comment`` and
  ``…Severity`` around the span of the target the finding points at, or else a standoff
  ``<its:locQualityIssues xml:id="rulings-lqi-N">`` at the end of the unit, referenced by
  ``its:locQualityIssuesRef`` on the ``<trans-unit>``. Findings about the whole file are
  notes in its ``<header>`` (when it has one).
- XLIFF 2.x: a ``<note category="rulings">`` per finding in the unit's ``<notes>`` (made
  where the unit has none), ITS markup on a ``<mrk id="rulings-N" type="its:generic">`` in the
  segment's target: around the span, else around the whole target (one finding: inline
  attributes; several: ``its:locQualityIssuesRef="#its=rulings-lqi-N"`` to a standoff
  ``<its:locQualityIssues>`` first in the unit). Findings about the file are notes in the
  file's ``<notes>``.
- PO: a translator comment ``# rulings: CODE severity: message [its:TYPE severity:N
  mqm:Category/severity]`` per finding, before the entry (file findings: before the first).
- TMX: a ``<prop type="x-rulings-finding">`` with the same text per finding on the
  ``<tu>`` (file findings: in the ``<header>``).

The ITS namespace is declared on the root (``xmlns:its``, ``its:version="2.0"``) when the
file did not declare it. States change only with ``--xliff-state needs-review-translation``:
a 1.2 unit with an error gets ``state="needs-review-translation"`` on its target; a 2.x
segment with an error, which has no such state, goes back to ``state="translated"`` (from
reviewed or final) with ``subState="rulings:needs-review-translation"``; a PO entry with an
error gets the ``fuzzy`` flag; TMX has no state. An input that changed since it was read is
not annotated (its findings would not fit it). The same tables and inputs give the same
bytes.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lxml import etree

from ...files import file_digest
from ...model import Finding, Ruling
from ...tables import RunTables
from ...vocabulary import Severity, severity_rank
from .. import rulings_by_id, writer
from ..splice import (
    Edits,
    Element,
    Scan,
    SpliceError,
    Text,
    escape_attribute,
    escape_text,
    run_text,
    scan_xml,
    xml_encoding,
)
from .xliff import note_text

FOLDER = "findings-xliff"
FORMATS = ("xliff", "po", "tmx")
ITS = "http://www.w3.org/2005/11/its"
XLIFF_1 = "urn:oasis:names:tc:xliff:document:1.2"
ITS_SEVERITY = {"error": 90, "warning": 50, "info": 10}
"""ITS 2.0 ``locQualityIssueSeverity`` (0..100) of each severity."""
PRIORITY = {"error": "1", "warning": "5", "info": "9"}
"""A note's ``priority`` (XLIFF 1.2 and 2.x: 1 highest .. 10)."""
NEEDS_REVIEW = "needs-review-translation"
CORE_1 = frozenset(
    {"source", "seg-source", "target", "context-group", "count-group", "prop-group"}
    | {"note", "alt-trans"}
)
"""The XLIFF 1.2 children of a ``<trans-unit>`` before which its notes may go (extension
elements come after them)."""
HEADER_1 = frozenset(
    {"skl", "phase-group", "glossary", "reference", "count-group", "prop-group", "note", "tool"}
)
CODE_TEXT = frozenset({"ph", "bpt", "ept", "it", "ut", "sub", "data", "originalData"})
"""Elements whose text is native code, not translation: never annotated."""


@writer("annotated", filename=FOLDER, cost=2)
def write_annotated(run: RunTables, out: Path) -> Path:
    """Each XLIFF, PO and TMX input back, with the findings as notes and ITS 2.0 quality
    markup on their units (findings-xliff/<input path>)."""
    folder = out / FOLDER
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    by_id = rulings_by_id(run)
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in run.findings:
        ruling = by_id.get(finding.ruling_id or "")
        name = ruling.file if ruling is not None else finding.file
        if name:
            by_file[name].append(finding)
    for entry in sorted(run.inputs, key=lambda e: e["file"]):
        if entry.get("format") not in FORMATS:
            continue
        target = _inside(folder, entry["file"])
        data = _unchanged_bytes(entry)
        if target is None or data is None:
            continue
        try:
            annotated = annotate(
                entry, data, by_file.get(entry["file"], []), by_id, state=run.xliff_state
            )
        except (SpliceError, etree.XMLSyntaxError, ValueError, IndexError, KeyError):
            continue  # a file this writer cannot take is left out, never half written
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(annotated)
    return folder


def _inside(folder: Path, name: str) -> Path | None:
    """Where the copy of input ``name`` goes; None for a name that would lead outside."""
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in ("/", "")]
    if not parts or any(p in (".", "..") for p in parts):
        return None
    return folder.joinpath(*parts)


def _unchanged_bytes(entry: dict[str, Any]) -> bytes | None:
    """The input's bytes, when they are still those the run read."""
    path = Path(entry["path"])
    try:
        if entry.get("digest") and file_digest(path) != entry["digest"]:
            return None
        return path.read_bytes()
    except OSError:
        return None


def annotate(
    entry: dict[str, Any],
    data: bytes,
    findings: list[Finding],
    by_id: dict[str, Ruling],
    *,
    state: str = "keep",
) -> bytes:
    """The input's bytes with its findings added (``entry``: its row in the inputs table,
    with where its units are)."""
    variant = entry.get("variant")
    placed = _place(entry.get("anchors") or {}, findings, by_id)
    if variant == "po":
        return _annotate_po(data, placed, state)
    text = Text.of(data, xml_encoding(data))
    tree = _Tree(data, scan_xml(text.text))
    if variant == "tmx":
        edits = _annotate_tmx(text, tree, placed)
    elif variant == "xliff2":
        edits = _Xliff2(text, tree, placed, state).edits()
    elif variant == "xliff1":
        edits = _Xliff1(text, tree, placed, state).edits()
    else:
        raise ValueError(f"no annotated copy for {variant!r}")
    return text.to_bytes(edits.apply(text.text)) if edits else data


def local_name(element: Any) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


# --- which finding is on which unit --------------------------------------------------------


@dataclass
class Placed:
    """A unit's findings, each with the ruling (row) it is on."""

    anchor: tuple[int, ...]
    """Where the unit is (``ingest/readers/_anchors.py``)."""
    findings: list[tuple[Finding, Ruling | None]] = field(default_factory=list)


@dataclass
class Placement:
    units: list[Placed]
    file: list[Finding]
    """Findings about the file, on no unit."""


def _place(
    anchors: dict[str, list[int]], findings: list[Finding], by_id: dict[str, Ruling]
) -> Placement:
    placed: dict[tuple[int, ...], Placed] = {}
    about_file = []
    for finding in sorted(findings, key=_finding_order):
        anchor = anchors.get(finding.ruling_id or "")
        if anchor is None:
            about_file.append(finding)
            continue
        entry = placed.setdefault(tuple(anchor), Placed(tuple(anchor)))
        entry.findings.append((finding, by_id.get(finding.ruling_id or "")))
    return Placement([placed[key] for key in sorted(placed)], about_file)


def _finding_order(finding: Finding) -> tuple:
    return (
        finding.ruling_id or "",
        severity_rank(finding.severity),
        finding.code,
        finding.message,
        finding.fingerprint,
    )


def its_severity(finding: Finding) -> int:
    return ITS_SEVERITY.get(finding.severity, 50)


def summary(finding: Finding) -> str:
    """``CODE severity: message (expected …) [its:TYPE severity:N mqm:Category/severity]``:
    a finding as one line of text (PO comments, TMX properties)."""
    mqm = finding.mqm or {}
    quality = f"its:{finding.its_type or 'other'} severity:{its_severity(finding)}"
    if mqm:
        quality += f" mqm:{mqm.get('category', 'Other')}/{mqm.get('severity', 'minor')}"
    return f"{_one_line(note_text(finding))} [{quality}]"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --- the parsed tree and the scanned text, side by side -------------------------------------


PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False, remove_blank_text=False
)
"""The file is parsed again to know its namespaces: safely (nothing read but its bytes)."""


class _Tree:
    """lxml's elements and the scanner's, by their common document order."""

    def __init__(self, data: bytes, scan: Scan) -> None:
        self.root = etree.fromstring(data, PARSER)
        self.scan = scan
        elements = [e for e in self.root.iter() if isinstance(e.tag, str)]
        if len(elements) != len(scan.elements):
            raise SpliceError("the scanner and the parser see different elements")
        self.index: dict[Any, int] = {}
        for number, (parsed, found) in enumerate(zip(elements, scan.elements, strict=True)):
            if local_name(parsed) != found.local:
                raise SpliceError(f"element {number}: {found.name} is {parsed.tag} to lxml")
            self.index[parsed] = number
        self.elements = elements

    def at(self, parsed: Any) -> Element:
        return self.scan.elements[self.index[parsed]]

    def element(self, number: int) -> Any | None:
        """The parsed element at an index in document order (None for -1)."""
        return self.elements[number] if number >= 0 else None

    def children(self, parsed: Any) -> list[Any]:
        return [c for c in parsed if isinstance(c.tag, str)]

    def namespace_prefix(self, uri: str) -> str | None:
        """The prefix the root binds to ``uri``."""
        return next((p for p, u in (self.root.nsmap or {}).items() if u == uri and p), None)

    def prefixes(self) -> set[str]:
        found: set[str] = set()
        for element in self.elements:
            found.update(p for p in (element.nsmap or {}) if p)
        return found

    def ids(self, attribute: str, under: Any | None = None) -> set[str]:
        top = self.root if under is None else under
        return {v for e in top.iter() if isinstance(e.tag, str) and (v := e.get(attribute))}


def _indent_before(text: str, scan: Scan, element: Element) -> str:
    """The whitespace before an element (after its previous sibling or its parent's start
    tag), "" when other text is there."""
    parent = scan.elements[element.parent] if element.parent >= 0 else None
    if parent is None:
        return ""
    previous_end = parent.start_end
    for child in parent.children:
        found = scan.elements[child]
        if found is element:
            break
        previous_end = found.end
    between = text[previous_end : element.start]
    return between if between.strip() == "" and "\n" in between else ""


def _first_indent(text: str, scan: Scan, parent: Element) -> str:
    """The whitespace before a parent's first child (the indentation of its children)."""
    if parent.children:
        return _indent_before(text, scan, scan.elements[parent.children[0]])
    return ""


# --- ITS markup, as text ---------------------------------------------------------------------


class _Its:
    """The ITS prefix to write, and whether its declaration must be added to the root."""

    def __init__(self, tree: _Tree) -> None:
        declared = tree.namespace_prefix(ITS)
        self.declared = declared is not None
        self.version = tree.root.get(f"{{{ITS}}}version") is not None
        if declared is not None:
            self.prefix = declared
        else:
            taken = tree.prefixes()
            self.prefix = next(p for p in ("its", "its2", "itsrulings") if p not in taken)
        self.used = False

    def attrs(self, finding: Finding) -> str:
        self.used = True
        p = self.prefix
        return (
            f' {p}:locQualityIssueType="{escape_attribute(finding.its_type or "other")}"'
            f' {p}:locQualityIssueComment="{escape_attribute(_one_line(note_text(finding)))}"'
            f' {p}:locQualityIssueSeverity="{its_severity(finding)}"'
        )

    def standoff(self, ident: str, findings: Iterable[Finding]) -> str:
        self.used = True
        p = self.prefix
        items = "".join(
            f'<{p}:locQualityIssue locQualityIssueType="{escape_attribute(f.its_type or "other")}"'
            f' locQualityIssueComment="{escape_attribute(_one_line(note_text(f)))}"'
            f' locQualityIssueSeverity="{its_severity(f)}"/>'
            for f in findings
        )
        return f'<{p}:locQualityIssues xml:id="{ident}">{items}</{p}:locQualityIssues>'

    def declare(self, edits: Edits, root: Element) -> None:
        if not self.used:
            return
        added = "" if self.declared else f' xmlns:{self.prefix}="{ITS}"'
        if not self.version:
            added += f' {self.prefix}:version="2.0"'
        if added:
            edits.insert(root.attribute_at, added)


class _Ids:
    """New ids that no element of the document (or unit) has."""

    def __init__(self, taken: set[str], stem: str) -> None:
        self.taken, self.stem, self.count = set(taken), stem, 0

    def next(self) -> str:
        while True:
            self.count += 1
            ident = f"{self.stem}{self.count}"
            if ident not in self.taken:
                self.taken.add(ident)
                return ident


# --- spans of a target ----------------------------------------------------------------------


def _target_span(
    text: Text, scan: Scan, container: Element, finding: Finding, ruling: Ruling | None
) -> tuple[int, int] | None:
    """The offsets of the span of the target the finding points at, within one text run of
    ``container`` (not in native code, not across markup); None when it has none or it
    cannot be found for sure."""
    if ruling is None or container.empty:
        return None
    mark = next((m for m in finding.marks if m.get("side") == "target"), None)
    if mark is None:
        return None
    start, end = int(mark.get("start", 0)), int(mark.get("end", 0))
    needle = ruling.text[start:end]
    if not needle.strip() or "<" in needle or ">" in needle:
        return None
    pattern = re.compile(r"\s+".join(re.escape(word) for word in needle.split()))
    occurrence = len(pattern.findall(ruling.text[:start]))
    if len(pattern.findall(ruling.text)) == 0:
        return None
    matches = []
    code_ranges = [
        (e.start_end, e.end_start)
        for e in scan.elements[container.index + 1 : container.last + 1]
        if e.local in CODE_TEXT
    ]
    for run in scan.runs_within(container.start_end, container.end_start):
        if any(a <= run.start and run.end <= b for a, b in code_ranges):
            continue
        decoded, offsets = run_text(text, run)
        matches += [(offsets[m.start()], offsets[m.end()]) for m in pattern.finditer(decoded)]
    if len(matches) != len(pattern.findall(ruling.text)) or occurrence >= len(matches):
        return None
    return matches[occurrence]


def _disjoint(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return all(span[1] <= a or b <= span[0] for a, b in spans)


# --- XLIFF 1.2 ------------------------------------------------------------------------------


class _Annotator:
    """What both XLIFF versions do: the findings of each unit placed on it (``_unit``), the
    file's own findings (``_file_notes``), and the ITS namespace declared where it is used."""

    def __init__(self, text: Text, tree: _Tree, placed: Placement, state: str) -> None:
        self.text, self.tree, self.placed, self.state = text, tree, placed, state
        self.its = _Its(tree)
        self.lqi = _Ids(tree.ids("{http://www.w3.org/XML/1998/namespace}id"), "rulings-lqi-")
        self.out = Edits(text)

    def edits(self) -> Edits:
        groups: dict[int, list[Placed]] = defaultdict(list)
        for entry in self.placed.units:
            groups[entry.anchor[0]].append(entry)
        for number, entries in groups.items():
            self._unit(self.tree.element(number), entries)
        self._file_notes()
        self.its.declare(self.out, self.tree.scan.elements[0])
        return self.out

    def _unit(self, unit_element: Any, entries: list[Placed]) -> None:
        raise NotImplementedError

    def _file_notes(self) -> None:
        raise NotImplementedError


class _Xliff1(_Annotator):
    def _unit(self, unit_element: Any, entries: list[Placed]) -> None:
        tree, text = self.tree, self.text.text
        scanned = tree.at(unit_element)
        prefix = scanned.prefix
        spans: list[tuple[int, int]] = []
        standoff: list[Finding] = []
        notes: list[str] = []
        errors = False
        for entry in entries:
            container = tree.element(entry.anchor[1])
            for finding, ruling in entry.findings:
                errors |= finding.severity == Severity.ERROR
                on_target = ruling is not None and ruling.counterpart is not None
                notes.append(
                    f'<{prefix}note from="rulings" priority="{PRIORITY[finding.severity]}"'
                    f' annotates="{"target" if on_target else "general"}">'
                    f"{escape_text(note_text(finding))}</{prefix}note>"
                )
                span = None
                if container is not None and on_target:
                    span = _target_span(self.text, tree.scan, tree.at(container), finding, ruling)
                if span is not None and _disjoint(span, spans):
                    spans.append(span)
                    self.out.insert(
                        span[0], f'<{prefix}mrk mtype="x-its"{self.its.attrs(finding)}>', 3
                    )
                    self.out.insert(span[1], f"</{prefix}mrk>", 0)
                else:
                    standoff.append(finding)
        children = tree.children(unit_element)
        core = [
            c
            for c in children
            if etree.QName(c).namespace in (XLIFF_1, None) and local_name(c) in CORE_1
        ]
        after = tree.at(core[-1] if core else children[-1])
        indent = _indent_before(text, tree.scan, after)
        self.out.insert(after.end, "".join(indent + note for note in notes))
        if standoff and scanned.attribute(f"{self.its.prefix}:locQualityIssuesRef") is None:
            ident = self.lqi.next()
            last = tree.at(children[-1])
            self.out.insert(last.end, indent + self.its.standoff(ident, standoff))
            self.out.insert(
                scanned.attribute_at, f' {self.its.prefix}:locQualityIssuesRef="#{ident}"'
            )
        if errors and self.state == NEEDS_REVIEW:
            target = next((c for c in children if local_name(c) == "target"), None)
            if target is not None:
                _set_attribute(self.out, tree.at(target), "state", NEEDS_REVIEW)

    def _file_notes(self) -> None:
        if not self.placed.file:
            return
        root = self.tree.root
        first = next((c for c in root if local_name(c) == "file"), None)
        header = (
            next((c for c in first if local_name(c) == "header"), None)
            if first is not None
            else None
        )
        if header is None:
            return
        scanned = self.tree.at(header)
        prefix = scanned.prefix
        notes = [
            f'<{prefix}note from="rulings" priority="{PRIORITY[f.severity]}">'
            f"{escape_text(note_text(f))}</{prefix}note>"
            for f in self.placed.file
        ]
        _add_children(self.out, self.text.text, self.tree, header, HEADER_1, notes)


def _add_children(
    edits: Edits, text: str, tree: _Tree, parent: Any, before_others: frozenset, items: list[str]
) -> None:
    """Elements added after the parent's last child named in ``before_others`` (or after its
    start tag), each on a line of its own where the children are on lines of their own; an
    empty element ``<x/>`` is opened."""
    scanned = tree.at(parent)
    children = [c for c in tree.children(parent) if local_name(c) in before_others]
    if children:
        after = tree.at(children[-1])
        indent = _indent_before(text, tree.scan, after)
        edits.insert(after.end, "".join(indent + item for item in items))
    elif scanned.empty:
        edits.replace(
            scanned.start_end - 2, scanned.start_end, ">" + "".join(items) + f"</{scanned.name}>"
        )
    else:
        indent = _first_indent(text, tree.scan, scanned)
        edits.insert(scanned.start_end, "".join(indent + item for item in items))


def _set_attribute(edits: Edits, element: Element, name: str, value: str) -> None:
    found = element.attribute(name)
    if found is None:
        edits.insert(element.attribute_at, f' {name}="{escape_attribute(value)}"')
    elif found.value != value:
        edits.replace(found.start, found.end, escape_attribute(value))


# --- XLIFF 2.x ------------------------------------------------------------------------------


class _Xliff2(_Annotator):
    def _unit(self, unit_element: Any, entries: list[Placed]) -> None:
        tree, text = self.tree, self.text.text
        scanned = tree.at(unit_element)
        prefix = scanned.prefix
        mrk_ids = _Ids(tree.ids("id", unit_element), "rulings-")
        notes: list[str] = []
        standoffs: list[str] = []
        for entry in entries:
            target, segment = tree.element(entry.anchor[1]), tree.element(entry.anchor[2])
            container = tree.at(target) if target is not None else None
            spans: list[tuple[int, int]] = []
            rest: list[Finding] = []
            errors = False
            for finding, ruling in entry.findings:
                errors |= finding.severity == Severity.ERROR
                on_target = ruling is not None and ruling.counterpart is not None
                applies = ' appliesTo="target"' if on_target else ""
                notes.append(
                    f'<{prefix}note category="rulings" priority="{PRIORITY[finding.severity]}"'
                    f"{applies}>{escape_text(note_text(finding))}</{prefix}note>"
                )
                span = None
                if container is not None and on_target:
                    span = _target_span(self.text, tree.scan, container, finding, ruling)
                if span is not None and _disjoint(span, spans):
                    spans.append(span)
                    self.out.insert(
                        span[0],
                        f'<{prefix}mrk id="{mrk_ids.next()}" type="its:generic"'
                        f"{self.its.attrs(finding)}>",
                        3,
                    )
                    self.out.insert(span[1], f"</{prefix}mrk>", 0)
                else:
                    rest.append(finding)
            if rest:
                standoff = self._whole_target(container, rest, prefix, mrk_ids)
                if standoff:
                    standoffs.append(standoff)
            if errors and self.state == NEEDS_REVIEW and segment is not None:
                self._needs_review(tree.at(segment))
        if standoffs:
            indent = _first_indent(text, tree.scan, scanned)
            self.out.insert(scanned.start_end, "".join(indent + s for s in standoffs), 1)
        self._notes(unit_element, notes)

    def _whole_target(
        self, container: Element | None, findings: list[Finding], prefix: str, ids: _Ids
    ) -> str:
        """ITS markup for findings on no span: a ``<mrk>`` around the whole target (inline
        for one finding, a reference to a standoff list for several). Returns the standoff
        list to put in the unit ("" when none)."""
        has_content = (
            container is not None
            and not container.empty
            and (container.end_start > container.start_end)
        )
        if has_content and len(findings) == 1:
            opening = (
                f'<{prefix}mrk id="{ids.next()}" type="its:generic"{self.its.attrs(findings[0])}>'
            )
            self.out.insert(container.start_end, opening, 2)
            self.out.insert(container.end_start, f"</{prefix}mrk>", 1)
            return ""
        ident = self.lqi.next()
        if has_content:
            opening = (
                f'<{prefix}mrk id="{ids.next()}" type="its:generic"'
                f' {self.its.prefix}:locQualityIssuesRef="#its={ident}">'
            )
            self.out.insert(container.start_end, opening, 2)
            self.out.insert(container.end_start, f"</{prefix}mrk>", 1)
        return self.its.standoff(ident, findings)

    def _needs_review(self, segment: Element) -> None:
        state = segment.attribute("state")
        value = state.value if state is not None else "initial"
        if value in ("reviewed", "final"):
            _set_attribute(self.out, segment, "state", "translated")
        elif value != "translated":
            return  # a draft: it is still to be translated, nothing to review
        _set_attribute(self.out, segment, "subState", f"rulings:{NEEDS_REVIEW}")

    def _notes(self, owner: Any, notes: list[str]) -> None:
        """Notes into the owner's ``<notes>`` (made, in its place, when it has none)."""
        if not notes:
            return
        tree, text = self.tree, self.text.text
        children = tree.children(owner)
        existing = next((c for c in children if local_name(c) == "notes"), None)
        if existing is not None:
            _add_children(self.out, text, tree, existing, frozenset({"note"}), notes)
            return
        scanned = tree.at(owner)
        prefix = scanned.prefix
        leading = []
        for child in children:
            core = etree.QName(child).namespace == etree.QName(owner).namespace
            if core and local_name(child) != "skeleton":
                break
            leading.append(child)
        if leading:
            after = tree.at(leading[-1])
            indent = _indent_before(text, tree.scan, after)
            at = after.end
        else:
            indent = _first_indent(text, tree.scan, scanned)
            at = scanned.start_end
        inner = indent + "  " if indent else ""
        block = (
            f"{indent}<{prefix}notes>"
            + "".join(inner + note for note in notes)
            + f"{indent}</{prefix}notes>"
        )
        self.out.insert(at, block, 6)

    def _file_notes(self) -> None:
        if not self.placed.file:
            return
        first = next((c for c in self.tree.root if local_name(c) == "file"), None)
        if first is None:
            return
        prefix = self.tree.at(first).prefix
        self._notes(
            first,
            [
                f'<{prefix}note category="rulings" priority="{PRIORITY[f.severity]}">'
                f"{escape_text(note_text(f))}</{prefix}note>"
                for f in self.placed.file
            ],
        )


# --- TMX ------------------------------------------------------------------------------------


def _annotate_tmx(text: Text, tree: _Tree, placed: Placement) -> Edits:
    edits = Edits(text)
    for entry in placed.units:
        unit = tree.element(entry.anchor[0])
        props = [_prop(tree.at(unit), f) for f, _ in entry.findings]
        _add_children(edits, text.text, tree, unit, frozenset({"note", "prop"}), props)
    header = next((c for c in tree.root if local_name(c) == "header"), None)
    if placed.file and header is not None:
        props = [_prop(tree.at(header), f) for f in placed.file]
        _add_children(edits, text.text, tree, header, frozenset({"note", "prop", "ude"}), props)
    return edits


def _prop(owner: Element, finding: Finding) -> str:
    prefix = owner.prefix
    return f'<{prefix}prop type="x-rulings-finding">{escape_text(summary(finding))}</{prefix}prop>'


# --- PO -------------------------------------------------------------------------------------

NEWLINE = re.compile(r"\r\n|\r|\n")
CHARSET = re.compile(rb"charset\s*=\s*([\w.:-]+)", re.I)
PO_LEAD = re.compile(r"^(?:#\||msgctxt\s|msgid\s)")


def _annotate_po(data: bytes, placed: Placement, state: str) -> bytes:
    charset = CHARSET.search(data[:4000])
    text = Text.of(data, charset.group(1).decode("ascii") if charset else None)
    starts = [0] + [m.end() for m in NEWLINE.finditer(text.text)]
    first_end = NEWLINE.search(text.text)
    newline = first_end.group(0) if first_end else "\n"
    edits = Edits(text)

    def comments(items: Iterable[Finding]) -> str:
        return "".join(f"# rulings: {summary(f)}" + newline for f in items)

    if placed.file:
        edits.insert(0, comments(placed.file))
    for entry in placed.units:
        line = entry.anchor[0]
        if not 1 <= line <= len(starts):
            continue
        edits.insert(starts[line - 1], comments(f for f, _ in entry.findings))
        errors = any(f.severity == Severity.ERROR for f, _ in entry.findings)
        if errors and state == NEEDS_REVIEW:
            _fuzzy(edits, text.text, starts, line, entry.anchor[1], newline)
    return text.to_bytes(edits.apply(text.text)) if edits else data


def _fuzzy(edits: Edits, text: str, starts: list[int], first: int, msgid: int, nl: str) -> None:
    """The ``fuzzy`` flag on the entry whose lines are ``first`` .. ``msgid``."""
    for number in range(first, min(msgid, len(starts)) + 1):
        line = text[starts[number - 1] : (starts[number] if number < len(starts) else len(text))]
        content = line.rstrip("\r\n")
        if content.startswith("#,"):
            if "fuzzy" not in [flag.strip() for flag in content[2:].split(",")]:
                edits.insert(starts[number - 1] + len(content), ", fuzzy")
            return
        if PO_LEAD.match(content):
            edits.insert(starts[number - 1], "#, fuzzy" + nl)
            return
