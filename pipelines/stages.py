"""Each stage as a function from the output folder's tables to new tables in it.

``ingest`` -> corpus.jsonl (+ parse findings, card names); ``align`` -> alignment.jsonl;
``check`` -> findings.jsonl; ``report`` -> the report files. A stage reads only what the
earlier stages wrote into the folder, so each can run, be tested and be cached on its own.
What every stage may need besides the tables (the termbase, the baseline) is loaded once
per run as ``Resources``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import tables, thresholds
from .align import align
from .align.embed import EmbeddingCache, build_embedder, embed_texts
from .cachedir import cache_root
from .cards import CardIndex
from .catalogue import CATALOGUE
from .check import CheckContext, run_checks, selected
from .check.baseline import Baseline
from .check.confidence import split_by_confidence, with_confidence
from .check.overrides import path_ignored, with_severities
from .check.registry import explanations
from .engine import Engine
from .engine.local import LocalEngine
from .files import digests_kept, file_digest
from .heap import give_back
from .ingest import IngestResult, InputError, finding_order, ingest, ingest_sources
from .ingest.kept_cuts import cuts_kept
from .ingest.source import SourceFile, discover, input_exists
from .model import Alignment, CardName, Finding, Ruling
from .report import balance, write_reports
from .report.kept_rows import PreviousReports
from .settings import Settings
from .store import close_stores, open_store
from .termbase import Termbase
from .work import Cache, Reuse

Progress = Callable[[str, int, int], None]
"""on_progress(task, done, total)"""
REPORT_PROCESSES = min(2, os.cpu_count() or 1)
"""The report writers share this many cores (``report/processes.py``)."""


class NoRulingsError(InputError):
    """The inputs were read but hold no rulings at all."""


@dataclass
class Resources:
    """What the stages read besides the tables: loaded once per run, before any work, so
    that a malformed --termbase or --baseline stops the run at once (exit 2, naming the
    file and line)."""

    termbase: Termbase
    baseline: Baseline | None = None

    @classmethod
    def load(cls, settings: Settings) -> Resources:
        return cls(
            Termbase.load(settings.termbases, source_lang=settings.source_lang),
            Baseline.load(settings.baseline) if settings.baseline else None,
        )


@dataclass
class CheckResult:
    findings: list[Finding]
    suppressed: list[Finding]
    lines: dict[int, bytes] = field(default_factory=dict)
    """The digest of each finding's line in findings.jsonl or suppressed.jsonl, by the
    finding's ``id`` (``tables.RunTables.finding_lines``)."""
    document_keys: dict[str, str] = field(default_factory=dict)
    """``CheckContext.document_keys`` (``tables.RunTables.document_keys``)."""


def _closing_store(stage: Callable) -> Callable:
    """A stage that closes the work store when it ends (after evicting past the limit, if
    it wrote): a long-lived process (the Python API, a test session) keeps no connection to
    every cache folder it ran with. It also hands the memory the stage freed back to the
    system, so that in ``rulings run`` the next stage does not start at this one's peak."""

    @functools.wraps(stage)
    def closing(*args: Any, **kwargs: Any) -> Any:
        try:
            return stage(*args, **kwargs)
        finally:
            close_stores()
            give_back()

    return closing


@contextlib.contextmanager
def kept_for_next_run(settings: Settings) -> Iterator[None]:
    """Inside: what the last run kept beside the work store for the next is known (the input
    files' digests, ``files.digests_kept``; the files of sets' cuts,
    ``ingest.kept_cuts.cuts_kept``); after: this run's is kept. A run enters it once for all
    its stages (``pipeline.run``); a stage command alone enters it for itself."""
    root = cache_root(settings.cache_dir)
    with digests_kept(root), cuts_kept(root):
        yield


