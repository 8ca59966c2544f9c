"""The passes over what the files gave (languages, dates, document kinds, cards), kept per
file.

Run over the whole corpus on every run, the passes took 42 s of a million-unit rerun with
one file edited (``benchmarks/results/work_layer.md``). They look at one document at a time
but for four things of the whole run:

- the card index, built from every file's card names: a title is a card's name, a ruling
  mentions a card, a title is a card name of one language;
- the day/month order of the corpus's dates, which a document whose own dates do not tell
  it takes (``dates.corpus_date_order``);
- its folder's language, which a document that cannot tell its own takes
  (``languages.follow_folders``), decided from the votes of the folder's documents;
- for a translated document whose title two cards share, the English of those cards in the
  run (``cards.identify_across``).

A file's passed reading is kept (kind ``ingest-passes``) under its reading's key, with the
run-wide things it was passed with: ``base``, the digest of the card index, the date order
and the options, and ``taken``, the folder languages its documents took. A rerun reads every
file's passed reading, works the index, the date order and the folder languages out from
them (each file keeps its documents' votes, cast before any folder language was taken), and
passes again, from its reading, a file passed with anything else. The documents whose card
their own text does not tell are resolved across the run every time: a few in a run.

A document is part of one file, as every reader makes it. An AllPrintings-shaped file read
set by set is passed set by set (``units.py``): each set's part of the file's reading is a
unit here, passed on its own, and a document is part of one set's part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import msgspec

from ..cards import CardIndex, entries_digest
from ..engine import Engine
from ..memo import digest
from ..model import CardName, Finding, Ruling
from ..tables import Lines, paused_gc
from ..work import Cache, Job, keep, kind, look_up
from .cards import (
    card_title_languages,
    identify_across,
    identify_by_document,
    title_coverage,
)
from .counts import LanguageCounts
from .dates import assign_dates, corpus_date_order
from .foreign import ForeignLanguages
from .kinds import assign_documents
from .languages import (
    FolderVote,
    assign_languages,
    folder_languages,
    folder_votes,
    take_folder_languages,
)
from .reading import READ_RESOURCES, FileResult, card_names_of, keepable


@dataclass
class PassedFile:
    """A file's reading after the passes (the record of kind ``ingest-passes``)."""

    reading: FileResult
    """Its rulings with their languages, dates, document kinds and cards; its findings with
    those of the passes."""
    base: str = ""
    """The digest of the card index, the corpus's date order and the options."""
    taken: dict[str, str] = field(default_factory=dict)
    """The documents that took their folder's language, and that language."""
    votes: list[FolderVote] = field(default_factory=list)
    """Its documents' votes on their folder's language, before any took it."""
    unresolved: list[str] = field(default_factory=list)
    """Its documents whose card their own text does not tell (``identify_across``)."""
    names: str = ""
    """The digest of its card-name entries (``cards.entries_digest``): the run's card index
    is found by its units' digests, its entries not hashed again."""
    name_lines: bytes = b""
    """Its card-name entries as cards.jsonl's lines (``Passed.names``): kept in their place
    and decoded only where a run needs them. The run finds its card index by ``names``, and
    a file of sets joins its sets' entries by their lines before it decodes them
    (``sets.joined``): an AllPrintings-shaped file's sets give 633,800 entries, 273,381 of
    them once."""
    titles: tuple[int, int] = (0, 0)
    """How many of its card documents' titles the card index does not know, of how many
    (``cards.title_coverage``): the run's summary adds them up instead of looking every
    title up again (0.2 s of an edited AllPrintings-shaped file's run, 18,196 titles)."""
    counts: LanguageCounts = field(default_factory=LanguageCounts)
    """Its documents and rulings counted by language, for the run's summary."""
    lines: Lines = field(default_factory=Lines)
    """Its rulings as corpus.jsonl's lines: kept in their place (``_stored``), so that the
    corpus table is written from a unit found in the cache without encoding its rulings
    again, and read back from them (JSON Lines decode faster than the MessagePack they
    replace: 0.65 s against 0.98 s for the 100k corpus's rulings)."""


_RULINGS = msgspec.json.Decoder(Ruling)


def _stored(record: PassedFile) -> PassedFile:
    """What is kept of a unit's record: its rulings and card names as their lines alone
    (the names encoded only here: a run that passes every unit holds their records, not
    their lines too)."""
    return replace(
        record,
        reading=replace(record.reading, rulings=[], card_names=[]),
        name_lines=Lines.encoded(record.reading.card_names),
    )


def _restored(record: PassedFile) -> PassedFile:
    record.reading.rulings = _RULINGS.decode_lines(record.lines.data)
    return record


