"""The JSON readers: MTGJSON set files and AllPrintings, Scryfall rulings and cards.

Fixtures (tests/fixtures/json) are cuts of the shared MTGJSON files: ``mtgjson_set.json`` is
a set file holding Hypergenesis (TSP), Dichotomancy and both halves of Boom // Bust (PLC) and
Epochrasite (FUT); ``mtgjson_allprintings.json`` has two sets, FUT (Epochrasite and a
reprint of Dichotomancy) and PLC (Dichotomancy, Boom // Bust). The Scryfall files follow the
published bulk-data schema.
"""

from __future__ import annotations

import codecs
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest import ingest, ingest_sources
from pipelines.ingest.readers import READERS, CardName, choose
from pipelines.ingest.readers._json import pointer
from pipelines.ingest.source import SourceFile
from pipelines.model import Finding, Ruling

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "json"
SHARED_MTGJSON = Path(__file__).parents[1] / "../shared/data/mtgjson"
EPOCHRASITE_ORACLE = "54e2d2ff-51d2-48a5-ab2e-7d9de8c78b7e"
RULING_COUNTS = {"Hypergenesis": 22, "Dichotomancy": 16, "Boom // Bust": 8, "Epochrasite": 17}


def copy_as(tmp_path: Path, fixture: str, name: str) -> Path:
    target = tmp_path / name
    shutil.copyfile(FIXTURES / fixture, target)
    return target


def write(tmp_path: Path, name: str, data: bytes | str | object) -> Path:
    target = tmp_path / name
    if isinstance(data, bytes):
        target.write_bytes(data)
    elif isinstance(data, str):
        target.write_text(data, encoding="utf-8")
    else:
        target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return target


def read(path: Path) -> list[Ruling | Finding | CardName]:
    """The records of the reader the file's content selects."""
    doc = SourceFile(path, path.name)
    name = choose(doc)
    assert name is not None, f"no reader claims {path.name}"
    return list(READERS[name].target(doc))


def rulings_of(records) -> list[Ruling]:
    return [r for r in records if isinstance(r, Ruling)]


def findings_of(records) -> list[Finding]:
    return [r for r in records if isinstance(r, Finding)]


def names_of(records) -> list[CardName]:
    return [r for r in records if isinstance(r, CardName)]


def minimal_set(cards: list) -> dict:
    return {"meta": {"date": "2022-04-25", "version": "5.2.0"}, "data": {"cards": cards}}


# Detection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("mtgjson_set.json", "mtgjson"),
        ("mtgjson_allprintings.json", "mtgjson"),
        ("scryfall_rulings.json", "scryfall"),
        ("scryfall_cards.json", "scryfall"),
    ],
)
def test_the_format_is_found_from_the_content_not_the_name(tmp_path, fixture, expected):
    path = copy_as(tmp_path, fixture, "renamed.txt")
    assert choose(SourceFile(path, path.name)) == expected
    assert ingest_sources([SourceFile(path, path.name)]).formats == Counter({expected: 1})


def test_compact_single_line_json_is_detected(tmp_path):
    data = json.loads((FIXTURES / "mtgjson_allprintings.json").read_text(encoding="utf-8"))
    path = write(tmp_path, "AllPrintings", json.dumps(data, separators=(",", ":")))
    assert choose(SourceFile(path, path.name)) == "mtgjson"


@pytest.mark.parametrize(
    "content",
    [
        {"meta": {"version": "1.0", "total": 3}, "data": {"id": "7", "type": "articles"}},
        {"cards": [{"name": "Epochrasite"}]},
        [{"object": "list", "data": []}],
        [{"oracle_id": "x", "name": "Epochrasite"}],
        [1, 2, 3],
        [],
    ],
)
def test_json_of_an_unknown_shape_is_not_claimed(tmp_path, content):
    doc = SourceFile(write(tmp_path, "other.json", content), "other.json")
    assert READERS["mtgjson"].meta["detect"](doc) == 0
    assert READERS["scryfall"].meta["detect"](doc) == 0


def test_text_files_are_not_claimed(tmp_path):
    doc = SourceFile(write(tmp_path, "a.txt", "Epochrasite\n\n2007-05-01: A ruling.\n"), "a.txt")
    assert READERS["mtgjson"].meta["detect"](doc) == 0
    assert READERS["scryfall"].meta["detect"](doc) == 0


