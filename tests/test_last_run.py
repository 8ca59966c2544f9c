"""The last run's results kept together (``pipelines/last_run.py``): read back in one piece
for the units whose keys they hold, never trusted beyond the package's record types, and
written again only when they have gone stale."""

from __future__ import annotations

import dataclasses
import os
import pickle
import pickletools
import sqlite3
from pathlib import Path

import pytest
from check_helpers import ruling

from pipelines import last_run, work
from pipelines.model import Alignment, Finding, Ruling
from pipelines.store import Store
from pipelines.work import Cache, Job, Kind, Reuse, execute


def finding(number: int, doc: str = "es/a.txt") -> Finding:
    return Finding(
        code="TERM001",
        category="terminology",
        severity="warning",
        message=f"term {number}",
        file=doc,
        line=number,
        ruling_id=f"{doc}#{number}",
        lang="es",
        source_id=f"en/a.txt#{number}",
        card="Sengir Vampire",
        section=None,
        evidence={"expected": ["habilidad disparada"], "found": "habilidad activada"},
    )


KIND = Kind("test-findings", "test units", list[Finding], version="1", remembered=True)
PLAIN = Kind("test-plain", "test units", list[Finding], version="1")


def kept(units) -> list[last_run.Kept]:
    return [last_run.Kept(KIND.name, KIND.version_digest, units)]


def keys_in(bucket: int, count: int, prefix: str = "k") -> list[str]:
    """``count`` keys of one bucket, in order."""
    keys = (f"{prefix}{n:05d}" for n in range(100_000))
    return [key for key in keys if last_run.bucket_of(key) == bucket][:count]


ALL = range(last_run.BUCKETS)


def test_results_come_back_for_the_keys_asked_with_their_shared_values(tmp_path: Path):
    store = Store(tmp_path)
    evidence = {"expected": ["habilidad disparada"]}
    results = {f"k{n:03d}": [finding(n)] for n in range(300)}
    for found in results.values():
        object.__setattr__(found[0], "evidence", evidence)  # one object, as shared runs hold
    last_run.write(store, kept(results), ALL)
    assert {row.kind: row.entries for row in store.info()} == {
        "last-run:test-findings": last_run.BUCKETS
    }

    asked = list(results)
    remembered = last_run.read(store, kept(asked))
    [taken] = remembered.taken
    assert taken == results and remembered.stale([taken]) == set()
    by_bucket = {}
    for key, found in taken.items():
        by_bucket.setdefault(last_run.bucket_of(key), set()).add(id(found[0].evidence))
    assert all(len(ids) == 1 for ids in by_bucket.values()), "shared within an entry"


def test_records_that_only_set_fields_are_pickled_as_a_call_of_their_class(tmp_path: Path):
    """Rulings and alignments come back by one call of their class each (quicker to read
    than pickle's way); a finding, whose construction also works out its fingerprint, comes
    back as it was, its fingerprint not worked out again."""
    carried = [{"line": 1, "text": "Vampiro de Sengir"}]  # one list, as a document's rulings
    rulings = [ruling(f"es/a.txt:{n}", f"Habilidad disparada {n}.", "es") for n in range(1, 4)]
    for each in rulings:
        each.carried = carried
    pair = Alignment("en/a.txt#1", "es/a.txt#1", "es", 0.93, "embedding", similarity=0.93)
    blank = finding(1)
    blank.fingerprint = ""  # set after construction: a call of the class would fill it in
    results = {"k1": [rulings, pair, blank]}
    store = Store(tmp_path)
    last_run.write(store, kept(results), ALL)

    [taken] = last_run.read(store, kept(["k1"])).taken
    back_rulings, back_pair, back_blank = taken["k1"]
    assert back_rulings == rulings and back_pair == pair
    assert back_rulings[0].carried is back_rulings[2].carried, "shared values stay shared"
    assert back_blank == blank and back_blank.fingerprint == ""

    ops = [op.name for op, _, _ in pickletools.genops(last_run._pickled([rulings, pair]))]
    assert ops.count("REDUCE") == len(rulings) + 1 and "BUILD" not in ops
    assert "BUILD" in {op.name for op, _, _ in pickletools.genops(last_run._pickled(blank))}


def test_a_bucket_is_stale_once_more_than_a_fiftieth_of_it_changed(tmp_path: Path):
    store = Store(tmp_path)
    keys = keys_in(3, 200)
    last_run.write(store, kept({key: [finding(n)] for n, key in enumerate(keys)}), ALL)
    edited = keys[:-4] + keys_in(3, 4, "new")  # 2% computed, 2% not asked: kept
    remembered = last_run.read(store, kept(edited))
    [taken] = remembered.taken
    assert len(taken) == 196 and remembered.stale([final(edited, taken)]) == set()
    edited = keys[:-5] + keys_in(3, 5, "new")
    remembered = last_run.read(store, kept(edited))
    assert remembered.stale([final(edited, remembered.taken[0])]) == {3}
    remembered = last_run.read(store, kept(keys[:-5]))
    assert remembered.stale([final(keys[:-5], remembered.taken[0])]) == {3}, "5 not asked for"
    remembered = last_run.read(store, kept(keys))
    [taken] = remembered.taken
    worked_out_again = {**taken, **{key: [finding(0)] for key in keys[:5]}}
    assert remembered.stale([worked_out_again]) == {3}, "5 taken, then worked out again"


def final(keys: list[str], taken: dict) -> dict:
    """A run's final results: those taken from the entries, the others computed."""
    return {key: taken[key] if key in taken else [finding(0)] for key in keys}


def test_an_entry_for_other_units_is_not_read(tmp_path: Path):
    store = Store(tmp_path)
    keys = keys_in(5, 10)
    last_run.write(store, kept({key: [finding(n)] for n, key in enumerate(keys)}), ALL)
    others = keys[:2] + keys_in(5, 3, "x")
    remembered = last_run.read(store, kept(others))
    if min(others) == keys[0]:  # the same entry, but most of its keys are others
        assert remembered.taken == [{}] and remembered.stale([final(others, {})]) == {5}
    moved = last_run.read(store, kept(keys[1:]))
    assert moved.taken == [{}], "the unit with the smallest key has gone: another entry"
    assert moved.stale([final(keys[1:], {})]) == {5}


class _Planted:
    """What an attacker would pickle: a call of ``os.system`` when unpickled."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_an_entry_naming_anything_but_a_record_type_is_refused_unrun(tmp_path: Path):
    store = Store(tmp_path)
    planted = tmp_path / "planted"
    [key] = keys_in(0, 1)
    data = pickle.dumps([[key]]) + pickle.dumps([[_Planted(planted)]])
    slot = last_run._slot(0, [last_run._bucketed([key])])
    store.put_many(last_run.store_kind([KIND.name]), last_run._version(kept(None)), [(slot, data)])
    remembered = last_run.read(store, kept([key]))
    assert remembered.taken == [{}] and remembered.held == {} and not planted.exists()
    assert pickle.loads(data[len(pickle.dumps([[key]])) :]) == [[0]] and planted.exists(), (
        "the entry was hostile: read by a plain unpickler, it ran the command"
    )


def test_a_damaged_entry_is_a_miss(tmp_path: Path):
    store = Store(tmp_path)
    [key] = keys_in(0, 1)
    last_run.write(store, kept({key: [finding(1)]}), ALL)
    store._connect().execute("UPDATE entries SET entry = substr(entry, 1, 40)")
    assert last_run.read(store, kept([key])).taken == [{}]


def test_only_records_whose_class_takes_exactly_their_fields_are_pickled_as_calls():
    """An init-only variable, a field not taken by ``__init__`` or a ``__post_init__``
    means a call of the class with the fields' values would not give the record back."""

    def record(*annotations, post_init=False):
        namespace = {"__module__": "pipelines.example", "__annotations__": dict(annotations)}
        if post_init:
            namespace["__post_init__"] = lambda self: None
        return dataclasses.dataclass(slots=True)(type("Example", (), namespace))

    assert last_run._set_by_init(Ruling) and last_run._set_by_init(Alignment)
    assert not last_run._set_by_init(Finding), "its __post_init__ works out a fingerprint"
    assert last_run._set_by_init(record(("a", int), ("b", str)))
    assert not last_run._set_by_init(record(("a", int), ("b", dataclasses.InitVar[int])))
    assert not last_run._set_by_init(record(("a", int), post_init=True))
    not_taken = {"__module__": "pipelines.example", "__annotations__": {"a": int, "b": int}}
    not_taken["b"] = dataclasses.field(default=0, init=False)
    assert not last_run._set_by_init(dataclasses.dataclass(slots=True)(type("E", (), not_taken)))
    plain = dataclasses.dataclass(slots=True)(
        type("Example", (), {"__module__": "tests.example", "__annotations__": {"a": int}})
    )
    assert not last_run._set_by_init(plain), "not a record type of the package"


