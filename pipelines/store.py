"""Where the work cache keeps the results of units of work (``work.Cache``): one SQLite
database, ``CACHE/work.db``, in WAL mode.

SQLite was measured against LMDB on the 35,952 entries of a 100k run (``benchmarks/store.py``,
``benchmarks/results/store.md``) and chosen: the same order of speed writing and reading a
run's entries (LMDB a little less CPU, SQLite a quarter less disk), in the standard library,
safe for several processes at once (WAL: readers never wait; writers take turns, each
batch of a run's entries of a kind one transaction, waiting up to ``BUSY_SECONDS``), and
without LMDB's fixed map size.

Entries are evicted least recently used first when the entries' bytes pass the limit
(``limit``: ``RULINGS_CACHE_LIMIT``, e.g. ``5GB``, default ``DEFAULT_LIMIT``), at the end
of a run that wrote entries, and by ``rulings cache prune``; an entry is *used* when a run
reads it (stamped at most once a day, so that a warm run writes nothing but new entries).
``rulings cache info`` and ``rulings cache clear`` show and empty the store.

An entry is the bytes of one unit's result together with the key it was written for, the
kind of unit and the kind's version (``entry``), behind a digest of all of them: an entry
cut short, with a flipped byte, or copied or moved to another key is never trusted. A read
of an entry written for another key, kind or version is a miss, counted as *foreign* (the
command says so once); a damaged entry is a plain miss. A cache never fails a run: an
unreadable or unwritable store only means computing again.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from .hashing import DIGEST_BYTES, digest

DATABASE = "work.db"
LIMIT_ENV = "RULINGS_CACHE_LIMIT"
DEFAULT_LIMIT = 20 * 2**30
"""20 GiB: the entries of a 100k run take 121 MB (``benchmarks/results/store.md``), so a
catalogue ten times as large fits many times over."""
BUSY_SECONDS = 120
"""How long a run waits for another run's write to the store before it gives up keeping its
own entries (they are computed again next time)."""
TOUCH_SECONDS = 86_400
"""An entry read is stamped as used at most once a day (least recently used to the day)."""
KEYS_PER_QUERY = 500
_ENCODER = msgspec.msgpack.Encoder()
_HEADER = msgspec.msgpack.Decoder(tuple[str, str, str, memoryview])


def entry(key: str, kind: str, version: str, payload: bytes) -> bytes:
    """What the store holds for a key: a digest, then the key, kind, version and payload."""
    body = _ENCODER.encode((key, kind, version, payload))
    return digest(body) + body


FOREIGN = object()
"""``payload``'s answer for a whole entry written for another key, kind or version."""


def payload(data: bytes, key: str, kind: str, version: str) -> memoryview | object | None:
    """The payload of an entry when it is whole and was written for ``key``, ``kind`` and
    ``version`` (a view of ``data``, not a copy: the 291 passed readings of an
    AllPrintings-shaped file are 125 MB, copied twice in 0.06 s); ``FOREIGN`` when it is
    whole but was written for another; None when it is damaged."""
    body = memoryview(data)[DIGEST_BYTES:]
    if len(data) <= DIGEST_BYTES or digest(body) != bytes(data[:DIGEST_BYTES]):
        return None
    try:
        stored_key, stored_kind, stored_version, value = _HEADER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if (stored_key, stored_kind, stored_version) != (key, kind, version):
        return FOREIGN
    return value


SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    version TEXT NOT NULL,
    size INTEGER NOT NULL,
    used INTEGER NOT NULL,
    entry BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_used ON entries (used);