# MTGJSON set files -------------------------------------------------------------------------


def test_set_file_rulings_have_pointer_ids_and_iso_dates(tmp_path):
    path = copy_as(tmp_path, "mtgjson_set.json", "PLC.txt")
    records = read(path)
    rulings = rulings_of(records)
    assert findings_of(records) == []
    first = rulings[0]
    assert first.id == "PLC.txt#/data/cards/0/rulings/0"
    assert (first.file, first.line, first.format) == ("PLC.txt", None, "mtgjson")
    assert (first.card, first.doc_title, first.doc) == (
        "Hypergenesis",
        "Hypergenesis",
        "PLC.txt#/data/cards/0",
    )
    assert (first.date, first.date_raw) == ("2006-10-15", "2006-10-15")
    assert (first.lang, first.doc_lang, first.spans, first.kind) == ("en", "en", [], "ruling")
    hypergenesis = [r for r in rulings if r.card == "Hypergenesis"]
    assert [r.position for r in hypergenesis] == list(range(22))
    assert hypergenesis[-1].id == "PLC.txt#/data/cards/0/rulings/21"
    assert all(r.date and len(r.date) == 10 for r in rulings)
    assert all(r.text == " ".join(r.text.split()) for r in rulings)


def test_a_card_printed_twice_in_a_file_gives_its_rulings_once(tmp_path):
    rulings = rulings_of(read(copy_as(tmp_path, "mtgjson_set.json", "PLC.json")))
    assert Counter(r.card for r in rulings) == RULING_COUNTS
    boom = {r.doc for r in rulings if r.card == "Boom // Bust"}
    assert boom == {"PLC.json#/data/cards/2"}
    assert len({r.id for r in rulings}) == len(rulings)


def test_card_names_in_every_language_once_per_file(tmp_path):
    names = names_of(read(copy_as(tmp_path, "mtgjson_set.json", "PLC.json")))
    entries = {(n.name, n.lang, n.card) for n in names}
    assert len(entries) == len(names)
    assert ("Epochrasite", "en", "Epochrasite") in entries
    assert ("Epocrásito", "es", "Epochrasite") in entries
    assert ("时代寄生虫", "zh", "Epochrasite") in entries
    assert ("Hipergénesis", "es", "Hypergenesis") in entries
    assert ("Boom", "en", "Boom // Bust") in entries
    assert ("Bust", "en", "Boom // Bust") in entries
    assert (EPOCHRASITE_ORACLE, "oracle_id", "Epochrasite") in entries
    assert {n.source for n in names} == {"PLC.json"}
    assert {n.lang for n in names} == {"en", "de", "es", "fr", "it", "ja", "pt", "ru", "zh"} | {
        "oracle_id"
    }


# MTGJSON AllPrintings ----------------------------------------------------------------------


def test_allprintings_pointers_name_the_set_and_rulings_come_once_per_card(tmp_path):
    records = read(copy_as(tmp_path, "mtgjson_allprintings.json", "AllPrintings.json"))
    rulings = rulings_of(records)
    assert findings_of(records) == []
    assert Counter(r.card for r in rulings) == {
        name: count for name, count in RULING_COUNTS.items() if name != "Hypergenesis"
    }
    by_card = {card: {r.doc for r in rulings if r.card == card} for card in RULING_COUNTS}
    assert by_card["Epochrasite"] == {"AllPrintings.json#/data/FUT/cards/0"}
    assert by_card["Dichotomancy"] == {"AllPrintings.json#/data/FUT/cards/1"}
    assert by_card["Boom // Bust"] == {"AllPrintings.json#/data/PLC/cards/1"}
    epochrasite = [r for r in rulings if r.card == "Epochrasite"]
    assert epochrasite[3].id == "AllPrintings.json#/data/FUT/cards/0/rulings/3"
    names = names_of(records)
    assert len({(n.name, n.lang, n.card) for n in names}) == len(names)


def test_each_file_is_its_own_source(tmp_path):
    copy_as(tmp_path, "mtgjson_set.json", "PLC.json")
    copy_as(tmp_path, "mtgjson_allprintings.json", "AllPrintings.json")
    result = ingest([tmp_path])
    dichotomancy = Counter(r.file for r in result.rulings if r.card == "Dichotomancy")
    assert dichotomancy == {"PLC.json": 16, "AllPrintings.json": 16}
    assert not [f for f in result.findings if f.category == "parse"]


