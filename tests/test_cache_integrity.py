"""Cache files that are cut short or have a flipped byte are detected and recomputed, never
trusted: the embedding shards, the language identifications kept in the work store and the
input files' digests."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from pipelines.align.embed import EmbeddingCache
from pipelines.ingest.identified import LANGUAGES_IDENTIFIED, IdentificationStore
from pipelines.ingest.langid import Identification
from pipelines.model import CardName
from pipelines.store import Store
from pipelines.work import Cache, Reuse, kind

TEXTS = [f"Si un duelista lanza el hechizo número {n}, roba una carta." for n in range(40)]


def vectors_for(texts: list[str], dim: int = 16) -> np.ndarray:
    rows = [np.random.default_rng(len(text) * 7919 + sum(map(ord, text))) for text in texts]
    return np.stack([rng.standard_normal(dim).astype(np.float32) for rng in rows])


def stored_cache(tmp_path: Path) -> tuple[EmbeddingCache, Path]:
    cache = EmbeddingCache(tmp_path)
    cache.put("model", TEXTS, vectors_for(TEXTS))
    (shard,) = cache.model_dir("model").glob("*.vecs.npy")
    return cache, shard


def flip(path: Path, offset_from_end: int) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) - offset_from_end] ^= 0x10
    path.write_bytes(bytes(data))


def lookup(tmp_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """A lookup by a fresh process's cache object (as the next run does)."""
    return EmbeddingCache(tmp_path).get("model", TEXTS)


def test_a_whole_shard_is_found_by_the_next_run(tmp_path):
    stored_cache(tmp_path)
    hits, found = lookup(tmp_path)
    assert hits.all() and found.tobytes() == vectors_for(TEXTS).tobytes()


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda vecs: flip(vecs, 5), id="flipped-byte-in-a-vector"),
        pytest.param(lambda vecs: vecs.write_bytes(vecs.read_bytes()[:-64]), id="vectors-cut"),
        pytest.param(
            lambda vecs: flip(vecs.with_name(vecs.name.replace(".vecs.", ".keys.")), 3),
            id="flipped-byte-in-a-key",
        ),
        pytest.param(
            lambda vecs: flip(vecs.with_name(vecs.name.replace(".vecs.npy", ".sum")), 2),
            id="damaged-digest",
        ),
        pytest.param(
            lambda vecs: vecs.with_name(vecs.name.replace(".vecs.npy", ".sum")).unlink(),
            id="digest-never-written",
        ),
    ],
)
def test_a_damaged_shard_gives_no_vector_and_is_recomputed(tmp_path, damage):
    _, vecs = stored_cache(tmp_path)
    damage(vecs)
    hits, found = lookup(tmp_path)
    assert not hits.any() and len(found) == 0
    cache = EmbeddingCache(tmp_path)
    cache.put("model", TEXTS, vectors_for(TEXTS))
    hits, found = lookup(tmp_path)
    assert hits.all() and found.tobytes() == vectors_for(TEXTS).tobytes()


def test_a_damaged_shard_is_removed_and_the_others_still_serve(tmp_path):
    cache, first = stored_cache(tmp_path)
    more = [f"{text} (otra)" for text in TEXTS]
    cache.put("model", more, vectors_for(more))
    flip(first, 9)
    fresh = EmbeddingCache(tmp_path)
    hits, _ = fresh.get("model", TEXTS)
    assert not hits.any()
    hits, found = fresh.get("model", more)
    assert hits.all() and found.tobytes() == vectors_for(more).tobytes()
    assert not first.exists()
    assert len(list(cache.model_dir("model").glob("*.sum"))) == 1


def test_a_shard_damaged_after_this_process_checked_it_is_checked_again(tmp_path):
    cache, vecs = stored_cache(tmp_path)
    assert cache.get("model", TEXTS)[0].all()
    more = ["Otro texto."]
    flip(vecs, 5)
    cache.put("model", more, vectors_for(more))  # a new shard: the index is rebuilt
    hits, _ = cache.get("model", TEXTS)
    assert not hits.any()


# --- language identifications kept in the work store ---------------------------------------

IDENTIFIED = {
    "k1": Identification("es", ()),
    "k2": Identification("zh", (("zh", 0, 4), ("en", 5, 30))),
    "k3": Identification(None, ()),
}


def identifications(folder: Path, languages=("en", "es", "zh"), source_lang="en"):
    return IdentificationStore(Cache(Store(folder)), "lingua", languages, source_lang)


