"""An AllPrintings-shaped file read set by set (``ingest/sets.py``) gives what the file read
whole gives, and a rerun after one set changed reads that set alone.

The file is made from the two-set fixture (FUT, PLC: see test_readers_json.py) with two more
sets: ``XTR``, a reprint of FUT whose first ruling has no date (whole, the file reads
Epochrasite's rulings from FUT alone, so that missing date is never reported), and ``NEW``,
PLC with its first card renamed and one ruling of the wrong shape (reported).
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
import time
from pathlib import Path

import pytest

from pipelines import hashing
from pipelines.engine.local import LocalEngine
from pipelines.file_bytes import FileBytes
from pipelines.ingest import kept_cuts, read_files, set_parts, sets
from pipelines.ingest.source import SourceFile
from pipelines.store import open_store
from pipelines.work import Cache, Reuse

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "json" / "mtgjson_allprintings.json"
SET_FILE = FIXTURE.with_name("mtgjson_set.json")
NAME = "AllPrintings.json"


def four_sets() -> dict:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    sets_ = data["data"]
    sets_["XTR"] = json.loads(json.dumps(sets_["FUT"]))
    del sets_["XTR"]["cards"][0]["rulings"][0]["date"]
    sets_["NEW"] = json.loads(json.dumps(sets_["PLC"]))
    sets_["NEW"]["cards"][0]["name"] = "Brand New"
    sets_["NEW"]["cards"][0]["rulings"][1] = 5
    return data


@pytest.fixture
def split_any_size(monkeypatch):
    monkeypatch.setattr(set_parts, "SPLIT_BYTES", 0)


def read(path: Path, store: Path | None, reuse: Reuse | None = None):
    cache = Cache(open_store(store), (), reuse) if store else Cache(None)
    [result] = read_files([SourceFile(path, NAME)], LocalEngine(), cache)
    return result


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / NAME
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize("indent", [None, 2], ids=["compact", "indented"])
def test_set_by_set_gives_what_the_whole_file_gives(tmp_path, split_any_size, indent):
    path = write(tmp_path, json.dumps(four_sets(), indent=indent, ensure_ascii=False))
    reuse = Reuse()
    by_set = read(path, tmp_path / "store", reuse)
    whole = read(path, None)
    assert reuse.counts == {"ingest-set-ruled": [0, 4], "ingest-set": [0, 4]}
    assert by_set == whole
    problems = [f.evidence["json_path"] for f in whole.findings]
    assert problems == ["/data/NEW/cards/0/rulings/1"]
    assert {r.doc for r in whole.rulings if r.card == "Epochrasite"} == {
        f"{NAME}#/data/FUT/cards/0"
    }
    assert any(r.card == "Brand New" for r in whole.rulings)


def test_one_set_changed_is_the_one_set_read_again(tmp_path, split_any_size):
    data = four_sets()
    path = write(tmp_path, json.dumps(data))
    read(path, tmp_path / "store")
    data["data"]["PLC"]["cards"][1]["rulings"][0]["text"] += " (revised)"
    write(tmp_path, json.dumps(data))
    reuse = Reuse()
    again = read(path, tmp_path / "store", reuse)
    assert reuse.counts == {"ingest-set-ruled": [3, 1], "ingest-set": [3, 1]}
    assert again == read(path, None)
    assert any(r.text.endswith("(revised)") for r in again.rulings)


def test_a_byte_order_mark_is_read_past(tmp_path, split_any_size):
    path = write(tmp_path, codecs.BOM_UTF8 + json.dumps(four_sets()).encode("utf-8"))
    reuse = Reuse()
    assert read(path, tmp_path / "store", reuse) == read(path, None)
    assert reuse.counts == {"ingest-set-ruled": [0, 4], "ingest-set": [0, 4]}


def test_a_set_code_given_twice_reads_the_file_whole(tmp_path, split_any_size):
    text = json.dumps(four_sets())
    first = text.index('"FUT": ')
    duplicated = text.replace('"PLC": ', text[first : text.index(', "PLC": ')] + ', "PLC": ', 1)
    path = write(tmp_path, duplicated)
    reuse = Reuse()
    result = read(path, tmp_path / "store", reuse)
    assert "ingest-set" not in reuse.counts
    assert result == read(path, None)
    assert len({r.doc for r in result.rulings if r.card == "Epochrasite"}) == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda text: text[: len(text) // 2],
        lambda text: text.replace('"cards": [', '"cards": {"x": [', 1).replace("]}", "]}}", 1),
        lambda text: text.replace('{"meta"', '{"data": {"cards": []}, "meta"', 1),
        lambda text: text.replace('{"meta"', '{"sealed": [], "meta"', 1),
        lambda text: text.replace('"cards": [', '"cards": 7, "x": [', 1),
        lambda _: SET_FILE.read_text(encoding="utf-8"),
    ],
    ids=[
        "truncated",
        "cards-not-an-array",
        "data-given-twice",
        "another-top-level-key",
        "a-set-without-cards",
        "a-set-file",
    ],
)
def test_what_is_not_a_file_of_sets_is_read_whole(tmp_path, split_any_size, change):
    path = write(tmp_path, change(json.dumps(four_sets())))
    reuse = Reuse()
    result = read(path, tmp_path / "store", reuse)
    assert "ingest-set" not in reuse.counts
    assert result == read(path, None)


@pytest.mark.parametrize("meta", [{}, {"date": "2026-12-06"}, None], ids=["empty", "dated", "none"])
def test_a_file_of_sets_is_cut_whatever_its_meta(tmp_path, split_any_size, meta):
    data = four_sets()
    if meta is None:
        del data["meta"]
    else:
        data["meta"] = meta
    path = write(tmp_path, json.dumps(data, indent=1))
    assert [part.code for part in SourceFile(path, NAME).sets] == ["FUT", "PLC", "XTR", "NEW"]
    reuse = Reuse()
    assert read(path, tmp_path / "store", reuse) == read(path, None)
    assert reuse.counts == {"ingest-set-ruled": [0, 4], "ingest-set": [0, 4]}


def test_a_small_file_is_read_whole(tmp_path):
    path = write(tmp_path, json.dumps(four_sets()))
    reuse = Reuse()
    read(path, tmp_path / "store", reuse)
    assert reuse.counts == {"ingest": [0, 1]}


def test_a_set_changed_after_it_was_found_is_reported_and_not_kept(tmp_path, split_any_size):
    data = four_sets()
    path = write(tmp_path, json.dumps(data))
    parts = SourceFile(path, NAME).sets
    assert [part.code for part in parts] == ["FUT", "PLC", "XTR", "NEW"]
    data["data"]["FUT"]["cards"][0]["name"] = "Epochrasitf"
    write(tmp_path, json.dumps(data))
    reading = sets.read_set(parts[0])
    assert reading.read.rulings == []
    [changed] = reading.read.findings
    assert (changed.code, changed.evidence["json_path"]) == ("PARSE010", "/data/FUT")
    assert sets.read_set(parts[1]).read.rulings


@pytest.mark.parametrize("ends", [4, 8, 64])
def test_a_value_is_found_where_it_is_written_by_its_length_and_ends(ends):
    view = memoryview(b'{"A": "abcdef"}')
    assert set_parts._same(view, 6, memoryview(b'"abcdef"'), ends)
    assert not set_parts._same(view, 6, memoryview(b'"abcdeg"'), ends)
    assert not set_parts._same(view, 6, memoryview(b'Xabcdef"'), ends)
    assert not set_parts._same(view, 6, memoryview(b'"abcdef"}xx'), ends)


@pytest.mark.parametrize("indent", [None, 1], ids=["compact", "indented"])
def test_one_pass_over_the_file_reads_each_set_as_it_reads_alone(tmp_path, split_any_size, indent):
    """A first run reads a file of sets in one pass (``read_together``): each set's reading
    is the one it has read alone (``read_set``), the sets not asked for left out."""
    path = write(tmp_path, json.dumps(four_sets(), indent=indent, ensure_ascii=False))
    parts = SourceFile(path, NAME).sets
    alone = [sets.read_set(part) for part in parts]
    assert sets.read_together(sets.FileSets(parts)) == alone
    assert sets.read_together(sets.FileSets(parts[1::2])) == alone[1::2]


def test_most_of_a_file_missing_is_read_in_one_pass_else_set_by_set(tmp_path, split_any_size):
    parts = SourceFile(write(tmp_path, json.dumps(four_sets())), NAME).sets
    plan = sets.plan(parts)
    [(task, indices)] = plan([0, 1, 2, 3])
    assert isinstance(task, sets.FileSets) and indices == [0, 1, 2, 3]
    assert plan([2]) == [([parts[2]], [2])]


def test_a_file_changed_before_its_pass_is_reported_and_not_kept(tmp_path, split_any_size):
    data = four_sets()
    path = write(tmp_path, json.dumps(data))
    parts = SourceFile(path, NAME).sets
    data["data"]["PLC"]["cards"][0]["name"] = "Dichotomancz"
    write(tmp_path, json.dumps(data))
    readings = sets.read_together(sets.FileSets(parts))
    assert [r.read.rulings for r in readings] == [[]] * 4
    assert {f.code for r in readings for f in r.read.findings} == {"PARSE010"}


@pytest.mark.model
def test_a_run_after_one_set_changed_reads_that_set_and_writes_what_a_cold_run_writes(
    tmp_path, split_any_size, monkeypatch
):
    from test_incremental import run, same_outputs

    import pipelines.ingest.units as units

    data = four_sets()
    inputs = tmp_path / "in"
    inputs.mkdir()
    write(inputs, json.dumps(data, indent=1))
    run(inputs, tmp_path / "out", tmp_path / "cache")
    data["data"]["NEW"]["cards"][0]["rulings"][0]["text"] += " (revised)"
    write(inputs, json.dumps(data, indent=1))
    read_alone: list[str] = []
    real_read_set = sets.read_set
    monkeypatch.setattr(
        units, "read_set", lambda part: read_alone.append(part.code) or real_read_set(part)
    )
    reused = run(inputs, tmp_path / "out", tmp_path / "cache")
    assert read_alone == ["NEW"]
    assert reused["files"] == (3, 4), "the other sets' passed readings are taken"
    run(inputs, tmp_path / "cold", tmp_path / "cold-cache")
    assert read_alone == ["NEW"], "a cold run reads the file in one pass"
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []
    assert "(revised)" in (tmp_path / "out" / "corpus.jsonl").read_text(encoding="utf-8")


def ingested(path: Path, root: Path, reuse: Reuse | None = None):
    """The file through ingest and its passes: with a work cache (read and passed set by
    set), or without (read and passed whole)."""
    from pipelines.ingest import ingest

    if reuse is None:
        return ingest([path], cache_dir=root / "cold")
    return ingest(
        [path], cache_dir=root / "cache", work=Cache(open_store(root / "store"), (), reuse)
    )


def test_a_file_of_sets_is_passed_set_by_set_as_it_is_passed_whole(tmp_path, split_any_size):
    """Each set's part is a unit of the passes: an edited set is the one passed again, what
    a pass reports stays with its set (a date that is no date in FUT's Epochrasite, kept
    while NEW is passed again; the same in XTR's reprint of it, whose rulings are FUT's, is
    not reported), and what the passes give is what the whole file passed at once gives."""
    data = four_sets()
    data["data"]["FUT"]["cards"][0]["rulings"][2]["date"] = "2021-02-30"
    data["data"]["XTR"]["cards"][0]["rulings"][3]["date"] = "2021-02-31"
    inputs = tmp_path / "in"
    inputs.mkdir()
    path = write(inputs, json.dumps(data))
    reuse = Reuse()
    first = ingested(path, tmp_path, reuse)
    assert reuse.counts["ingest-passes"] == [0, 4]
    assert same_result(first, ingested(path, tmp_path))
    [invalid] = [f for f in first.findings if f.code == "DATE005"]
    assert invalid.evidence["found"] == "2021-02-30"

    data["data"]["NEW"]["cards"][0]["rulings"][0]["text"] += " (revised)"
    write(inputs, json.dumps(data))
    reuse = Reuse()
    again = ingested(path, tmp_path, reuse)
    assert reuse.counts["ingest-passes"] == [3, 1]
    assert same_result(again, ingested(path, tmp_path))
    assert [f.evidence["found"] for f in again.findings if f.code == "DATE005"] == ["2021-02-30"]
    assert any(r.text.endswith("(revised)") for r in again.rulings)


def same_result(one, other) -> bool:
    return (one.rulings, one.findings, one.card_names) == (
        other.rulings,
        other.findings,
        other.card_names,
    )


def test_a_file_of_sets_is_digested_from_its_sets_and_cut_once(
    tmp_path, split_any_size, monkeypatch
):
    """The run's key takes an AllPrintings-shaped file's digest from its sets' (it is read and
    cut once, for the key and for its reading, not digested whole as well): the same bytes
    give the same digest, a byte changed in a set or between them another; any other file is
    digested whole."""
    from pipelines.ingest import source

    data = four_sets()
    path = write(tmp_path, json.dumps(data))
    cuts, cut = [], set_parts.split_digested
    monkeypatch.setattr(set_parts, "split_digested", lambda doc: cuts.append(doc.rel) or cut(doc))
    whole = source.bytes_digest
    monkeypatch.setattr(source, "bytes_digest", lambda path: pytest.fail("digested whole"))
    doc = SourceFile(path, NAME)
    first = doc.content_digest
    assert [part.code for part in doc.sets] == ["FUT", "PLC", "XTR", "NEW"] and cuts == [NAME]
    assert SourceFile(path, NAME).content_digest == first
    data["data"]["PLC"]["cards"][0]["name"] = "Dichotomancz"
    write(tmp_path, json.dumps(data))
    in_a_set = SourceFile(path, NAME).content_digest
    data["meta"] = {"date": "2026-12-06"}
    write(tmp_path, json.dumps(data))
    between = SourceFile(path, NAME).content_digest
    assert len({first, in_a_set, between}) == 3
    monkeypatch.setattr(source, "bytes_digest", whole)
    other = write(tmp_path, json.dumps([data]))
    assert SourceFile(other, NAME).content_digest == hashing.hexdigest(other.read_bytes())


@pytest.mark.parametrize("split", [False, True], ids=["whole", "set-by-set"])
def test_the_card_names_of_a_passed_reading_found_in_the_cache_are_those_read(
    tmp_path, monkeypatch, split
):
    """A unit's card-name entries are kept as their lines and read back only where the run
    needs them: a rerun that takes every unit from the cache gives the file's entries as a
    run without a cache does, each (name, language, card) once, in the file's order."""
    if split:
        monkeypatch.setattr(set_parts, "SPLIT_BYTES", 0)
    inputs = tmp_path / "in"
    inputs.mkdir()
    path = write(inputs, json.dumps(four_sets()))
    first = ingested(path, tmp_path, Reuse())
    reuse = Reuse()
    again = ingested(path, tmp_path, reuse)
    assert reuse.counts["ingest-passes"] == [4 if split else 1, 0]
    cold = ingested(path, tmp_path)
    assert again.card_names == first.card_names == cold.card_names
    assert {"Brand New", "Epochrasite"} <= {entry.card for entry in again.card_names}
    keys = [(entry.name, entry.lang, entry.card) for entry in again.card_names]
    assert len(keys) == len(set(keys))