@_closing_store
def ingest_stage(
    inputs: list[Path],
    out: Path,
    settings: Settings,
    engine: Engine | None = None,
    skip: list[Path] = (),
    reuse: Reuse | None = None,
    sources: list[SourceFile] | None = None,
) -> IngestResult:
    """Read the inputs; write corpus.jsonl, parse-findings.jsonl and cards.jsonl. Output
    folders (``out``, ``skip`` and any folder with a run manifest) are never read.
    ``sources``: the inputs' files as the run found them already (``discover``)."""
    for path in inputs:
        if not input_exists(path):
            raise InputError(f"no such file or folder: {path}")
    if sources is None:
        sources = list(discover(inputs, skip=[out, *skip]))
    with kept_for_next_run(settings):
        result = ingest_sources(
            sources,
            identifier=settings.lang_id,
            languages=settings.languages,
            source_lang=settings.source_lang,
            cache_dir=cache_root(settings.cache_dir),
            engine=engine,
            work=work_cache(settings, (), reuse, READINGS_SHARED_FROM * tables.SHARED_FROM_BYTES),
            name_lists=settings.card_names,
            names_as_lines=True,
        )
    if result.lines is None:
        result.digests = tables.CorpusDigests()
        tables.write_jsonl(out / tables.CORPUS, result.rulings, on_line=result.digests.add)
    else:
        tables.write_lines(out / tables.CORPUS, (block.data for block in result.lines))
    result.lines = None  # written: the rulings hold the same
    tables.write_jsonl(out / tables.PARSE_FINDINGS, result.findings)
    tables.write_parts(out / tables.CARD_NAMES, result.name_lines or [])
    result.name_lines = None  # written: the check stage reads them there when it must
    tables.write_jsonl(out / tables.INPUTS, result.inputs)
    if not result.rulings:
        where = ", ".join(str(p) for p in inputs)
        raise NoRulingsError(
            f"no rulings found in {where} ({result.files} files read, "
            f"{len(result.findings)} parse findings in {out / tables.PARSE_FINDINGS})"
        )
    return result


@_closing_store
def align_stage(
    out: Path,
    settings: Settings,
    on_progress: Progress | None = None,
    engine: Engine | None = None,
    reuse: Reuse | None = None,
    rulings: list[Ruling] | None = None,
    digests: tables.CorpusDigests | None = None,
) -> list[Alignment]:
    """Read corpus.jsonl (unless the run hands over its ``rulings``, and the ``digests`` of
    their lines); write alignment.jsonl."""
    engine = engine or LocalEngine()
    if rulings is None:
        rulings, digests = tables.read_corpus(out)
    root = cache_root(settings.cache_dir)

    def new_embedder():
        return build_embedder(
            settings.embedder, threads=LocalEngine.threads_per_worker, cache_dir=root
        )

    cache = EmbeddingCache(root)
    unused = [new_embedder()]  # its weights are read on its first texts, not when built
    name = unused[0].name

    def encode(texts: list[str]):
        """The texts' vectors, with the model let go as soon as they are computed: the
        alignment that follows reads only the vectors, and a million units' alignment held
        the model (about 150 MiB) and the encoding threads' freed heap to its end."""
        report = (lambda done, total: on_progress("embed", done, total)) if on_progress else None
        embedder = unused.pop() if unused else new_embedder()
        vectors = embed_texts(texts, embedder, cache, on_progress=report, engine=engine)
        del embedder
        give_back()
        return vectors

    rows = align(
        rulings,
        encode,
        source_lang=settings.source_lang,
        embedder=name,
        engine=engine,
        work=work_cache(
            settings,
            [thresholds.stage_digest(dict(settings.thresholds), thresholds.ALIGN)],
            reuse,
            shared_if_large(out),
        ),
        digests=digests,
        thresholds=dict(settings.thresholds),
    )
    tables.write_jsonl(out / tables.ALIGNMENT, rows)
    return rows