def test_identifications_are_kept_by_text_in_the_work_store(tmp_path):
    """A run reads the identifications of the texts it asks about, not every one kept; an
    identifier with other candidate or source languages finds none of them."""
    identifications(tmp_path).add(IDENTIFIED)
    again = identifications(tmp_path)
    assert again.load(IDENTIFIED) == IDENTIFIED
    assert again.load(["k2", "not kept"]) == {"k2": IDENTIFIED["k2"]}
    assert identifications(tmp_path, ("en", "es")).load(IDENTIFIED) == {}
    assert identifications(tmp_path, source_lang="es").load(IDENTIFIED) == {}
    assert not (tmp_path / "langid").exists()  # no file of its own beside the store


def test_a_damaged_or_foreign_identification_is_identified_again(tmp_path):
    """An entry that is not today's record (written by another version, or damaged) is left
    out, so its text is identified again; the others are read."""
    store = identifications(tmp_path)
    store.add(IDENTIFIED)
    store.work.put_many(LANGUAGES_IDENTIFIED, [(store._key("k2"), b"\xc1 not a record")])
    database = tmp_path / "work.db"
    assert database.exists()
    assert identifications(tmp_path).load(IDENTIFIED) == {
        "k1": IDENTIFIED["k1"],
        "k3": IDENTIFIED["k3"],
    }


def test_a_cache_that_keeps_nothing_finds_and_keeps_no_identification():
    store = IdentificationStore(Cache(None), "lingua", ("en", "es"))
    store.add(IDENTIFIED)
    assert store.load(IDENTIFIED) == {}


def test_a_file_digest_is_remembered_only_while_the_file_is_unchanged(tmp_path, monkeypatch):
    """The run key and ingest share the digest of each input file (``files.file_digest``):
    read once while the file's size, time and inode stay, read again after any change,
    even one of the same size within the clock's tick."""
    from pipelines import files

    path = tmp_path / "es.txt"
    path.write_text("Roba una carta.", encoding="utf-8")
    fresh = files.file_digest(path)
    path.write_text("Roba dos cartas", encoding="utf-8")  # the same size, at once
    assert files.file_digest(path) != fresh, "a file changed just now is never remembered"
    old = 1_600_000_000_000_000_000
    os.utime(path, ns=(old, old))
    assert files.file_digest(path) not in files._DIGESTS.values(), "its status changed just now"
    later = time.time_ns() + 10 * files.SETTLED_NS
    monkeypatch.setattr(files.time, "time_ns", lambda: later)
    settled = files.file_digest(path)
    reads = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: reads.append(a[0]) or real_open(*a, **k))
    assert files.file_digest(path) == settled and reads == [], "a settled file is read once"
    path.write_text("Roba tres cartas.", encoding="utf-8")
    assert files.file_digest(path) != settled and reads == [path]