@dataclass
class PassOptions:
    identifier: str
    languages: tuple[str, ...]
    source_lang: str
    cache_dir: Path | None
    engine: Engine
    name_lists: tuple[Path, ...] = ()


@dataclass
class Passed:
    """Every file's passed reading (in the files' order), the card index, and the findings
    of the whole run (cards resolved across documents, the run's CARD002)."""

    files: list[FileResult]
    index: CardIndex
    findings: list[Finding]
    lines: list[Lines]
    """Each unit's rulings as corpus.jsonl's lines (in the units' order: the files' rulings
    one after the other)."""
    names: list[bytes]
    """The card-name entries of each unit found in the cache as cards.jsonl's lines
    (``PassedFile.name_lines``: its reading has none); empty for a unit passed in this run,
    whose reading has them."""
    titles: tuple[int, int]
    """How many card documents' titles the index does not know, of how many (the units'
    ``PassedFile.titles`` added up)."""
    counts: LanguageCounts
    """The units' documents and rulings counted by language, added up."""


PASSED = kind(
    "ingest-passes",
    "files or sets read",
    PassedFile,
    version="5",
    resources=READ_RESOURCES,
    stored=_stored,
    restored=_restored,
    remembered=True,
)
"""A unit's reading after the passes, keyed by the reading's key (``units.PassUnit.key``); valid
while its ``base`` and ``taken`` are the run's. Bump ``version`` when a pass gives something
else for the same reading (``docs/work.md``)."""


def pass_files(
    keys: list[str | None],
    read: Callable[[list[int]], list[FileResult]],
    options: PassOptions,
    work: Cache,
    alone: list[bool] | None = None,
) -> Passed:
    """The passes over every unit (a file, or a set of a file read set by set:
    ``units.py``): ``keys`` are the units' reading keys (None: passed every time), ``read``
    gives the readings of the units of some indices. A unit ``alone`` is passed on its own
    (a part of a file others are parts of: what the passes report of its file is its
    own)."""
    job = Job(
        PASSED,
        [work.key(PASSED, [key]) if key else None for key in keys],
        keep=lambda record: keepable(record.reading),
    )
    found: list[PassedFile | None] = look_up(job, work)
    readings: dict[int, FileResult] = {}
    _read(readings, [i for i, record in enumerate(found) if record is None], read)

    def reading(i: int) -> FileResult:
        return readings[i] if i in readings else found[i].reading

    def card_names(i: int) -> list[CardName]:
        return readings[i].card_names if i in readings else card_names_of(found[i].name_lines)

    names = {i: entries_digest(readings[i].card_names) for i in readings}
    index = CardIndex.cached(
        (name for i in range(len(keys)) for name in card_names(i)),
        options.cache_dir,
        options.name_lists,
        parts=[names[i] if i in names else found[i].names for i in range(len(keys))],
    )
    order = corpus_date_order([r for i in range(len(keys)) for r in reading(i).rulings])
    base = (
        digest(
            [index.kept_in.name, order, options.identifier, *options.languages, options.source_lang]
        )
        if index.kept_in is not None
        else None
    )
    stale = [i for i, record in enumerate(found) if record is not None and record.base != base]
    _read(readings, stale, read)
    for i in stale:
        found[i] = None
    work.reuse.taken_back(PASSED.name, len(stale))
    languages = _Languages(readings, index, options, work)
    languages.identify(sorted(readings))
    votes = [
        v
        for i, record in enumerate(found)
        for v in (record.votes if record else languages.votes[i])
    ]
    taken = folder_languages(votes)
    moved = [
        i
        for i, record in enumerate(found)
        if record is not None and record.taken != _taken_by(record.votes, taken)
    ]
    _read(readings, moved, read)
    languages.identify(moved)
    for i in moved:
        found[i] = None
    work.reuse.taken_back(PASSED.name, len(moved))
    computed, loose = _pass_rest(
        readings,
        languages,
        taken,
        index,
        order,
        options,
        base,
        alone or [False] * len(keys),
        work,
    )
    for i, record in computed.items():
        record.names = names.get(i) or entries_digest(record.reading.card_names)
        record.lines = Lines.of(record.reading.rulings)
        record.titles = title_coverage(record.reading.rulings, index)
        record.counts = LanguageCounts.of(record.reading.rulings)
    records = [found[i] if found[i] is not None else computed[i] for i in range(len(keys))]
    if base is not None and not loose:
        keep(job, work, computed, records)  # before the cards found across the run are set
    files = [record.reading for record in records]
    unresolved = [
        members
        for record in records
        for members in _members(record.reading.rulings, record.unresolved)
    ]
    with paused_gc():
        findings = identify_across(unresolved, [r for f in files for r in f.rulings], index)
    # a unit with documents left to identify across the run may have had their card set
    lines = [
        Lines.of(record.reading.rulings) if record.unresolved else record.lines
        for record in records
    ]
    titles = (sum(r.titles[0] for r in records), sum(r.titles[1] for r in records))
    counts = LanguageCounts.added(r.counts for r in records)
    name_lines = [r.name_lines for r in records]
    return Passed(files, index, loose + findings, lines, name_lines, titles, counts)


