"""What a stage lets go of when it ends, and the freed memory handed back to the system:
``rulings run`` holds every stage in one process, where the next stage otherwise started
at the last one's peak (benchmarks/results/work_layer.md: the million corpus)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pipelines import stages
from pipelines.heap import _malloc_trim
from pipelines.settings import Settings


def test_each_stage_hands_back_what_it_freed(tmp_path: Path, corpus_dir, monkeypatch):
    calls = []
    monkeypatch.setattr(stages, "give_back", lambda: calls.append("give_back"))
    ingested = stages.ingest_stage([corpus_dir], tmp_path, Settings(cache_dir=tmp_path / "c"))
    assert ingested.rulings and calls == ["give_back"]


FRAGMENTED_HEAP = textwrap.dedent(
    """
    import sys
    from pipelines.heap import give_back

    def resident_mb():
        with open("/proc/self/status") as status:
            line = next(line for line in status if line.startswith("VmRSS"))
        return int(line.split()[1]) / 1024

    blocks = [bytes(4000) + i.to_bytes(4, "little") for i in range(40_000)]
    kept = blocks[::8]  # one block in eight stays alive: the heap cannot shrink from its top
    del blocks
    before = resident_mb()
    give_back()
    print(before, resident_mb())
    """
)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_give_back_returns_the_pages_of_freed_blocks_among_live_ones():
    if _malloc_trim() is None:
        pytest.skip("not glibc: nothing to trim")
    done = subprocess.run(
        [sys.executable, "-c", FRAGMENTED_HEAP], capture_output=True, text=True, check=True
    )
    before, after = map(float, done.stdout.split())
    # 160 MB allocated, 140 MB of it freed between live blocks
    assert before - after > 100, (before, after)


def test_a_run_keeps_what_each_stage_leaves_out_of_the_collectors_walks(tmp_path: Path):
    """``rulings run`` collects the youngest generation less often while its stages run, and
    moves what each stage hands the next to the permanent generation (``gc.freeze``); once
    the run ends, the collector is as it was (the Python API's later collections)."""
    import gc

    from pipelines import heap, pipeline

    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "epochrasite.txt").write_text(
        "Epochrasite\n\n"
        "10/1/2007: If Epochrasite dies, its last ability triggers and it is exiled with "
        "three time counters on it.\n",
        encoding="utf-8",
    )
    before, seen = gc.get_threshold(), {}

    def after_ingest(ingested) -> None:
        seen.update(threshold=gc.get_threshold()[0], frozen=gc.get_freeze_count())

    result = pipeline.run(
        [folder],
        tmp_path / "out",
        Settings(cache_dir=tmp_path / "cache", engine="local"),
        on_ingested=after_ingest,
    )
    assert result.ingested.rulings
    assert seen["threshold"] >= heap.YOUNG_OBJECTS and seen["frozen"] > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
