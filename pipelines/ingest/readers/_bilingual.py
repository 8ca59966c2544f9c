"""What the bilingual CAT readers share (XLIFF, TMX, PO): units -> source and target rows.

Every translation unit gives two rows:

- the source row: ``id "<file>#<unit id>/source"``, document ``<file>#source``, language
  the file's declared source language;
- the target row: ``id "<file>#<unit id>"`` (``"<file>#<unit id>/<lang>"`` when one file
  holds several target languages, a TMX), document ``<file>#<target lang>``, ``counterpart``
  the source row's id; its own language is identified from its text like any ruling's
  (untranslated and mixed text must show), within the declared document language.

A plural entry (PO) gives one row per form: ``<unit id>[1]``... pointing at the plural
source ``<unit id>/source[1]``. A unit whose target is empty gives only its source row (the
aligner reports it as not translated). Both rows carry the unit's ``context`` (resname,
notes, msgctxt, an unfinished state) and the card, rule number and date it names.

Inline codes of the CAT format stay in the text as visible, tag-like tokens, so that every
check, the HTML page and the XLIFF report see them where they stand:

- ``<x1/>``, ``<ph2/>``, ``<bx3/>``, ``<ex3/>``, ``<it4/>``, ``<bpt5/>``, ``<ept5/>``,
  ``<sc6/>``, ``<ec6/>``, ``<ut7/>``: a standalone code (its native markup is left out);
- ``<g1>…</g1>``, ``<pc1>…</pc1>``, ``<mrk1>…</mrk1>``: a paired code around text (a
  ``mrk`` only when it protects its text: ``mtype="protected"``, ``translate="no"``; other
  markers, such as comments and terms, are transparent).

The token is the element's name then its id (``id``, or TMX's ``i``/``x``; the n-th of its
kind when it has none), letters, digits and ``_`` only. Mana symbols keep their own ``{X}``
notation, and printf (``%s``) or brace (``{0}``) placeholders are text as written: the
placeholder checks compare all of them. ``INLINE_TOKEN`` reads the tokens back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ...cards import CardIndex
from ...catalogue import make_finding
from ...model import Finding, Ruling
from ...text import dates
from ...text.inline import (
    PAIRED_KINDS,
    STANDALONE_KINDS,
    closing,
    code_id,
    opening,
    standalone,
)
from ...text.scripts import script_profile, weighted_letters
from ...vocabulary import BILINGUAL_SOURCE_SUFFIX, base_lang, is_cjk
from ..languages import SHORT_TEXT_LETTERS
from ..source import SourceFile
from . import Output
from ._common import normalize

RULE_NUMBER = re.compile(r"(?<![\d.])(\d{3}\.\d+[a-z]?)(?![\d])")
CONTEXT_SEPARATORS = re.compile(r"\s*(?:[|/#:;,\n\t]|\s[-–—]\s)\s*")
SOURCE_SUFFIX = BILINGUAL_SOURCE_SUFFIX
UNFINISHED_STATES = frozenset(
    {"new", "needs-translation", "needs-l10n", "needs-adaptation", "initial", "fuzzy"}
    | {"needs-review-translation", "needs-review-l10n", "needs-review-adaptation"}
)
"""States that say a target is a draft: kept in the unit's context."""


# --- units -------------------------------------------------------------------------------


@dataclass
class Target:
    lang: str | None
    text: str
    line: int
    form: int = 0
    """Plural form (PO): 0 for the singular or the only form."""


@dataclass
class Unit:
    """One translation unit as a reader found it."""

    key: str
    """The unit's id within the file (unique)."""
    source: str
    source_line: int
    first_line: int
    """The line where the unit's markup starts (its opening tag, its first comment)."""
    source_lang: str | None
    targets: list[Target] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    """Resname or msgctxt, notes, an unfinished state: what the file says about the unit."""
    part: str = ""
    """The part of the file the unit belongs to (a ``<file>`` of a multi-file XLIFF)."""
    plural_source: str | None = None
    """The plural source text (PO ``msgid_plural``), for targets of form 1 and above."""
    hints: list[str] = field(default_factory=list)
    """More places that may name the unit's card (a file's ``original`` name), not context."""
    anchor: Any = None
    """Where the unit is in the file's parsed tree (its elements), for the writer that puts
    the findings back into a copy of the file (``report/writers/annotated.py``)."""