@pytest.fixture
def no_cut_known(monkeypatch):
    """This process knows no file's earlier cut (``kept_cuts``), and the whole scans of a
    file (``set_parts._cut``) are counted."""
    monkeypatch.setattr(kept_cuts, "_KEPT", {})
    scans: list[int] = []
    whole = set_parts._cut
    monkeypatch.setattr(set_parts, "_cut", lambda view: scans.append(len(view)) or whole(view))
    return scans


def cut_of(path: Path):
    """The sets found in ``path`` and the file's digest (``split_digested``)."""
    found = set_parts.split_digested(SourceFile(path, NAME))
    return (
        None if found is None else ([dataclasses.replace(p, stamp=()) for p in found[0]], found[1])
    )


def longer(data, code):
    data["data"][code]["cards"][0]["rulings"][0]["text"] += " (and then some more words)"


def shorter(data, code):
    data["data"][code]["cards"][0]["rulings"][0]["text"] = "Short."


@pytest.mark.parametrize(
    ("edit", "from_the_last_cut"),
    [
        (lambda data: longer(data, "PLC"), True),
        (lambda data: shorter(data, "PLC"), True),
        (lambda data: longer(data, "FUT"), True),
        (lambda data: shorter(data, "NEW"), True),
        (lambda data: None, True),
        (lambda data: (longer(data, "FUT"), longer(data, "NEW")), False),
        (lambda data: data["meta"].update(date="2026-12-06"), False),
        (lambda data: data["data"]["PLC"].update(cards={"x": []}), False),
        (lambda data: data["data"]["PLC"].pop("cards"), False),
        (lambda data: data["data"].update(PLC=[1, 2]), False),
        (lambda data: data["data"].update(PLD=data["data"].pop("PLC")), False),
    ],
    ids=[
        "a-set-longer",
        "a-set-shorter",
        "the-first-set",
        "the-last-set",
        "unchanged",
        "two-sets",
        "meta",
        "cards-not-an-array",
        "a-set-without-cards",
        "a-set-not-an-object",
        "a-set-renamed",
    ],
)
@pytest.mark.parametrize("indent", [None, 1], ids=["compact", "indented"])
def test_an_edited_file_of_sets_is_cut_from_its_last_cut_as_a_whole_scan_cuts_it(
    tmp_path, split_any_size, no_cut_known, edit, from_the_last_cut, indent
):
    """Where one set changed and nothing around the sets did, the sets are found from the
    file's last cut (the changed set alone decoded); anything else is scanned whole. Either
    way the sets, their digests and the file's digest are those a whole scan gives."""
    data = four_sets()
    path = write(tmp_path, json.dumps(data, indent=indent, ensure_ascii=False))
    assert cut_of(path) is not None and len(no_cut_known) == 1
    edit(data)
    path = write(tmp_path, json.dumps(data, indent=indent, ensure_ascii=False))
    recut = cut_of(path)
    assert len(no_cut_known) == (1 if from_the_last_cut else 2)
    kept_cuts._KEPT.clear()
    assert recut == cut_of(path)


