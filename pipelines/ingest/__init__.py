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
from ..tables import CorpusDigests, Lines, paused_gc
from ..vocabulary import CAT_FORMATS, DEFAULT_LANGUAGES, DEFAULT_SOURCE_LANG
from ..work import Cache, no_cache
from .cards import card_title_languages, identified_names
from .counts import LanguageCounts
from .passes import PassOptions, pass_files
from .readers._anchors import unit_anchors
from .reading import FileResult, accounted_lines, read_file, unaccounted_lines
from .source import NOT_READ_FOLDER, InputError, SourceFile, discover
from .units import Readings, read_files, with_names

__all__ = [
    "FileResult",
    "IngestResult",
    "InputError",
    "accounted_lines",
    "card_title_languages",
    "ingest",
    "ingest_sources",
    "read_file",
    "read_files",
    "unaccounted_lines",
]


@dataclass
class IngestResult:
    rulings: list[Ruling] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    card_names: list[CardName] | None = field(default_factory=list)
    """None when ingest gave them as ``name_lines`` (cards.jsonl has them)."""
    formats: Counter[str] = field(default_factory=Counter)
    files: int = 0
    index: CardIndex | None = None
    titles: tuple[int, int] | None = None
    """How many card documents' titles the index does not know, of how many
    (``cards.title_coverage``), when ingest counted them."""
    counts: LanguageCounts | None = None
    """The documents and rulings counted by language, when ingest counted them."""
    digests: CorpusDigests | None = None
    """The digests of the rulings' lines in corpus.jsonl."""
    lines: list[Lines] | None = None
    """The rulings' lines in corpus.jsonl, a block per unit of the passes (None: to be
    encoded from the rulings)."""
    name_lines: list[bytes | list[CardName]] | None = None
    """The card-name entries as cards.jsonl's parts (``tables.write_parts``), when ingest
    was asked for them so (``card_names`` is then None): a file's entries as their lines
    when they came back from the cache as lines, else as their records."""
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
    names_as_lines: bool = False,
) -> IngestResult:
    """Read the sources (one task per file), identify languages (one task per group of
    documents), date the rulings, tell the documents' kinds and identify cards
    (``passes.py``).

    ``work`` keeps what each file gave and the passes' results, and ``cache_dir`` language
    identifications and the card-name index, between runs: a file read before with the
    same name and bytes is not read again, nor passed again while what the passes read of
    the whole run is the same.
    """
    engine = engine or LocalEngine()
    result = IngestResult()
    work = work or no_cache()
    sources = list(sources)
    folders = [doc for doc in sources if doc.not_read == NOT_READ_FOLDER]
    if folders:
        result.findings.append(folders_not_read(folders))
    files = [doc for doc in sources if doc.not_read != NOT_READ_FOLDER]
    readings = Readings(files, engine, work)
    options = PassOptions(
        identifier, tuple(languages), source_lang, cache_dir, engine, tuple(name_lists)
    )
    passed = pass_files(
        [unit.key for unit in readings.units],
        readings.read,
        options,
        work,
        alone=[unit.part is not None for unit in readings.units],
    )
    name_lines: list[bytes | list[CardName]] = []
    for doc, (read, lines) in zip(files, readings.files(passed.files, passed.names), strict=True):
        result.files += 1
        if read.format in CAT_FORMATS and read.rulings:
            result.inputs.append(_input_row(doc, read.format))
        result.rulings.extend(read.rulings)
        result.findings.extend(read.findings)
        if names_as_lines:
            name_lines.append(lines if lines is not None else read.card_names)
        else:
            result.card_names.extend(with_names(read, lines).card_names)
        if read.format:
            result.formats[read.format] += 1
    result.index, result.titles, result.counts = passed.index, passed.titles, passed.counts
    result.findings.extend(passed.findings)
    result.lines, result.digests = _corpus_lines(result.rulings, passed.lines)
    with paused_gc():
        identified = identified_names(result.rulings, result.index, languages)
        result.findings.sort(key=finding_order)
    if names_as_lines:
        result.card_names, result.name_lines = None, [*name_lines, identified]
    else:
        result.card_names.extend(identified)
    return result


def _corpus_lines(
    rulings: list[Ruling], blocks: list[Lines]
) -> tuple[list[Lines] | None, CorpusDigests | None]:
    """The units' lines as the corpus table's, with their digests: None, None when they are
    not one line per ruling (the table is then encoded from the rulings)."""
    digests = [d for block in blocks for d in block.line_digests()]
    if len(digests) != len(rulings):
        return None, None
    corpus = CorpusDigests()
    for ruling, line_digest in zip(rulings, digests, strict=True):
        corpus.add_digest(ruling, line_digest)
    return blocks, corpus


def _input_row(doc: SourceFile, fmt: str) -> dict:
    """A bilingual input's row in the inputs table: where it is, and where its units are."""
    try:
        digest = doc.content_digest
    except OSError:
        digest = ""
    row = {"file": doc.rel, "path": os.path.abspath(doc.path), "format": fmt, "digest": digest}
    row.update(unit_anchors(doc, fmt))
    return row


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


def finding_order(finding: Finding) -> tuple:
    return (
        finding.file or "",
        finding.line if finding.line is not None else -1,
        finding.code,
        finding.ruling_id or "",
        finding.fingerprint,
    )