def unique_keys(units: list[Unit], doc: SourceFile, fmt: str) -> Iterator[Finding]:
    """Make unit keys unique (a repeated id gets ``~2``, ``~3``), reporting each repeat."""
    seen: dict[tuple[str, str], int] = {}
    for unit in units:
        key = (unit.part, unit.key)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            yield make_finding(
                "PARSE012",
                f"Unit id \u201c{unit.key}\u201d is used more than once in {doc.rel}; this "
                f"unit is read as \u201c{unit.key}~{seen[key]}\u201d.",
                file=doc.rel,
                line=unit.first_line,
                evidence={"format": fmt, "problem": "repeated id", "id": unit.key},
            )
            unit.key = f"{unit.key}~{seen[key]}"


def emit_units(
    doc: SourceFile, fmt: str, units: list[Unit], *, title: str | None = None
) -> Iterator[Output]:
    """The source and target rows of the units, every input line accounted for: a unit's
    rows cover its lines up to the next unit; lines before the first unit are carried by
    it."""
    units = sorted(units, key=lambda u: (u.first_line, u.source_line))
    if not units:
        yield no_units(doc, fmt)
        return
    target_langs = {t.lang for unit in units for t in unit.targets}
    parts = {unit.part for unit in units}
    last_line = max(len(doc.lines), units[-1].source_line)
    positions: dict[str, int] = {}
    for index, unit in enumerate(units):
        end = units[index + 1].first_line - 1 if index + 1 < len(units) else last_line
        end = max(end, unit.source_line)
        carried = list(range(unit.first_line, unit.source_line))
        if index == 0:
            carried = list(range(1, unit.source_line))
        yield from _unit_rows(
            doc, fmt, unit, title, end, carried, len(target_langs) > 1, len(parts) > 1, positions
        )


def _unit_rows(
    doc: SourceFile,
    fmt: str,
    unit: Unit,
    title: str | None,
    end: int,
    carried: list[int],
    several_langs: bool,
    several_parts: bool,
    positions: dict[str, int],
) -> Iterator[Ruling]:
    prefix = row_prefix(doc.rel, unit, several_parts)
    card, section, date_raw = _unit_facts(unit, title)
    context = " | ".join(part for part in unit.context if part) or None
    source_lang = declared_lang(unit.source_lang)
    sources: dict[int, Ruling] = {}
    plural_forms = any(t.form > 0 for t in unit.targets)
    texts = [(0, unit.source)]
    if unit.plural_source is not None and plural_forms:
        texts.append((1, unit.plural_source))
    for form, text in texts:
        doc_id = f"{prefix}source"
        row = _row(
            doc,
            fmt,
            source_row_id(prefix, unit.key, form),
            unit.source_line,
            text,
            doc_id=doc_id,
            position=_next(positions, doc_id),
            title=title,
            card=card,
            section=section,
            date_raw=date_raw,
            context=context,
        )
        row.end_line = end
        row.doc_lang = row.lang = source_lang
        if form == 0:
            row.carried = [
                {"line": n, "text": normalize(doc.lines[n - 1])}
                for n in carried
                if n <= len(doc.lines) and doc.lines[n - 1].strip()
            ]
        sources[form] = row
        yield row
    for target in unit.targets:
        text = normalize(target.text)
        if not text:
            continue
        doc_id = f"{prefix}{target.lang or 'target'}"
        row = _row(
            doc,
            fmt,
            target_row_id(prefix, unit.key, target, several_langs),
            target.line,
            text,
            doc_id=doc_id,
            position=_next(positions, doc_id),
            title=title,
            card=card,
            section=section,
            date_raw=date_raw,
            context=context,
        )
        row.end_line = target.line + target.text.count("\n")
        row.doc_lang = declared_lang(target.lang)
        row.lang = _known_language(text, row.doc_lang)
        row.counterpart = sources[min(target.form, max(sources))].id
        yield row


def row_prefix(rel: str, unit: Unit, several_parts: bool) -> str:
    """``<file>#`` (``<file>#<part>/`` when the file has several parts): what the ids of a
    unit's rows start with."""
    return f"{rel}#{unit.part + '/' if several_parts else ''}"


