"""The corpus generator (testkit.corpus): deterministic, and read by ingest without parse
problems."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_path

from pipelines.ingest import ingest
from testkit import corpus

pytestmark = pytest.mark.shared


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory):
    shared = shared_path("data")
    if not corpus.available(shared.parent):
        pytest.skip(f"the parallel material under {shared} is incomplete")
    first = tmp_path_factory.mktemp("corpus-a")
    second = tmp_path_factory.mktemp("corpus-b")
    summary = corpus.generate(first, rulings=300, seed=7, shared=shared.parent)
    corpus.generate(second, rulings=300, seed=7, shared=shared.parent)
    return first, second, summary


def test_same_seed_same_bytes(generated):
    first, second, summary = generated
    files = _files(first)
    assert files == _files(second)
    assert len(files) == sum(summary.files.values())
    assert 0.95 * 300 <= summary.total < 400  # drift drops a few of the planned rulings


def test_three_languages_in_real_layouts(generated):
    first, _, summary = generated
    assert {path.split("/")[0] for path in _files(first)} == {"en", "es", "zh"}
    for lang in ("en", "es", "zh"):
        assert summary.total / 5 < summary.rulings[lang] < summary.total / 2


def test_ingest_reads_it_without_parse_findings(generated):
    first, _, summary = generated
    result = ingest([first])
    assert {r.doc_lang for r in result.rulings} >= {"en", "es", "zh"}
    assert {r.format for r in result.rulings} <= {"mtgjson", "plain-dated", "plain-block"}
    assert len(result.rulings) == summary.total
    assert [f for f in result.findings if f.category == "parse"] == []
    english = [r for r in result.rulings if r.format == "mtgjson"]
    assert len(english) == summary.rulings["en"]
    assert all(r.card for r in result.rulings)
