"""Gettext PO and POT files: one unit per entry (the header and obsolete ``#~`` entries
are not units).

An entry's id is its ``msgctxt`` when every entry has a different one, else its position
(1-based). Its context is the msgctxt, the extracted and translator comments and ``fuzzy``
when flagged (a fuzzy translation is checked like any other: it is what the translator
will confirm). Plural entries give one target row per ``msgstr[n]`` (``<id>[n]``, the first
form ``<id>``), forms after the first paired with ``msgid_plural``. The target language is
the header's ``Language``; the source language is ``X-Source-Language`` or the default.
translate-toolkit parses the file; a syntax error is a parse finding (PARSE011).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from translate.storage import po
from translate.storage.poparser import PoParseError

from ...vocabulary import DEFAULT_SOURCE_LANG
from ..source import SourceFile
from . import Output, reader
from ._bilingual import Target, Unit, emit_units, unreadable

FORMAT = "po"
PO_LINE = re.compile(r'^\s*(?:#.*|(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+".*|".*)$')
MSGID = re.compile(r'^(?:#~\s*)?msgid\s+"')
MSGSTR = re.compile(r'^(?:#~\s*)?msgstr(?:\[(\d+)\])?\s+"')
ENTRY_LEAD = re.compile(r'^(?:#|msgctxt\s|")')
MIN_SHARE = 0.9


def detect(doc: SourceFile) -> float:
    """Lines in PO syntax only (comments, keywords with quoted strings), with msgid and
    msgstr."""
    if doc.is_json or doc.encoding is None:
        return 0.0
    lines = [line for line in doc.lines if line.strip()]
    if not lines or not any(MSGID.match(line) for line in lines):
        return 0.0
    if not any(MSGSTR.match(line) for line in lines):
        return 0.0
    share = sum(1 for line in lines if PO_LINE.match(line)) / len(lines)
    return 0.98 if share >= MIN_SHARE else 0.0


@reader(FORMAT, detect=detect, priority=80, ceiling=0.98)
def read_po(doc: SourceFile) -> Iterator[Output]:
    """One source row per entry and one target row per translated form."""
    try:
        units = po_units(doc)
    except PoParseError as error:
        yield unreadable(doc, FORMAT, str(error), _error_line(error))
        return
    except Exception as error:  # a file translate-toolkit cannot take
        yield unreadable(doc, FORMAT, str(error) or "not a complete PO file")
        return
    yield from emit_units(doc, FORMAT, units)


def po_units(doc: SourceFile) -> list[Unit]:
    """The entries of a PO file as units (each with its first line). Raises what the parser
    raises for a file it cannot take."""
    with doc.open_binary() as handle:
        data = handle.read()
    store = po.pofile.parsestring(data)
    header = store.parseheader()
    target_lang = header.get("Language") or None
    source_lang = header.get("X-Source-Language") or DEFAULT_SOURCE_LANG
    entries = [u for u in store.units if not u.isheader()]
    lines = _entry_lines(doc.lines, len(store.units))
    offset = len(store.units) - len(entries)
    contexts = [u.getcontext() for u in entries if not u.isobsolete()]
    by_context = all(contexts) and len(set(contexts)) == len(contexts)
    units = []
    position = 0
    for index, entry in enumerate(entries):
        if entry.isobsolete():
            continue
        position += 1
        first, msgid, msgstrs = lines[index + offset] if lines else (1, 1, {})
        key = entry.getcontext() if by_context else str(position)
        unit = Unit(
            key=key,
            source=_singular(entry.source),
            source_line=msgid,
            first_line=first,
            source_lang=source_lang,
            context=_context(entry),
        )
        if entry.hasplural():
            unit.plural_source = _plural(entry.source)
            forms = list(entry.target.strings) if entry.target else []
        else:
            forms = [entry.target or ""]
        unit.targets = [
            Target(target_lang, text, msgstrs.get(form, msgid), form)
            for form, text in enumerate(forms)
        ]
        units.append(unit)
    return units


def _singular(text) -> str:
    strings = getattr(text, "strings", None)
    return str(strings[0]) if strings else str(text or "")


def _plural(text) -> str | None:
    strings = getattr(text, "strings", None)
    return str(strings[1]) if strings and len(strings) > 1 else None


def _context(entry) -> list[str]:
    parts = [entry.getcontext() or ""]
    parts += [" ".join(entry.getnotes("developer").split())]
    parts += [" ".join(entry.getnotes("translator").split())]
    if entry.isfuzzy():
        parts.append("fuzzy")
    return parts


def _entry_lines(lines: list[str], count: int) -> list[tuple[int, int, dict[int, int]]]:
    """Per entry (header and obsolete ones included, in order): its first line (leading
    comments and msgctxt), its msgid line and its msgstr lines by form; empty when the
    entries cannot be told apart."""
    found = []
    for number, line in enumerate(lines, 1):
        if MSGID.match(line):
            first = number
            while first > 1 and lines[first - 2].strip() and ENTRY_LEAD.match(lines[first - 2]):
                first -= 1
            found.append((first, number, {}))
        elif (match := MSGSTR.match(line)) and found:
            found[-1][2].setdefault(int(match.group(1) or 0), number)
    return found if len(found) == count else []


def _error_line(error: PoParseError) -> int | None:
    found = re.search(r"on line (\d+)", str(error))
    return int(found.group(1)) if found else None