def test_the_digests_a_run_used_are_kept_without_a_collection(tmp_path, monkeypatch):
    """When a run ends, its records are back in the collector's reach: the row of each
    digest kept for the next run (one per input file, 112,505 at a million units) is made
    with the collector paused, or the collections they set off walked every record."""
    import gc

    from pipelines import files

    stamps = [(f"/in/{n}.txt", n, n, n, n) for n in range(5000)]
    collections = []

    def counted(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    try:
        with files.digests_kept(tmp_path):
            for stamp in stamps:
                files._DIGESTS[stamp] = f"{stamp[1]:032x}"
                files._USED.add(stamp)
            gc.collect()  # none due on the way out but those the rows would set off
            gc.callbacks.append(counted)
    finally:
        if counted in gc.callbacks:
            gc.callbacks.remove(counted)
    assert collections == [] and gc.isenabled()
    assert len(files.read_checked(tmp_path / files.DIGESTS_FILE)) == len(stamps)


def test_a_file_a_run_wrote_is_digested_from_what_it_wrote(tmp_path, monkeypatch):
    """A report file's digest is that of the bytes its writer wrote (``files.wrote``), not
    read again: in the run, in its staging folder, and in the next run, once the staging
    folder became the output folder (``files.moved``), if the file had settled by then. A
    file written just before the exchange, or changed afterwards, is read again."""
    from pipelines import files

    monkeypatch.setattr(files, "_DIGESTS", {})
    monkeypatch.setattr(files, "_WRITTEN", {})
    cache, staging, out = tmp_path / "cache", tmp_path / ".out.staging", tmp_path / "out"
    staging.mkdir()
    written, unwritten = staging / "findings.csv", staging / "summary.json"
    written.write_bytes(b"code,severity\n")
    unwritten.write_bytes(b"{}\n")  # a file no writer told about
    files.wrote(written, "written-digest")  # not the bytes' digest: shows it was not read
    assert files.file_digest(written) == "written-digest"
    now = time.time_ns()
    with files.digests_kept(cache):
        os.rename(staging, out)
        monkeypatch.setattr(files.time, "time_ns", lambda: now + 10 * files.SETTLED_NS)
        files.moved(staging, out)
    assert files._WRITTEN == {}, "the staging folder's are forgotten"
    kept = files.read_checked(cache / files.DIGESTS_FILE)
    assert [row[0] for row in kept] == [str(out / "findings.csv")]

    monkeypatch.setattr(files, "_DIGESTS", {})  # the next run
    with files.digests_kept(cache):
        assert files.file_digest(out / "findings.csv") == "written-digest"
        (out / "findings.csv").write_bytes(b"code,message\n")
        assert files.file_digest(out / "findings.csv") != "written-digest"

    monkeypatch.setattr(files, "_DIGESTS", {})
    staging.mkdir()
    (staging / "report.html").write_bytes(b"<!doctype html>\n")
    files.wrote(staging / "report.html", "page-digest")
    monkeypatch.setattr(files.time, "time_ns", lambda: now)  # the exchange right after it
    with files.digests_kept(cache):
        os.rename(staging, tmp_path / "other")
        files.moved(staging, tmp_path / "other")
    kept = files.read_checked(cache / files.DIGESTS_FILE)
    assert kept == [] and files._WRITTEN == {}, "written just before the exchange"


def test_a_file_is_written_whole_into_a_new_folder_and_leaves_no_temporary_file(tmp_path):
    from pipelines.files import read_checked, write_atomic, write_checked

    entry = tmp_path / "work" / "check" / "ab" / "ab12.json"
    write_checked(entry, {"findings": ["NUM001"]}, sync=False)
    write_checked(entry, {"findings": ["PH001"]}, sync=False)
    assert read_checked(entry) == {"findings": ["PH001"]}

    def fails_halfway(handle) -> None:
        handle.write(b"half of a new ")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(entry, fails_halfway)
    assert read_checked(entry) == {"findings": ["PH001"]}
    assert sorted(p.name for p in entry.parent.iterdir()) == ["ab12.json"]


# --- work-cache entries carry their key (issue 35) ----------------------------------------------

NAMES = kind("test-names", "names", list[CardName], version="1")


def _names(*names: str) -> list[CardName]:
    return [CardName(name, "es", name, "test") for name in names]


def _cache(tmp_path, reuse):
    from pipelines.store import open_store

    return Cache(open_store(tmp_path), (), reuse)


def _copy_entry(cache: Cache, kind_name: str, source: str, target: str) -> None:
    """Put the entry stored for ``source`` in the place of ``target``'s (what a `cp` inside
    the cache does)."""
    cache.store.copy_entry(kind_name, source, target)


def test_a_work_entry_copied_to_another_key_is_a_miss_and_counted(tmp_path):
    reuse = Reuse()
    work = _cache(tmp_path, reuse)
    first, second = work.key(NAMES, ["a.txt", "1"]), work.key(NAMES, ["b.txt", "2"])
    work.put_many(NAMES, [(first, NAMES.encode(_names("a"))), (second, NAMES.encode(_names("b")))])
    assert NAMES.decode(work.get_many(NAMES, [first])[first]) == _names("a")
    _copy_entry(work, NAMES.name, first, second)
    assert work.get_many(NAMES, [second]) == {}
    assert reuse.foreign == {"test-names": 1}
    work.put_many(NAMES, [(second, NAMES.encode(_names("b")))])
    assert NAMES.decode(work.get_many(NAMES, [second])[second]) == _names("b")
    assert reuse.foreign == {"test-names": 1}


OTHER = kind("test-other", "others", list[CardName], version="1")


def test_a_work_entry_of_another_kind_is_a_miss(tmp_path):
    reuse = Reuse()
    work = _cache(tmp_path, reuse)
    key = work.key(OTHER, ["doc"])
    work.put_many(NAMES, [(key, NAMES.encode(_names("x")))])
    work.store.copy_entry_to_kind(NAMES.name, OTHER.name, key)
    assert work.get_many(OTHER, [key]) == {} and reuse.foreign == {"test-other": 1}


def test_file_digests_are_kept_for_the_next_run_and_forgotten_when_a_file_changes(
    tmp_path, monkeypatch
):
    """``digests_kept``: the next process does not read an unchanged input to digest it;
    a file written again (even given back its old modification time) is read again; a
    damaged record is not trusted."""
    from pipelines import files

    cache, inputs = tmp_path / "cache", [tmp_path / "es.txt", tmp_path / "zh.txt"]
    for path, text in zip(inputs, ["Roba una carta.", "抓一张牌。"], strict=True):
        path.write_text(text, encoding="utf-8")
    later = time.time_ns() + 10 * files.SETTLED_NS
    monkeypatch.setattr(files.time, "time_ns", lambda: later)
    monkeypatch.setattr(files, "_DIGESTS", {})
    with files.digests_kept(cache):
        first = [files.file_digest(path) for path in inputs]
    monkeypatch.setattr(files, "_DIGESTS", {})  # a new process
    reads = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: reads.append(a[0]) or real_open(*a, **k))
    with files.digests_kept(cache):
        assert [files.file_digest(path) for path in inputs] == first
        assert reads == [cache / files.DIGESTS_FILE]
        status = inputs[0].stat()
        inputs[0].write_text("Roba dos cartas", encoding="utf-8")  # the same size
        os.utime(inputs[0], ns=(status.st_atime_ns, status.st_mtime_ns))
        monkeypatch.setattr(files.time, "time_ns", lambda: later + 10 * files.SETTLED_NS)
        assert files.file_digest(inputs[0]) != first[0]
    kept = files.read_checked(cache / files.DIGESTS_FILE)
    assert {row[0] for row in kept} == set(map(str, inputs))
    (cache / files.DIGESTS_FILE).write_bytes(b"rulings-checked-v1 0000\n[]")
    monkeypatch.setattr(files, "_DIGESTS", {})
    with files.digests_kept(cache):
        assert files.file_digest(inputs[1]) == first[1]


