"""One execution layer: units of work, the cache that keeps their results, and the map over
those it does not hold.

A stage cuts its work into *units* (a file's reading, a document's alignment, a document's
checks, a consistency group), each with a *content key*: a digest of everything the unit's
result is computed from. A unit's result is a record with named fields (``model``'s
dataclasses, or lists and dicts of them), encoded with msgspec's MessagePack and decoded by
the record type its ``Kind`` declares: never positional lists.

``Kind`` declares one kind of unit: its name (the store's namespace), what the console calls
the units, the record type, and the *version* of the code and data its computation uses
(``Kind.version``: a constant bumped when the computation changes, the shape of the record
type and the digests of the shipped resource files it reads; ``docs/work.md`` says when to
bump). ``Job`` is the units of one kind in a stage: their keys and how the missing ones are
cut into tasks. ``execute`` does everything else, once for every stage:

1. the look-up of every keyed unit in the cache (``Cache``; a hit decoded into its record
   type, the strings its records repeat made one object: ``tables.share``; in a large run,
   first in the last run's results kept together, ``last_run``),
2. the plan of the missing units into tasks (the job's ``plan``, else ``batched``),
3. the map of the tasks over the engine (``engine.map``: local or Dask; one map call for all
   the jobs of a stage, so a Dask worker builds the stage's context once),
4. the re-assembly of each unit's result (a unit computed in parts by several tasks is
   merged by the job's ``merge``), kept in the cache (and with the others together, where
   the last run's have gone stale), and returned in the units' order,

with the cyclic garbage collector paused throughout and inside every task (the records make
no cycles, and each collection of the oldest generation walked every record alive).

A new kind of unit is one ``Kind`` and one ``Job`` in the stage that computes it; nothing
here changes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec

from . import last_run
from .engine import Engine
from .engine.local import LocalEngine
from .memo import digest
from .parts_once import PartsOnce
from .tables import paused_gc, share

R = TypeVar("R")
Task = Any
Plan = Callable[[list[int]], list[tuple[Task, list[int]]]]
"""Missing unit indices -> tasks, each with the indices of the units its output is for (one
output item per index, in order; a unit may come in parts from several tasks)."""


@dataclass(frozen=True)
class Kind(Generic[R]):
    """One kind of unit of work.

    ``version`` is bumped whenever what ``compute`` gives for the same input changes (a
    fixed bug, a new field's value): every entry of the kind is then recomputed. Changes
    that do not change results (a docstring, a refactoring, a faster way to the same
    records) keep it, and so keep every user's cache. ``resources`` are the shipped data
    files the computation reads (``pipelines/resources``): their bytes are in the version,
    so a changed list recomputes without a bump."""

    name: str
    label: str
    """What the console calls the units ("files read")."""
    record: Any
    """The msgspec type of a unit's result."""
    version: str
    resources: tuple[str, ...] = ()
    share: bool = True
    """Whether the strings and values decoded records repeat are made one object."""
    stored: Callable[[R], R] | None = None
    """What is kept of a record, when not the record itself (a copy without what it also
    holds in another form: ``ingest/passes.py`` keeps its rulings as their table's lines)."""
    restored: Callable[[R], R] | None = None
    """The record again from what ``stored`` kept."""
    parts_once: bool = False
    """Whether the lists and dicts of the records' parts are stored once per entry, and read
    back single (``parts_once.py``: findings, whose evidence repeats them)."""
    remembered: bool = False
    """Whether a large run also keeps its results together in a few entries, read back in
    a few pieces by the next run (``last_run.py``: the kinds whose every unit an edited run
    reads back)."""

    @functools.cached_property
    def version_digest(self) -> str:
        """The version, the shape of the record type and the resource files' bytes."""
        from .resources import resource_path

        schema = msgspec.json.encode(msgspec.json.schema(self.record))
        resources = [resource_path(name).read_bytes() for name in sorted(self.resources)]
        stored_as = ["parts once"] if self.parts_once else []
        return digest([self.name, self.version, schema, *stored_as, *resources])[:24]

    @functools.cached_property
    def _encoder(self) -> msgspec.msgpack.Encoder:
        return msgspec.msgpack.Encoder()

    @functools.cached_property
    def _decoder(self) -> msgspec.msgpack.Decoder:
        return msgspec.msgpack.Decoder(self.record)

    @functools.cached_property
    def _parts_once(self) -> PartsOnce:
        return PartsOnce(self.record)

    def as_read_back(self, record: R) -> R:
        """A computed record as a run reading it back from the store gets it: encoded and
        decoded (a kind may keep less of it, ``stored``, or decode to other types)."""
        return self.decode(self.encode(record))

    def encode(self, record: R) -> bytes:
        kept = record if self.stored is None else self.stored(record)
        return self._parts_once.encode(kept) if self.parts_once else self._encoder.encode(kept)

    def decode(self, data: bytes | memoryview, copies: dict[Any, Any] | None = None) -> R:
        """A record from its bytes (msgspec.DecodeError, ValueError or TypeError when they
        are not one of today's records); a kind with ``parts_once`` makes its parts single
        in ``copies`` as it decodes them."""
        if self.parts_once:
            record = self._parts_once.decode(data, copies)
        else:
            record = self._decoder.decode(data)
        return record if self.restored is None else self.restored(record)


KINDS: dict[str, Kind] = {}
"""Every kind of unit, by name (the console's summary, ``rulings cache info``)."""


def current_versions() -> dict[str, str]:
    """Every kind of unit declared so far (the stages declare theirs when imported), with
    its version digest."""
    return {name: declared.version_digest for name, declared in KINDS.items()}


def kind(name: str, label: str, record: Any, version: str, **options: Any) -> Kind:
    """Declare (and register) a kind of unit of work."""
    if name in KINDS:
        raise ValueError(f"unit kind {name!r} is declared twice")
    KINDS[name] = declared = Kind(name, label, record, version, **options)
    return declared


@dataclass
class Reuse:
    """How many units of each kind a run took from the cache, and computed; and how many
    entries it found written for another key (``foreign``: recomputed)."""

    counts: dict[str, list[int]] = field(default_factory=dict)
    foreign: dict[str, int] = field(default_factory=dict)

    def count(self, kind: str, hit: bool) -> None:
        self.counts.setdefault(kind, [0, 0])[0 if hit else 1] += 1

    def taken_back(self, kind: str, units: int) -> None:
        """``units`` counted found in the cache were computed again after all (a stage that
        found them made with what the run no longer has: ``ingest/passes.py``)."""
        if units:
            counts = self.counts.setdefault(kind, [0, 0])
            counts[0] -= units
            counts[1] += units

    def count_foreign(self, kind: str) -> None:
        self.foreign[kind] = self.foreign.get(kind, 0) + 1

    def reused(self, kind: str) -> int:
        return self.counts.get(kind, [0, 0])[0]

    def total(self, kind: str) -> int:
        return sum(self.counts.get(kind, [0, 0]))


class Cache:
    """A run's view of the work store: keys made with the run's ``context`` (what every
    unit depends on besides its own content: options, digests of the termbase), look-ups
    counted in ``reuse``. ``store`` None keeps nothing (every unit is computed).

    ``shares_from``: from how many stored bytes of the results one ``execute`` reads back
    the strings and parts they repeat are made one object (``tables.share``): 0 always, None
    never. It is the memory policy a stage sets from the size of its run
    (``stages.work_cache``): it keeps a million units' results within memory, and it is
    most of the time of reading a small run's results back."""

    def __init__(
        self,
        store: Any | None,
        context: Iterable[str] = (),
        reuse: Reuse | None = None,
        *,
        shares_from: int | None = 0,
    ) -> None:
        self.store = store
        self.context = tuple(context)
        self.reuse = reuse if reuse is not None else Reuse()
        self.shares_from = shares_from

    @property
    def keeps(self) -> bool:
        return self.store is not None

    def with_context(self, context: Iterable[str]) -> Cache:
        """The same store and counts, another context."""
        return Cache(self.store, context, self.reuse, shares_from=self.shares_from)

    def key(self, kind: Kind, parts: Iterable[str | bytes]) -> str | None:
        """A unit's key: its kind's version, the run's context and the unit's own parts
        (None when nothing is kept)."""
        if self.store is None:
            return None
        return digest([kind.name, kind.version_digest, *self.context, *parts])

    def get_many(self, kind: Kind, keys: Sequence[str]) -> dict[str, memoryview]:
        """The stored payloads of the keys that have one written for them (a foreign entry
        is counted and left out)."""
        return dict(self.each(kind, keys))

    def each(self, kind: Kind, keys: Sequence[str]) -> Iterator[tuple[str, memoryview]]:
        """``get_many``'s payloads as (key, payload), a few hundred read at a time."""
        return self.store.each(
            kind.name, kind.version_digest, keys, lambda: self.reuse.count_foreign(kind.name)
        )

    def put_many(self, kind: Kind, items: list[tuple[str, bytes]]) -> None:
        if items:
            self.store.put_many(kind.name, kind.version_digest, items)

    def records(self, kind: Kind, keys: Sequence[str]) -> dict[str, Any]:
        """The records kept under the keys, decoded, for a caller that looks small records
        up by its own keys (an entry that is not one of today's records is left out);
        nothing when the cache keeps nothing."""
        if not self.keeps or not keys:
            return {}
        decoded = ((key, _decoded(kind, data, None)) for key, data in self.each(kind, keys))
        return {key: record for key, record in decoded if record is not _MISSING}

    def put_records(self, kind: Kind, records: dict[str, Any]) -> None:
        """Keep records under their keys, in the keys' order (``records``'s counterpart)."""
        if self.keeps and records:
            self.put_many(kind, [(key, kind.encode(records[key])) for key in sorted(records)])


def no_cache() -> Cache:
    return Cache(None)


@dataclass
class Job(Generic[R]):
    """The units of one kind in a stage.

    ``keys``: one per unit (None: computed, never kept: a file that cannot be read, a check
    over the whole corpus). ``plan`` cuts the missing units into tasks (default: one task
    per ``size`` units in order, the task being the list of their ``items``). ``merge``
    makes a unit's result of its parts, in the order the tasks give them, when tasks compute
    units in parts (without it, a unit is one task's one output item). ``keep`` says whether
    a computed result may be kept."""

    kind: Kind[R] | None
    keys: Sequence[str | None]
    plan: Plan | None = None
    items: Sequence[Any] = ()
    size: int = 1
    merge: Callable[[list[R]], R] | None = None
    keep: Callable[[R], bool] | None = None
    remembered: Any = field(default=None, init=False, repr=False, compare=False)
    """What ``look_up`` took from the last run's entries of a remembered kind and the values
    it made single, for ``keep`` to write them again where stale (``last_run``)."""

    def tasks(self, missing: list[int]) -> list[tuple[Task, list[int]]]:
        if self.plan is not None:
            return self.plan(missing)
        return batched(self.items, missing, self.size)


def batched(items: Sequence[Any], missing: list[int], size: int) -> list[tuple[Task, list[int]]]:
    """Tasks of ``size`` missing units each, in order: the task is the list of their items."""
    return [
        ([items[i] for i in part], part)
        for part in (missing[start : start + size] for start in range(0, len(missing), size))
    ]


def execute(
    jobs: Sequence[Job],
    function: Callable[..., list[Any]],
    *,
    cache: Cache | None = None,
    engine: Engine | None = None,
    shared: dict[str, Any] | None = None,
    setup: Callable[..., Any] | None = None,
    context: Any = None,
) -> list[list[Any]]:
    """The result of every unit of every job, in the units' order: from the cache where it
    holds one, else computed by ``function`` (a task -> one output per unit index of the
    task) in one ``engine.map`` over the tasks of all jobs, with ``shared``, ``setup`` and
    ``context`` as ``Engine.map`` takes them; what was computed is kept."""
    cache = cache or no_cache()
    engine = engine or LocalEngine()
    with paused_gc():
        copies = _copies(jobs, cache)  # one object for each value the stored records repeat
        remembered = _remembered(jobs, cache, copies)
        results = [
            _stored(job, cache, copies, remembered.taken.get(number))
            for number, job in enumerate(jobs)
        ]
        planned: list[tuple[int, list[int]]] = []
        tasks: list[Task] = []
        for number, (job, found) in enumerate(zip(jobs, results, strict=True)):
            missing = [i for i, result in enumerate(found) if result is _MISSING]
            for task, indices in job.tasks(missing) if missing else []:
                tasks.append(task)
                planned.append((number, indices))
        outputs = engine.map(
            _without_collector(function), tasks, shared=shared, setup=setup, context=context
        )
        parts: list[dict[int, list[Any]]] = [{} for _ in jobs]
        for (number, indices), output in zip(planned, outputs, strict=True):
            for index, part in zip(indices, output, strict=True):
                parts[number].setdefault(index, []).append(part)
        for job, found, computed in zip(jobs, results, parts, strict=True):
            for index, pieces in computed.items():
                found[index] = job.merge(pieces) if job.merge is not None else pieces[0]
            keep(job, cache, {index: found[index] for index in computed})
        _remember(jobs, cache, results, remembered, copies, parts)
    return results


def look_up(job: Job, cache: Cache) -> list[Any]:
    """The job's results the cache holds, None for the others (each keyed unit counted a hit
    or a miss): for a stage that computes the missing ones itself, where what they are
    computed with depends on the results found (``ingest/passes.py``); ``keep`` keeps them."""
    with paused_gc():
        copies = _copies([job], cache)
        remembered = _remembered([job], cache, copies)
        found = _stored(job, cache, copies, remembered.taken.get(0))
    job.remembered = (remembered, copies)
    return [None if result is _MISSING else result for result in found]


def keep(
    job: Job, cache: Cache, computed: dict[int, Any], results: Sequence[Any] | None = None
) -> None:
    """Keep the computed results of a job's units (by unit index): those with a key, that
    ``job.keep`` allows. With every unit's final ``results`` (a job looked up with
    ``look_up``), a remembered kind's are kept together for the next run too."""
    kept = _Batches(cache, job.kind)
    for index, result in computed.items():
        key = job.keys[index]
        if key is not None and (job.keep is None or job.keep(result)):
            kept.add(key, job.kind.encode(result))
    kept.flush()
    if results is not None and job.remembered is not None:
        remembered, copies = job.remembered
        _remember([job], cache, [list(results)], remembered, copies, [computed])


@dataclass
class _Remembered:
    """The results of a call's jobs that the last run kept together (``last_run``), by the
    job's number (``taken``), and what they were taken from (``kept``)."""

    taken: dict[int, dict[str, Any]] = field(default_factory=dict)
    kept: last_run.Remembered | None = None


def _remembered(jobs: Sequence[Job], cache: Cache, copies: dict[Any, Any] | None) -> _Remembered:
    """What the last run kept together of the jobs of remembered kinds (``Kind.remembered``),
    in a run that shares what it reads back (``copies``). A smaller run reads its results
    as they are, which is quicker than unpickling them: the 100k corpus's edited run took
    6.1 s with its file readings, alignments and checks unpickled, 5.8 s without."""
    numbers = _remembered_jobs(jobs, cache)
    if not numbers or copies is None:
        return _Remembered()
    kept = [
        last_run.Kept(
            jobs[n].kind.name,
            jobs[n].kind.version_digest,
            [key for key in jobs[n].keys if key is not None],
        )
        for n in numbers
    ]
    found = last_run.read(cache.store, kept)
    return _Remembered(dict(zip(numbers, found.taken, strict=True)), found)


def _remembered_jobs(jobs: Sequence[Job], cache: Cache) -> list[int]:
    if not cache.keeps:
        return []
    return [n for n, job in enumerate(jobs) if job.kind is not None and job.kind.remembered]


def _remember(
    jobs: Sequence[Job],
    cache: Cache,
    results: list[list[Any]],
    remembered: _Remembered,
    copies: dict[Any, Any] | None,
    computed: Sequence[Iterable[int]],
) -> None:
    """Keep the final results of the jobs of remembered kinds together for the next run, in
    the buckets where what the last run kept has gone stale (``last_run.Remembered.stale``).
    Its ``computed`` results (by job, the units' indices) are kept as a run reading them
    back from their own entries gets them (``Kind.as_read_back``), and, in a run that shares
    what it reads back (``copies``: a large one), with the values they repeat made one object,
    as those read back are: the next run holds them as they were pickled, and a million
    units' findings held as copies took 745 MB more than shared."""
    numbers = _remembered_jobs(jobs, cache)
    if not numbers or remembered.kept is None:
        return
    kept, made_keys = [], []
    for number in numbers:
        job, found, made = jobs[number], results[number], set(computed[number])
        units: dict[str, Any] = {}
        computed_keys: set[str] = set()
        for index, (key, result) in enumerate(zip(job.keys, found, strict=True)):
            if key is None or result is None or key in units:
                continue
            if job.keep is None or job.keep(result):
                if index in made:
                    computed_keys.add(key)
                units[key] = result
        kept.append(last_run.Kept(job.kind.name, job.kind.version_digest, units))
        made_keys.append(computed_keys)
    stale = remembered.kept.stale([part.units for part in kept])
    if not stale:
        return
    kinds = [jobs[number].kind for number in numbers]

    def as_read_back(results: list[list[Any]], keys: list[list[str]]) -> list[list[Any]]:
        """A bucket's computed results made as the next run would read them from their own
        entries, a bucket at a time: all of a run's at once (every document's findings,
        when every check key moved) took 1.5 GB more at a million units."""
        fresh: list[Any] = []
        for kind, computed_keys, these, part in zip(kinds, made_keys, results, keys, strict=True):
            for at, key in enumerate(part):
                if key in computed_keys:
                    these[at] = kind.as_read_back(these[at])
                    fresh.append(these[at])
        if copies is not None:
            share(fresh, copies)
        return results

    last_run.write(cache.store, kept, stale, as_read_back)


KEPT_BATCH_BYTES = 32 << 20
"""The computed results of a kind are kept in transactions of about this many bytes: all
of them in one held every result encoded (twice, while the store wrote them) at once. A
million-unit run that recomputed its 20,606 groups (328 MB of entries) rose 740 MB, to
4,250 MiB, while it kept them; a batch at a time, 320 MB (``benchmarks/results/work_layer.md``)."""


class _Batches:
    """The results of one kind being kept, written to the store a batch at a time."""

    def __init__(self, cache: Cache, kind: Kind | None) -> None:
        self.cache, self.kind = cache, kind
        self.items: list[tuple[str, bytes]] = []
        self.size = 0

    def add(self, key: str, data: bytes) -> None:
        self.items.append((key, data))
        self.size += len(data)
        if self.size >= KEPT_BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.items and self.cache.keeps:
            self.cache.put_many(self.kind, self.items)
        self.items, self.size = [], 0


_MISSING = object()


def _copies(jobs: Sequence[Job], cache: Cache) -> dict[Any, Any] | None:
    """Where the results read back find the one object of each value they repeat, or None
    when they are read as they are (``Cache.shares_from``: decided before any is read, from
    the bytes stored for the jobs' keys)."""
    start = cache.shares_from
    if start is None or not cache.keeps:
        return None
    if start == 0:
        return {}
    keys = {key: None for job in jobs if job.kind and job.kind.share for key in job.keys if key}
    return {} if cache.store.stored_bytes(list(keys), enough=start) >= start else None


def _stored(
    job: Job,
    cache: Cache,
    copies: dict[Any, Any] | None,
    remembered: dict[str, Any] | None = None,
) -> list[Any]:
    """The job's results the cache holds, ``_MISSING`` for the others (each keyed unit
    counted a hit or a miss): those ``remembered`` holds for a key of one unit as they are,
    the others from their own entries. Each payload is decoded as it is read, for every unit
    of its key, and let go; with ``copies``, the repeated values of the results are made
    single ``SHARED_AT_ONCE`` results at a time."""
    found: list[Any] = [_MISSING] * len(job.keys)
    if job.kind is None or not cache.keeps:
        return found
    kind = job.kind
    units: dict[str, list[int]] = {}
    for index, key in enumerate(job.keys):
        if key is not None:
            units.setdefault(key, []).append(index)
    taken = remembered or {}
    wanted = []
    for key, indices in units.items():
        if len(indices) == 1 and key in taken:
            found[indices[0]] = taken[key]
        else:
            wanted.append(key)
    shared = copies if kind.share else None
    pending: list[Any] = []  # decoded, their values not yet made single
    for key, data in cache.each(kind, wanted) if wanted else ():
        for index in units[key]:
            found[index] = result = _decoded(kind, data, shared)
            if shared is not None and result is not _MISSING:
                pending.append(result)
                if len(pending) >= SHARED_AT_ONCE:
                    share(pending, shared, parts=not kind.parts_once)
                    pending.clear()
    if pending:
        share(pending, shared, parts=not kind.parts_once)
    for indices in units.values():
        for index in indices:
            cache.reuse.count(kind.name, found[index] is not _MISSING)
    return found


SHARED_AT_ONCE = 32
"""Results read back have their repeated values made single this many at a time
(``tables.share`` gathers their records by type and goes through a column of all of them
at once), not one short pass per file's rulings or per document's findings. An edited
million-unit run, run after run: 32 at a time, 92.4 s and a peak of 3,487 MiB; 256 at a
time, 92.7 s and 3,630 MiB (what 256 results hold unshared). One at a time took 2-4 s
more, at the same peak as 32 (``benchmarks/results/work_layer.md``)."""


def _decoded(kind: Kind, data: memoryview, copies: dict[Any, Any] | None) -> Any:
    """A stored result as its record, ``_MISSING`` when its bytes are not today's record."""
    try:
        return kind.decode(data, copies)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return _MISSING


class _without_collector:
    """``function`` run with the cyclic collector paused (in a Dask worker too: the wrapper
    travels with the task)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.__name__ = getattr(function, "__name__", "task")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with paused_gc():
            return self.function(*args, **kwargs)
