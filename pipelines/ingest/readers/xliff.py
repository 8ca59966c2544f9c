"""XLIFF 1.2 and 2.0/2.1 files from CAT tools (Trados, memoQ, Phrase, Okapi...).

Each ``<trans-unit>`` (1.2) or ``<segment>`` (2.x) is a unit; a 1.2 unit segmented in
``<seg-source>`` (Trados) gives one unit per ``<mrk mtype="seg">``, id ``<unit>::<mid>``, as
translate-toolkit names 2.x segments (``<unit>::<segment>``). The unit's ``resname`` or
``name``, its notes and an unfinished state (``needs-review-translation``, ``initial``)
are its context; units marked ``translate="no"`` are left out. Inline codes become tokens
(see ``_bilingual``). translate-toolkit parses the file with its safe parser: entities are
never expanded, no DTD or network is read, and a file that is not well-formed, nests too
deep or holds a text node too large is a parse finding (PARSE011).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lxml import etree
from translate.storage import xliff, xliff2

from ..source import SourceFile
from . import Output, reader
from ._bilingual import (
    Target,
    Unit,
    emit_units,
    inline_text,
    is_unfinished,
    local_name,
    unique_keys,
    unit_problem,
    unreadable,
    xml_note_texts,
    xml_root,
)

FORMAT = "xliff"
VERSION = re.compile(r"""\bversion\s*=\s*["']\s*(\d+)""")
XLIFF_2 = re.compile(r"urn:oasis:names:tc:xliff:document:2\.")
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def detect(doc: SourceFile) -> float:
    """An XML file whose root element is ``xliff``."""
    root = xml_root(doc)
    return 1.0 if root and root[0] == "xliff" else 0.0


def is_version_2(start_tag: str) -> bool:
    found = VERSION.search(start_tag)
    return bool(XLIFF_2.search(start_tag)) or bool(found and found.group(1) == "2")


@reader(FORMAT, detect=detect, priority=80)
def read_xliff(doc: SourceFile) -> Iterator[Output]:
    """One source and one target row per translation unit (segment) of an XLIFF file."""
    try:
        store, units = xliff_units(doc)
    except etree.XMLSyntaxError as error:
        line, column = error.position
        yield unreadable(doc, FORMAT, error.msg, line, column)
        return
    except Exception as error:  # a well-formed file translate-toolkit cannot take
        yield unreadable(doc, FORMAT, str(error) or f"not a complete {FORMAT} document")
        return
    yield from entity_findings(doc, store.document)
    yield from unique_keys(units, doc, FORMAT)
    titles = {hint for unit in units for hint in unit.hints[:1] if hint}
    yield from emit_units(doc, FORMAT, units, title=titles.pop() if len(titles) == 1 else None)


def xliff_units(doc: SourceFile) -> tuple[Any, list[Unit]]:
    """The translate-toolkit store of an XLIFF file and its units (keys not yet made unique:
    ``unique_keys``), each anchored to its elements in ``store.document``. Raises what the
    parser raises for a file it cannot take."""
    root = xml_root(doc)
    version_2 = bool(root and is_version_2(root[1]))
    with doc.open_binary() as handle:
        data = handle.read()
    store_class = xliff2.Xliff2File if version_2 else xliff.xlifffile
    store = store_class.parsestring(data)
    return store, list(_units_2(store) if version_2 else _units_1(store))


def entity_findings(doc: SourceFile, document: Any) -> Iterator[Output]:
    """One PARSE012 for a file that declares or uses entities: they are never expanded (an
    external entity could read local files, nested ones could blow up)."""
    dtd = document.docinfo.internalDTD
    declared = sorted(entity.name for entity in dtd.iterentities()) if dtd is not None else []
    used = sorted({node.text for node in document.getroot().iter(etree.Entity)})
    if declared or used:
        yield unit_problem(
            doc,
            FORMAT,
            1,
            "entities",
            f"{doc.rel} declares or uses XML entities ({', '.join(declared or used)[:200]}); "
            "they were not expanded and stay in the text as written.",
        )


def _child(element: Any, name: str) -> Any | None:
    return next((c for c in element if local_name(c) == name), None)


