"""The Dask engine gives byte-identical output to the local engine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import output_bytes, shared_path

from pipelines.cli import main

pytest.importorskip("distributed")
pytestmark = pytest.mark.model
"""Both engines run the whole pipeline, embedding included."""

STAGE_FILES = ["corpus.jsonl", "alignment.jsonl", "findings.jsonl", "parse-findings.jsonl"]


def run(inputs: list[Path], out: Path, cache: Path, *engine: str) -> None:
    args = ["run", *map(str, inputs), "--out", str(out), "--cache-dir", str(cache), *engine]
    done = CliRunner().invoke(main, args)
    assert done.exit_code in (0, 1), done.output


def assert_same_files(local: Path, distributed: Path) -> None:
    names = sorted(p.name for p in local.iterdir())
    assert names == sorted(p.name for p in distributed.iterdir())
    assert output_bytes(local) == output_bytes(distributed)


def test_dask_engine_matches_local_engine_on_the_seeds(tmp_path: Path, corpus_dir: Path):
    run([corpus_dir], tmp_path / "local", tmp_path / "cache-local")
    dask = ("--engine", "dask", "--workers", "2", "--worker-memory", "1GB")
    run([corpus_dir], tmp_path / "dask", tmp_path / "cache-dask", *dask)
    assert_same_files(tmp_path / "local", tmp_path / "dask")


@pytest.mark.shared
def test_dask_engine_matches_local_engine_on_the_cr_pair(tmp_path: Path):
    cr = shared_path("data", "cr")
    pair = tmp_path / "cr"
    pair.mkdir()
    for name in ("MagicCompRules_20231013_en.txt", "MagicCompRules_20231013_zh.txt"):
        os.symlink(cr / name, pair / name)
    cache = Path(os.environ["RULINGS_CACHE_DIR"])
    run([pair], tmp_path / "local", cache)
    run([pair], tmp_path / "dask", cache, "--engine", "dask")
    assert_same_files(tmp_path / "local", tmp_path / "dask")


def _die(item: int) -> int:
    os._exit(3)


def test_lost_workers_stop_the_run_with_one_clear_error():
    from pipelines.engine import EngineError, build_engine

    engine = build_engine("dask", workers=1, memory_limit="1GB")
    try:
        with pytest.raises(EngineError, match=r"workers were lost while running _die.*1GB"):
            engine.map(_die, [1])
    finally:
        engine.close()


def _fill_worker_state(item: int, context: dict) -> int:
    from pipelines import align

    align._WORLDS[item, item] = context  # what an alignment's world would hold
    return len(align._WORLDS)


def _worker_state() -> tuple[int, int]:
    from pipelines import align
    from pipelines.engine import dask

    return len(align._WORLDS), len(dask._CONTEXT)


def test_a_dask_worker_holds_no_stage_state_once_a_map_call_ends():
    """Each map call's context and the per-process caches the stages registered (the
    embedding model, the alignment's world) are dropped on every worker when the call ends:
    a worker holds one stage's state at a time."""
    from pipelines.engine import build_engine

    engine = build_engine("dask", workers=1, memory_limit="1GB")
    try:
        filled = engine.map(_fill_worker_state, [1, 2], shared={"corpus": [1]}, setup=dict)
        assert filled == [1, 2]
        assert list(engine._client.run(_worker_state).values()) == [(0, 0)]
    finally:
        engine.close()
