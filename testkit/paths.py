"""Where the material is: ``../shared`` beside the repository (the MTGJSON set files and the
line-aligned Comprehensive Rules), the seed documents in ``corpus/``, and ``testkit/data/``
(parameters, word lists and catalogues, one JSON file per module; ``_comment`` in each says
what its entries are)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
CR, MTGJSON, SEEDS = SHARED / "data" / "cr", SHARED / "data" / "mtgjson", ROOT / "corpus"
CR_EN, CR_ZH = "MagicCompRules_20231013_en.txt", "MagicCompRules_20231013_zh.txt"
"""The line-aligned English and Chinese Comprehensive Rules (line N translates line N)."""
DATA = ROOT / "testkit" / "data"


@functools.cache
def data(name: str, folder: Path = DATA):
    """``FOLDER/NAME.json``, by default of ``testkit/data/`` (read once; not to be changed by
    its readers)."""
    return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))


def mtgjson(code: str, shared: Path = SHARED) -> dict:
    """The MTGJSON set file ``CODE.json`` of the shared data (``meta`` and ``data``)."""
    return json.loads((shared / "data" / "mtgjson" / f"{code}.json").read_text("utf-8"))