@_closing_store
@tables.paused_gc()
def check_stage(
    out: Path,
    settings: Settings,
    resources: Resources,
    engine: Engine | None = None,
    reuse: Reuse | None = None,
    ingested: IngestResult | None = None,
    alignment: list[Alignment] | None = None,
) -> CheckResult:
    """Read corpus, card names, parse findings and alignment (unless the run hands over what
    it ingested and aligned); write findings.jsonl (and suppressed.jsonl)."""
    seen: dict[Any, Any] = {}  # the alignment's ruling ids are the corpus's strings
    if ingested is None:
        rulings, digests = tables.read_corpus(out, seen)
        ingested = IngestResult(
            rulings=rulings,
            findings=tables.read_records(out / tables.PARSE_FINDINGS, Finding),
            card_names=tables.read_records(out / tables.CARD_NAMES, CardName),
            digests=digests,
        )
    if alignment is None:
        alignment = tables.read_records(out / tables.ALIGNMENT, Alignment, seen=seen)
    del seen  # what was read once stays in the tables; the index of it can go
    cards = ingested.index or _card_index(ingested, out, settings)
    context = CheckContext(
        ingested.rulings,
        alignment,
        resources.termbase,
        cards,
        settings.source_lang,
        digests=ingested.digests,
        thresholds=dict(settings.thresholds),
        checklist=settings.checklist,
        allow=settings.allow,
    )
    findings = [f for f in ingested.findings if selected(f.code, settings.select, settings.ignore)]
    work = work_cache(
        settings,
        [
            settings.source_lang,
            *(_content_digest(path) for path in settings.termbases),
            *(_content_digest(path) for path in settings.card_names),
            _content_digest(out / tables.CARD_NAMES),
            # the team's rules and allow lists by their content, wherever their files are
            thresholds.stage_digest(dict(settings.thresholds), thresholds.CHECK),
            settings.checklist.digest(),
            settings.allow.digest(),
        ],
        reuse,
        shared_if_large(out),
    )
    findings += run_checks(context, settings.select, settings.ignore, engine=engine, work=work)
    findings = with_confidence(fold(_unique(findings)), alignment)
    findings = path_ignored(findings, settings.path_ignores)
    findings = with_severities(findings, settings.severities)
    findings.sort(key=finding_order)
    suppressed: list[Finding] = []
    if resources.baseline is not None:
        findings, suppressed = resources.baseline.split(findings)
    findings, unsure = split_by_confidence(findings, settings.min_confidence)
    suppressed = sorted([*suppressed, *unsure], key=finding_order)
    lines: dict[int, bytes] = {}
    tables.write_jsonl(out / tables.FINDINGS, findings, tables.line_digests_into(lines))
    tables.write_jsonl(out / tables.SUPPRESSED, suppressed, tables.line_digests_into(lines))
    return CheckResult(findings, suppressed, lines, context.document_keys)


def _card_index(ingested: IngestResult, out: Path, settings: Settings) -> CardIndex:
    """The card-name index of the check stage when it was not handed one: the index of
    cards.jsonl's names (ingest's names and those it identified, which are the index's
    own)."""
    names = ingested.card_names
    if names is None:
        names = tables.read_records(out / tables.CARD_NAMES, CardName)
    return CardIndex.cached(names, cache_root(settings.cache_dir), settings.card_names)


def work_cache(settings: Settings, context, reuse: Reuse | None, shares_from: int | None) -> Cache:
    """The work cache of a stage: the store in the run's cache folder, keys made with the
    stage's ``context`` (what every unit depends on besides its own content), look-ups
    counted in ``reuse``, the results read back shared from ``shares_from`` bytes
    (``Cache.shares_from``)."""
    return Cache(
        open_store(cache_root(settings.cache_dir)),
        context,
        reuse,
        shares_from=shares_from,
    )


def previous_reports(out: Path, salt: str, settings: Settings) -> PreviousReports:
    """The report files of the folder a run replaces, for their rows to be copied, with the
    work cache that keeps where those rows are (keys salted with the run's code and options:
    ``carried.settings_salt``)."""
    return PreviousReports(out, work_cache(settings, [salt], None, None))


def large_run(out: Path) -> bool:
    """Whether the run in ``out`` is large: a corpus table of ``tables.SHARED_FROM_BYTES``
    or more, the size from which memory is worth time."""
    return tables.table_bytes(out / tables.CORPUS) >= tables.SHARED_FROM_BYTES


def shared_if_large(out: Path) -> int | None:
    """The memory policy of the align and check stages: a large run (``large_run``) has
    the repeated values of every result it reads back made one object, as its tables are;
    a smaller one reads them as they are: on the 100k corpus (a 69 MB corpus table) the
    stored file readings took 0.6-0.9 s instead of 3.3-3.5 s to read, for 87 MiB more held
    (measured under load: ``benchmarks/results/work_layer.md``)."""
    return 0 if large_run(out) else None


READINGS_SHARED_FROM = 2
"""Ingest shares the file readings it reads back once their stored bytes come to this many
times ``tables.SHARED_FROM_BYTES`` (256 MB), whatever the inputs' size: an MTGJSON file is
mostly what its reading leaves out. The AllPrintings-shaped file (400 MB) reads 156 MB back
for one edited set; shared, that took 3.7 s more (18.7 s against 15.1 s, the whole edited
run) for 231 MB less held (553 against 784 MB at its peak). The million-unit corpus reads
616 MB back, and is shared as before. The bytes are the store's sizes of the entries under
the run's keys (``Store.stored_bytes``), summed before any is read."""


