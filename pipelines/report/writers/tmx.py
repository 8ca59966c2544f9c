"""aligned.tmx: the aligned pairs as a TMX 1.4 translation memory, for CAT tools.

A pair whose translation has an error finding is left out: a CAT tool that imports the
memory would offer the wrong translation again; so is a pair whose English has changed
since (reworded or removed): the memory holds the current pairs only. A pair with warnings
is kept, with the codes in a ``x-rulings-warnings`` property, so a translator sees it needs
review.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from translate.storage import tmx
from translate.storage.lisa import DEFAULT_LANGUAGE_VARIANTS, normalize_language

from ...tables import RunTables
from ...vocabulary import TRANSLATION_METHODS, Severity
from .. import rulings_by_id, writer
from ..markup import attribute, text, xml_safe

NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
WARNINGS_PROPERTY = "x-rulings-warnings"


@writer("tmx", filename="aligned.tmx", cost=6, reads=("rulings", "alignment", "findings"))
def write_tmx(run: RunTables, out: Path) -> Path:
    """Every source-translation pair the aligner found but those whose translation has an
    error finding (untranslated and unmatched rulings are left out too), written with
    translate-toolkit; each unit's id is the translation's ruling id, its note says how it
    was aligned, and a pair with warnings carries their codes in a property."""
    units = _units(run)
    path = out / "aligned.tmx"
    if _plain(units, run.source_lang):
        with path.open("wb") as handle:
            handle.writelines(_as_text(units, run.source_lang))
    else:
        path.write_bytes(_with_translate_toolkit(units, run.source_lang))
    return path


class _Unit(NamedTuple):
    tuid: str
    source: str
    target: str
    lang: str
    note: str
    warnings: str
    """The codes of the translation's warnings, or empty."""


def _units(run: RunTables) -> list[_Unit]:
    by_id = rulings_by_id(run)
    severities: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for finding in run.findings:
        if finding.ruling_id:
            severities[finding.ruling_id][finding.severity].add(finding.code)
    units = []
    for row in run.alignment:
        if row.method not in TRANSLATION_METHODS or not row.source_id or not row.target_id:
            continue
        found = severities.get(row.target_id, {})
        if found.get(Severity.ERROR) or row.superseded_by or row.release:
            continue
        source, target = by_id[row.source_id], by_id[row.target_id]
        warnings = found.get(Severity.WARNING)
        units.append(
            _Unit(
                target.id,
                _xml_text(source.text),
                _xml_text(target.text),
                row.lang or "",
                f"{row.method} score={row.score:.4f} source={source.id}",
                " ".join(sorted(warnings)) if warnings else "",
            )
        )
    return units


def _with_translate_toolkit(units: list[_Unit], source_lang: str) -> bytes:
    """The memory built unit by unit with translate-toolkit."""
    memory = tmx.tmxfile(sourcelanguage=source_lang)
    for unit in units:
        memory.addtranslation(unit.source, source_lang, unit.target, unit.lang)
        element = memory.units[-1].xmlelement
        element.set("tuid", unit.tuid)
        memory.units[-1].addnote(unit.note)
        if unit.warnings:
            prop = element.makeelement("prop", {"type": WARNINGS_PROPERTY})
            prop.text = unit.warnings
            element.insert(0, prop)
    return bytes(memory)


# --- the memory as text ----------------------------------------------------------------------
#
# Building a translate-toolkit unit (an lxml element with language lookups) per pair took
# most of the writer's time on a large run. When every pair has two distinct languages and
# nothing XML cannot hold, the memory is written as text (``report/markup.py``):
# translate-toolkit's empty memory (its header) with the units as translate-toolkit builds
# them and lxml's pretty printer lays them out (``tests/test_report_equivalence.py``
# compares the bytes). Anything else goes through translate-toolkit.


def _plain(units: list[_Unit], source_lang: str) -> bool:
    """Whether translate-toolkit gives each pair a variant per language, in this order (both
    languages named, and the translation's neither the source's, as it compares them, nor
    its default regional variant), and lxml takes every value as it is."""
    langs = {unit.lang for unit in units}
    if not source_lang or not all(langs) or not xml_safe(source_lang + "".join(langs)):
        return False
    source = normalize_language(source_lang)
    for lang in langs:
        target = normalize_language(lang)
        if target == source or DEFAULT_LANGUAGE_VARIANTS.get(target) == source:
            return False
    return all(xml_safe(unit.tuid + unit.note + unit.warnings) for unit in units)


def _as_text(units: list[_Unit], source_lang: str) -> Iterator[bytes]:
    """The memory translate-toolkit would write, in parts of a thousand units (a large
    memory is never in memory whole)."""
    empty = bytes(tmx.tmxfile(sourcelanguage=source_lang))
    if not units:
        yield empty
        return
    head, body, tail = empty.partition(b"<body/>")
    if not body:
        raise ValueError("translate-toolkit's empty memory has no <body/>")
    unit_start = f'    <tu srclang="{attribute(source_lang)}" tuid="'
    source_start = f'\n      <tuv xml:lang="{attribute(source_lang)}">\n        <seg>'
    yield head + b"<body>\n"
    parts: list[str] = []
    for number, unit in enumerate(units, 1):
        parts.append(unit_start + attribute(unit.tuid) + '">')
        if unit.warnings:
            parts.append(f'\n      <prop type="{WARNINGS_PROPERTY}">{text(unit.warnings)}</prop>')
        parts.append(f"\n      <note>{text(unit.note.strip())}</note>")
        parts.append(source_start + text(unit.source))
        parts.append(f'</seg>\n      </tuv>\n      <tuv xml:lang="{attribute(unit.lang)}">')
        parts.append(f"\n        <seg>{text(unit.target)}</seg>\n      </tuv>\n    </tu>\n")
        if number % 1000 == 0:
            yield "".join(parts).encode("utf-8")
            parts = []
    yield "".join(parts).encode("utf-8") + b"  </body>" + tail


def _xml_text(value: str) -> str:
    """Text without the characters XML 1.0 cannot hold (control characters)."""
    return NOT_XML.sub("\ufffd", value)
