"""rulings: a translation-consistency checker for Magic: The Gathering rulings and rules text.

The Python API is ``load(OUT)``: the tables of a run as pandas DataFrames (``pipelines.api``).
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import Tables


def _version() -> str:
    """The installed package's version (pyproject.toml is its one source); from a source
    tree that is not installed, the version its pyproject.toml says."""
    try:
        return metadata.version("rulings")
    except metadata.PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"


__version__ = _version()
__all__ = ["__version__", "load"]


def load(out: str | Path) -> Tables:
    """The tables of the run in output folder ``out`` as pandas DataFrames: ``corpus``,
    ``alignment``, ``findings`` and ``review`` (findings joined with their texts). pandas is
    imported only here, not by the command line."""
    from .api import load as load_tables

    return load_tables(out)
