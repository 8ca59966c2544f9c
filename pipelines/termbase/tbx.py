"""TBX 2 (``<martif>``) termbases, read and written with translate-toolkit."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from lxml import etree
from translate.misc.xml_helpers import getXMLlang, parse_xml
from translate.storage import tbx

from .model import (
    LANG_TAG,
    WHITESPACE,
    FileTerms,
    Term,
    TermbaseError,
    check_new_forms,
    concept_id,
    normalize_lang,
)

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
_FOREIGN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_TIG_NAMES = frozenset({"tig", "ntig"})


def read_tbx(path: Path, data: bytes) -> FileTerms:
    try:
        store = tbx.tbxfile.parsestring(data)
    except etree.XMLSyntaxError as error:
        raise TermbaseError(f"{path}:{error.lineno}", f"not well-formed XML: {error.msg}") from None
    except AssertionError:  # translate-toolkit asserts what the root element is
        _check_tbx_root(path, parse_xml(data))
        raise TermbaseError(f"{path}:1", "not a TBX file translate-toolkit can read") from None
    _check_tbx_root(path, store.document.getroot())
    result = FileTerms()
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
    result: FileTerms,
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
        if not LANG_TAG.fullmatch(lang):
            raise TermbaseError(
                f"{path}:{langset.sourceline}", f"langSet without a valid xml:lang ({lang!r})"
            )
        in_langset: list[Term] = []
        for child in langset:
            if not isinstance(child.tag, str) or etree.QName(child).localname not in _TIG_NAMES:
                continue
            form, status, note, where = _read_tig(path, unit, child)
            check_new_forms(concept, lang, [form], where, seen_forms)
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
    form = WHITESPACE.sub(" ", _element_text(term)).strip() if term is not None else ""
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
