"""The last run's results of kinds of unit kept together, read back in a few pieces.

An edited run reads almost every unit's result back from the work store: an entry per unit,
each decoded, and at a million units the values the records repeat made one object again
(``tables.share``). A kind declared ``remembered`` (``work.Kind``) also has the final
results of its last run kept in a few entries of the store (of the kind
``last-run:<kinds>``: the remembered kinds of one ``work.execute``, or of one ``look_up``
and its ``keep``, kept together because their results share values): the results by key,
pickled, which Python reads back in C loops with the values they share still one object. A
run takes from them the result of every unit whose key they hold and reads the others from
their own entries, as before. The records are those of the units' own entries: the same
keys, so the same inputs, and a result computed in the run is kept as its own entry gives
it back (``work.Kind.as_read_back``).

The units are cut into ``BUCKETS`` by their keys, an entry each: an edited document dirties
one bucket, and a bucket is pickled with a sixteenth of the memory a whole run's results
took (pickle's memo of every object: 468 MB more for a million units' findings in one
piece). An entry is stored under its bucket and the smallest of the bucket's keys
(``_slot``): an edit moves it only when the unit edited held it or takes its place, and
runs over other corpora sharing the cache keep entries of their own. An entry whose keys
are less than half of its bucket's, or more than twice as many, is not read (it would cost
more than it gives, and hold results nobody asked for).

Only a run that shares what it reads back (a large one: ``work.Cache.shares_from``) reads
and writes these entries: a smaller one reads its results as they are, quicker than it
unpickles them.

A bucket's entry is written again when more than ``STALE_SHARE`` of its final results are
not those taken from it, or as many of its results were not asked for: all of them on the
first run, a few after many edits. An edited run that changed a few documents reads them
from their own entries and writes nothing here.

Pickle calls whatever its data names. An entry is read behind the store's digest and by an
unpickler that builds only the record types of this package (dataclasses, msgspec structs,
enumerations, named tuples) and the builtin containers: anything else, a damaged entry or
one of an older shape is a miss, and the units are read from their own entries.
"""

from __future__ import annotations

import copyreg
import dataclasses
import enum
import inspect
import io
import pickle
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from operator import methodcaller
from typing import Any, NamedTuple

import msgspec

from .memo import digest
from .model import column_names, field_getter

BUCKETS = 16
"""Entries per ``work.execute``: the units' keys cut by their CRC-32."""
STALE_SHARE = 0.02
"""The share of a bucket's units that may come from their own entries (changed since its
entry was written), or of its entry's results that the run no longer asks for, before the
entry is written again."""
PROTOCOL = 5
FORMAT = "2"
"""How the entries are pickled (2: records that only set their fields as calls of their
class, ``_FieldsReducers``). Entries of another format are not read: a run writes them
again in this one, once, and reads them quicker from then on."""
PREFIX = "last-run:"


def store_kind(names: Sequence[str]) -> str:
    """The store's kind of the entries that keep the last run of kinds ``names``."""
    return PREFIX + "+".join(names)


class Kept(NamedTuple):
    """One kind's part of the entries: its name, its version digest and its units' keys (for
    ``read``) or results by key (for ``write``)."""

    name: str
    version: str
    units: Any


class Remembered:
    """The results a run took from the last-run entries, of each kind (``taken``, by key),
    and how many results the entry of each bucket read holds (``held``)."""

    def __init__(self, taken: list[dict[str, Any]], held: dict[int, int]) -> None:
        self.taken = taken
        self.held = held

    def stale(self, results: Sequence[Mapping[str, Any]]) -> set[int]:
        """The buckets whose entries are to be written again for the run's final ``results``
        (of each kind, by key): those where more than ``STALE_SHARE`` of the results are not
        the ones taken from the entry (computed, read from their own entries, or taken and
        then worked out again by the stage), or of the entry's results were not asked for."""
        asked = [0] * BUCKETS
        same = [0] * BUCKETS
        for these, taken in zip(results, self.taken, strict=True):
            for key, result in these.items():
                bucket = bucket_of(key)
                asked[bucket] += 1
                same[bucket] += taken.get(key, _NONE) is result
        return {
            bucket
            for bucket in range(BUCKETS)
            if asked[bucket] - same[bucket] > STALE_SHARE * asked[bucket]
            or self.held.get(bucket, 0) - same[bucket] > STALE_SHARE * self.held.get(bucket, 0)
        }


_NONE = object()


