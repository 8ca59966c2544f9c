"""rulings: a translation-consistency checker for Magic: The Gathering rulings and rules text.

The Python API is ``load(OUT)``: the tables of a run as pandas DataFrames (``pipelines.api``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import Tables

__version__ = "0.2.0"
__all__ = ["__version__", "load"]


def load(out: str | Path) -> Tables:
    """The tables of the run in output folder ``out`` as pandas DataFrames: ``corpus``,
    ``alignment``, ``findings`` and ``review`` (findings joined with their texts). pandas is
    imported only here, not by the command line."""
    from .api import load as load_tables

    return load_tables(out)
