"""TMX 1.4 translation memories: one unit per ``<tu>``, in any number of languages.

The source variant (``<tuv>``) is the one in the header's ``srclang`` (for ``*all*`` or no
``srclang``, the default source language when the unit has it, else its first variant);
every other variant is a target in its language, each language a document of its own. A
unit's id is its ``tuid``, else its position (1-based); its notes and ``<prop>`` values are
its context. Inline codes (``<bpt>``, ``<ept>``, ``<ph>``, ``<it>``, ``<ut>``) become tokens
(see ``_bilingual``); translate-toolkit parses the file with its safe parser.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lxml import etree
from translate.storage import tmx

from ...vocabulary import DEFAULT_SOURCE_LANG
from ..source import SourceFile
from . import Output, reader
from ._bilingual import (
    Target,
    Unit,
    declared_lang,
    emit_units,
    inline_text,
    local_name,
    unique_keys,
    unit_problem,
    unreadable,
    xml_note_texts,
    xml_root,
)
from .xliff import entity_findings

FORMAT = "tmx"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def detect(doc: SourceFile) -> float:
    """An XML file whose root element is ``tmx``."""
    root = xml_root(doc)
    return 1.0 if root and root[0] == "tmx" else 0.0


@reader(FORMAT, detect=detect, priority=80)
def read_tmx(doc: SourceFile) -> Iterator[Output]:
    """One source row per ``<tu>`` and one target row per other language variant."""
    try:
        store, units, skipped = tmx_units(doc)
    except etree.XMLSyntaxError as error:
        line, column = error.position
        yield unreadable(doc, FORMAT, error.msg, line, column)
        return
    except Exception as error:  # a well-formed file translate-toolkit cannot take
        yield unreadable(doc, FORMAT, str(error) or f"not a complete {FORMAT} document")
        return
    yield from entity_findings(doc, store.document)
    for position, line in skipped:
        yield unit_problem(
            doc,
            FORMAT,
            line,
            "no source",
            f"Unit {position} of {doc.rel} has no variant with text; it was skipped.",
        )
    yield from unique_keys(units, doc, FORMAT)
    yield from emit_units(doc, FORMAT, units)


def tmx_units(doc: SourceFile) -> tuple[Any, list[Unit], list[tuple[int, int]]]:
    """The translate-toolkit store of a TMX file, its units (keys not yet made unique), each
    anchored to its ``<tu>``, and the (position, line) of the units without a variant with
    text. Raises what the parser raises for a file it cannot take."""
    with doc.open_binary() as handle:
        data = handle.read()
    store = tmx.tmxfile.parsestring(data)
    header = next((c for c in store.document.getroot() if local_name(c) == "header"), None)
    declared = header.get("srclang") if header is not None else None
    units, skipped = [], []
    for position, tt_unit in enumerate(store.units, 1):
        unit = _unit(tt_unit.xmlelement, position, declared)
        if unit is None:
            skipped.append((position, tt_unit.xmlelement.sourceline))
        else:
            units.append(unit)
    return store, units, skipped


def _lang(variant: Any) -> str | None:
    return variant.get(XML_LANG) or variant.get("lang")


def _unit(element: Any, position: int, declared: str | None) -> Unit | None:
    variants = []
    for variant in element:
        if local_name(variant) != "tuv":
            continue
        segment = next((c for c in variant if local_name(c) == "seg"), None)
        if segment is not None:
            variants.append((variant, segment))
    if not variants:
        return None
    wanted = declared_lang(declared) or DEFAULT_SOURCE_LANG
    source = next((v for v in variants if declared_lang(_lang(v[0])) == wanted), variants[0])
    notes = [c for c in element if local_name(c) in ("note", "prop")]
    notes += [c for v, _ in variants for c in v if local_name(c) in ("note", "prop")]
    return Unit(
        key=element.get("tuid") or str(position),
        source=inline_text(source[1]),
        source_line=source[1].sourceline,
        first_line=element.sourceline,
        source_lang=_lang(source[0]) or (declared if declared != "*all*" else None),
        targets=[
            Target(_lang(variant), inline_text(segment), segment.sourceline)
            for variant, segment in variants
            if variant is not source[0]
        ],
        context=xml_note_texts(notes),
        anchor=element,
    )
