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


@pytest.mark.model
def test_a_large_run_hands_the_checks_the_card_index_ingest_made(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """In ``rulings run``, ingest hands the later stages its card names only as cards.jsonl,
    and their index as it is: the checks of a large run, as of a small one, neither read it
    back nor build it again, and find what a small run finds. (The corpus is small: it is
    taken for a large one.)"""
    from pipelines import pipeline, tables

    settings = Settings(cache_dir=tmp_path / "cache", engine="local")
    small = pipeline.run([corpus_dir], tmp_path / "small", settings)
    assert small.ingested.index is not None and small.ingested.card_names is None
    assert small.ingested.name_lines is None  # written to cards.jsonl, let go

    monkeypatch.setattr(tables, "SHARED_FROM_BYTES", 0)
    made_again: list[bool] = []
    card_index = stages._card_index
    monkeypatch.setattr(
        stages, "_card_index", lambda *args: made_again.append(True) or card_index(*args)
    )
    large = pipeline.run([corpus_dir], tmp_path / "large", settings, force=True)

    assert large.ingested.index is not None and made_again == []
    for name in ("findings.jsonl", "suppressed.jsonl", "alignment.jsonl"):
        assert (tmp_path / "large" / name).read_bytes() == (tmp_path / "small" / name).read_bytes()


@pytest.mark.model
def test_checks_handed_no_card_index_build_it_from_the_card_names_table(tmp_path: Path, corpus_dir):
    """The check stage handed no index (``rulings check`` on an output folder) builds it
    from cards.jsonl: the same findings as with ingest's."""
    from dataclasses import replace

    out, settings = tmp_path / "out", Settings(cache_dir=None)
    ingested = stages.ingest_stage([corpus_dir], out, settings)
    alignment = stages.align_stage(out, settings)
    resources = stages.Resources.load(settings)
    kept = stages.check_stage(out, settings, resources, ingested=ingested, alignment=alignment)
    without = replace(ingested, card_names=None, index=None)
    again = stages.check_stage(out, settings, resources, ingested=without, alignment=alignment)
    assert again.findings == kept.findings and again.suppressed == kept.suppressed


@pytest.mark.model
def test_the_align_stage_lets_the_model_go_once_the_vectors_exist(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """The alignment reads only the vectors: the embedder is let go (and the memory handed
    back) as soon as they are computed, not when the stage ends."""
    import weakref

    settings = Settings(cache_dir=tmp_path / "cache")
    stages.ingest_stage([corpus_dir], tmp_path / "out", settings)
    built, alive_while_aligning = [], []
    build, align = stages.build_embedder, stages.align

    def building(*args, **kwargs):
        embedder = build(*args, **kwargs)
        built.append(weakref.ref(embedder))
        return embedder

    def aligning(rulings, encode, **options):
        vectors = encode([r.text for r in rulings[:3]])
        alive_while_aligning.extend(ref() is not None for ref in built)
        assert len(vectors) == 3
        return align(rulings, encode, **options)

    monkeypatch.setattr(stages, "build_embedder", building)
    monkeypatch.setattr(stages, "align", aligning)
    assert stages.align_stage(tmp_path / "out", settings)
    assert alive_while_aligning == [False]


def test_what_a_pause_of_the_collector_built_is_frozen_inside_a_run_only():
    """Records built with the collector paused (``tables.paused_gc``: a stage's records read
    back) would be walked by the first collection after it; inside a run they go to the
    permanent generation when the pause ends, elsewhere (the API, a Dask worker) they stay
    in the collector's reach."""
    import gc

    from pipelines import heap
    from pipelines.tables import paused_gc

    gc.unfreeze()
    with paused_gc():
        outside = [[n] for n in range(1000)]
    assert gc.get_freeze_count() == 0 and gc.is_tracked(outside[0])
    with heap.stages_in_one_process():
        with paused_gc():
            inside = [[n] for n in range(1000)]
        frozen = gc.get_freeze_count()
        young = len(gc.get_objects(generation=0))
    assert frozen >= len(inside) and young < len(inside)
    assert gc.get_freeze_count() == 0
