"""Fault injection in CI: a few runs killed, interrupted and run two at a time, damaged caches,
a read-only output folder and a full disk (testkit.faults; benchmarks/faults.py records a
larger run's figures in benchmarks/results/faults.md). After each fault the output folder
holds one complete run, byte for byte that of a clean run, and the next run gives a clean
run's bytes.

Then the hostile battery, one test per case (``testkit.faults.HOSTILE``): same-named inputs,
cache entries copied across keys, FIFOs and streams, a closed stdout, NUL bytes, hidden
files, and the messages of a missing Dask, a full stdout and a read-only output folder.
Every line of every input is accounted for in the outputs, and every command ends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testkit import faults

pytestmark = pytest.mark.model


def _warm_cache() -> Path | None:
    warm = os.environ.get("RULINGS_CACHE_DIR")
    return Path(warm) if warm else None


def test_every_fault_leaves_one_complete_run(tmp_path: Path) -> None:
    figures = faults.run(
        8,
        seed=16,
        follow_every=4,
        work=tmp_path,
        warm_cache=_warm_cache(),
    )
    assert figures["problems"] == []
    assert figures["mixes_found"] == 0
    assert set(figures["faults"]) == set(faults.KINDS)
    assert figures["outputs_checked"] >= 9


@pytest.mark.parametrize("kind", faults.HOSTILE)
def test_hostile_input_loses_nothing(tmp_path: Path, kind: str) -> None:
    figures = faults.battery([kind], work=tmp_path, warm_cache=_warm_cache())
    problems = [f"{c['detail']}: {c['problems']}" for c in figures["cases"] if not c["survived"]]
    assert problems == []
    assert figures["data_lost"] == 0
    assert figures["cases_tried"] == figures["cases_survived"] >= 1
