"""Fault injection in CI: a few runs killed, interrupted and run two at a time, damaged caches,
a read-only output folder and a full disk (testkit.faults; benchmarks/faults.py records a
larger run's figures in benchmarks/results/faults.md). After each fault the output folder
holds one complete run, byte for byte that of a clean run, and the next run gives a clean
run's bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from testkit import faults

pytestmark = pytest.mark.model


def test_every_fault_leaves_one_complete_run(tmp_path: Path) -> None:
    warm = os.environ.get("RULINGS_CACHE_DIR")
    figures = faults.run(
        8,
        seed=16,
        follow_every=4,
        work=tmp_path,
        warm_cache=Path(warm) if warm else None,
    )
    assert figures["problems"] == []
    assert figures["mixes_found"] == 0
    assert set(figures["faults"]) == set(faults.KINDS)
    assert figures["outputs_checked"] >= 9
