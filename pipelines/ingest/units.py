"""What the passes take one at a time (``passes.py``): a file read whole, or one set of an
AllPrintings-shaped file read set by set (``sets.py``).

A file of sets used to be one unit for the passes: one ruling edited in it read every set's
reading back, merged them, passed the whole file again and kept it whole (10.4 s of an
edited run whose cold run took 30.2 s, ``benchmarks/results/work_layer.md``). Each set is
now a unit of its own: its part of the file's reading is its reading less the rulings of
the cards an earlier set rules (``sets.own_part``), so its key is its set's key and the
pointers of those cards. Which cards each set rules is kept apart (kind ``ingest-set-ruled``,
a few names per card), so a run works out every set's part without reading any set back;
an edited set is read, passed and kept alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..engine import Engine
from ..hashing import hexdigest
from ..memo import digest
from ..tables import Lines, paused_gc
from ..work import Cache, Job, execute, keep, kind, look_up
from . import sets
from .reading import READ_RESOURCES, FileResult, card_names_of, keepable, read_file
from .set_parts import SetPart
from .sets import FileSets, SetReading, read_set, read_together
from .source import SourceFile

READ = kind(
    "ingest",
    "readings of files passed again",
    FileResult,
    version="4",
    resources=READ_RESOURCES,
)
"""A file's reading, keyed by its name and bytes. Bump ``version`` when a reader, the
language of a file's lines or anything else ``read_file`` gives changes
(``docs/work.md``)."""


READ_SET = kind("ingest-set", "sets read", SetReading, READ.version, resources=READ.resources)
"""One set of an AllPrintings-shaped file (``sets.py``), keyed by its code and bytes; it reads
with the code ``READ`` stands for, and so shares its version."""


SET_RULED = kind(
    "ingest-set-ruled",
    "sets' lists of ruled cards",
    list[tuple[str, str]],
    READ.version,
    resources=READ.resources,
)
"""The cards one set rules (``SetReading.ruled``: name, JSON pointer), under its set's key:
what a run needs of the sets it does not read to work out each set's part."""


NAMES_JOINED = kind(
    "ingest-names-joined",
    "files of sets' card names joined",
    bytes,
    READ.version,
    resources=READ.resources,
)
"""An AllPrintings-shaped file's card-name entries, each once (``sets.joined``), as
cards.jsonl's lines, keyed by its sets' entries' lines: a rerun whose sets name what they
named takes them as they are, instead of joining the 633,800 entries of the file's sets
again (``Readings.files``)."""

JOINED_KEPT_SHARE = 1 / 8
"""The join of a file of sets is looked up (and kept) when at most this share of its sets
were read in the run, as in a rerun after an edit. A first run reads them all, and
encoding and digesting their entries for a key it cannot find would only add to its time."""


@dataclass
class FilePlan:
    """How a file is read: whole (``READ``, under ``key``; None: read every time), or set by
    set (``parts``, ``READ_SET``, each with its key, and the key of the cards it rules,
    ``SET_RULED``; each set a unit of its own, ``PassUnit``)."""

    doc: SourceFile
    key: str | None
    parts: list[SetPart] | None = None
    part_keys: list[str | None] = field(default_factory=list)
    ruled_keys: list[str | None] = field(default_factory=list)


@dataclass(frozen=True)
class PassUnit:
    """One unit of the passes: a file read whole (``part`` None), or one set of a file read
    set by set and its part of the file's reading (``again``: the pointers of its cards an
    earlier set rules). ``key``: its reading's key (None: read and passed every time)."""

    file: int
    key: str | None
    part: int | None = None
    again: frozenset[str] = frozenset()


def plan_readings(sources: list[SourceFile], work: Cache) -> list[FilePlan]:
    """Each file's plan: an AllPrintings-shaped file is read (and kept) set by set
    (``sets.py``) when there is a cache to keep its sets in."""
    plans = []
    for doc in sources:
        parts = doc.sets if work.keeps else None
        if parts:
            names = [[part.rel, part.code, part.digest] for part in parts]
            keys = [work.key(READ_SET, name) for name in names]
            ruled = [work.key(SET_RULED, name) for name in names]
            plans.append(FilePlan(doc, None, parts, keys, ruled))
        else:
            plans.append(FilePlan(doc, _file_key(doc, work)))
    return plans


