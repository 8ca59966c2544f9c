"""aligned.tmx: the aligned pairs as a TMX 1.4 translation memory, for CAT tools."""

from __future__ import annotations

import re
from pathlib import Path

from translate.storage import tmx

from ...tables import RunTables
from ...vocabulary import TRANSLATION_METHODS
from .. import writer

NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@writer("tmx", filename="aligned.tmx")
def write_tmx(run: RunTables, out: Path) -> Path:
    """Every source-translation pair the aligner found (untranslated and unmatched rulings
    are left out), written with translate-toolkit; each unit's id is the translation's
    ruling id and its note says how it was aligned."""
    memory = tmx.tmxfile(sourcelanguage=run.source_lang)
    by_id = run.by_id
    for row in run.alignment:
        if row.method not in TRANSLATION_METHODS or not row.source_id or not row.target_id:
            continue
        source, target = by_id[row.source_id], by_id[row.target_id]
        memory.addtranslation(
            _xml_text(source.text), run.source_lang, _xml_text(target.text), row.lang or ""
        )
        unit = memory.units[-1]
        unit.xmlelement.set("tuid", target.id)
        unit.addnote(f"{row.method} score={row.score:.4f} source={source.id}")
    path = out / "aligned.tmx"
    path.write_bytes(bytes(memory))
    return path


def _xml_text(text: str) -> str:
    """Text without the characters XML 1.0 cannot hold (control characters)."""
    return NOT_XML.sub("\ufffd", text)