# Bad MTGJSON input -------------------------------------------------------------------------


def test_a_truncated_file_keeps_what_was_read_and_says_where_it_broke(tmp_path):
    data = (FIXTURES / "mtgjson_allprintings.json").read_bytes()
    cut = data.index(b'"name": "Dichotomancy"', data.index(b'"PLC"')) + 5
    result = ingest_sources([SourceFile(write(tmp_path, "cut.json", data[:cut]), "cut.json")])
    broken = [f for f in result.findings if f.code == "PARSE008"]
    assert len(broken) == 1
    assert broken[0].evidence["byte_offset"] == cut
    assert broken[0].evidence["json_path"] == "/data/PLC/cards/0"
    assert "/data/PLC/cards/0" in broken[0].message
    assert (broken[0].severity, broken[0].line, broken[0].file) == ("error", None, "cut.json")
    assert Counter(r.card for r in result.rulings) == {"Epochrasite": 17, "Dichotomancy": 16}


def test_a_syntax_error_is_placed_at_its_byte_offset(tmp_path):
    data = (FIXTURES / "mtgjson_set.json").read_bytes()
    key = b'"name": "Epochrasite"'
    at = data.index(key) + len(key)
    broken = data[:at] + b' "stray"' + data[at:]
    records = read(write(tmp_path, "broken.json", broken))
    [finding] = findings_of(records)
    assert finding.code == "PARSE008"
    assert abs(finding.evidence["byte_offset"] - (at + 1)) <= 2
    assert finding.evidence["json_path"] == "/data/cards/4"
    assert Counter(r.card for r in rulings_of(records)) == {
        name: count for name, count in RULING_COUNTS.items() if name != "Epochrasite"
    }


def test_a_syntax_error_past_the_first_chunk_is_placed_exactly(tmp_path):
    cards = [
        {"name": f"Card {i}", "rulings": [{"date": "2020-01-01", "text": f"Ruling {i}."}]}
        for i in range(3000)
    ]
    data = json.dumps(minimal_set(cards)).encode()
    at = data.index(b'"Card 2500"')
    broken = data[:at] + b"@" + data[at + 1 :]
    assert at > 64 * 1024
    [finding] = findings_of(read(write(tmp_path, "big.json", broken)))
    assert finding.evidence["byte_offset"] == at
    assert finding.evidence["json_path"] == "/data/cards/2500"


@pytest.mark.parametrize(
    ("content", "path", "problem"),
    [
        ([{"name": "Epochrasite"}], "", "not an MTGJSON object"),
        ({"meta": {"version": "5"}, "cards": []}, "", "no data object"),
        ({"meta": {"version": "5"}, "data": ["TSP"]}, "/data", "not an object"),
        ({"meta": {"version": "5"}, "data": {"code": "TSP"}}, "/data", "no card list"),
        (minimal_set({"Epochrasite": {}}), "/data/cards", "not an array"),
    ],
)
def test_a_file_of_the_wrong_shape_is_reported_with_its_json_path(tmp_path, content, path, problem):
    records = list(READERS["mtgjson"].target(SourceFile(write(tmp_path, "x.json", content), "x")))
    [finding] = records
    assert finding.code == "PARSE009"
    assert finding.evidence["json_path"] == path
    assert problem in finding.message


def test_broken_cards_and_rulings_are_reported_and_the_rest_is_read(tmp_path):
    content = minimal_set(
        [
            "Epochrasite",
            {"rulings": [{"date": "2020-01-01", "text": "No name."}]},
            {
                "name": "Dichotomancy",
                "foreignData": [{"name": "Dicotomancia"}, {"language": "Spanish", "name": "Dic"}],
                "rulings": [
                    {"date": "2020-01-01"},
                    "a string",
                    {"text": "Undated."},
                    {"date": "2020-02-30", "text": "Bad date."},
                    {"date": "2020-03-01", "text": "Fine."},
                ],
            },
        ]
    )
    path = write(tmp_path, "odd.json", content)
    result = ingest_sources([SourceFile(path, "odd.json")])
    problems = {
        (f.code, f.evidence.get("json_path")): f for f in result.findings if f.code != "CARD002"
    }
    assert set(problems) == {
        ("PARSE009", "/data/cards/0"),
        ("PARSE009", "/data/cards/1/name"),
        ("PARSE009", "/data/cards/2/foreignData/0"),
        ("PARSE009", "/data/cards/2/rulings/0"),
        ("PARSE009", "/data/cards/2/rulings/1"),
        ("PARSE009", "/data/cards/2/rulings/2/date"),
        ("DATE005", None),
    }
    assert problems["DATE005", None].ruling_id == "odd.json#/data/cards/2/rulings/3"
    assert problems["PARSE009", "/data/cards/2/rulings/2/date"].severity == "warning"
    kept = {r.id.split("#")[1]: (r.text, r.date) for r in result.rulings}
    assert kept == {
        "/data/cards/2/rulings/2": ("Undated.", None),
        "/data/cards/2/rulings/3": ("Bad date.", None),
        "/data/cards/2/rulings/4": ("Fine.", "2020-03-01"),
    }
    assert ("Dic", "es", "Dichotomancy") in {(n.name, n.lang, n.card) for n in result.card_names}