def source_row_id(prefix: str, key: str, form: int = 0) -> str:
    return f"{prefix}{key}{SOURCE_SUFFIX}{f'[{form}]' if form else ''}"


def target_row_id(prefix: str, key: str, target: Target, several_langs: bool) -> str:
    lang_part = f"/{target.lang}" if several_langs else ""
    return f"{prefix}{key}{lang_part}{f'[{target.form}]' if target.form else ''}"


def unit_row_ids(rel: str, units: list[Unit]) -> dict[str, Unit]:
    """Every id a unit's rows can have (its source, plural source and target rows, as
    ``emit_units`` names them) -> the unit."""
    several_langs = len({t.lang for unit in units for t in unit.targets}) > 1
    several_parts = len({unit.part for unit in units}) > 1
    found: dict[str, Unit] = {}
    for unit in units:
        prefix = row_prefix(rel, unit, several_parts)
        found[source_row_id(prefix, unit.key)] = unit
        found[source_row_id(prefix, unit.key, 1)] = unit
        for target in unit.targets:
            found[target_row_id(prefix, unit.key, target, several_langs)] = unit
    return found


def declared_lang(code: str | None) -> str | None:
    """The base language of a declared code: ``es-ES``, ``zh_CN``, ``EN`` -> es, zh, en."""
    base = base_lang((code or "").replace("_", "-").strip())
    return base if base.isalpha() else None


def _next(positions: dict[str, int], doc_id: str) -> int:
    positions[doc_id] = positions.get(doc_id, -1) + 1
    return positions[doc_id]


def _row(
    doc: SourceFile,
    fmt: str,
    ident: str,
    line: int,
    text: str,
    *,
    doc_id: str,
    position: int,
    title: str | None,
    card: str | None,
    section: str | None,
    date_raw: str | None,
    context: str | None,
) -> Ruling:
    return Ruling(
        id=ident,
        file=doc.rel,
        line=line,
        format=fmt,
        doc_title=title,
        card=card,
        section=section,
        doc_lang=None,
        lang=None,
        spans=[],
        date=None,
        date_raw=date_raw,
        text=normalize(text),
        doc=doc_id,
        kind="unit",
        end_line=line,
        position=position,
        context=context,
    )


def _known_language(text: str, doc_lang: str | None) -> str | None:
    """The declared language for a text too short to identify in the declared script (a
    card name, "Sí."), as the language identification would defer it to its document; None
    (identify it) otherwise."""
    if doc_lang is None:
        return None
    letters = weighted_letters(text)
    if letters == 0:
        return doc_lang
    han = bool(script_profile(text).get("han"))
    return doc_lang if han == is_cjk(doc_lang) and letters < SHORT_TEXT_LETTERS else None


# --- what a unit's id, context and notes say ---------------------------------------------


@cache
def shipped_cards() -> CardIndex:
    """The card names the package ships (the input's own card data comes later, in ingest)."""
    return CardIndex.build([])


def _unit_facts(unit: Unit, title: str | None) -> tuple[str | None, str | None, str | None]:
    """(card, rule number, date as written) named by the unit's id, context or file part."""
    places = [unit.key, *unit.context]
    section = next((m.group(1) for p in places if p and (m := RULE_NUMBER.search(p))), None)
    found = next((d for p in unit.context if p and (d := dates.search(p))), None)
    card = None
    if section is None:
        card = card_named(places + unit.hints + ([title] if title else []))
    return card, section, found.raw if found else None


def card_named(places: Iterable[str]) -> str | None:
    """The one card a place names (whole, or a piece of it between separators), else the
    one card its text mentions."""
    index = shipped_cards()
    texts = [p for p in places if p]
    for text in texts:
        for piece in [text, *CONTEXT_SEPARATORS.split(text)]:
            cards = {card for card, _ in index.lookup(piece.strip())} if piece.strip() else set()
            if len(cards) == 1:
                return cards.pop()
    mentioned = {m.card for text in texts for m in index.mentions(text)}
    return mentioned.pop() if len(mentioned) == 1 else None


# --- findings ----------------------------------------------------------------------------


def all_lines(doc: SourceFile) -> list[int]:
    return [n for n, line in enumerate(doc.lines, 1) if line.strip()]


