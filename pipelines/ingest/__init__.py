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
from ..vocabulary import DEFAULT_LANGUAGES, DEFAULT_SOURCE_LANG
from ..work import Cache, Job, execute, kind, no_cache
from .cards import identified_names, identify_cards
from .dates import assign_dates
from .kinds import assign_documents
from .languages import assign_languages
from .readers import READERS, choose
from .readers._anchors import unit_anchors
from .source import NOT_READ_FOLDER, NOT_READ_HIDDEN, InputError, SourceFile, discover

__all__ = ["IngestResult", "InputError", "ingest", "ingest_sources"]


@dataclass
class IngestResult:
    rulings: list[Ruling] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    card_names: list[CardName] = field(default_factory=list)
    formats: Counter[str] = field(default_factory=Counter)
    files: int = 0
    index: CardIndex | None = None
    digests: CorpusDigests | None = None
    """The digests of the rulings' lines in corpus.jsonl, once the stage has written it."""
    inputs: list[dict] = field(default_factory=list)
    """The bilingual CAT files read (``ANNOTATED_FORMATS``): ``file`` (their id), ``path``
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
        if read.format in ANNOTATED_FORMATS and read.rulings:
            result.inputs.append(_input_row(doc, read.format))
        result.rulings.extend(read.rulings)
        result.findings.extend(read.findings)
        result.card_names.extend(read.card_names)
        if read.format:
            result.formats[read.format] += 1
    with paused_gc():
        _corpus_passes(result, identifier, languages, source_lang, cache_dir, engine, name_lists)
    return result


ANNOTATED_FORMATS = ("xliff", "po", "tmx")
"""The formats whose files come back annotated with their findings (findings-xliff/)."""


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


@dataclass
class FileResult:
    """What one input file gave (the record of a file's reading, ``READ``)."""

    rulings: list[Ruling] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    card_names: list[CardName] = field(default_factory=list)
    format: str | None = None


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


def read_files(sources: list[SourceFile], engine: Engine, work: Cache) -> list[FileResult]:
    """What each file gave, in order: from the cache for a file read before (same name and
    bytes, same code), else read (one task per file) and kept."""
    job = Job(
        READ,
        [_file_key(doc, work) for doc in sources],
        items=sources,
        keep=lambda read: not any(f.code == "PARSE010" for f in read.findings),
    )
    [results] = execute([job], read_task, cache=work, engine=engine)
    return results


def read_task(docs: list[SourceFile]) -> list[FileResult]:
    return [read_file(doc) for doc in docs]


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


def read_file(doc: SourceFile) -> FileResult:
    """One file through the reader that recognises it; problems become findings."""
    try:
        return _read_file(doc)
    finally:
        doc.forget_bytes()


def not_read(doc: SourceFile) -> Finding:
    """The finding of a file discovery left unopened: a hidden file, or a special file."""
    if doc.not_read == NOT_READ_HIDDEN:
        return make_finding(
            "PARSE014",
            f"{doc.rel} is a hidden file (its name starts with a dot) and was not read; "
            "rename it, or give it as INPUT, to have it read.",
            file=doc.rel,
            evidence={"bytes": _size(doc)},
        )
    return make_finding(
        "PARSE010",
        f"{doc.rel} is {doc.not_read}, not a regular file; it was not read.",
        file=doc.rel,
        evidence={"error": f"not a regular file: {doc.not_read}"},
    )


def _size(doc: SourceFile) -> int | None:
    try:
        return doc.size
    except OSError:
        return None


def _read_file(doc: SourceFile) -> FileResult:
    result = FileResult()
    if doc.not_read:
        result.findings.append(not_read(doc))
        return result
    try:
        encoding = doc.encoding
    except OSError as error:
        result.findings.append(
            make_finding(
                "PARSE010",
                f"{doc.rel} cannot be read ({error.strerror or error}); it was skipped.",
                file=doc.rel,
                evidence={"error": f"{type(error).__name__}: {error.strerror or error}"},
            )
        )
        return result
    if encoding is None:
        result.findings.append(
            make_finding(
                "PARSE001",
                f"{doc.rel} is not a text file; it was skipped.",
                file=doc.rel,
                evidence={"bytes": doc.size},
            )
        )
        return result
    name = choose(doc)
    if name is None and doc.is_json:
        doc.problems.append(
            make_finding(
                "PARSE009",
                f"{doc.rel} is JSON of a shape no reader knows (not MTGJSON or Scryfall).",
                file=doc.rel,
                evidence={"bytes": doc.size, "json_path": ""},
            )
        )
    elif name is None and not doc.problems:
        doc.problems.append(
            make_finding(
                "PARSE003", f"{doc.rel} has no text.", file=doc.rel, evidence={"bytes": doc.size}
            )
        )
    elif name is not None:
        result.format = name
        try:
            for item in READERS[name].target(doc):
                if isinstance(item, Ruling):
                    result.rulings.append(item)
                elif isinstance(item, Finding):
                    result.findings.append(item)
                else:
                    result.card_names.append(item)
        except Exception as error:  # a reader bug must not stop the batch
            result.findings.append(
                make_finding(
                    "PARSE007",
                    f"The {name} reader failed on {doc.rel}: {error}",
                    file=doc.rel,
                    evidence={"reader": name, "error": f"{type(error).__name__}: {error}"},
                )
            )
        if not doc.is_json:
            result.findings.extend(
                unaccounted_lines(doc, result.rulings, result.findings + doc.problems)
            )
    result.findings.extend(doc.problems)
    return result


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


def accounted_lines(rulings: Iterable[Ruling], findings: Iterable[Finding]) -> set[int]:
    """The input lines that rulings (text and carried lines) and findings account for."""
    lines: set[int] = set()
    for item in rulings:
        if item.line is not None:
            lines.update(range(item.line, (item.end_line or item.line) + 1))
        lines.update(item.carried_lines)
    for finding in findings:
        if finding.line is not None:
            lines.add(finding.line)
        lines.update(finding.evidence.get("lines", ()))
    return lines


def unaccounted_lines(
    doc: SourceFile, rulings: list[Ruling], findings: list[Finding]
) -> list[Finding]:
    """A safety net: every non-blank line a reader left out becomes a PARSE004 finding."""
    accounted = accounted_lines(rulings, findings)
    return [
        make_finding(
            "PARSE004",
            f"Line {number} of {doc.rel} was not understood.",
            file=doc.rel,
            line=number,
            evidence={"line": line.strip()},
        )
        for number, line in enumerate(doc.lines, 1)
        if line.strip() and number not in accounted
    ]


def finding_order(finding: Finding) -> tuple:
    return (
        finding.file or "",
        finding.line if finding.line is not None else -1,
        finding.code,
        finding.ruling_id or "",
        finding.fingerprint,
    )