@settings(max_examples=examples(60), deadline=None)
@given(fraction=st.floats(min_value=0.0, max_value=0.999))
def test_any_truncation_gives_a_prefix_of_the_rulings_and_one_parse_finding(fraction):
    data = (FIXTURES / "mtgjson_allprintings.json").read_bytes()
    whole = [r.id for r in rulings_of(_read_bytes(data))]
    cut = int(len(data) * fraction)
    records = _read_bytes(data[:cut])
    ids = [r.id for r in rulings_of(records)]
    assert ids == whole[: len(ids)]
    assert [f.code for f in findings_of(records)] in (["PARSE008"], ["PARSE009"])


def _read_bytes(data: bytes) -> list:
    doc = SourceFile.from_text("AllPrintings.json", data.decode("utf-8", errors="ignore"))
    return list(READERS["mtgjson"].target(doc))


def test_byte_order_mark_and_utf16_files_are_read(tmp_path):
    data = (FIXTURES / "mtgjson_set.json").read_text(encoding="utf-8")
    with_bom = write(tmp_path, "bom.json", codecs.BOM_UTF8 + data.encode("utf-8"))
    assert len(rulings_of(read(with_bom))) == sum(RULING_COUNTS.values())
    utf16 = write(tmp_path, "utf16.json", data.encode("utf-16"))
    records = read(utf16)
    assert len(rulings_of(records)) == sum(RULING_COUNTS.values())
    assert ("Epocrásito", "es") in {(n.name, n.lang) for n in names_of(records)}


def test_json_pointers_escape_slash_and_tilde():
    assert pointer("data", "A/B~C", "cards", 3) == "/data/A~1B~0C/cards/3"


# Scryfall ----------------------------------------------------------------------------------


def test_scryfall_rulings_keep_the_oracle_id_for_card_identity(tmp_path):
    records = read(copy_as(tmp_path, "scryfall_rulings.json", "rulings.txt"))
    rulings = rulings_of(records)
    assert findings_of(records) == []
    assert len(rulings) == 8
    first = rulings[0]
    assert first.id == "rulings.txt#/0"
    assert (first.card, first.doc_title) == (None, EPOCHRASITE_ORACLE)
    assert first.doc == f"rulings.txt#oracle/{EPOCHRASITE_ORACLE}"
    assert (first.format, first.lang, first.doc_lang, first.line) == ("scryfall", "en", "en", None)
    assert (first.date, first.date_raw) == ("2007-05-01", "2007-05-01")
    epochrasite = [(r.id, r.position) for r in rulings if r.doc_title == EPOCHRASITE_ORACLE]
    assert epochrasite == [("rulings.txt#/0", 0), ("rulings.txt#/1", 1), ("rulings.txt#/5", 2)]


def test_scryfall_cards_give_names_per_language_and_oracle_ids(tmp_path):
    records = read(copy_as(tmp_path, "scryfall_cards.json", "cards.txt"))
    names = names_of(records)
    assert findings_of(records) == [] and rulings_of(records) == []
    entries = {(n.name, n.lang, n.card) for n in names}
    assert len(entries) == len(names)
    assert entries >= {
        (EPOCHRASITE_ORACLE, "oracle_id", "Epochrasite"),
        ("Epochrasite", "en", "Epochrasite"),
        ("Epocrásito", "es", "Epochrasite"),
        ("时代寄生虫", "zh", "Epochrasite"),
        ("Hipergénesis", "es", "Hypergenesis"),
        ("Boom", "en", "Boom // Bust"),
        ("Bust", "en", "Boom // Bust"),
    }
    assert not {lang for _, lang, _ in entries} & {"zhs", "zht"}