def read(store: Any, kinds: Sequence[Kept]) -> Remembered:
    """The results of each kind's keys (``Kept.units``: a list) that the last-run entries of
    ``kinds`` hold: none from a bucket whose entry the store does not have, cannot read or
    holds for other units."""
    wanted = [_bucketed(kept.units) for kept in kinds]
    taken: list[dict[str, Any]] = [{} for _ in kinds]
    held: dict[int, int] = {}
    asked = {bucket: sum(len(by[bucket]) for by in wanted) for bucket in range(BUCKETS)}
    slots = {_slot(bucket, wanted): bucket for bucket in range(BUCKETS) if asked[bucket]}
    if store is None or not slots:
        return Remembered(taken, held)
    kind, version = store_kind(_names(kinds)), _version(kinds)
    for bucket, entries in _fetched(store, kind, version, slots):
        for _, data in entries:
            found = _entry(data, [by[bucket] for by in wanted], asked[bucket])
            if found is not None:
                held[bucket], results = found
                for into, these in zip(taken, results, strict=True):
                    into.update(these)
    return Remembered(taken, held)


def _fetched(
    store: Any, kind: str, version: str, slots: Mapping[str, int]
) -> Iterator[tuple[int, list[tuple[str, memoryview]]]]:
    """Each bucket's entries (by its slot), one bucket at a time (a million units' are 1.45
    GB), the next one read from the store in a thread while the caller unpickles the last:
    SQLite's reading and the check of the entry's digest let other threads run, unpickling
    does not."""

    def fetch(slot: str) -> list[tuple[str, memoryview]]:
        try:
            return list(store.each(kind, version, [slot]))
        except Exception:  # an unreadable store is a miss, never a failed run
            return []

    order = list(slots.items())
    if not order:
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="last-run") as pool:
        pending = pool.submit(fetch, order[0][0])
        for number, (_, bucket) in enumerate(order):
            entries = pending.result()
            if number + 1 < len(order):
                pending = pool.submit(fetch, order[number + 1][0])
            yield bucket, entries
            del entries


def _entry(data: memoryview, wanted: list[set[str]], asked: int) -> tuple[int, list] | None:
    """How many results an entry holds, and those of the keys ``wanted`` (one set per kind);
    None when it is not worth reading or cannot be read."""
    try:
        stream = io.BytesIO(data)  # a copy of one bucket's entry: quicker to read than a view
        held = _RecordsOnly(stream).load()
        if not isinstance(held, list) or len(held) != len(wanted):
            return None
        total = sum(map(len, held))
        pairs = zip(held, wanted, strict=True)
        if 2 * sum(1 for keys, want in pairs for key in keys if key in want) < asked or (
            total > 2 * asked
        ):
            return None
        results = _RecordsOnly(stream).load()
        return total, [
            {key: result for key, result in zip(keys, values, strict=True) if key in want}
            for keys, values, want in zip(held, results, wanted, strict=True)
        ]
    except Exception:  # any unreadable entry is a miss, never a failed run
        return None


def write(
    store: Any,
    kinds: Sequence[Kept],
    buckets: Iterable[int],
    prepare: Callable[[list[list[Any]], list[list[str]]], list[list[Any]]] | None = None,
) -> None:
    """Keep each kind's results (``Kept.units``: a dict by key) of the ``buckets`` as their
    last-run entries, one entry (and one pickle's memory) at a time. ``prepare`` is given
    each bucket's results (a list per kind) with their keys before they are pickled, and
    gives those to keep."""
    if store is None:
        return
    keys = [_bucketed(kept.units) for kept in kinds]
    kind, version = store_kind(_names(kinds)), _version(kinds)
    for bucket in sorted(buckets):
        these = [sorted(by[bucket]) for by in keys]
        if not any(these):
            continue
        results = [
            [kept.units[key] for key in part] for kept, part in zip(kinds, these, strict=True)
        ]
        if prepare is not None:
            results = prepare(results, these)
        data = _pickled(these) + _pickled(results)
        del results
        store.put_many(kind, version, [(_slot(bucket, keys), data)])


def _pickled(value: Any) -> bytes:
    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, PROTOCOL)
    pickler.dispatch_table = _BY_FIELDS
    pickler.dump(value)
    return stream.getvalue()


