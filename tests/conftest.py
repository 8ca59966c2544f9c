"""Shared fixtures: the seed corpus, the shared data folder (skipped when absent), tmp outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
SHARED = (ROOT / ".." / "shared").resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or a clean skip of the calling test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available (../shared is absent)")
    return path


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS
