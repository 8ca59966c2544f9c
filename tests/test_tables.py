"""The stage files: JSON Lines read and written exactly as ``json`` reads and writes them.

``pipelines.tables`` reads a line with ``fastjson`` (orjson, or ``json`` where the two
differ) and builds a record from its values in order when the line holds every field in
order (what ``write_jsonl`` writes); these tests hold it to what ``json.loads`` and keyword
construction give, errors included.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from pipelines import tables
from pipelines.model import Alignment, CardName, Finding, Ruling, column_names
from pipelines.tables import (
    CorpusDigests,
    TableError,
    dumps,
    iter_jsonl,
    read_corpus,
    read_records,
    write_jsonl,
)


def _ruling(number: int, text: str) -> Ruling:
    return Ruling(f"a.txt:{number}", "a.txt", number, "plain", None, None, None, "en", "en",
                  [{"start": 0, "end": 1}], None, None, text, doc="a.txt")  # fmt: skip


RECORDS = [
    _ruling(1, "Plain text."),
    _ruling(2, "Ünïcödé “quotes” 😀 \u2028 \x00 \\ \"'"),
    _ruling(3, ""),
]


def test_written_lines_are_json_dumps_of_the_fields_in_order(tmp_path: Path):
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    expected = [
        json.dumps(
            {name: getattr(record, name) for name in column_names(Ruling)},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        for record in RECORDS
    ]
    assert [line.decode("utf-8") for line in lines[:-1]] == expected
    assert [dumps(record) for record in RECORDS] == expected
    assert dumps({"b": 1, "a": [1.5, None]}) == '{"b":1,"a":[1.5,null]}'
    assert read_records(path, Ruling) == RECORDS


def test_large_and_empty_tables_round_trip(tmp_path: Path):
    many = [_ruling(n, "x" * (n % 7)) for n in range(1, 500)]
    path = write_jsonl(tmp_path / "many.jsonl", iter(many))
    assert path.read_text(encoding="utf-8").count("\n") == len(many)
    assert read_records(path, Ruling) == many
    empty = write_jsonl(tmp_path / "empty.jsonl", [])
    assert empty.read_bytes() == b""
    assert read_records(empty, Ruling) == []


def test_frozen_records_and_plain_dicts_are_written(tmp_path: Path):
    names = [CardName("Opt", "en", "Opt", "cards.json")]
    path = write_jsonl(tmp_path / "cards.jsonl", names)
    assert path.read_text(encoding="utf-8") == (
        '{"name":"Opt","lang":"en","card":"Opt","source":"cards.json"}\n'
    )
    assert read_records(path, CardName) == names
    rows = write_jsonl(tmp_path / "rows.jsonl", [{"b": 2, "a": "é"}, [1, 2]])
    assert rows.read_text(encoding="utf-8") == '{"b":2,"a":"é"}\n[1,2]\n'


def test_nan_is_written_null_and_a_lone_surrogate_is_refused(tmp_path: Path):
    path = write_jsonl(tmp_path / "nan.jsonl", [{"score": float("nan")}])
    assert path.read_text(encoding="utf-8") == '{"score":null}\n'
    with pytest.raises(UnicodeEncodeError):
        write_jsonl(tmp_path / "bad.jsonl", [{"text": "a\ud800"}])


def test_lines_read_as_json_loads_reads_them(tmp_path: Path):
    lines = [
        '{"a": 1}',
        "",
        "   ",
        ' \t{"b" : [1, 2.5, -0.0, 1e400, true, null]}  \t',
        '{"c": "\\ud83d\\ude00 \\u00e9 \\n"}',
        '{"d": "\\ud800"}',
        '{"e": NaN, "f": Infinity, "g": 123456789012345678901234567890}',
        '"just a string"',
        "[]",
        '{"dup": 1, "dup": 2}',
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = [json.loads(line) for line in lines if line.strip()]
    got = list(iter_jsonl(path))
    assert json.dumps(got) == json.dumps(expected)
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(b'{"a": 1}\r\n\r\n{"b": 2}\r{"c": 3}')
    assert list(iter_jsonl(crlf)) == [{"a": 1}, {"b": 2}, {"c": 3}]


def test_lines_cut_into_blocks_read_as_the_whole_file(tmp_path: Path, monkeypatch):
    """A table is decoded a block at a time: a line, a CRLF or a multi-byte character cut
    by a block's end reads as if the file were decoded whole."""
    data = '{"a": "é中"}\r\n\r\n{"b": 2}\r{"c": "😀"}\n\n{"d": 4}'.encode()
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    whole = list(iter_jsonl(path))
    for block in range(1, len(data) + 2):
        monkeypatch.setattr(tables, "_BLOCK", block)
        assert (
            list(iter_jsonl(path))
            == whole
            == [
                {"a": "é中"},
                {"b": 2},
                {"c": "😀"},
                {"d": 4},
            ]
        )
    monkeypatch.setattr(tables, "_BLOCK", 3)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"a": 1}\r\n{"b": \n')
    with pytest.raises(TableError, match=r"bad.jsonl:2:"):
        list(iter_jsonl(bad))


@pytest.fixture
def large_tables(monkeypatch):
    """Every table read as a large one is (``SHARED_FROM_BYTES``)."""
    monkeypatch.setattr(tables, "SHARED_FROM_BYTES", 0)


def test_values_that_repeat_from_row_to_row_are_kept_once(tmp_path: Path, large_tables):
    """A document's file, title and card on each of its units are one string in memory
    (a million-unit corpus), and the records read are those written."""
    rows = [
        Ruling(
            f"d.txt:{n}",
            "d.txt",
            n,
            "plain-block",
            "Title",
            "Card",
            None,
            "es",
            "es",
            [],
            None,
            None,
            f"Texto {n}.",
            doc="d.txt",
        )
        for n in range(1, 4)
    ]
    path = write_jsonl(tmp_path / "corpus.jsonl", rows)
    first, second, third = read_records(path, Ruling)
    assert [first, second, third] == rows
    assert second.file is first.file and third.doc_title is first.doc_title
    assert second.text is not first.text


def test_a_small_table_is_read_as_it_is_and_a_large_one_shared(tmp_path: Path, monkeypatch):
    """Making repeated values one object doubles a table's reading time: a table under
    SHARED_FROM_BYTES is read without it, a larger one (or one read after another that
    shared values into the same ``seen``) with it; the records are the same either way."""
    rows = [_ruling(n, f"Text {n}.") for n in range(1, 40)]
    path = write_jsonl(tmp_path / "corpus.jsonl", rows)
    calls = []
    single = tables.single_values

    def spy(record_type, values, copies):
        calls.append(record_type)
        return single(record_type, values, copies)

    monkeypatch.setattr(tables, "single_values", spy)
    size = path.stat().st_size
    monkeypatch.setattr(tables, "SHARED_FROM_BYTES", size + 1)
    assert read_records(path, Ruling) == rows and not calls
    assert read_records(path, Ruling, seen={"Text 1.": "Text 1."}) == rows
    assert len(calls) == len(rows)
    calls.clear()
    monkeypatch.setattr(tables, "SHARED_FROM_BYTES", size)
    assert read_records(path, Ruling) == rows and len(calls) == len(rows)


def _incon(number: int, variants: list, extra: dict) -> Finding:
    evidence = {"variants": variants, **extra}
    return Finding("INCON001", "inconsistent-translation", "warning", "es", f"{number}.txt", 3,
                   f"{number}.txt:3", None, None, None, "m", evidence)  # fmt: skip


def test_equal_evidence_read_back_is_one_object(tmp_path: Path, large_tables):
    """A translation family's versions repeat in the evidence of each of its findings (1.3
    GB of findings at a million units): read back, equal lists and dicts are one object,
    versions shared between lists that differ are too, and every finding reads as
    written."""
    common = {"text": "Destello (…)", "rulings": ["1.txt:3", "2.txt:3"], "count": 2}
    own = {"text": "Destello.", "rulings": ["3.txt:3"], "count": 1, "preferred": True}
    rows = [
        _incon(1, [common, own], {"ratio": 1}),
        _incon(2, [common, own], {"ratio": 1.0}),
        _incon(3, [common, {**own, "rulings": ["4.txt:3"]}], {"ratio": True}),
    ]
    path = write_jsonl(tmp_path / "findings.jsonl", rows)
    first, second, third = read_records(path, Finding)
    assert [first, second, third] == rows
    assert second.evidence["variants"] is first.evidence["variants"]
    assert third.evidence["variants"] is not first.evidence["variants"]
    assert third.evidence["variants"][0] is first.evidence["variants"][0]
    # 1, 1.0 and True are equal in Python but not the same JSON: none stands for another.
    assert [type(f.evidence["ratio"]) for f in (first, second, third)] == [int, float, bool]
    assert dumps(second) == dumps(rows[1])


def test_tables_read_together_share_the_ruling_ids(tmp_path: Path, large_tables):
    """Read with one ``seen``, the alignment's and the findings' ids are the corpus's
    strings, and the units' empty spans one list; each table reads as written."""
    rulings = [_ruling(n, f"Text {n}.") for n in (1, 2)]
    rulings[1].spans = []
    pair = Alignment("a.txt:1", "a.txt:2", "es", 0.9, "embedding")
    finding = _incon(1, [], {})
    finding.ruling_id = "a.txt:2"
    write_jsonl(tmp_path / "corpus.jsonl", rulings)
    write_jsonl(tmp_path / "alignment.jsonl", [pair])
    write_jsonl(tmp_path / "findings.jsonl", [finding])
    run = tables.RunTables.load(tmp_path)
    assert (run.rulings, run.alignment, run.findings) == (rulings, [pair], [finding])
    first, second = run.rulings
    assert run.alignment[0].source_id is first.id and run.alignment[0].target_id is second.id
    assert run.findings[0].ruling_id is second.id
    assert first.carried is second.carried is second.spans
    assert first.spans is not second.spans  # not empty: its own value


@pytest.mark.parametrize(
    "bad",
    ['{"a": 1', '{"a": 1} x', '{"a": 1}{"b": 2}', "{'a': 1}", "\ufeff{}", "nul", '{"a": 1},'],
)
def test_malformed_lines_name_the_line_and_the_error(tmp_path: Path, bad: str):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 0}\n\n' + bad + "\n", encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(bad)
    with pytest.raises(TableError) as error:
        list(iter_jsonl(path))
    assert str(error.value) == f"{path}:3: not valid JSON ({expected.value.msg})"