def test_units_sharing_a_stored_result_each_read_it(tmp_path):
    """Two units of a job with the same key (the same content) both take the stored
    result, and a unit without a key is computed."""
    from pipelines.work import Job, execute

    work = _cache(tmp_path, Reuse())
    one, two = work.key(NAMES, ["a.txt", "1"]), work.key(NAMES, ["b.txt", "2"])
    work.put_many(NAMES, [(one, NAMES.encode(_names("a"))), (two, NAMES.encode(_names("b")))])

    def nothing_computed(task):
        raise AssertionError(f"computed {task}")

    job = Job(NAMES, [one, two, one, None], items=["x", "y", "z", "w"])
    [results] = execute([job], lambda task: [[] for _ in task], cache=work)
    assert results == [_names("a"), _names("b"), _names("a"), []]
    [again] = execute([Job(NAMES, [one, one, two])], nothing_computed, cache=work)
    assert again == [_names("a"), _names("a"), _names("b")]


def test_computed_results_are_kept_in_batches_and_all_read_back(tmp_path, monkeypatch):
    """The results a run computes are written a batch of about ``KEPT_BATCH_BYTES`` at a
    time (not all held encoded at once), and the next run finds every one of them."""
    from pipelines import work as layer
    from pipelines.work import Job, execute

    monkeypatch.setattr(layer, "KEPT_BATCH_BYTES", 200)
    cache = _cache(tmp_path, Reuse())
    batches = []
    put_many = cache.store.put_many
    monkeypatch.setattr(
        cache.store,
        "put_many",
        lambda kind, version, items: batches.append(len(items)) or put_many(kind, version, items),
    )
    names = [f"Carta número {number}" for number in range(40)]
    keys = [cache.key(NAMES, [name]) for name in names]
    [computed] = execute(
        [Job(NAMES, keys, items=names, size=7)], lambda task: [_names(n) for n in task], cache=cache
    )
    assert computed == [_names(name) for name in names]
    assert len(batches) > 3 and sum(batches) == 40 and max(batches) < 40

    def nothing_computed(task):
        raise AssertionError(f"computed {task}")

    [again] = execute([Job(NAMES, keys)], nothing_computed, cache=_cache(tmp_path, Reuse()))
    assert again == computed
