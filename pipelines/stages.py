"""Each stage as a function from the output folder's tables to new tables in it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import tables
from .align import align
from .align.embed import EmbeddingCache, build_embedder, embed_texts
from .cachedir import cache_root
from .check import CheckContext, run_checks, selected
from .check.baseline import Baseline
from .check.termbase import Termbase
from .engine import Engine
from .ingest import IngestResult, InputError, finding_order, ingest
from .ingest.cards import CardIndex
from .ingest.readers import CardName
from .model import Alignment, Finding, Ruling
from .report import write_reports
from .settings import Settings

Progress = Callable[[str, int, int], None]
"""on_progress(task, done, total)"""


class NoRulingsError(InputError):
    """The inputs were read but hold no rulings at all."""


@dataclass
class CheckResult:
    findings: list[Finding]
    suppressed: list[Finding]


def ingest_stage(
    inputs: list[Path], out: Path, settings: Settings, engine: Engine | None = None
) -> IngestResult:
    """Read the inputs; write corpus.jsonl, parse-findings.jsonl and cards.jsonl."""
    for path in inputs:
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
    result = ingest(
        inputs,
        identifier=settings.lang_id,
        languages=settings.languages,
        cache_dir=cache_root(settings.cache_dir),
        engine=engine,
    )
    tables.write_jsonl(out / tables.CORPUS, result.rulings)
    tables.write_jsonl(out / tables.PARSE_FINDINGS, result.findings)
    tables.write_jsonl(out / tables.CARD_NAMES, result.card_names)
    if not result.rulings:
        where = ", ".join(str(p) for p in inputs)
        raise NoRulingsError(
            f"no rulings found in {where} ({result.files} files read, "
            f"{len(result.findings)} parse findings in {out / tables.PARSE_FINDINGS})"
        )
    return result


def align_stage(
    out: Path,
    settings: Settings,
    on_progress: Progress | None = None,
    engine: Engine | None = None,
) -> list[Alignment]:
    """Read corpus.jsonl; write alignment.jsonl."""
    rulings = tables.read_records(out / tables.CORPUS, Ruling)
    embedder = build_embedder(settings.embedder)
    cache = EmbeddingCache(cache_root(settings.cache_dir))

    def encode(texts: list[str]):
        report = (lambda done, total: on_progress("embed", done, total)) if on_progress else None
        return embed_texts(texts, embedder, cache, on_progress=report, engine=engine)

    rows = align(
        rulings, encode, source_lang=settings.source_lang, embedder=embedder.name, engine=engine
    )
    tables.write_jsonl(out / tables.ALIGNMENT, rows)
    return rows


def read_option_files(settings: Settings) -> None:
    """Read the --termbase and --baseline files before any work, so that a malformed one
    stops a run at once (exit 2, naming the file and line) instead of after ingest and
    alignment."""
    if settings.termbases:
        Termbase.load(settings.termbases, source_lang=settings.source_lang)
    if settings.baseline:
        Baseline.load(settings.baseline)


def check_stage(
    out: Path,
    settings: Settings,
    on_progress: Progress | None = None,
    engine: Engine | None = None,
) -> CheckResult:
    """Read corpus, alignment and parse findings; write findings.jsonl (and suppressed.jsonl)."""
    baseline = Baseline.load(settings.baseline) if settings.baseline else None
    termbase = Termbase.load(settings.termbases, source_lang=settings.source_lang)
    run = tables.RunTables.load(out, findings=False)
    names = tables.read_records(out / tables.CARD_NAMES, CardName)
    cards = CardIndex.cached(names, cache_root(settings.cache_dir))
    context = CheckContext(run.rulings, run.alignment, termbase, cards, settings.source_lang)
    checks_done = 0

    def report(code: str) -> None:
        nonlocal checks_done
        checks_done += 1
        if on_progress:
            on_progress("check", checks_done, 0)

    findings = tables.read_records(out / tables.PARSE_FINDINGS, Finding)
    findings = [f for f in findings if selected(f.code, settings.select, settings.ignore)]
    findings += run_checks(
        context, settings.select, settings.ignore, on_progress=report, engine=engine
    )
    findings = _unique(findings)
    findings.sort(key=finding_order)
    suppressed: list[Finding] = []
    if baseline is not None:
        findings, suppressed = baseline.split(findings)
    tables.write_jsonl(out / tables.FINDINGS, findings)
    tables.write_jsonl(out / tables.SUPPRESSED, suppressed)
    return CheckResult(findings, suppressed)


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per fingerprint (the same problem found twice says nothing new)."""
    seen: dict[str, Finding] = {}
    for finding in findings:
        seen.setdefault(finding.fingerprint, finding)
    return list(seen.values())


def report_stage(out: Path, settings: Settings) -> list[Path]:
    """Read the three tables; write the report files (all formats, or settings.formats)."""
    run = tables.RunTables.load(out)
    run.termbase = Termbase.load(settings.termbases, source_lang=settings.source_lang)
    run.source_lang = settings.source_lang
    return write_reports(run, out, settings.formats)


def card_index(inputs: list[Path], run_dir: Path | None, cache_dir: Path | None) -> CardIndex:
    """The card-name index of some card data files, or of an earlier run's output folder."""
    names: list[CardName] = []
    if run_dir is not None:
        names += tables.read_records(run_dir / tables.CARD_NAMES, CardName)
    if inputs:
        names += ingest(inputs, cache_dir=cache_root(cache_dir)).card_names
    return CardIndex.cached(names, cache_root(cache_dir))