def test_missing_file(tmp_path: Path):
    with pytest.raises(TableError, match="is missing"):
        read_records(tmp_path / "none.jsonl", Ruling)


def test_records_from_lines_in_any_field_order_with_extra_or_missing_fields(tmp_path: Path):
    full = {name: getattr(RECORDS[0], name) for name in column_names(Ruling)}
    shuffled = dict(reversed(list(full.items())))
    extra = {**full, "future_field": 1}
    minimal = {k: full[k] for k in list(full)[:13]}
    path = tmp_path / "corpus.jsonl"
    path.write_text(
        "\n".join(json.dumps(row) for row in (full, shuffled, extra, minimal)), encoding="utf-8"
    )
    assert read_records(path, Ruling) == [RECORDS[0]] * 3 + [Ruling(**minimal)]
    assert Ruling(**minimal).doc == ""


def test_a_row_that_is_no_record_names_its_line(tmp_path: Path):
    path = tmp_path / "alignment.jsonl"
    path.write_text('{"source_id": "a", "target_id": "b", "lang": "es"}\n', encoding="utf-8")
    with pytest.raises(TableError, match=r"alignment.jsonl:1: not a Alignment \("):
        read_records(path, Alignment)
    wrong_count = tmp_path / "findings.jsonl"
    wrong_count.write_text('\n{"code": "X"}\n', encoding="utf-8")
    with pytest.raises(TableError, match=r"findings.jsonl:2: not a Finding"):
        read_records(wrong_count, Finding)


def test_finding_checks_still_run(tmp_path: Path):
    finding = Finding("TERM001", "terminology", "error", "es", "a", 1, "a:1", None, None, None,
                      "m", {})  # fmt: skip
    row = {name: getattr(finding, name) for name in column_names(Finding)}
    path = tmp_path / "findings.jsonl"
    path.write_text(json.dumps({**row, "fingerprint": ""}), encoding="utf-8")
    assert read_records(path, Finding)[0].fingerprint == finding.fingerprint
    path.write_text(json.dumps({**row, "severity": "fatal"}), encoding="utf-8")
    with pytest.raises(ValueError, match="unknown severity"):
        read_records(path, Finding)


def test_records_with_keyword_only_fields(tmp_path: Path):
    from dataclasses import dataclass, field

    @dataclass
    class Row:
        a: int
        b: int = field(default=0, kw_only=True)

    path = write_jsonl(tmp_path / "rows.jsonl", [Row(1, b=2)])
    assert path.read_text(encoding="utf-8") == '{"a":1,"b":2}\n'
    assert read_records(path, Row) == [Row(1, b=2)]


def test_digests_taken_while_writing_are_those_of_the_rulings_read_back(tmp_path: Path):
    written = CorpusDigests()
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS, on_line=written.add)
    read = CorpusDigests.of(read_records(path, Ruling))
    rulings, digested_while_reading = read_corpus(tmp_path)
    assert rulings == RECORDS
    for digests in (read, digested_while_reading):
        assert written.digest(RECORDS) == digests.digest(RECORDS)
        assert written.digest(RECORDS[:2]) == digests.digest(RECORDS[:2])
    assert len({written.digest(r) for r in (RECORDS, RECORDS[:2], RECORDS[::-1], [])}) == 4
    edited = [RECORDS[0], replace(RECORDS[1], text=RECORDS[1].text + " ")]
    assert CorpusDigests.of(edited).digest(edited) != written.digest(RECORDS[:2])


def test_a_table_rewritten_by_hand_reads_the_same_but_keys_its_work_anew(tmp_path: Path):
    written = CorpusDigests()
    path = write_jsonl(tmp_path / "corpus.jsonl", RECORDS, on_line=written.add)
    lines = path.read_text(encoding="utf-8").split("\n")[:-1]
    path.write_text("\n".join(json.dumps(json.loads(line)) for line in lines), encoding="utf-8")
    rulings, digests = read_corpus(tmp_path)
    assert rulings == RECORDS
    assert digests.digest(RECORDS) != written.digest(RECORDS)


def test_rulings_that_share_an_id_are_each_digested_from_their_own_line():
    twins = [RECORDS[0], replace(RECORDS[0], text="Another text.")]
    digests = CorpusDigests.of(twins)
    assert digests.digest(twins[:1]) == CorpusDigests.of(twins[:1]).digest(twins[:1])
    assert digests.digest(twins[:1]) != digests.digest(twins[1:])
    triplets = [*twins, replace(RECORDS[0], text="A third text.")]
    digests = CorpusDigests.of(triplets)
    assert [digests.digest([r]) for r in triplets] == [
        CorpusDigests.of([r]).digest([r]) for r in triplets
    ]
    assert digests.digest(triplets) == CorpusDigests().digest(triplets)


def test_a_record_is_written_with_its_fields_only(tmp_path: Path):
    """A dataclass with a ``__dict__`` may hold more than its fields (orjson would write
    them all): its line has its fields, in order, as a record with slots has."""

    @dataclass
    class Loose:
        b: int
        a: str

    loose = Loose(1, "é")
    loose.extra = "not a field"
    path = write_jsonl(tmp_path / "loose.jsonl", [loose, RECORDS[1]])
    first, second, _ = path.read_text(encoding="utf-8").split("\n")
    assert first == '{"b":1,"a":"é"}'
    assert (
        second
        == dumps(RECORDS[1])
        == json.dumps(
            {name: getattr(RECORDS[1], name) for name in column_names(Ruling)},
            ensure_ascii=False,
            separators=(",", ":"),
        )
    )


def test_a_table_written_is_known_by_the_digest_of_its_bytes_without_reading_it(
    tmp_path: Path, monkeypatch
):
    """The check stage's key and the reports' inputs take the digest of each table ingest
    wrote (``files.file_digest``): written as records or as kept lines, it is the digest
    of the file's bytes, and it is given without the file being read again."""
    from pipelines import files

    by_records = write_jsonl(tmp_path / "records.jsonl", RECORDS * 3000)
    by_lines = tables.write_lines(tmp_path / "lines.jsonl", [tables.Lines.of(RECORDS).data] * 2)
    expected = {path: files.bytes_digest(path) for path in (by_records, by_lines)}

    def not_read(path):
        raise AssertionError(f"{path} read again")

    monkeypatch.setattr(files, "bytes_digest", not_read)
    assert {path: files.file_digest(path) for path in expected} == expected
    by_lines.write_bytes(by_lines.read_bytes() + b"\n")  # changed since: read again
    with pytest.raises(AssertionError, match="read again"):
        files.file_digest(by_lines)