def _children(element: Any, name: str) -> list[Any]:
    return [c for c in element if local_name(c) == name]


def _ancestor(element: Any, name: str) -> Any | None:
    return next((a for a in element.iterancestors() if local_name(a) == name), None)


def _units_1(store: xliff.xlifffile) -> Iterator[Unit]:
    files = [f for f in store.document.getroot() if local_name(f) == "file"]
    number = {id(f): str(k) for k, f in enumerate(files, 1)}
    for tt_unit in store.units:
        element = tt_unit.xmlelement
        if element.get("translate") == "no":
            continue
        file_element = _ancestor(element, "file")
        source = _child(element, "source")
        if source is None or file_element is None:
            continue
        target = _child(element, "target")
        context = [element.get("resname") or ""]
        context += xml_note_texts(_children(element, "note"))
        state = target.get("state") if target is not None else None
        if is_unfinished(state):
            context.append(f"state: {state}")
        target_lang = (target.get(XML_LANG) if target is not None else None) or file_element.get(
            "target-language"
        )
        base = Unit(
            key=element.get("id") or str(element.sourceline),
            source="",
            source_line=source.sourceline,
            first_line=element.sourceline,
            source_lang=file_element.get("source-language"),
            context=context,
            part=number.get(id(file_element), "1"),
            hints=[_stem(file_element.get("original"))],
            anchor=(element, target),
        )
        segments = _segments(_child(element, "seg-source"))
        if not segments:
            base.source = inline_text(source)
            if target is not None:
                base.targets.append(Target(target_lang, inline_text(target), target.sourceline))
            yield base
            continue
        targets = {m.get("mid"): m for m in _segments(target)} if target is not None else {}
        for index, segment in enumerate(segments):
            mid = segment.get("mid") or str(index + 1)
            translated = targets.get(segment.get("mid"))
            yield Unit(
                key=f"{base.key}::{mid}",
                source=inline_text(segment),
                source_line=segment.sourceline,
                first_line=base.first_line if index == 0 else segment.sourceline,
                source_lang=base.source_lang,
                targets=[Target(target_lang, inline_text(translated), translated.sourceline)]
                if translated is not None
                else [],
                context=list(base.context),
                part=base.part,
                hints=base.hints,
                anchor=(element, translated),
            )


def _segments(element: Any | None) -> list[Any]:
    if element is None:
        return []
    return [m for m in element.iter() if local_name(m) == "mrk" and m.get("mtype") == "seg"]


def _units_2(store: xliff2.Xliff2File) -> Iterator[Unit]:
    root = store.document.getroot()
    files = [f for f in root if local_name(f) == "file"]
    for tt_unit in store.units:
        segment = tt_unit.xmlelement
        unit_element = segment.getparent()
        if unit_element is None or unit_element.get("translate") == "no":
            continue
        source = _child(segment, "source")
        if source is None:
            continue
        target = _child(segment, "target")
        file_element = _ancestor(segment, "file")
        notes = _child(unit_element, "notes")
        context = [unit_element.get("name") or ""]
        context += xml_note_texts(_children(notes, "note") if notes is not None else [])
        state = segment.get("state")
        if is_unfinished(state):
            context.append(f"state: {state}")
        first_segment = next(
            (c for c in unit_element if local_name(c) in ("segment", "ignorable")), segment
        )
        target_lang = (target.get(XML_LANG) if target is not None else None) or root.get("trgLang")
        yield Unit(
            key=tt_unit.getid() or str(segment.sourceline),
            source=inline_text(source),
            source_line=source.sourceline,
            first_line=unit_element.sourceline if first_segment is segment else segment.sourceline,
            source_lang=root.get("srcLang"),
            targets=[Target(target_lang, inline_text(target), target.sourceline)]
            if target is not None
            else [],
            context=context,
            part=(file_element.get("id") if file_element is not None else None)
            or str(files.index(file_element) + 1 if file_element in files else 1),
            hints=[_stem(file_element.get("original") if file_element is not None else None)],
            anchor=(unit_element, target, segment),
        )


def _stem(name: str | None) -> str:
    """A file name without folders and extension (``rulings/Hipergénesis.docx``)."""
    if not name:
        return ""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base