def test_a_set_cut_short_or_run_into_the_next_is_scanned_whole(
    tmp_path, split_any_size, no_cut_known
):
    """The bytes where the changed set was must be one object that is a set, ending where
    the unchanged bytes after it begin, and those must be unchanged to the file's end."""
    text = json.dumps(four_sets())
    at = text.index('"PLC": {') + len('"PLC": {')
    for broken in (
        text[:at] + text[at + 1 :],
        text[:at] + '"x": 1}, "y": {' + text[at:],
        text[:at] + '"x": 1, ' + text[at:-1] + "]",
    ):
        path = write(tmp_path, text)
        assert cut_of(path) is not None
        scans = len(no_cut_known)
        write(tmp_path, broken)
        found = cut_of(path)
        assert len(no_cut_known) == scans + 1
        kept_cuts._KEPT.clear()
        assert found == cut_of(path)


def test_the_cuts_are_kept_for_the_next_run_in_the_cache_folder(
    tmp_path, split_any_size, no_cut_known
):
    from click.testing import CliRunner

    from pipelines.cli import main

    cache = tmp_path / "cache"
    cache.mkdir()
    data = four_sets()
    path = write(tmp_path, json.dumps(data))
    with kept_cuts.cuts_kept(cache):
        cut_of(path)
    assert (cache / kept_cuts.CUTS_FILE).is_file() and len(no_cut_known) == 1
    kept_cuts._KEPT.clear()
    longer(data, "XTR")
    write(tmp_path, json.dumps(data))
    with kept_cuts.cuts_kept(cache):
        recut = cut_of(path)
    assert len(no_cut_known) == 1
    kept_cuts._KEPT.clear()
    assert recut == cut_of(path)
    info = CliRunner().invoke(main, ["cache", "info", "--cache-dir", str(cache)])
    assert "Files of sets whose cuts are kept for the next run: 1" in info.output, info.output
    kept_cuts._KEPT.clear()
    (cache / kept_cuts.CUTS_FILE).write_bytes(b"rulings-checked-v1 00\n\x93")
    with kept_cuts.cuts_kept(cache):
        assert cut_of(path) == recut
    assert len(no_cut_known) == 3
    cleared = CliRunner().invoke(main, ["cache", "clear", "--cache-dir", str(cache)])
    assert cleared.exit_code == 0 and not (cache / kept_cuts.CUTS_FILE).exists()


