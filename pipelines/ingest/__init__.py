"""Stage 1: files -> ``Ruling`` table (plus parse findings and the card-name index)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..cards import CardIndex
from ..catalogue import make_finding
from ..engine import Engine
from ..engine.local import LocalEngine
from ..model import CardName, Finding, Ruling
from ..tables import CorpusDigests, paused_gc
from ..vocabulary import CAT_FORMATS, DEFAULT_LANGUAGES, DEFAULT_SOURCE_LANG
from ..work import Cache, Job, execute, kind, no_cache
from . import sets
from .cards import identified_names, identify_cards
from .dates import assign_dates
from .kinds import assign_documents
from .languages import assign_languages
from .readers._anchors import unit_anchors
from .reading import FileResult, accounted_lines, read_file, unaccounted_lines
from .sets import FileSets, SetPart, SetReading, merged, read_set, read_together, split
from .source import NOT_READ_FOLDER, InputError, SourceFile, discover

__all__ = [
    "FileResult",
    "IngestResult",
    "InputError",
    "accounted_lines",
    "ingest",
    "ingest_sources",
    "read_file",
    "unaccounted_lines",
]


@dataclass
class IngestResult:
    rulings: list[Ruling] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    card_names: list[CardName] | None = field(default_factory=list)
    """None once a run let them go (``stages.handed_on``): cards.jsonl has them."""
    formats: Counter[str] = field(default_factory=Counter)
    files: int = 0
    index: CardIndex | None = None
    index_file: Path | None = None
    """Where the index is kept, once a run let it go (``stages.handed_on``)."""
    digests: CorpusDigests | None = None
    """The digests of the rulings' lines in corpus.jsonl, once the stage has written it."""
    inputs: list[dict] = field(default_factory=list)
    """The bilingual CAT files read (``CAT_FORMATS``): ``file`` (their id), ``path``
    (where they were read), ``format`` and ``digest`` (of their bytes), for the report that
    writes each of them back annotated."""


def ingest(
    inputs: list[Path],
    *,
    identifier: str = "lingua",
    languages: Iterable[str] = DEFAULT_LANGUAGES,
    source_lang: str = DEFAULT_SOURCE_LANG,
    cache_dir: Path | None = None,
    engine: Engine | None = None,
    skip: Iterable[Path] = (),
    work: Cache | None = None,
    name_lists: tuple[Path, ...] = (),
) -> IngestResult:
    """Read every file under the inputs (but output folders: ``skip`` and any folder that
    holds a run manifest); a bad file becomes findings, never an exception. ``name_lists``
    replace the shipped card names (``CardIndex.cached``)."""
    return ingest_sources(
        list(discover(inputs, skip=skip)),
        identifier=identifier,
        languages=languages,
        source_lang=source_lang,
        cache_dir=cache_dir,
        engine=engine,
        work=work,
        name_lists=name_lists,
    )


def ingest_sources(
    sources: Iterable[SourceFile],
    *,
    identifier: str = "lingua",
    languages: Iterable[str] = DEFAULT_LANGUAGES,
    source_lang: str = DEFAULT_SOURCE_LANG,
    cache_dir: Path | None = None,
    engine: Engine | None = None,
    work: Cache | None = None,
    name_lists: tuple[Path, ...] = (),
) -> IngestResult:
    """Read the sources (one task per file), identify languages (one task per group of
    documents), then date the rulings and identify cards over the whole corpus.

    ``work`` keeps what each file gave, and ``cache_dir`` language identifications and the
    card-name index, between runs: a file read before with the same name and bytes is not
    read again.
    """
    engine = engine or LocalEngine()
    result = IngestResult()
    work = work or no_cache()
    sources = list(sources)
    folders = [doc for doc in sources if doc.not_read == NOT_READ_FOLDER]
    if folders:
        result.findings.append(folders_not_read(folders))
    files = [doc for doc in sources if doc.not_read != NOT_READ_FOLDER]
    for doc, read in zip(files, read_files(files, engine, work), strict=True):
        result.files += 1
        if read.format in CAT_FORMATS and read.rulings:
            result.inputs.append(_input_row(doc, read.format))
        result.rulings.extend(read.rulings)
        result.findings.extend(read.findings)
        result.card_names.extend(read.card_names)
        if read.format:
            result.formats[read.format] += 1
    with paused_gc():
        _corpus_passes(result, identifier, languages, source_lang, cache_dir, engine, name_lists)
    return result


def _input_row(doc: SourceFile, fmt: str) -> dict:
    """A bilingual input's row in the inputs table: where it is, and where its units are."""
    try:
        digest = doc.content_digest
    except OSError:
        digest = ""
    row = {"file": doc.rel, "path": os.path.abspath(doc.path), "format": fmt, "digest": digest}
    row.update(unit_anchors(doc, fmt))
    return row