class _FieldsReducers(dict):
    """The reducers of the pickler that writes entries (its ``dispatch_table``): a record
    whose construction only sets its fields (``_set_by_init``) is pickled as its class
    called with its fields' values. Read back, that is one call of the generated
    ``__init__``, quicker than pickle's default, which makes the object and then sets its
    slots one by one from a dict of them: a bucket of a million units' passed readings read
    in 0.13-0.14 s against 0.21-0.25 s, of alignments in 0.02 s against 0.06 s. Any other
    type is pickled as ``copyreg`` says, or pickle's own way."""

    def __missing__(self, kind: type) -> Callable[[Any], Any]:
        if _set_by_init(kind):
            values = field_getter(kind)
            reduce = lambda record: (kind, values(record))  # noqa: E731
        elif kind in copyreg.dispatch_table:
            reduce = copyreg.dispatch_table[kind]
        elif issubclass(kind, type):
            raise KeyError(kind)  # a class: pickled by name
        else:
            reduce = methodcaller("__reduce_ex__", PROTOCOL)  # what pickle calls itself
        self[kind] = reduce
        return reduce


def _set_by_init(kind: type) -> bool:
    """Whether calling ``kind`` with its fields' values, in order, makes a record equal to
    the one they are taken from and does nothing else: a dataclass of this package with
    slots (no other state), its generated ``__init__`` taking its fields by position and
    nothing else (no init-only variable), and no ``__post_init__``."""
    if not (
        isinstance(kind, type)
        and dataclasses.is_dataclass(kind)
        and kind.__module__.startswith("pipelines.")
        and "__slots__" in kind.__dict__
        and kind.__dataclass_params__.init  # type: ignore[attr-defined]
        and not hasattr(kind, "__post_init__")
    ):
        return False
    parameters = list(inspect.signature(kind.__init__).parameters.values())[1:]
    return tuple(p.name for p in parameters) == column_names(kind) and all(
        p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters
    )


_BY_FIELDS = _FieldsReducers()


def named(store_kind_name: str) -> list[str]:
    """The kinds a last-run entry's kind keeps (none for another kind of entry)."""
    if not store_kind_name.startswith(PREFIX):
        return []
    return store_kind_name[len(PREFIX) :].split("+")


def current_versions(stored: Iterable[str], current: Mapping[str, str]) -> dict[str, str]:
    """The version today's code gives each last-run kind among ``stored`` (the store's kinds)
    whose kinds ``current`` (each kind's version digest) all has: with ``current``, what
    ``rulings cache info`` calls current and ``rulings cache prune`` keeps."""
    versions = {}
    for name in stored:
        kinds = named(name)
        if kinds and all(kind in current for kind in kinds):
            versions[name] = _joined_version([current[kind] for kind in kinds])
    return versions


def naming(stored: Iterable[str], kinds: Iterable[str]) -> list[str]:
    """The last-run kinds among ``stored`` that keep any of ``kinds`` (cleared with them: a
    cleared kind's units must be computed again, not taken from the entries)."""
    wanted = set(kinds)
    return sorted(name for name in stored if wanted.intersection(named(name)))


def bucket_of(key: str) -> int:
    return zlib.crc32(key.encode()) % BUCKETS


def _bucketed(keys: Iterable[str]) -> list[set[str]]:
    buckets: list[set[str]] = [set() for _ in range(BUCKETS)]
    for key in keys:
        buckets[bucket_of(key)].add(key)
    return buckets


def _names(kinds: Sequence[Kept]) -> list[str]:
    return [kept.name for kept in kinds]


def _version(kinds: Sequence[Kept]) -> str:
    return _joined_version([kept.version for kept in kinds])


def _joined_version(versions: list[str]) -> str:
    """The version of the entries that keep kinds of these version digests, in order, in
    today's ``FORMAT``."""
    return digest([FORMAT, *versions])


def _slot(bucket: int, keys: Sequence[Sequence[set[str]]]) -> str:
    """The key of a bucket's entry, for units with ``keys`` (by kind, by bucket): the bucket
    and the smallest of its keys."""
    return digest(["last-run", str(bucket), min(min(by[bucket]) for by in keys if by[bucket])])


_CONTAINERS = {
    ("builtins", name) for name in ("set", "frozenset", "bytearray", "object", "complex")
} | {("copyreg", "__newobj__"), ("copyreg", "_reconstructor")}


class _RecordsOnly(pickle.Unpickler):
    """An unpickler that builds the package's record types and builtin values only."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _CONTAINERS:
            return super().find_class(module, name)
        if module == "pipelines" or module.startswith("pipelines."):
            found = super().find_class(module, name)
            if _record_type(found):
                return found
        raise pickle.UnpicklingError(f"not a record type: {module}.{name}")


def _record_type(value: Any) -> bool:
    """A dataclass, msgspec struct, enumeration or named tuple (whose construction only
    sets fields)."""
    return isinstance(value, type) and (
        dataclasses.is_dataclass(value)
        or issubclass(value, msgspec.Struct | enum.Enum)
        or (issubclass(value, tuple) and hasattr(value, "_fields"))
    )
