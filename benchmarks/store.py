"""The work store: SQLite (standard library, WAL) against LMDB (the ``lmdb`` package), on the
entries of a real run.

Method: ``rulings run`` on the generated corpus (``--rulings``, default 100,000, seed 7) with
an empty cache fills ``CACHE/work.db`` (the SQLite store the package ships); its entries (the
bytes each unit's result is kept as, with their keys, kinds and versions) are then written
into a fresh store of each candidate the way a run writes them (one batch per kind of unit),
read back the way a warm run reads them (every key of a kind, in batches), and the stores'
sizes on disk compared. Then the warm rerun: ``rulings run --force`` on the same input
with a cache holding each candidate (``--rounds`` interleaved pairs, LMDB plugged in
through ``pipelines.store.open_store`` in the child process), against the outputs of the
first run (every file compared). Each step in a fresh interpreter for the timings; the load
averages are recorded with each.

    python benchmarks/store.py                     # 100k rulings (~10 min on 2 cores)
    python benchmarks/store.py --rulings 1000000   # the million corpus (hours)
    python benchmarks/store.py --markdown          # results/store.md again from store.json

Needs the ``lmdb`` package (``pip install lmdb``; not a dependency of rulings): without it
only SQLite is measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, md_table, page, parser, record

LMDB_MAP = 64 * 2**30
"""LMDB's map size: a fixed upper bound on the database, set when it is opened."""

LMDB_STORE = (
    f"LMDB_MAP_SIZE = {LMDB_MAP}\n"
    + """
import os, lmdb
from pipelines import store as work_store

class LmdbStore:
    def __init__(self, root):
        os.makedirs(root, exist_ok=True)
        self.env = lmdb.open(os.path.join(root, "work.lmdb"), map_size=LMDB_MAP_SIZE, lock=True,
                             readahead=False)
    def get_many(self, kind, version, keys):
        found, foreign = {}, 0
        with self.env.begin(buffers=False) as txn:
            for key in keys:
                data = txn.get(key.encode())
                if data is None:
                    continue
                value = work_store.payload(data, key, kind, version)
                if value is work_store.FOREIGN:
                    foreign += 1
                elif value is not None:
                    found[key] = value
        return found, foreign
    def put_many(self, kind, version, items):
        with self.env.begin(write=True) as txn:
            for key, value in items:
                txn.put(key.encode(), work_store.entry(key, kind, version, value))
    def after_run(self):
        pass
    def close(self):
        pass
"""
)


def entries(database: Path) -> list[tuple[str, str, str, bytes]]:
    """(key, kind, version, payload) of every entry of a SQLite work store."""
    import sqlite3

    sys.path.insert(0, str(ROOT))
    from pipelines import store

    rows = []
    with sqlite3.connect(database) as db:
        for key, kind, version, data in db.execute(
            "SELECT key, kind, version, entry FROM entries ORDER BY rowid"
        ):
            rows.append((key, kind, version, store.payload(data, key, kind, version)))
    return rows