def _content_digest(path: Path) -> str:
    """A file's bytes, wherever it is (the stage files are in a staging folder of a new
    name each run): ``files.file_digest``, which a table this process wrote, and a file
    an earlier run read that has not changed since, give without reading it."""
    try:
        return file_digest(path)
    except OSError as error:
        return f"unreadable: {error}"


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per problem and unit (the same problem found twice says nothing new).
    Two units that read the same (a rule's heading and its line in the contents) can have
    the same problem: the second one's fingerprint is told apart by its rank."""
    seen: dict[str, Finding] = {}
    for finding in findings:
        first = seen.get(finding.fingerprint)
        if first is None:
            seen[finding.fingerprint] = finding
        elif first.ruling_id != finding.ruling_id or first.line != finding.line:
            rank = 2
            while (twin := again(finding.fingerprint, rank)) in seen:
                rank += 1
            seen[twin] = replace(finding, fingerprint=twin)
    return list(seen.values())


def again(fingerprint: str, rank: int) -> str:
    """The fingerprint of the ``rank``-th unit with the same problem and text."""
    return hashlib.sha256(f"{fingerprint}#{rank}".encode()).hexdigest()[:16]


def fold(findings: list[Finding]) -> list[Finding]:
    """Findings that follow from another finding on the same unit (its catalogue row
    ``covers`` their code) are folded under it: a ruling cut off with "…" is one finding,
    not also a missing number and a missing parenthesis."""
    by_unit: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        if finding.ruling_id:
            by_unit[finding.ruling_id].append(finding)
    folded_into: dict[str, Finding] = {}
    for members in by_unit.values():
        for main in members:
            covers = CATALOGUE[main.code].covers if main.code in CATALOGUE else ()
            for other in members:
                if other.code in covers and other.fingerprint not in folded_into:
                    folded_into[other.fingerprint] = main
    if not folded_into:
        return findings
    extra: dict[str, list[dict]] = defaultdict(list)
    for finding in findings:
        main = folded_into.get(finding.fingerprint)
        if main is not None:
            extra[main.fingerprint].append(
                {
                    "code": finding.code,
                    "message": finding.message,
                    "fingerprint": finding.fingerprint,
                }
            )
    return [
        replace(f, folded=f.folded + extra[f.fingerprint]) if f.fingerprint in extra else f
        for f in findings
        if f.fingerprint not in folded_into
    ]


def report_stage(
    out: Path,
    settings: Settings,
    resources: Resources,
    run: tables.RunTables | None = None,
    processes: int = REPORT_PROCESSES,
    formats: list[str] | None = None,
) -> list[Path]:
    """Read the tables (unless the run hands them over); write the report files (``formats``,
    else settings.formats, else all), on up to ``processes`` cores."""
    if run is None:
        run = tables.RunTables.load(out, digests=True)
    run.termbase = resources.termbase
    run.source_lang = settings.source_lang
    run.codes = tuple(settings.checklist.codes().values())
    run.xliff_state = settings.xliff_state
    run.explanations = explanations()
    if formats is None:
        formats = list(settings.formats)
    elif not formats:
        return []
    root = cache_root(settings.cache_dir)
    seconds: dict[str, float] = {}
    written = write_reports(
        run,
        out,
        formats,
        processes=processes,
        last_seconds=balance.last_seconds(root),
        seconds=seconds,
    )
    balance.keep_seconds(root, seconds)
    return written


def card_index(
    inputs: list[Path],
    run_dir: Path | None,
    cache_dir: Path | None,
    name_lists: tuple[Path, ...] = (),
) -> CardIndex:
    """The card-name index of some card data files, or of an earlier run's output folder
    (on the shipped names, or on ``name_lists`` instead)."""
    names: list[CardName] = []
    if run_dir is not None:
        names += tables.read_records(run_dir / tables.CARD_NAMES, CardName)
    if inputs:
        names += ingest(inputs, cache_dir=cache_root(cache_dir), name_lists=name_lists).card_names
    return CardIndex.cached(names, cache_root(cache_dir), name_lists)
