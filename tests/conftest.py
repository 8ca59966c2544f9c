"""Shared fixtures: the seed corpus, the shared data folder (skipped when absent), tmp outputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
SHARED = (ROOT / ".." / "shared").resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def output_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under an output folder (report folders such as findings-xliff/ included)
    by its path in the folder, with its bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


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
def termbase():
    """The shipped termbase, loaded once per test session (read, never changed)."""
    from pipelines.termbase import Termbase

    return Termbase.load()


@pytest.fixture(scope="session")
def cards():
    """The shipped card-name index, built once per test session (read, never changed)."""
    from pipelines.cards import CardIndex

    return CardIndex.build([])


@pytest.fixture(scope="session")
def seed_run_result(tmp_path_factory: pytest.TempPathFactory):
    """The whole pipeline on the default corpus, once per test session (loads the model):
    the output folder and the command's result (exit code, stdout, stderr)."""
    from click.testing import CliRunner

    from pipelines.cli import main

    out = tmp_path_factory.mktemp("seed-run")
    result = CliRunner().invoke(main, ["run", str(CORPUS), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output
    return out, result


@pytest.fixture(scope="session")
def seed_run(seed_run_result) -> Path:
    """The output folder of the whole pipeline on the default corpus (``seed_run_result``)."""
    return seed_run_result[0]


_thorough = [True]


def examples(count: int) -> int:
    """How many examples a property test tries: ``count`` in the whole suite and in CI, a
    twentieth of it (at least 5) in the fast loop (``-m "not model ..."``), which runs on
    every change; CI runs them all."""
    return count if _thorough[0] else max(5, count // 20)


def pytest_configure(config: pytest.Config) -> None:
    """One embedding cache for the whole test session, never the user's own cache: the
    Comprehensive Rules are embedded once however many tests read them. The fast loop tries
    fewer examples per property test (``examples``)."""
    import os
    import tempfile

    fast = "not model" in (config.getoption("markexpr", "") or "")
    _thorough[0] = os.environ.get("CI") == "true" or not fast

    if "RULINGS_CACHE_DIR" not in os.environ:
        os.environ["RULINGS_CACHE_DIR"] = tempfile.mkdtemp(prefix="rulings-test-cache-")
    _guard_the_model()


# --- the model only in tests marked `model` ---------------------------------------------------

_unmarked: list[str] = []
"""The test running now when it is not marked ``model`` (its node id), else empty."""


def _guard_the_model() -> None:
    """A real embedding model (the bundled one, or sentence-transformers) encodes only in a
    test marked ``model``: the fast loop (``-m "not model and not browser"``) stays fast, and
    a test that starts loading it (a whole pipeline, a CLI run) fails until it is marked.
    Checked in this process (the Dask engine's workers are other processes: its tests are
    marked anyway)."""
    from pipelines.align.embed.st import SentenceTransformerEmbedder
    from pipelines.align.embed.usem3 import UniversalSentenceEncoder

    for embedder in (UniversalSentenceEncoder, SentenceTransformerEmbedder):
        encode = embedder.encode
        if getattr(encode, "guarded", False):
            continue

        def guarded(self, texts, _encode=encode):
            if _unmarked and texts:
                pytest.fail(
                    f"{_unmarked[0]} encodes with the embedding model: mark it "
                    "@pytest.mark.model (or give it a fake embedder)",
                    pytrace=False,
                )
            return _encode(self, texts)

        guarded.guarded = True
        embedder.encode = guarded


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture of the test is set up (a session fixture such as ``seed_run`` is
    set up for the first test that asks for it, and must be marked as that test is)."""
    _unmarked.clear()
    if item.get_closest_marker("model") is None:
        _unmarked.append(item.nodeid)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast loop (``-m "not model and not browser"``, outside CI) leaves out the tests
    marked ``slow`` too: it is what runs on every change, in seconds. ``pytest`` (and CI,
    and any other selection) runs them."""
    if _thorough[0]:
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def pytest_runtest_teardown(item: pytest.Item) -> None:
    _unmarked.clear()
