"""What ingest leaves in memory: a file's contents are dropped once it is read (the run holds
every source to the end), and values every ruling repeats are one object."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pipelines.ingest import ingest_sources
from pipelines.ingest.source import SourceFile, discover

CONTENTS = ("_whole", "head", "text", "lines")

SPANISH = """Suspender (Reglas)
2007-02-01: Cuando se retira el último contador de tiempo, se dispara la habilidad.
2007-02-01: La habilidad disparada de suspender usa la pila.
"""
ENGLISH = """Suspend (Rulings)
2007-02-01: When the last time counter is removed, the ability triggers.
2007-02-01: The triggered ability of suspend uses the stack.
"""


def test_a_read_file_keeps_none_of_its_contents_and_reads_them_again(tmp_path: Path):
    (tmp_path / "es.txt").write_text(SPANISH, "utf-8")
    (tmp_path / "en.txt").write_text(ENGLISH, "utf-8")
    (tmp_path / "latin.txt").write_bytes("2007-02-01: Año de la habilidad.\n".encode("latin-1"))
    sources = list(discover([tmp_path]))

    result = ingest_sources(sources, identifier="langdetect")

    assert len(sources) == 3 and result.rulings
    for doc in sources:
        assert not set(CONTENTS) & doc.__dict__.keys(), doc.rel
    [spanish] = [doc for doc in sources if doc.rel == "es.txt"]
    assert spanish.text == SPANISH and spanish.lines[1].startswith("2007-02-01: Cuando")
    not_utf8 = [f for f in result.findings if f.code == "PARSE002"]
    assert [f.file for f in not_utf8] == ["latin.txt"]  # once, though its text was decoded again


def test_a_document_made_in_memory_keeps_its_bytes(tmp_path: Path):
    data = b'{"data": {}}'
    doc = SourceFile.from_bytes(tmp_path / "AllPrintings.json", "AllPrintings.json#X", data)
    assert doc.head == data
    doc.forget_contents()
    assert doc.open_binary().read() == data  # its path holds other bytes: never read from it


def test_rulings_share_their_date_and_document_kind(tmp_path: Path):
    (tmp_path / "es.txt").write_text(SPANISH, "utf-8")
    (tmp_path / "en.txt").write_text(ENGLISH, "utf-8")

    result = ingest_sources(discover([tmp_path]), identifier="langdetect")

    dated = [r for r in result.rulings if r.date]
    assert len(dated) == 4 and len({r.date for r in dated}) == 1
    assert len({id(r.date) for r in dated}) == 1
    kinds = {r.doc_kind: set() for r in result.rulings}
    for ruling in result.rulings:
        kinds[ruling.doc_kind].add(id(ruling.doc_kind))
    assert kinds and all(len(ids) == 1 for ids in kinds.values())


def test_files_read_back_from_the_work_cache_share_what_their_rulings_repeat(tmp_path: Path):
    """A file's reading is a record that holds records (``FileResult``): read back, its
    rulings' repeated columns and equal parts are one object, as in a table read back."""
    from pipelines.engine.local import LocalEngine
    from pipelines.ingest import read_files
    from pipelines.store import open_store
    from pipelines.work import Cache, Reuse

    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "es.txt").write_text(SPANISH, "utf-8")
    (inputs / "es2.txt").write_text(SPANISH.replace("pila", "pila."), "utf-8")
    store, reuse = tmp_path / "store", Reuse()

    def read():
        cache = Cache(open_store(store), (), reuse)
        return read_files(list(discover([inputs])), LocalEngine(), cache)

    computed = read()
    again = read()

    assert reuse.counts["ingest"] == [2, 2]  # read, then taken from the cache
    assert again == computed
    rulings = [r for result in again for r in result.rulings]
    assert len(rulings) == 6
    for column in ("format", "doc_title", "date_raw", "kind"):
        values = [getattr(r, column) for r in rulings]
        assert len({id(v) for v in values}) == len(set(values)), column
    first, second = (result.rulings for result in again)
    assert all(a.file is b.file for a in first for b in first)
    assert first[0].file is not second[0].file
    assert len({id(r.spans) for r in rulings}) == 1  # equal parts: one object


def test_readings_read_back_are_shared_when_their_stored_bytes_come_to_the_limit(tmp_path: Path):
    """Ingest decides whether to share the readings it reads back by their stored bytes, not
    the inputs' size (an MTGJSON file is mostly what its reading leaves out): below
    ``shares_from`` bytes they are read as they are, from it on every one is shared."""
    from pipelines.engine.local import LocalEngine
    from pipelines.ingest import read_files
    from pipelines.store import open_store
    from pipelines.work import Cache, Reuse

    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "es.txt").write_text(SPANISH, "utf-8")
    (inputs / "es2.txt").write_text(SPANISH.replace("pila", "pila."), "utf-8")
    store = tmp_path / "store"

    def read(shares_from):
        cache = Cache(open_store(store), (), Reuse(), shares_from=shares_from)
        return read_files(list(discover([inputs])), LocalEngine(), cache)

    def one_object_per_value(results) -> bool:
        values = [r.date_raw for result in results for r in result.rulings if r.date_raw]
        return len({id(v) for v in values}) == len(set(values))

    computed = read(None)
    stored = open_store(store).stored_bytes(
        [k for (k,) in sqlite3.connect(store / "work.db").execute("SELECT key FROM entries")]
    )
    assert stored > 0
    never, below, at = read(None), read(stored + 1), read(stored)
    assert never == below == at == computed
    assert not one_object_per_value(never) and not one_object_per_value(below)
    assert one_object_per_value(at)