def child(code: str, *args: str, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh interpreter; its last line of output, as JSON."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env or os.environ,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


THROUGHPUT = """
import json, pickle, sys, time
sys.path.insert(0, %r)
candidate, folder, dump = sys.argv[1:4]
rows = pickle.load(open(dump, "rb"))
by_kind = {}
for key, kind, version, payload in rows:
    by_kind.setdefault((kind, version), []).append((key, payload))
if candidate == "sqlite":
    from pipelines.store import Store
    store = Store(folder)
else:
    exec(%r)
    store = LmdbStore(folder)
begin = time.perf_counter(); cpu = time.process_time()
for (kind, version), items in by_kind.items():
    store.put_many(kind, version, items)
write = time.perf_counter() - begin; write_cpu = time.process_time() - cpu
if hasattr(store, "close"):
    store.close()
print(json.dumps({"write_seconds": write, "write_cpu": write_cpu}))
"""

READBACK = """
import json, pickle, sys, time
sys.path.insert(0, %r)
candidate, folder, dump = sys.argv[1:4]
rows = pickle.load(open(dump, "rb"))
by_kind = {}
for key, kind, version, payload in rows:
    by_kind.setdefault((kind, version), []).append(key)
if candidate == "sqlite":
    from pipelines.store import Store
    store = Store(folder)
else:
    exec(%r)
    store = LmdbStore(folder)
begin = time.perf_counter(); cpu = time.process_time()
found = 0
for (kind, version), keys in by_kind.items():
    got, foreign = store.get_many(kind, version, keys)
    found += len(got)
read = time.perf_counter() - begin; read_cpu = time.process_time() - cpu
print(json.dumps({"read_seconds": read, "read_cpu": read_cpu, "found": found}))
"""

RUN_WITH = """
import sys
sys.path.insert(0, %r)
candidate = sys.argv[1]
if candidate == "lmdb":
    exec(%r)
    from pipelines import store, stages
    opened = {}
    def open_lmdb(root):
        if root is None:
            return None
        if root not in opened:
            opened[root] = LmdbStore(str(root))
        return opened[root]
    store.open_store = open_lmdb
    stages.open_store = open_lmdb
from pipelines.cli import main
sys.argv = ["rulings", *sys.argv[2:]]
try:
    main()
except SystemExit as done:
    if done.code not in (0, 1):
        raise
print("{}")
"""


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def measure(args) -> dict:
    import pickle

    have_lmdb = True
    try:
        import lmdb  # noqa: F401
    except ImportError:
        have_lmdb = False
    candidates = ["sqlite", "lmdb"] if have_lmdb else ["sqlite"]
    base = Path(tempfile.mkdtemp(prefix="rulings-store-"))
    try:
        if args.first_run:
            # a run already made on the generated corpus: its input, output and cache
            corpus, made = Path(args.first_run) / "input", Path(args.first_run)
            shutil.copytree(made / "out", base / "first")
            shutil.copytree(made / "cache", base / "cache-first")
            first = {"given": str(made)}
        else:
            corpus = base / "input"
            from testkit import corpus as generator

            generator.generate(corpus, rulings=args.rulings, seed=args.seed)
            env = dict(os.environ, RULINGS_CACHE_DIR=str(base / "cache-first"))
            load, begin = os.getloadavg(), time.perf_counter()
            command = [sys.executable, "-m", "pipelines", "run", str(corpus)]
            subprocess.run(
                [*command, "--out", str(base / "first")],
                cwd=ROOT,
                env=env,
                capture_output=True,
                check=False,
            )
            first = {"seconds": round(time.perf_counter() - begin, 1), "load_before": load}
        rows = entries(base / "cache-first" / "work.db")
        dump = base / "entries.pickle"
        dump.write_bytes(pickle.dumps(rows))
        kinds: dict[str, int] = {}
        for _, kind, _, _ in rows:
            kinds[kind] = kinds.get(kind, 0) + 1
        figures: dict = {
            "entries": len(rows),
            "payload_bytes": sum(len(r[3]) for r in rows),
            "entries_by_kind": kinds,
            "first_run": first,
            "candidates": {},
        }
        for round_number in range(args.rounds):
            for candidate in candidates:
                folder = base / f"store-{candidate}-{round_number}"
                load = os.getloadavg()
                wrote = child(
                    THROUGHPUT % (str(ROOT), LMDB_STORE), candidate, str(folder), str(dump)
                )
                read = child(READBACK % (str(ROOT), LMDB_STORE), candidate, str(folder), str(dump))
                size = folder_bytes(folder)
                # the warm rerun: a cache folder with the embeddings of the first run and
                # this candidate's store
                cache = base / f"cache-{candidate}"
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(
                    base / "cache-first", cache, ignore=shutil.ignore_patterns("work.db*")
                )
                for path in folder.iterdir():
                    target = cache / path.name
                    if path.is_dir():
                        shutil.copytree(path, target)
                    else:
                        shutil.copy2(path, target)
                out = base / f"out-{candidate}"
                env = dict(os.environ, RULINGS_CACHE_DIR=str(cache))
                os.sync()
                begin = time.perf_counter()
                child(
                    RUN_WITH % (str(ROOT), LMDB_STORE),
                    candidate,
                    "run",
                    str(corpus),
                    "--out",
                    str(out),
                    "--force",
                    "--fail-on",
                    "never",
                    env=env,
                )
                rerun = time.perf_counter() - begin
                differ = [
                    p.name
                    for p in sorted((base / "first").iterdir())
                    if p.name != "run-manifest.json"
                    and p.is_file()
                    and digest(p) != digest(out / p.name)
                ]
                figures["candidates"].setdefault(candidate, []).append(
                    {
                        **{k: round(v, 3) for k, v in wrote.items()},
                        **{k: round(v, 3) if isinstance(v, float) else v for k, v in read.items()},
                        "bytes_on_disk": size,
                        "warm_rerun_seconds": round(rerun, 2),
                        "files_differing_from_first_run": differ,
                        "load_before": [round(x, 2) for x in load],
                    }
                )
                print(candidate, figures["candidates"][candidate][-1], flush=True)
        return figures
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


def markdown(results: dict) -> str:
    figures = results["figures"]
    rows = []
    for candidate, rounds in figures["candidates"].items():
        for number, found in enumerate(rounds, 1):
            rows.append(
                [
                    candidate,
                    number,
                    f"{figures['entries'] / found['write_seconds']:,.0f}",
                    found["write_seconds"],
                    f"{figures['entries'] / found['read_seconds']:,.0f}",
                    found["read_seconds"],
                    f"{found['bytes_on_disk'] / 2**20:,.0f}",
                    found["warm_rerun_seconds"],
                    len(found["files_differing_from_first_run"]),
                    ", ".join(str(x) for x in found["load_before"]),
                ]
            )
    table = md_table(
        [
            "store",
            "round",
            "entries written/s",
            "write s",
            "entries read/s",
            "read s",
            "MB on disk",
            "warm rerun s",
            "files differing",
            "load before",
        ],
        rows,
    )
    return page(
        "Work store: SQLite against LMDB",
        "Produced by `python benchmarks/store.py` (every number in `store.json`; method in "
        "the script's docstring).",
        results["machine"],
        f"Entries of a `rulings run` on {results['rulings']:,} generated rulings (seed "
        f"{results['seed']}): {figures['entries']:,} ({figures['entries_by_kind']}), "
        f"{figures['payload_bytes'] / 2**20:,.1f} MB of payload. Written one batch per "
        "kind, read back every key of a kind in batches, each in a fresh interpreter; "
        "the warm rerun is `rulings run --force` with the embeddings and that store.",
        table,
        results.get("choice", ""),
    )


CHOICE = (  # the recorded choice (results/store.json) says more, with the figures
    "Chosen: SQLite. Reading a run's entries back (what a warm or edited run does) and "
    "writing them are of the same order in both; SQLite is in the standard library, its WAL "
    "lets concurrent runs read while one writes (each run's batch is one transaction), its "
    "file grows as needed where LMDB needs a fixed map size chosen up front (a full map "
    "fails writes), and `rulings cache info|prune|clear` are SQL queries."
)


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"store": markdown})
    cli.add_argument("--rulings", type=int, default=100_000)
    cli.add_argument("--seed", type=int, default=7)
    cli.add_argument("--rounds", type=int, default=2)
    cli.add_argument("--keep", action="store_true")
    cli.add_argument(
        "--first-run",
        help="a folder with input/, out/ and cache/ of a run already made on the generated "
        "corpus (skips generating it and the first run)",
    )
    args = cli.parse_args(argv)
    results = {
        "machine": machine(),
        "rulings": args.rulings,
        "seed": args.seed,
        "figures": measure(args),
        "choice": CHOICE,
    }
    record("store", results, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