def unreadable(
    doc: SourceFile, fmt: str, error: str, line: int | None = None, column: int | None = None
) -> Finding:
    """PARSE011: the file cannot be parsed; it accounts for every line of the file."""
    message = " ".join(str(error).split())[:300]
    lines = all_lines(doc)
    if line is not None and lines and line > lines[-1]:
        line, column = lines[-1], None
    where = f" at line {line}" + (f", column {column}" if column else "") if line else ""
    return make_finding(
        "PARSE011",
        f"{doc.rel} cannot be read as {fmt}{where}: {message}",
        file=doc.rel,
        line=line,
        evidence={
            "format": fmt,
            "error": message,
            "line": line,
            "column": column,
            "lines": lines,
        },
    )


def no_units(doc: SourceFile, fmt: str) -> Finding:
    return make_finding(
        "PARSE012",
        f"{doc.rel} is a {fmt} file with no translation unit to check.",
        file=doc.rel,
        evidence={"format": fmt, "problem": "no units", "lines": all_lines(doc)},
    )


def unit_problem(doc: SourceFile, fmt: str, line: int | None, problem: str, message: str):
    return make_finding(
        "PARSE012",
        message,
        file=doc.rel,
        line=line,
        evidence={"format": fmt, "problem": problem},
    )


# --- detection ---------------------------------------------------------------------------

XML_PROLOG = re.compile(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>", re.S)
XML_ROOT = re.compile(r"<(?:[\w.-]+:)?(?P<name>[\w.-]+)")


def xml_root(doc: SourceFile) -> tuple[str, str] | None:
    """(root element name, text of the start tag) of an XML file, from its first bytes."""
    if doc.encoding is None or doc.is_json:
        return None
    head = doc.head.decode(doc.encoding, errors="ignore").lstrip("\ufeff \t\r\n")
    if not head.startswith("<"):
        return None
    rest = XML_PROLOG.sub(" ", head).lstrip()
    match = XML_ROOT.match(rest)
    if not match:
        return None
    end = rest.find(">", match.end())
    return match["name"].lower(), rest[: end + 1 if end >= 0 else len(rest)]


def local_name(element: Any) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def is_unfinished(state: str | None) -> bool:
    return bool(state) and state in UNFINISHED_STATES


# --- XML inline content ------------------------------------------------------------------

TRANSPARENT = frozenset({"hi", "seg"})
DROPPED = frozenset({"sm", "em", "sub"})


def inline_text(element: Any) -> str:
    """The text of a ``source``, ``target`` or ``seg`` element with its inline codes as
    tokens; entity references stay as written (``&name;``), never expanded."""
    from lxml import etree

    parts: list[str] = []
    counters: dict[str, int] = {}

    def ident(node: Any, kind: str) -> str:
        counters[kind] = counters.get(kind, 0) + 1
        value = node.get("id") or node.get("startRef") or node.get("mid")
        value = value or node.get("i") or node.get("x")
        return code_id(value, counters[kind])

    def walk(node: Any) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if isinstance(child, etree._Entity):
                parts.append(child.text)
            elif isinstance(child.tag, str):
                visit(child)
            if child.tail:
                parts.append(child.tail)

    def visit(child: Any) -> None:
        name = local_name(child)
        if name in STANDALONE_KINDS:
            parts.append(standalone(name, ident(child, name)))
        elif name == "cp":
            parts.append(_code_point(child.get("hex")))
        elif name in DROPPED:
            return
        elif name in PAIRED_KINDS and (name != "mrk" or _protects(child)):
            key = ident(child, name)
            parts.append(opening(name, key))
            walk(child)
            parts.append(closing(name, key))
        else:
            walk(child)

    walk(element)
    return "".join(parts)


def _protects(marker: Any) -> bool:
    """A ``mrk`` whose text must stay as it is (a code, not an annotation)."""
    return marker.get("mtype") == "protected" or marker.get("translate") == "no"


def _code_point(value: str | None) -> str:
    try:
        return chr(int(value or "", 16))
    except (ValueError, OverflowError):
        return "\ufffd"


def xml_note_texts(elements: Iterable[Any]) -> list[str]:
    """Notes as one-line texts (entity references kept as written)."""
    texts = []
    for element in elements:
        text = normalize(inline_text(element))
        if text:
            texts.append(text)
    return texts
