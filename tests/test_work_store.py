"""The work store (``pipelines/store.py``): one SQLite database for the work cache, safe for
runs at once, held to a size limit (least recently used out), with ``rulings cache
info|prune|clear``; a damaged database never fails a run."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines import store, tables
from pipelines.cli import main
from pipelines.store import Store, parse_size

KIND, VERSION = "test", "v1"


def payloads(prefix: str, count: int, size: int = 100) -> list[tuple[str, bytes]]:
    return [(f"{prefix}-{n:05d}", (f"{prefix}{n}".encode() * size)[:size]) for n in range(count)]


def test_entries_round_trip_with_their_key_kind_and_version(tmp_path: Path) -> None:
    kept = Store(tmp_path)
    items = payloads("a", 50)
    kept.put_many(KIND, VERSION, items)
    found, foreign = Store(tmp_path).get_many(KIND, VERSION, [key for key, _ in items] + ["x"])
    assert found == dict(items) and foreign == 0
    found, foreign = Store(tmp_path).get_many(KIND, "v2", [key for key, _ in items])
    assert found == {} and foreign == 50, "another version's entries are foreign, not used"


def test_entries_are_read_a_query_at_a_time_as_they_are_taken(tmp_path: Path) -> None:
    """``each`` reads the next few hundred entries only when the caller has taken the ones
    before (a stage decodes each payload and lets it go: it never holds all of them), and
    gives every stored one, foreign ones counted and left out."""
    kept = Store(tmp_path)
    items = payloads("a", 3 * store.KEYS_PER_QUERY)
    kept.put_many(KIND, VERSION, items)
    kept.put_many(KIND, "v0", [("old", b"written by another version")])
    reader, reads, foreign = Store(tmp_path), [], []
    with reader._database() as db:
        db.set_trace_callback(lambda sql: reads.append(sql) if sql.startswith("SELECT") else None)
    keys = ["old"] + [key for key, _ in items]
    entries = reader.each(KIND, VERSION, keys, lambda: foreign.append(1))
    first = next(entries)
    assert first in items and len(reads) == 1
    assert sorted([first, *entries]) == items and len(reads) == 4
    assert len(foreign) == 1


def test_stored_bytes_stop_once_they_come_to_what_is_enough(tmp_path: Path) -> None:
    """A policy that asks whether a run's entries come to a size sums a query's worth of
    keys at a time and stops there, instead of going through every key."""
    kept = Store(tmp_path)
    items = payloads("a", 3 * store.KEYS_PER_QUERY, size=10)
    kept.put_many(KIND, VERSION, items)
    keys = [key for key, _ in items]
    reader, reads = Store(tmp_path), []
    with reader._database() as db:
        db.set_trace_callback(lambda sql: reads.append(sql) if sql.startswith("SELECT") else None)
    whole = reader.stored_bytes(keys)
    assert whole >= 10 * len(items) and len(reads) == 3
    reads.clear()
    assert whole > reader.stored_bytes(keys, enough=1) >= 1 and len(reads) == 1
    assert reader.stored_bytes(keys, enough=whole + 1) == whole


def _writer(root: str, prefix: str, count: int) -> None:
    kept = Store(Path(root))
    for start in range(0, count, 50):  # a run writes a batch per kind: many transactions
        kept.put_many(KIND, VERSION, payloads(prefix, count)[start : start + 50])


@pytest.mark.slow
def test_two_runs_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_writer, args=(str(tmp_path), prefix, 2000)) for prefix in "ab"
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    kept = Store(tmp_path)
    keys = [key for prefix in "ab" for key, _ in payloads(prefix, 2000)]
    found, foreign = kept.get_many(KIND, VERSION, keys)
    assert len(found) == 4000 and foreign == 0
    with sqlite3.connect(tmp_path / store.DATABASE) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_store_opened_while_another_run_writes_the_new_database_waits_for_it(
    tmp_path: Path,
) -> None:
    """SQLite refuses the switch to WAL at once, without its busy wait, while another
    connection writes a database still in its first journal mode: two runs starting on an
    empty cache folder lost a batch this way (CI, stop 46)."""
    other = sqlite3.connect(
        tmp_path / store.DATABASE, isolation_level=None, check_same_thread=False
    )
    other.execute("BEGIN IMMEDIATE")  # a write under way, before the switch to WAL
    other.execute("CREATE TABLE starting (x)")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    kept = Store(tmp_path)
    kept.put_many(KIND, VERSION, [("k", b"value")])
    release.join()
    other.close()
    assert Store(tmp_path).get_many(KIND, VERSION, ["k"]) == ({"k": b"value"}, 0)


def test_a_store_opened_while_another_run_writes_reads_without_waiting(
    tmp_path: Path, monkeypatch
) -> None:
    """WAL: readers never wait. Opening a store whose table is there takes no write lock, so
    a run that only reads is not held up by another run's batch."""
    items = payloads("a", 20)
    Store(tmp_path).put_many(KIND, VERSION, items)
    other = sqlite3.connect(tmp_path / store.DATABASE, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another run's write under way
    other.execute("DELETE FROM entries WHERE key = 'none'")
    monkeypatch.setattr(store, "BUSY_SECONDS", 0.2)
    found, foreign = Store(tmp_path).get_many(KIND, VERSION, [key for key, _ in items])
    other.execute("COMMIT")
    other.close()
    assert found == dict(items) and foreign == 0


def test_the_least_recently_used_go_first_when_over_the_limit(tmp_path: Path) -> None:
    kept = Store(tmp_path, limit=10**9)
    kept.put_many(KIND, VERSION, payloads("old", 10, 1000))
    kept.put_many(KIND, VERSION, payloads("new", 10, 1000))
    with sqlite3.connect(tmp_path / store.DATABASE) as db:  # the old ones used long ago
        db.execute("UPDATE entries SET used = used - 10 * 86400 WHERE key LIKE 'old-%'")
    # reading two old ones makes them recent (stamped once a day at most)
    kept.get_many(KIND, VERSION, ["old-00003", "old-00007"])
    size = kept.size()
    removed = kept.prune(limit=size // 2)
    left = set(
        kept.get_many(KIND, VERSION, [k for p in ("old", "new") for k, _ in payloads(p, 10)])[0]
    )
    # the eight old ones not read, then the new ones in key order, until half is left
    assert removed == 10 and kept.size() <= size // 2
    assert left == {"old-00003", "old-00007"} | {f"new-{n:05d}" for n in range(2, 10)}


def test_a_run_past_the_limit_evicts_at_its_end(tmp_path: Path) -> None:
    kept = Store(tmp_path, limit=5000)
    kept.put_many(KIND, VERSION, payloads("a", 20, 1000))
    kept.after_run()
    assert kept.size() <= 5000


def test_the_size_is_summed_from_an_index_not_from_every_row(tmp_path: Path) -> None:
    """A run reads the size at each stage's end: a scan of a 2 GB store's rows took 0.3-0.7
    s, its index 0.02 s. A store made before the index has it once opened again."""
    with sqlite3.connect(tmp_path / store.DATABASE) as db:
        db.executescript(store.SCHEMA.replace("CREATE INDEX IF NOT EXISTS entries_size", "--"))
    kept = Store(tmp_path)
    kept.put_many(KIND, VERSION, payloads("a", 3, 1000))
    with sqlite3.connect(tmp_path / store.DATABASE) as db:
        plan = db.execute("EXPLAIN QUERY PLAN SELECT coalesce(sum(size), 0) FROM entries")
        assert "COVERING INDEX entries_size" in plan.fetchone()[-1]
        stored = db.execute("SELECT sum(length(entry)) FROM entries").fetchone()[0]
    assert kept.size() == stored > 3000


def test_prune_removes_the_entries_of_other_versions(tmp_path: Path) -> None:
    kept = Store(tmp_path)
    kept.put_many(KIND, "v0", payloads("a", 5))
    kept.put_many(KIND, VERSION, payloads("b", 5))
    assert kept.prune(current={KIND: VERSION}) == 5
    assert [(row.version, row.entries) for row in kept.info()] == [(VERSION, 5)]


@pytest.mark.parametrize("damage", ["garbage", "cut", "flipped-pages"])
def test_a_damaged_database_is_set_aside_and_never_fails_a_run(tmp_path: Path, damage) -> None:
    kept = Store(tmp_path)
    items = payloads("a", 300, 400)
    kept.put_many(KIND, VERSION, items)
    kept.close()
    path = tmp_path / store.DATABASE
    data = bytearray(path.read_bytes())
    if damage == "garbage":
        data = bytearray(b"not a database" * 1000)
    elif damage == "cut":
        data = data[: len(data) // 3]
    else:
        for offset in range(100, len(data), 997):
            data[offset] ^= 0x5A
    path.write_bytes(bytes(data))
    again = Store(tmp_path)
    found, _ = again.get_many(KIND, VERSION, [key for key, _ in items])
    assert all(found[key] == value for key, value in items if key in found)  # never a wrong value
    again.put_many(KIND, VERSION, items[:10])
    found, _ = Store(tmp_path).get_many(KIND, VERSION, [key for key, _ in items[:10]])
    assert len(found) in (0, 10)


def test_an_unwritable_cache_folder_only_keeps_nothing(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    tmp_path.chmod(0o555)
    try:
        kept = Store(tmp_path / "cache")
        kept.put_many(KIND, VERSION, payloads("a", 3))
        assert kept.get_many(KIND, VERSION, ["a-00000"]) == ({}, 0)
    finally:
        tmp_path.chmod(0o755)


def test_sizes_are_read_as_people_write_them() -> None:
    assert parse_size("5GB") == 5 * 2**30
    assert parse_size("500 MB") == 500 * 2**20
    assert parse_size("1.5GiB") == int(1.5 * 2**30)
    assert parse_size("1000") == 1000
    with pytest.raises(ValueError):
        parse_size("lots")


@pytest.mark.model
def test_cache_commands_show_prune_and_clear(tmp_path: Path, corpus_dir: Path, monkeypatch) -> None:
    monkeypatch.setattr(tables, "SHARED_FROM_BYTES", 0)  # a large run: the last run's kept too
    cache = tmp_path / "cache"
    runner = CliRunner()
    done = runner.invoke(
        main,
        ["run", str(corpus_dir), "--out", str(tmp_path / "out"), "--cache-dir", str(cache)],
    )
    assert done.exit_code in (0, 1), done.output
    info = runner.invoke(main, ["cache", "info", "--cache-dir", str(cache)])
    assert info.exit_code == 0, info.output
    for kind in ("ingest", "align", "check", "check-group", "langid"):
        assert f"{kind} " in info.output and "current" in info.output
    kinds = [line for line in info.output.splitlines() if " entries " in line]
    assert len({line.index(" entries ") for line in kinds}) == 1  # one column, long names too
    together = [line for line in kinds if line.lstrip().startswith("last-run:")]
    assert {line.split()[0] for line in together} == {
        "last-run:align",
        "last-run:check-group+check",
        "last-run:ingest-passes",
    }
    assert all("(current; the last run's " in line for line in together)
    one_kind = runner.invoke(main, ["cache", "clear", "--cache-dir", str(cache), "--kind", "align"])
    assert one_kind.exit_code == 0, one_kind.output
    left = {row.kind for row in Store(cache).info()}
    assert "align" not in left and "last-run:align" not in left, "its units computed again"
    assert "check" in left and any(kind.startswith("last-run:") for kind in left)
    old_files = cache / "langid"  # where identifications were kept as files before
    assert not old_files.exists()
    old_files.mkdir()
    (old_files / "lingua-en-es-zh.json").write_text("{}", encoding="utf-8")
    models = cache / "models"
    assert "Embedding model kept ready to read: " in info.output and any(models.rglob("*.npz"))
    assert "Card-name indexes kept: 1 " in info.output
    assert (cache / "report-seconds.json").is_file()
    pruned = runner.invoke(main, ["cache", "prune", "--cache-dir", str(cache), "--limit", "1KB"])
    assert pruned.exit_code == 0 and "Removed" in pruned.output
    assert "language identifications kept as files" in pruned.output and not old_files.exists()
    assert Store(cache).size() <= 1024
    bad = runner.invoke(main, ["cache", "prune", "--cache-dir", str(cache), "--limit", "lots"])
    assert bad.exit_code == 2
    cleared = runner.invoke(main, ["cache", "clear", "--cache-dir", str(cache)])
    assert cleared.exit_code == 0 and Store(cache).info() == []
    assert not models.exists() and not (cache / "report-seconds.json").exists()
    assert not any((cache / "cards").iterdir())


@pytest.mark.model
def test_a_warm_run_writes_nothing(tmp_path: Path, corpus_dir: Path) -> None:
    """Entries read are stamped once a day at most: a second run the same day leaves the
    database as it was."""
    cache = tmp_path / "cache"
    runner = CliRunner()
    for out in ("one", "two"):
        runner.invoke(
            main, ["run", str(corpus_dir), "--out", str(tmp_path / out), "--cache-dir", str(cache)]
        )
        store.close_stores()
        if out == "one":
            before = (cache / store.DATABASE).read_bytes()
            time.sleep(0.01)
    assert (cache / store.DATABASE).read_bytes() == before