class Readings:
    """A run's files as the passes' units (``units``), and the readings of any of them
    (``read``), from the cache where it keeps them.

    A set read to learn which cards it rules is held until the passes ask for its part."""

    def __init__(self, sources: Iterable[SourceFile], engine: Engine, work: Cache) -> None:
        self.engine, self.work = engine, work
        self.plans = plan_readings(list(sources), work)
        self._sets_read: dict[tuple[int, int], SetReading] = {}
        self.units = self._units()

    def read(self, indices: list[int]) -> list[FileResult]:
        """The readings of the units of these indices, in their order."""
        units = [self.units[i] for i in indices]
        whole = iter(self._read_whole([self.plans[u.file] for u in units if u.part is None]))
        wanted = [(unit.file, unit.part) for unit in units if unit.part is not None]
        self._read_sets([ref for ref in wanted if ref not in self._sets_read])
        with paused_gc():
            return [
                next(whole)
                if unit.part is None
                else sets.own_part(self._sets_read.pop((unit.file, unit.part)), unit.again)
                for unit in units
            ]

    def files(
        self, readings: list[FileResult], names: list[bytes] | None = None
    ) -> list[tuple[FileResult, bytes | None]]:
        """Each file's reading, from its units' readings (``readings``, in the units' order),
        with its card names as cards.jsonl's lines when they came back from the cache as
        lines (``names``: a unit's reading found in the cache has none; None: every reading
        has its own), else None: its reading has them. Lines are left as they are: a run
        writes them to cards.jsonl as they are (an AllPrintings-shaped file's 273,381
        entries: decoded and encoded again, 0.25 s of an edited run), and ``with_names``
        decodes them where records are asked for. The passes are over: a set read to learn
        its cards whose passed reading was found is let go."""
        self._sets_read.clear()
        by_file: list[list[tuple[FileResult, bytes | None]]] = [[] for _ in self.plans]
        for unit, reading, lines in zip(
            self.units, readings, names or [None] * len(readings), strict=True
        ):
            by_file[unit.file].append((reading, lines))
        with paused_gc():
            return [
                self._joined(parts) if plan.parts is not None else _name_lines(*parts[0])
                for plan, parts in zip(self.plans, by_file, strict=True)
            ]

    def _joined(
        self, parts: list[tuple[FileResult, bytes | None]]
    ) -> tuple[FileResult, bytes | None]:
        """A file of sets' reading from its sets' parts (``sets.joined``), its card names
        taken from the cache, as lines, when its sets' entries are the ones joined before."""
        read = sum(not lines for _, lines in parts)
        if not self.work.keeps or read > JOINED_KEPT_SHARE * len(parts):
            return sets.joined(parts), None
        blocks = (lines or Lines.encoded(part.card_names) for part, lines in parts)
        job = Job(NAMES_JOINED, [self.work.key(NAMES_JOINED, map(hexdigest, blocks))])
        [found] = look_up(job, self.work)
        if found is not None:
            return sets.joined(parts, names_known=True), found
        reading = sets.joined(parts)
        keep(job, self.work, {0: Lines.encoded(reading.card_names)})
        return reading, None

    def _units(self) -> list[PassUnit]:
        ruled = self._ruled()
        units = []
        for number, plan in enumerate(self.plans):
            if plan.parts is None:
                units.append(PassUnit(number, plan.key))
                continue
            again = sets.ruled_before([ruled[number, part] for part in range(len(plan.parts))])
            for part, (key, paths) in enumerate(zip(plan.part_keys, again, strict=True)):
                own = digest([key, *sorted(paths)]) if key is not None else None
                units.append(PassUnit(number, own, part, paths))
        return units

    def _ruled(self) -> dict[tuple[int, int], list[tuple[str, str]]]:
        """The cards each set of the files read set by set rules: kept, else from the set's
        reading (held for the passes)."""
        refs = [
            (number, part)
            for number, plan in enumerate(self.plans)
            for part in range(len(plan.parts or ()))
        ]
        if not refs:
            return {}
        job = Job(SET_RULED, [self.plans[number].ruled_keys[part] for number, part in refs])
        found = look_up(job, self.work)
        missing = [i for i, cards in enumerate(found) if cards is None]
        self._read_sets([refs[i] for i in missing])
        computed = {}
        for i in missing:
            reading = self._sets_read[refs[i]]
            found[i] = reading.ruled
            if keepable(reading.read):
                computed[i] = reading.ruled
        keep(job, self.work, computed)
        return dict(zip(refs, found, strict=True))

    def _read_whole(self, plans: list[FilePlan]) -> list[FileResult]:
        if not plans:
            return []
        keys = [plan.key for plan in plans]
        job = Job(READ, keys, items=[plan.doc for plan in plans], keep=keepable)
        [read] = execute([job], read_task, cache=self.work, engine=self.engine)
        return read

    def _read_sets(self, refs: list[tuple[int, int]]) -> None:
        """Read these sets (from the cache where it keeps them) into ``_sets_read``: most of a
        file's sets in one pass over it (``sets.plan``)."""
        if not refs:
            return
        parts = [self.plans[number].parts[part] for number, part in refs]
        totals = sets.file_totals([part for plan in self.plans for part in plan.parts or ()])
        job = Job(
            READ_SET,
            [self.plans[number].part_keys[part] for number, part in refs],
            plan=sets.plan(parts, totals),
            keep=lambda reading: keepable(reading.read),
        )
        [read] = execute([job], read_task, cache=self.work, engine=self.engine)
        self._sets_read.update(zip(refs, read, strict=True))


def read_files(sources: list[SourceFile], engine: Engine, work: Cache) -> list[FileResult]:
    """What each file gave, in order: from the cache for a file read before (same name and
    bytes, same code), else read (one task per file) and kept."""
    readings = Readings(sources, engine, work)
    read = readings.files(readings.read(list(range(len(readings.units)))))
    return [with_names(reading, lines) for reading, lines in read]


def _name_lines(reading: FileResult, lines: bytes | None) -> tuple[FileResult, bytes | None]:
    """A file's reading and its card names' lines when it came back from the cache without
    them (None: its reading has its card names)."""
    return reading, lines if lines and not reading.card_names else None


def with_names(reading: FileResult, lines: bytes | None) -> FileResult:
    """A file's reading with its card names, decoded from ``lines`` when it has them so
    (``Readings.files``)."""
    if lines is not None:
        reading.card_names = card_names_of(lines)
    return reading


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