CREATE INDEX IF NOT EXISTS entries_size ON entries (size);
"""
SCHEMA_NAMES = tuple(re.findall(r"IF NOT EXISTS (\w+)", SCHEMA))
"""The table and indexes: a database that lacks one (made by an older version) gets it."""


@dataclass
class KindInfo:
    kind: str
    version: str
    entries: int
    size: int
    oldest: int
    newest: int


class Store:
    """The work store of a cache folder (``root/work.db``). Every operation that fails on
    the database (a damaged file, a full disk, a read-only folder) is a miss or a write not
    kept: a cache never fails a run. A damaged database is moved aside (``work.db.damaged``)
    and a new one started."""

    def __init__(self, root: Path, limit: int | None = None) -> None:
        self.root = Path(root)
        self.path = self.root / DATABASE
        self.limit = limit if limit is not None else configured_limit()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self.wrote = False

    # --- the connection ----------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """This process's connection (a process forked from one that had one opens its own)."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self.root.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
        )
        try:
            _prepare(connection)
        except sqlite3.Error:
            connection.close()
            raise
        self._connection, self._pid = connection, os.getpid()
        return connection

    def close(self) -> None:
        if self._connection is not None and self._pid == os.getpid():
            with contextlib.suppress(sqlite3.Error):
                self._connection.close()
        self._connection = None

    @contextlib.contextmanager
    def _database(self) -> Iterator[sqlite3.Connection | None]:
        """The connection, or None when the store cannot be opened; a damaged database found
        on the way is moved aside."""
        try:
            connection = self._connect()
        except (sqlite3.Error, OSError) as error:
            if _damaged(error):
                self._set_aside()
            yield None
            return
        try:
            yield connection
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK") if connection.in_transaction else None
            if _damaged(error):
                self._set_aside()

    def _set_aside(self) -> None:
        self.close()
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(DATABASE + ".damaged"))
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    # --- entries -----------------------------------------------------------------------------

    def get_many(
        self, kind: str, version: str, keys: Sequence[str]
    ) -> tuple[dict[str, memoryview], int]:
        """The payloads stored for the keys (those written for them: key, kind and version),
        and how many entries were found written for another."""
        foreign: list[None] = []
        found = dict(self.each(kind, version, keys, lambda: foreign.append(None)))
        return found, len(foreign)

    def each(
        self,
        kind: str,
        version: str,
        keys: Sequence[str],
        foreign: Callable[[], None] = lambda: None,
    ) -> Iterator[tuple[str, memoryview]]:
        """``get_many``'s payloads as (key, payload), a query's worth at a time: a caller
        that decodes them as they come never holds all of them (on a million units, 490 MB
        of a stage's findings). ``foreign`` is called for each entry found written for
        another key, kind or version. The entries read are stamped used once the last is
        given."""
        stale: list[str] = []
        now = int(time.time())
        with self._database() as db:
            if db is None:
                return
            for start in range(0, len(keys), KEYS_PER_QUERY):
                part = keys[start : start + KEYS_PER_QUERY]
                marks = ",".join("?" * len(part))
                query = f"SELECT key, used, entry FROM entries WHERE key IN ({marks})"
                for key, used, data in db.execute(query, part).fetchall():
                    value = payload(data, key, kind, version)
                    if value is FOREIGN:
                        foreign()
                    elif value is not None:
                        if now - used > TOUCH_SECONDS:
                            stale.append(key)
                        yield key, value
            if stale:
                db.execute("BEGIN IMMEDIATE")
                db.executemany(
                    "UPDATE entries SET used = ? WHERE key = ?", [(now, k) for k in stale]
                )
                db.execute("COMMIT")

    def put_many(self, kind: str, version: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Keep the payloads under their keys, in one transaction. The rows are made as
        SQLite takes them, so that the payloads are not held twice."""
        now = int(time.time())
        rows = (
            (key, kind, version, len(data := entry(key, kind, version, value)), now, data)
            for key, value in items
        )
        with self._database() as db:
            if db is None:
                return
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?)", rows)
            db.execute("COMMIT")
            self.wrote = True

    def stored_bytes(self, keys: Sequence[str], enough: int | None = None) -> int:
        """The bytes of the entries stored under the keys (0 when the store cannot be read):
        about what reading them back reads, summed without reading them. With ``enough``,
        the sum stops once it comes to that many (a policy that only asks whether it does
        need not go through a million-unit run's 112,505 keys: 0.4 s)."""
        total = 0
        with self._database() as db:
            if db is None:
                return 0
            for start in range(0, len(keys), KEYS_PER_QUERY):
                part = keys[start : start + KEYS_PER_QUERY]
                marks = ",".join("?" * len(part))
                query = f"SELECT coalesce(sum(size), 0) FROM entries WHERE key IN ({marks})"
                total += db.execute(query, part).fetchone()[0]
                if enough is not None and total >= enough:
                    break
        return total

    # --- size, eviction and the ``rulings cache`` commands --------------------------------------

    def info(self) -> list[KindInfo]:
        with self._database() as db:
            if db is None:
                return []
            query = (
                "SELECT kind, version, count(*), sum(size), min(used), max(used) FROM entries "
                "GROUP BY kind, version ORDER BY kind, version"
            )
            return [KindInfo(*row) for row in db.execute(query)]
        return []

    def size(self) -> int:
        """The bytes of every entry (summed from the index ``entries_size``, not by reading
        every row: 0.3-0.7 s on a million-unit run's 2 GB store, called at each stage's end,
        against 0.02 s)."""
        with self._database() as db:
            if db is None:
                return 0
            return db.execute("SELECT coalesce(sum(size), 0) FROM entries").fetchone()[0]
        return 0

    def prune(self, limit: int | None = None, current: dict[str, str] | None = None) -> int:
        """Remove the entries of ``current`` kinds written by another version (when given),
        then the least recently used ones until the entries take at most ``limit`` bytes
        (the store's limit); how many were removed."""
        limit = self.limit if limit is None else limit
        removed = 0
        with self._database() as db:
            if db is None:
                return 0
            db.execute("BEGIN IMMEDIATE")
            for kind, version in (current or {}).items():
                removed += db.execute(
                    "DELETE FROM entries WHERE kind = ? AND version != ?", (kind, version)
                ).rowcount
            total = db.execute("SELECT coalesce(sum(size), 0) FROM entries").fetchone()[0]
            if total > limit:
                doomed, freed = [], 0
                for key, size in db.execute("SELECT key, size FROM entries ORDER BY used, key"):
                    if total - freed <= limit:
                        break
                    doomed.append((key,))
                    freed += size
                db.executemany("DELETE FROM entries WHERE key = ?", doomed)
                removed += len(doomed)
            db.execute("COMMIT")
            if removed:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return removed

    def clear(self, kinds: Sequence[str] = ()) -> int:
        """Remove every entry (or those of ``kinds``); how many there were."""
        with self._database() as db:
            if db is None:
                return 0
            if kinds:
                marks = ",".join("?" * len(kinds))
                query = f"DELETE FROM entries WHERE kind IN ({marks})"
                removed = db.execute(query, tuple(kinds)).rowcount
            else:
                removed = db.execute("DELETE FROM entries").rowcount
            db.execute("VACUUM")
            return removed
        return 0

    def file_size(self) -> int:
        return sum(
            os.path.getsize(path)
            for path in (self.path, Path(f"{self.path}-wal"))
            if os.path.exists(path)
        )

    def after_run(self) -> None:
        """At the end of a run that wrote entries: evict down to the limit when past it."""
        if self.wrote and self.size() > self.limit:
            self.prune()

    # --- for tests and the fault battery: what a `cp` inside the cache would do -----------

    def copy_entry(self, kind: str, source: str, target: str) -> None:
        """Put the entry stored for ``source`` in the place of ``target``'s."""
        db = self._connect()
        [data] = db.execute("SELECT entry FROM entries WHERE key = ?", (source,)).fetchone()
        db.execute("UPDATE entries SET entry = ? WHERE key = ?", (data, target))

    def copy_entry_to_kind(self, kind: str, other: str, key: str) -> None:
        """Make the entry of ``key`` look like one of the kind ``other``."""
        self._connect().execute("UPDATE entries SET kind = ? WHERE key = ?", (other, key))


def _prepare(connection: sqlite3.Connection) -> None:
    """Put the database in WAL mode and make its table. SQLite answers "database is locked"
    at once, without waiting, when two processes switch a new database to WAL together
    (measured: 8 of 300 three-process starts), so the switch is tried again until it holds
    or ``BUSY_SECONDS`` pass; the table, when it is not there yet, is made in a write
    transaction, which waits its turn (a store opened on a database that has it never
    waits)."""
    deadline = time.monotonic() + BUSY_SECONDS
    pause = 0.005
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as error:
            if not _busy(error) or time.monotonic() > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
    connection.execute("PRAGMA synchronous=NORMAL")
    names = ", ".join(map(repr, SCHEMA_NAMES))
    made = f"SELECT count(*) FROM sqlite_master WHERE name IN ({names})"
    if connection.execute(made).fetchone()[0] != len(SCHEMA_NAMES):  # a reader never waits
        connection.executescript(f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;")


def _busy(error: sqlite3.OperationalError) -> bool:
    """Whether the database was locked by another connection (SQLITE_BUSY or _LOCKED)."""
    return (getattr(error, "sqlite_errorcode", 0) & 0xFF) in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


def _damaged(error: BaseException) -> bool:
    """Whether a database error says the file is damaged (not locked, busy or read-only)."""
    if isinstance(error, sqlite3.OperationalError):
        return False
    return isinstance(error, sqlite3.DatabaseError)


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """ "5GB", "500M", "1.5 GiB", "1000000" -> bytes (powers of 1024); ValueError otherwise."""
    found = _SIZE.match(text)
    if not found:
        raise ValueError(f"not a size: {text!r} (e.g. 5GB, 500MB)")
    number, unit = found.groups()
    return int(float(number) * 1024 ** "_kmgt".index(unit.lower() or "_"))


def configured_limit() -> int:
    try:
        return parse_size(os.environ[LIMIT_ENV])
    except (KeyError, ValueError):
        return DEFAULT_LIMIT


_OPEN: dict[Path, Store] = {}
_AT_EXIT: list = []


def open_store(root: Path | None) -> Store | None:
    """The work store in the cache folder ``root`` (None: nothing is kept): one per folder
    and process, shared by the stages of a run; when the process ends, the store is
    pruned to its limit if the run wrote to it (``Store.after_run``) and closed."""
    if root is None:
        return None
    root = Path(root)
    if root not in _OPEN:
        if not _AT_EXIT:
            _AT_EXIT.append(atexit.register(close_stores))
        _OPEN[root] = Store(root)
    return _OPEN[root]


def close_stores() -> None:
    for store in _OPEN.values():
        with contextlib.suppress(Exception):  # a cache never fails a run, even at its end
            store.after_run()
        store.close()
    _OPEN.clear()