def _corpus_passes(
    result: IngestResult,
    identifier: str,
    languages: Iterable[str],
    source_lang: str,
    cache_dir: Path | None,
    engine: Engine,
    name_lists: tuple[Path, ...] = (),
) -> None:
    """Languages, dates, document kinds and cards, over everything the files gave."""
    result.index = CardIndex.cached(result.card_names, cache_dir, name_lists)
    result.rulings = assign_languages(
        result.rulings,
        identifier,
        tuple(languages),
        engine=engine,
        cache_dir=cache_dir,
        source_lang=source_lang,
        title_langs=card_title_languages(result.rulings, result.index, languages, source_lang),
    )
    result.findings.extend(assign_dates(result.rulings))
    result.findings.extend(
        assign_documents(result.rulings, source_lang, tuple(dict.fromkeys(languages)), cache_dir)
    )
    result.findings.extend(identify_cards(result.rulings, result.index, source_lang))
    result.card_names.extend(
        identified_names(result.rulings, result.index, result.card_names, languages)
    )
    result.findings.sort(key=finding_order)


READ = kind(
    "ingest",
    "files read",
    FileResult,
    version="3",
    resources=(
        "card_names.tsv",
        "card_names_manual.tsv",
        "example_cues.tsv",
        "its_mqm.tsv",
        "month_names.tsv",
        "mtgjson_languages.tsv",
        "notation.tsv",
        "placeholder_patterns.tsv",
        "subtypes.tsv",
    ),
)
"""A file's reading, keyed by its name and bytes. Bump ``version`` when a reader, the
language of a file's lines or anything else ``read_file`` gives changes
(``docs/work.md``)."""


READ_SET = kind("ingest-set", "sets read", SetReading, READ.version, resources=READ.resources)
"""One set of an AllPrintings-shaped file (``sets.py``), keyed by its code and bytes; it reads
with the code ``READ`` stands for, and so shares its version."""


def read_files(sources: list[SourceFile], engine: Engine, work: Cache) -> list[FileResult]:
    """What each file gave, in order: from the cache for a file read before (same name and
    bytes, same code), else read (one task per file) and kept. An AllPrintings-shaped file
    is read (and kept) set by set (``sets.py``)."""
    cut: dict[int, list[SetPart]] = {}
    for i, doc in enumerate(sources if work.keeps else ()):
        if parts := split(doc):
            cut[i] = parts
    whole = [doc for i, doc in enumerate(sources) if i not in cut]
    parts = [part for file_parts in cut.values() for part in file_parts]
    jobs = [
        Job(
            READ,
            [_file_key(doc, work) for doc in whole],
            items=whole,
            keep=_readable,
        ),
        Job(
            READ_SET,
            [work.key(READ_SET, [part.rel, part.code, part.digest]) for part in parts],
            plan=sets.plan(parts),
            keep=lambda reading: _readable(reading.read),
        ),
    ]
    read_whole, read_sets = execute(jobs, read_task, cache=work, engine=engine)
    whole_read, start, results = iter(read_whole), 0, []
    with paused_gc():
        for i in range(len(sources)):
            if i in cut:
                end = start + len(cut[i])
                results.append(merged(read_sets[start:end]))
                start = end
            else:
                results.append(next(whole_read))
    return results


def _readable(read: FileResult) -> bool:
    """Whether a reading may be kept: not one of a file that could not be read (PARSE010:
    the next run tries again)."""
    return not any(f.code == "PARSE010" for f in read.findings)


def read_task(task: list[SourceFile | SetPart] | FileSets) -> list[FileResult | SetReading]:
    if isinstance(task, FileSets):
        return read_together(task)
    return [read_set(item) if isinstance(item, SetPart) else read_file(item) for item in task]


def _file_key(doc: SourceFile, work: Cache) -> str | None:
    """The cache key of a file's ingest: its name and bytes (None when it cannot be read:
    reading it again says why; and for a file not to be opened)."""
    if not work.keeps or doc.not_read:
        return None
    try:
        return work.key(READ, [doc.rel, doc.content_digest])
    except OSError:
        return None


def folders_not_read(folders: list[SourceFile], shown: int = 20) -> Finding:
    """The one PARSE015 of a run: the folders inside the inputs that were not entered."""
    names = [doc.rel for doc in folders]
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    listed = ", ".join(names[:shown]) + more
    return make_finding(
        "PARSE015",
        f"{len(names)} {'folder was' if len(names) == 1 else 'folders were'} not read "
        f"(hidden folders and rulings output folders are not entered): {listed}",
        evidence={"folders": [{"folder": doc.rel, "why": doc.detail} for doc in folders]},
    )


def card_title_languages(
    rulings: list[Ruling], index: CardIndex, languages: Iterable[str], source_lang: str
) -> dict[str, str]:
    """Titles that are a card's name in exactly one candidate language other than the
    source language, and that language (a card document titled with the card's official
    Spanish name is a Spanish document; an English title decides nothing, since
    translations keep English names of cards never printed in their language, and neither
    does a name that is the same in English, "Tarmogoyf": its text tells)."""
    candidates = set(languages) - {source_lang}
    found = {}
    for title in {r.doc_title for r in rulings if r.doc_title}:
        named = {lang.split("-")[0] for _, lang in index.lookup(title)}
        if source_lang in named:
            continue  # also an English name (Tarmogoyf is Tarmogoyf in Spanish): no telling
        langs = named & candidates
        if len(langs) == 1:
            found[title] = langs.pop()
    return found


def finding_order(finding: Finding) -> tuple:
    return (
        finding.file or "",
        finding.line if finding.line is not None else -1,
        finding.code,
        finding.ruling_id or "",
        finding.fingerprint,
    )
