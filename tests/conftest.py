"""Shared fixtures: the seed corpus, the shared data folder (skipped when absent), tmp outputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
SHARED = (ROOT / ".." / "shared").resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


PROGRESS = re.compile(r"^rulings: (?:ingest|align|check|report): .*\n", re.MULTILINE)


def said(stderr: str) -> str:
    """What a command said on stderr besides its progress lines (a stage's start, end and
    progress, printed where there is no terminal): its errors and notes."""
    return PROGRESS.sub("", stderr)


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or a clean skip of the calling test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available (../shared is absent)")
    return path


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    return CORPUS


@pytest.fixture(scope="session")
def seed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The whole pipeline on the default corpus, once per test session (loads the model)."""
    from click.testing import CliRunner

    from pipelines.cli import main

    out = tmp_path_factory.mktemp("seed-run")
    result = CliRunner().invoke(main, ["run", str(CORPUS), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output
    return out


def pytest_configure(config: pytest.Config) -> None:
    """One embedding cache for the whole test session, never the user's own cache: the
    Comprehensive Rules are embedded once however many tests read them."""
    import os
    import tempfile

    if "RULINGS_CACHE_DIR" not in os.environ:
        os.environ["RULINGS_CACHE_DIR"] = tempfile.mkdtemp(prefix="rulings-test-cache-")