def test_a_bucket_the_store_fails_to_give_is_a_miss_and_the_others_are_read(
    tmp_path: Path, monkeypatch
):
    store = Store(tmp_path)
    first, second = keys_in(0, 1), keys_in(1, 1)
    results = {first[0]: [finding(1)], second[0]: [finding(2)]}
    last_run.write(store, kept(results), ALL)
    failing = last_run._slot(0, [last_run._bucketed(first)])
    each = store.each

    def each_but_one(kind, version, keys, *rest):
        if failing in keys:
            raise sqlite3.OperationalError("disk I/O error")
        return each(kind, version, keys, *rest)

    monkeypatch.setattr(store, "each", each_but_one)
    remembered = last_run.read(store, kept(list(results)))
    assert remembered.taken == [{second[0]: results[second[0]]}]
    assert set(remembered.held) == {1}


def computed(tasks: list) -> list:
    computed.count += sum(len(task) for task in tasks)
    return [[[finding(n)] for n in task] for task in tasks]


def runs(tmp_path: Path, numbers: list[int], kind: Kind = KIND) -> tuple[list, Reuse]:
    reuse = Reuse()
    cache = Cache(Store(tmp_path), reuse=reuse)
    job = Job(kind, [f"unit {n}" for n in numbers], items=numbers, size=10)
    [found] = execute([job], lambda items: computed([items])[0], cache=cache)
    return found, reuse


def test_an_edited_run_takes_the_others_from_the_entries_and_writes_only_stale_buckets(
    tmp_path: Path, monkeypatch
):
    computed.count = 0
    reads, writes = [], []
    read, write = last_run.read, last_run.write
    monkeypatch.setattr(last_run, "read", lambda *a: reads.append(r := read(*a)) or r)
    monkeypatch.setattr(
        last_run, "write", lambda s, k, b, *p: writes.append(set(b)) or write(s, k, b, *p)
    )

    first, _ = runs(tmp_path, list(range(400)))
    assert computed.count == 400 and writes == [set(ALL)], "the first run writes every bucket"

    edited, reuse = runs(tmp_path, [*range(399), 9999])  # neither its bucket's smallest key
    assert computed.count == 401 and reuse.counts[KIND.name] == [399, 1]
    assert len(reads[-1].taken[0]) == 399 and edited[:399] == first[:399]
    gone, new = last_run.bucket_of("unit 399"), last_run.bucket_of("unit 9999")
    assert writes[-1] == {gone, new}, "the buckets of the unit gone and the new one"

    again, reuse = runs(tmp_path, [*range(399), 9999])
    assert len(reads[-1].taken[0]) == 400 and reuse.counts[KIND.name] == [400, 0]
    assert again == edited and len(writes) == 2, "nothing stale: nothing written"

    smallest = next(n for n in range(10_000, 10_100) if last_run.bucket_of(f"unit {n}") == gone)
    runs(tmp_path, [*range(399), 9999, smallest])  # "unit 10…" < "unit 1…": the bucket moves
    assert len(reads[-1].taken[0]) == 400 - sum(
        last_run.bucket_of(f"unit {n}") == gone for n in [*range(399), 9999]
    )
    assert writes[-1] == {gone}, "its entry is found under another key: written again"


def test_a_kind_not_remembered_keeps_no_entry(tmp_path: Path):
    computed.count = 0
    runs(tmp_path, list(range(20)), PLAIN)
    assert [row.kind for row in Store(tmp_path).info()] == [PLAIN.name]


@pytest.mark.parametrize("share_from", [None, 0])
def test_what_comes_back_is_what_was_computed(tmp_path: Path, share_from):
    computed.count = 0
    cache = Cache(Store(tmp_path), shares_from=share_from)
    job = Job(KIND, [f"unit {n}" for n in range(30)], items=list(range(30)), size=7)
    [first] = execute([job], lambda items: computed([items])[0], cache=cache)
    [second] = execute([job], lambda items: computed([items])[0], cache=cache)
    assert computed.count == 30 and second == first
    assert work.KINDS.get(KIND.name) is None, "declared here, not registered"
