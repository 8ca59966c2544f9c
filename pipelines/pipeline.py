"""A whole run: the stages in order, into an output folder that always holds one complete run.

``run`` is what ``rulings run`` does. It reads the option files first (a malformed termbase
stops it before any work), reuses the outputs of an identical earlier run (same inputs,
options, termbase and code: ``run-manifest.json``), and otherwise runs ingest, align, check
and report into a staging folder that replaces OUT only when everything is written. Within a
run, what did not change since an earlier one (a file's ingest, a document's alignment and
checks) comes from the cache folder (``work``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import heap, manifest, outputs, stages, tables
from .engine import build_engine
from .ingest import IngestResult
from .ingest.source import discover
from .model import Finding
from .report import WRITERS, carried
from .settings import Settings
from .work import Reuse

OUTPUT_FILES = (
    tables.CORPUS,
    tables.PARSE_FINDINGS,
    tables.CARD_NAMES,
    tables.ALIGNMENT,
    tables.FINDINGS,
    tables.SUPPRESSED,
    tables.INPUTS,
    manifest.MANIFEST,
    *(entry.meta["filename"] for entry in WRITERS),
)
"""Every file a run writes into OUT (anything else there is the user's and is kept)."""


@dataclass
class RunResult:
    findings: list[Finding]
    suppressed: list[Finding]
    reused: bool = False
    """The whole run was reused (nothing changed)."""
    work: Reuse = field(default_factory=Reuse)
    """How many files, documents' alignments and documents' checks came from the cache."""
    ingested: IngestResult | None = None
    """What ingest read, without its card names (cards.jsonl has them, ``ingest_stage``)."""
    written: list[Path] = field(default_factory=list)


Progress = Callable[[str, int, int], None]
Stage = Callable[[str], AbstractContextManager]
"""``on_stage(name)``: a context the stage of that name runs in (says when it starts and
ends)."""


def _no_stage(_name: str) -> AbstractContextManager:
    return contextlib.nullcontext()


def _keeping_for_next_run(function: Callable[..., RunResult]) -> Callable[..., RunResult]:
    """``function`` with what the last run kept for the next known, and this run's kept
    (``stages.kept_for_next_run``, in the run's cache folder)."""

    @functools.wraps(function)
    def keeping(inputs: list[Path], out: Path, settings: Settings, **options: Any) -> RunResult:
        with stages.kept_for_next_run(settings):
            return function(inputs, out, settings, **options)

    return keeping


@_keeping_for_next_run
def run(
    inputs: list[Path],
    out: Path,
    settings: Settings,
    *,
    force: bool = False,
    resources: stages.Resources | None = None,
    on_progress: Progress | None = None,
    on_ingested: Callable[[IngestResult], None] | None = None,
    on_stage: Stage = _no_stage,
) -> RunResult:
    """Run every stage on the inputs into ``out`` (or reuse an identical earlier run).
    ``resources`` are those the caller loaded from the settings (else they are loaded here)."""
    resources = resources or stages.Resources.load(settings)
    outputs.check_writable(out)
    outputs.recover(out)
    sources = list(discover(inputs, skip=[out]))  # once, for the run's key and its ingest
    key = manifest.run_key(inputs, settings, skip=[out], sources=sources)
    if not force and manifest.unchanged(out, key, list(OUTPUT_FILES)):
        return RunResult(
            tables.read_records(out / tables.FINDINGS, Finding),
            tables.read_records(out / tables.SUPPRESSED, Finding),
            reused=True,
        )
    engine = build_engine(
        settings.engine,
        settings.scheduler,
        workers=settings.workers,
        memory_limit=settings.worker_memory,
    )
    work = Reuse()
    try:
        with outputs.staged(out, OUTPUT_FILES) as staging, heap.stages_in_one_process():
            try:
                with on_stage("ingest"):
                    ingested = stages.ingest_stage(
                        inputs, staging, settings, engine, reuse=work, sources=sources
                    )
                    del sources  # read: their records, 50 MB at a million units, let go
            except stages.NoRulingsError:
                raise stages.NoRulingsError(nothing_read(inputs, staging)) from None
            heap.stage_done()
            if on_ingested:
                on_ingested(ingested)
            # each stage is handed what the one before it produced (the same records it
            # would read back from the staging folder) instead of reading the tables again
            with on_stage("align"):
                alignment = stages.align_stage(
                    staging,
                    settings,
                    on_progress,
                    engine,
                    reuse=work,
                    rulings=ingested.rulings,
                    digests=ingested.digests,
                )
            heap.stage_done()
            with on_stage("check"):
                checked = stages.check_stage(
                    staging,
                    settings,
                    resources,
                    engine,
                    reuse=work,
                    ingested=ingested,
                    alignment=alignment,
                )
            heap.stage_done()
            produced = tables.RunTables(
                ingested.rulings,
                alignment,
                checked.findings,
                checked.suppressed,
                inputs=ingested.inputs,
                digests=ingested.digests,
                finding_lines=checked.lines,
                document_keys=checked.document_keys,
            )
            # a fork beside a cluster client's threads could copy a lock one of them holds:
            # with a cluster the writers stay in this process
            processes = stages.REPORT_PROCESSES if engine.name == "local" else 1
            with on_stage("report"):
                names = list(settings.formats) or WRITERS.names()
                inputs_of = carried.input_digests(staging, names, key)
                kept = (
                    [] if force else carried.carry(out, staging, inputs_of, manifest.reports(out))
                )
                if not force:
                    produced.previous = stages.previous_reports(
                        out, carried.settings_salt(key), settings
                    )
                stages.report_stage(
                    staging,
                    settings,
                    resources,
                    run=produced,
                    processes=processes,
                    formats=[name for name in names if name not in kept],
                )
                written = [staging / WRITERS[name].meta["filename"] for name in names]
            manifest.record(staging, key, carried.record(staging, inputs_of))
    finally:
        engine.close()
    return RunResult(
        checked.findings,
        checked.suppressed,
        work=work,
        ingested=ingested,
        written=[out / path.name for path in written],
    )


def nothing_read(inputs: list[Path], staging: Path, shown: int = 3) -> str:
    """Why a run found no rulings, for a message: the parse findings of the inputs (the
    staging folder that holds them is removed with the run, so they go in the message)."""
    where = ", ".join(str(path) for path in inputs)
    findings = tables.read_records(staging / tables.PARSE_FINDINGS, Finding)
    if not findings:
        return f"no rulings found in {where}: no input files (hidden files are skipped)"
    reasons = "; ".join(f"{f.code} {f.message}" for f in findings[:shown])
    more = f"; and {len(findings) - shown} more" if len(findings) > shown else ""
    return f"no rulings found in {where}: {reasons}{more}"
