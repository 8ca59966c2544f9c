"""Where each unit of a bilingual CAT file is, for the report that writes the file back
with its findings (``report/writers/annotated.py``): stages hand each other tables, so the
positions go into the run's inputs table (``inputs.jsonl``), not the code that finds them.

An XML file's positions are elements by their index in document order (the n-th start tag
of the file): XLIFF 1.2 ``[trans-unit, target or the target's segment <mrk>]``, XLIFF 2.x
``[unit, target, segment]``, TMX ``[tu]`` (-1 where there is none). A PO entry's are its
first line and its msgid line. Every id of a unit's rows (its source, plural source and
target rows) maps to the unit's positions.
"""

from __future__ import annotations

from typing import Any

from ..source import SourceFile
from ._bilingual import Unit, unique_keys, unit_row_ids
from .po import po_units
from .tmx import tmx_units
from .xliff import xliff_units


def unit_anchors(doc: SourceFile, fmt: str) -> dict[str, Any]:
    """``{"variant": ..., "anchors": {row id: positions}}`` of a file the ``fmt`` reader
    read; empty when it cannot be read."""
    try:
        if fmt == "po":
            units = po_units(doc)
            return {
                "variant": "po",
                "anchors": _by_row(doc, units, lambda u: [u.first_line, u.source_line]),
            }
        if fmt == "xliff":
            store, units = xliff_units(doc)
        elif fmt == "tmx":
            store, units, _ = tmx_units(doc)
        else:
            return {}
    except Exception:  # what the reader reported as a parse finding
        return {}
    list(unique_keys(units, doc, fmt))
    order = {
        element: number
        for number, element in enumerate(
            e for e in store.document.getroot().iter() if isinstance(e.tag, str)
        )
    }

    def positions(unit: Unit) -> list[int]:
        anchor = unit.anchor if isinstance(unit.anchor, tuple) else (unit.anchor,)
        return [order.get(element, -1) if element is not None else -1 for element in anchor]

    variant = fmt
    if fmt == "xliff":
        variant = "xliff2" if units and len(units[0].anchor) == 3 else "xliff1"
    return {"variant": variant, "anchors": _by_row(doc, units, positions)}


def _by_row(doc: SourceFile, units: list[Unit], positions) -> dict[str, list[int]]:
    where = {id(unit): positions(unit) for unit in units}
    return {row_id: where[id(unit)] for row_id, unit in unit_row_ids(doc.rel, units).items()}