def test_scryfall_rulings_find_their_cards_through_a_cards_file(tmp_path):
    copy_as(tmp_path, "scryfall_rulings.json", "rulings.json")
    copy_as(tmp_path, "scryfall_cards.json", "cards.json")
    result = ingest([tmp_path])
    assert Counter(r.card for r in result.rulings) == {
        "Epochrasite": 3,
        "Hypergenesis": 3,
        "Dichotomancy": 2,
    }
    assert not [f for f in result.findings if f.category == "parse"]


def test_a_truncated_scryfall_file_keeps_the_rulings_before_the_break(tmp_path):
    data = (FIXTURES / "scryfall_rulings.json").read_bytes()
    cut = data.index(b'"comment"', data.index(b'"2007-02-01"'))
    records = read(write(tmp_path, "rulings.json", data[:cut]))
    [finding] = findings_of(records)
    assert finding.code == "PARSE008"
    assert finding.evidence == {
        "byte_offset": cut,
        "json_path": "/6",
        "error": "parse error: premature EOF",
    }
    assert [r.id for r in rulings_of(records)] == [f"rulings.json#/{i}" for i in range(6)]


def test_scryfall_elements_of_the_wrong_shape_are_reported(tmp_path):
    content = [
        {"object": "ruling", "oracle_id": "o1", "published_at": "2020-01-01", "comment": "One."},
        7,
        {"object": "set", "code": "fut"},
        {"object": "ruling", "oracle_id": "o1", "published_at": "2020-01-01"},
        {"object": "ruling", "oracle_id": "o1", "comment": "Undated."},
        {"object": "card", "oracle_id": "o1"},
    ]
    records = list(
        READERS["scryfall"].target(SourceFile(write(tmp_path, "s.json", content), "s.json"))
    )
    paths = [(f.code, f.evidence["json_path"]) for f in findings_of(records)]
    assert paths == [
        ("PARSE009", "/1"),
        ("PARSE009", "/2"),
        ("PARSE009", "/3/comment"),
        ("PARSE009", "/4/published_at"),
        ("PARSE009", "/5/name"),
    ]
    assert [(r.id, r.position, r.date) for r in rulings_of(records)] == [
        ("s.json#/0", 0, "2020-01-01"),
        ("s.json#/4", 1, None),
    ]


# The shared MTGJSON files (skipped when ../shared is absent) -------------------------------


def shared_set(code: str) -> Path:
    if not SHARED_MTGJSON.is_dir():
        pytest.skip(f"{SHARED_MTGJSON} is absent")
    return SHARED_MTGJSON / f"{code}.json"


@pytest.mark.shared
@pytest.mark.parametrize("code", ["TSP", "PLC", "FUT"])
def test_real_set_files_read_cleanly(code):
    path = shared_set(code)
    cards = json.loads(path.read_text(encoding="utf-8"))["data"]["cards"]
    expected: dict[str, int] = {}
    for card in cards:
        if card.get("rulings"):
            expected.setdefault(card["name"], len(card["rulings"]))
    records = read(path)
    assert findings_of(records) == []
    assert Counter(r.card for r in rulings_of(records)) == expected
    assert {(n.name, n.lang) for n in names_of(records)} >= {(c["name"], "en") for c in cards}


@pytest.mark.shared
def test_the_fixtures_are_faithful_cuts_of_the_shared_files():
    real = {}
    for code in ("TSP", "PLC", "FUT"):
        for card in json.loads(shared_set(code).read_text(encoding="utf-8"))["data"]["cards"]:
            real.setdefault(card["name"], card)
    fixture = json.loads((FIXTURES / "mtgjson_set.json").read_text(encoding="utf-8"))
    for card in fixture["data"]["cards"]:
        source = real[card["name"]]
        assert card["rulings"] == source["rulings"]
        assert (
            card["identifiers"]["scryfallOracleId"] == (source["identifiers"]["scryfallOracleId"])
        )
        foreign = {(f["language"], f["name"]) for f in source["foreignData"]}
        assert {(f["language"], f["name"]) for f in card["foreignData"]} <= foreign