def test_the_cuts_of_the_files_cut_last_are_kept(tmp_path, split_any_size, no_cut_known):
    cache = tmp_path / "cache"
    cache.mkdir()
    text = json.dumps(four_sets())
    paths = []
    for number in range(kept_cuts.CUTS_KEPT + 2):
        paths.append(tmp_path / f"{number}" / NAME)
        paths[-1].parent.mkdir()
        paths[-1].write_text(text, encoding="utf-8")
        with kept_cuts.cuts_kept(cache):
            set_parts.split_digested(SourceFile(paths[-1], NAME))
    kept_cuts._KEPT.clear()
    with kept_cuts.cuts_kept(cache):
        known = [kept_cuts.previous(path) is not None for path in paths]
    assert known == [False, False] + [True] * kept_cuts.CUTS_KEPT


def test_a_file_of_sets_unchanged_since_its_cut_settled_is_not_read_again(
    tmp_path, split_any_size, no_cut_known, monkeypatch
):
    """A file whose size, times and inode are those it had when it was cut, settled by then
    (the rule the input files' digests are kept by), gives the sets and digest of its cut
    without being read; touched, it is read where its sets are (and found unchanged from
    its cut), never whole."""
    from pipelines import files

    path = write(tmp_path, json.dumps(four_sets()))
    first = cut_of(path)
    assert not kept_cuts.previous(path).stamp  # just written: not settled
    later = time.time_ns() + 10 * files.SETTLED_NS
    monkeypatch.setattr(files.time, "time_ns", lambda: later)
    assert cut_of(path) == first and kept_cuts.previous(path).stamp
    reads: list[Path | str] = []
    read_bytes, sliced = Path.read_bytes, FileBytes.__getitem__
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or read_bytes(self))
    monkeypatch.setattr(
        FileBytes,
        "__getitem__",
        lambda view, at: reads.append("part") or sliced(view, at),
    )
    assert cut_of(path) == first and reads == []
    os.utime(path, ns=(later, later))
    assert cut_of(path) == first and "part" in reads and path not in reads
    assert len(no_cut_known) == 1


