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
from pathlib import Path

from translate.storage import tmx

from ...tables import RunTables
from ...vocabulary import TRANSLATION_METHODS, Severity
from .. import writer

NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
WARNINGS_PROPERTY = "x-rulings-warnings"


@writer("tmx", filename="aligned.tmx")
def write_tmx(run: RunTables, out: Path) -> Path:
    """Every source-translation pair the aligner found but those whose translation has an
    error finding (untranslated and unmatched rulings are left out too), written with
    translate-toolkit; each unit's id is the translation's ruling id, its note says how it
    was aligned, and a pair with warnings carries their codes in a property."""
    memory = tmx.tmxfile(sourcelanguage=run.source_lang)
    by_id = run.by_id
    severities: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for finding in run.findings:
        if finding.ruling_id:
            severities[finding.ruling_id][finding.severity].add(finding.code)
    for row in run.alignment:
        if row.method not in TRANSLATION_METHODS or not row.source_id or not row.target_id:
            continue
        found = severities.get(row.target_id, {})
        if found.get(Severity.ERROR) or row.superseded_by or row.release:
            continue
        source, target = by_id[row.source_id], by_id[row.target_id]
        memory.addtranslation(
            _xml_text(source.text), run.source_lang, _xml_text(target.text), row.lang or ""
        )
        unit = memory.units[-1]
        unit.xmlelement.set("tuid", target.id)
        unit.addnote(f"{row.method} score={row.score:.4f} source={source.id}")
        if found.get(Severity.WARNING):
            prop = unit.xmlelement.makeelement("prop", {"type": WARNINGS_PROPERTY})
            prop.text = " ".join(sorted(found[Severity.WARNING]))
            unit.xmlelement.insert(0, prop)
    path = out / "aligned.tmx"
    path.write_bytes(bytes(memory))
    return path


def _xml_text(text: str) -> str:
    """Text without the characters XML 1.0 cannot hold (control characters)."""
    return NOT_XML.sub("\ufffd", text)