def _read(readings: dict[int, FileResult], indices: list[int], read) -> None:
    if indices:
        readings.update(zip(indices, read(indices), strict=True))


class _Languages:
    """The first pass over the files passed again: every document's language (its folder's
    aside), and each file's votes on its folder's language."""

    def __init__(
        self,
        readings: dict[int, FileResult],
        index: CardIndex,
        options: PassOptions,
        work: Cache,
    ):
        self.readings, self.index, self.options, self.work = readings, index, options, work
        self.votes: dict[int, list[FolderVote]] = {}

    def identify(self, indices: list[int]) -> None:
        if not indices:
            return
        options = self.options
        rulings = [r for i in indices for r in self.readings[i].rulings]
        title_langs = card_title_languages(
            rulings, self.index, options.languages, options.source_lang
        )
        with paused_gc():
            identified = assign_languages(
                rulings,
                options.identifier,
                tuple(options.languages),
                engine=options.engine,
                work=self.work,
                source_lang=options.source_lang,
                title_langs=title_langs,
                follow=False,
            )
        start = 0
        for i in indices:
            reading = self.readings[i]
            end = start + len(reading.rulings)
            reading.rulings = identified[start:end]
            start = end
            self.votes[i] = folder_votes(reading.rulings, title_langs)


def _taken_by(votes: list[FolderVote], taken: dict[str, str]) -> dict[str, str]:
    return {vote.doc: taken[vote.doc] for vote in votes if vote.doc in taken}


def _pass_rest(
    readings: dict[int, FileResult],
    languages: _Languages,
    taken: dict[str, str],
    index: CardIndex,
    order: str,
    options: PassOptions,
    base: str | None,
    alone: list[bool],
    work: Cache,
) -> tuple[dict[int, PassedFile], list[Finding]]:
    """The other passes over the units passed again, their documents given the folder
    languages they take: each unit's record, and the findings of no unit's rulings (none:
    each pass reports on a ruling's file; one that did not would have the records not
    kept). The files read whole are passed together, each unit ``alone`` on its own; the
    documents' foreign languages asked of earlier runs in ``work`` first."""
    indices = sorted(readings)
    if not indices:
        return {}, []
    for i in indices:
        take_folder_languages(readings[i].rulings, _taken_by(languages.votes[i], taken))
    findings: dict[int, list[Finding]] = {i: [] for i in indices}
    unresolved_of: dict[int, list[str]] = {i: [] for i in indices}
    loose: list[Finding] = []
    candidates = tuple(dict.fromkeys(options.languages))
    foreign = ForeignLanguages(work, candidates)
    batches = [[i for i in indices if not alone[i]], *([i] for i in indices if alone[i])]
    for batch in filter(None, batches):
        rulings = [r for i in batch for r in readings[i].rulings]
        with paused_gc():
            found = assign_dates(rulings, order)
            found += assign_documents(rulings, options.source_lang, candidates, foreign=foreign)
            by_card, unresolved = identify_by_document(rulings, index, options.source_lang)
        found += by_card
        of_file = {r.file: i for i in batch for r in readings[i].rulings}
        for finding in found:
            if finding.file in of_file:
                findings[of_file[finding.file]].append(finding)
            else:
                loose.append(finding)
        for members in unresolved:
            unresolved_of[of_file[members[0].file]].append(members[0].doc)
    foreign.save()
    records = {
        i: PassedFile(
            FileResult(
                readings[i].rulings,
                readings[i].findings + findings[i],
                readings[i].card_names,
                readings[i].format,
            ),
            base or "",
            _taken_by(languages.votes[i], taken),
            languages.votes[i],
            unresolved_of[i],
        )
        for i in indices
    }
    return records, loose


def _members(rulings: Iterable[Ruling], docs: list[str]) -> list[list[Ruling]]:
    """The rulings of each of ``docs`` (one file's), in the docs' order."""
    if not docs:
        return []
    wanted: dict[str, list[Ruling]] = {doc: [] for doc in docs}
    for item in rulings:
        if item.doc in wanted:
            wanted[item.doc].append(item)
    return list(wanted.values())