def revise(ruling: dict) -> None:
    ruling["text"] += " (revised)"


def test_a_rerun_whose_sets_name_what_they_named_takes_the_joined_names_from_the_cache(
    tmp_path, split_any_size, monkeypatch
):
    """The file's card-name entries joined (each once) are kept under its sets' entries: a
    rerun after a ruling was edited takes them; after a card was renamed it joins them
    again. Either way they are what a run without a cache gives."""
    from pipelines.ingest import units

    inputs = tmp_path / "in"
    inputs.mkdir()
    data = four_sets()
    path = write(inputs, json.dumps(data))
    for joined in (None, [0, 1], [1, 0]):
        reuse = Reuse()
        ingested(path, tmp_path, reuse)
        assert reuse.counts.get("ingest-names-joined") == joined  # a first run: every set read
    monkeypatch.setattr(units, "JOINED_KEPT_SHARE", 1.0)  # the renamed card's sets too
    renamed = {"name": "Epochrasite Renamed"}
    for edit, joined in (
        (lambda: revise(data["data"]["NEW"]["cards"][0]["rulings"][0]), [1, 0]),
        (lambda: data["data"]["XTR"]["cards"][0].update(renamed), [0, 1]),
    ):
        edit()
        path = write(inputs, json.dumps(data))
        reuse = Reuse()
        again = ingested(path, tmp_path, reuse)
        assert reuse.counts["ingest-set"][1] == 1  # the edited set alone read again
        assert reuse.counts["ingest-names-joined"] == joined
        assert again.card_names == ingested(path, tmp_path).card_names
    assert "Epochrasite Renamed" in {entry.card for entry in again.card_names}


