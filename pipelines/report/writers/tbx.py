"""termbase.tbx: the termbase the checks used, for translators' terminology tools."""

from __future__ import annotations

from pathlib import Path

from ...tables import RunTables
from ...termbase import Termbase
from .. import writer


@writer("tbx", filename="termbase.tbx", reads=())
def write_tbx(run: RunTables, out: Path) -> Path:
    """The shipped termbase plus any --termbase files, as TBX (translate-toolkit), with
    each term's status (preferred, admitted, deprecated, superseded) and notes."""
    termbase = run.termbase or Termbase.load(source_lang=run.source_lang)
    return termbase.to_tbx(out / "termbase.tbx")