def test_a_run_writes_the_card_names_it_took_as_lines_as_it_writes_those_it_decoded(
    tmp_path, split_any_size, monkeypatch
):
    """``rulings run`` has ingest give the card names as cards.jsonl's lines: a rerun writes
    the joined lines it took from the cache as they are, never decoded; a first run encodes
    its records. Each gives the bytes of the entries a run without a cache gives."""
    from pipelines import tables
    from pipelines.ingest import ingest_sources, units
    from pipelines.ingest.source import discover
    from pipelines.tables import Lines

    monkeypatch.setattr(units, "JOINED_KEPT_SHARE", 1.0)  # a first run looks them up too
    inputs = tmp_path / "in"
    inputs.mkdir()
    data = four_sets()
    path = write(inputs, json.dumps(data))
    decoded = []
    monkeypatch.setattr(units, "card_names_of", lambda lines: decoded.append(lines) or [])

    def as_lines(reuse: Reuse) -> bytes:
        found = ingest_sources(
            list(discover([path])),
            cache_dir=tmp_path / "cache",
            work=Cache(open_store(tmp_path / "store"), (), reuse),
            names_as_lines=True,
        )
        assert found.card_names is None
        written = tables.write_parts(tmp_path / "cards.jsonl", found.name_lines)
        return written.read_bytes()

    for edited, joined in ((False, [0, 1]), (False, [1, 0]), (True, [1, 0])):
        if edited:
            revise(data["data"]["NEW"]["cards"][0]["rulings"][0])
            write(inputs, json.dumps(data))
        reuse = Reuse()
        written = as_lines(reuse)
        assert reuse.counts["ingest-names-joined"] == joined
        assert decoded == []
        assert written == Lines.encoded(ingested(path, tmp_path).card_names)
    assert b'"card":"Brand New"' in written


def test_a_file_that_changes_while_it_is_recut_is_cut_whole(
    tmp_path, split_any_size, no_cut_known, monkeypatch
):
    """A file read shorter than its size said (written to while it was recut, a set at a
    time) is cut whole from its bytes as they are then, as a first cut of them would be."""
    data = four_sets()
    path = write(tmp_path, json.dumps(data))
    cut_of(path)
    longer(data, "FUT")
    path = write(tmp_path, json.dumps(data))
    opened = FileBytes.__init__

    def longer_than_it_is(view, handle):
        opened(view, handle)
        view.size += 9  # the size as taken before the file was cut short

    monkeypatch.setattr(FileBytes, "__init__", longer_than_it_is)
    found = cut_of(path)
    monkeypatch.setattr(kept_cuts, "_KEPT", {})
    assert found == cut_of(path) is not None
    assert len(no_cut_known) == 3  # the first cut, the one the change cut short, the last
