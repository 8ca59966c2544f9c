"""Card identity: the card-name index and which card each seed document is about."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from conftest import FIXTURES, shared_path

from pipelines import stages
from pipelines.cards import INDEXES_KEPT, CardIndex, _StoredIndex, drop_indexes, name_key
from pipelines.cli import main
from pipelines.files import read_checked_bytes, write_checked_bytes
from pipelines.ingest import ingest
from pipelines.ingest.cards import identified_names
from pipelines.model import CardName, Ruling
from pipelines.settings import Settings
from pipelines.tables import CARD_NAMES, read_records

SEED_CARDS = {
    "000_40e512ac1ae253c1.txt": "Hypergenesis",
    "001_09da9df6e0e3ee52.txt": "Dichotomancy",
    "002_f829283b2bc10ea3.txt": "Epochrasite",
}


def cards_by_file(result) -> dict[str, set]:
    found: dict[str, set] = {}
    for ruling in result.rulings:
        found.setdefault(ruling.file, set()).add(ruling.card)
    return found


def test_seed_documents_get_their_card_from_the_shipped_index(corpus_dir):
    result = ingest([corpus_dir])
    found = cards_by_file(result)
    for file, card in SEED_CARDS.items():
        assert found[file] == {card}
    assert found["003_4f023c532c7afcc4.txt"] == {None}
    assert {r.section for r in result.rulings if r.file.startswith("003")} >= {"708", "708.12"}


def test_chinese_title_that_is_not_the_card_name_is_reported(corpus_dir):
    result = ingest([corpus_dir])
    (problem,) = [f for f in result.findings if f.code == "CARD001"]
    assert problem.file == "002_f829283b2bc10ea3.txt" and problem.line == 1
    assert problem.evidence["expected"] == "时代寄生虫"
    assert problem.evidence["found"] == "古辉石"
    assert problem.evidence["identified_by"] == "mentions"


@pytest.mark.slow
def test_seed_documents_with_mtgjson_masters_in_the_input(corpus_dir):
    mtgjson = shared_path("data", "mtgjson")
    result = ingest([corpus_dir, mtgjson])
    found = cards_by_file(result)
    for file, card in SEED_CARDS.items():
        assert found[file] == {card}
    masters = [r for r in result.rulings if r.format == "mtgjson" and r.card == "Epochrasite"]
    assert masters and {r.lang for r in masters} == {"en"}


def test_lookups_ignore_case_accents_and_chinese_script():
    index = CardIndex.build([CardName("时代寄生虫", "zh", "Epochrasite", "test")])
    assert index.lookup("時代寄生蟲") == {("Epochrasite", "zh")}
    assert index.lookup("hipergenesis") == {("Hypergenesis", "es")}
    assert index.lookup("MAGO ENTROMETIDO") == {("Meddling Mage", "es")}
    assert name_key("Mago’s") == name_key("mago's")


def test_names_from_card_data_in_the_input_extend_the_index(tmp_path):
    result = ingest([FIXTURES / "json"])
    index = CardIndex.build(result.card_names)
    assert ("Epochrasite", "es") in index.lookup("Epocrásito")
    assert index.name_in("Epochrasite", "zh") == "时代寄生虫"


def test_mentions_find_card_names_in_text():
    index = CardIndex.build([])
    text = "(como el de la habilidad de Meddling Mage) para determinar si puedes hacer esto."
    (mention,) = index.mentions(text)
    assert (mention.card, mention.lang, mention.name) == ("Meddling Mage", "en", "Meddling Mage")


def test_a_name_after_a_comma_in_a_longer_name_is_not_that_card():
    """Niambi, Faithful Healer (DOM) searches for "a card named Teferi, Timebender": with an
    index that knows Timebender (TSP) and not Teferi's card, Timebender is not mentioned; a
    list of names and a sentence's first word before the comma leave the name mentioned."""
    index = CardIndex.build([])
    named = "search your library for a card named Zorba, Timebender, reveal it"
    assert [m.name for m in index.mentions(named)] == []
    assert [m.card for m in index.mentions("cards named Zorba, Timebender, or Island")] == [
        "Timebender",
        "Island",
    ]
    listed = "search for a Plains, Island, or Swamp card"
    assert [m.card for m in index.mentions(listed)] == ["Plains", "Island", "Swamp"]
    first = "However, Timebender can still be returned to its owner's hand."
    assert [m.card for m in index.mentions(first)] == ["Timebender"]


def test_index_is_built_once_and_cached(tmp_path):
    names = [CardName("Epocrásito", "es", "Epochrasite", "test")]
    first = CardIndex.cached(names, tmp_path)
    stored = list((tmp_path / "cards").glob("*.msgpack"))
    assert len(stored) == 1
    second = CardIndex.cached(names, tmp_path)
    assert second.names == first.names and second is not first
    assert second.lookup("epocrasito") == {("Epochrasite", "es")}
    CardIndex.cached([*names, CardName("x", "es", "Y", "t")], tmp_path)
    assert len(list((tmp_path / "cards").glob("*.msgpack"))) == 2


def test_the_kept_index_is_found_by_its_names_in_any_order(tmp_path):
    """The index is kept under its names whatever order the inputs gave them in; the same
    name of another language is another index."""
    names = [
        CardName("Epocrásito", "es", "Epochrasite", "test"),
        CardName("始祖兽", "zh", "Epochrasite", "test"),
        CardName("Carta de Ejemplo", "es", "Sample Card", "test"),
    ]
    first = CardIndex.cached(names, tmp_path)
    again = CardIndex.cached(list(reversed(names)), tmp_path)
    assert again.kept_in == first.kept_in
    assert again.lookup("Carta de Ejemplo") == {("Sample Card", "es")}
    moved = CardIndex.cached(
        [*names[:2], CardName("Carta de Ejemplo", "pt", "Sample Card", "test")], tmp_path
    )
    assert moved.kept_in != first.kept_in
    assert moved.lookup("Carta de Ejemplo") == {("Sample Card", "pt")}


def test_the_index_read_back_is_the_index_built_holding_each_pair_once(tmp_path):
    """Read back from the cache, the index is the one built (owners sorted, a name two cards
    share included), with each (card, language) pair one object however many names it has."""
    names = [
        CardName("Epocrásito", "es", "Epochrasite", "test"),
        CardName("Epochrasite", "en", "Epochrasite", "test"),
        CardName("Cárcel", "es", "Pillory", "test"),
        CardName("Cárcel", "es", "Oubliette", "test"),
        CardName("Mazmorra", "es", "Oubliette", "test"),
    ]
    built = CardIndex.cached(names, tmp_path)
    read = CardIndex.cached(names, tmp_path)
    assert read is not built and read.by_key == built.by_key and read.names == built.names
    assert read.listed == built.listed and ("Epochrasite", "es") not in read.listed
    assert read.lookup("cárcel") == {("Oubliette", "es"), ("Pillory", "es")}
    assert read.by_key[name_key("Cárcel")] == (("Oubliette", "es"), ("Pillory", "es"))
    pairs: dict[tuple[str, str], set[int]] = {}
    for owners in read.by_key.values():
        for pair in owners:
            pairs.setdefault(pair, set()).add(id(pair))
    assert len(pairs[("Oubliette", "es")]) == 1  # named by two keys, one object
    assert all(len(objects) == 1 for objects in pairs.values())


def test_the_card_indexes_kept_are_the_most_recently_used_of_their_layout(tmp_path):
    """Each run naming other cards writes another index (71 MB at a million units): the
    folder keeps the ``INDEXES_KEPT`` most recently used, an index read counting as used,
    and none of an older layout (a JSON file of format 2); a file a run is writing is
    left alone."""
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "0123456789abcdef0123456789abcdef.json").write_bytes(b"rulings-checked-v1 0\n{}")
    (folder / ".0123.msgpack.77.beef.tmp").write_bytes(b"on its way")

    def written(number: int) -> Path:
        names = [CardName(f"Carta {number}", "es", f"Card {number}", "test")]
        return CardIndex.cached(names, tmp_path).kept_in

    early = [written(number) for number in range(3)]
    for seconds, path in enumerate(early, 1):
        os.utime(path, ns=(seconds * 10**9, seconds * 10**9))  # long unused, oldest first
    assert CardIndex.cached([CardName("Carta 0", "es", "Card 0", "test")], tmp_path)
    later = [written(number) for number in range(3, 3 + INDEXES_KEPT - 1)]
    names = sorted(path.name for path in folder.iterdir())
    assert names == sorted(
        [early[0].name, *(path.name for path in later), ".0123.msgpack.77.beef.tmp"]
    )
    assert drop_indexes(tmp_path) == INDEXES_KEPT
    assert os.listdir(folder) == [".0123.msgpack.77.beef.tmp"]


def test_a_damaged_index_file_is_rebuilt(tmp_path):
    names = [CardName("Epocrásito", "es", "Epochrasite", "test")]
    CardIndex.cached(names, tmp_path)
    [stored] = (tmp_path / "cards").glob("*.msgpack")
    data = bytearray(stored.read_bytes())
    data[len(data) // 2] ^= 0x20  # one flipped bit in the middle of the JSON
    stored.write_bytes(bytes(data))
    rebuilt = CardIndex.cached(names, tmp_path)
    assert rebuilt.lookup("Epocrásito") == {("Epochrasite", "es")}
    stored.write_bytes(stored.read_bytes()[:40])  # cut short
    assert CardIndex.cached(names, tmp_path).lookup("Epocrásito") == {("Epochrasite", "es")}


def test_cards_command_counts_and_looks_up(tmp_path: Path):
    runner = CliRunner()
    done = runner.invoke(main, ["cards", "--lookup", "时代寄生虫", "--cache-dir", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "Epochrasite" in done.output and "Spanish" in done.output
    done = runner.invoke(main, ["cards", "--lookup", "古辉石", "--cache-dir", str(tmp_path)])
    assert done.exit_code == 1
    assert "no card of that name" in done.output


def test_console_shows_markup_in_names_as_text():
    """A name with rich markup ("[link=…]") is untrusted text: printed as written."""
    name = "[bold]Hypergenesis[/bold] [link=file:///etc/passwd]x[/link]"
    done = CliRunner().invoke(main, ["cards", "--lookup", name])
    assert done.exit_code == 1
    assert f"\u201c{name}\u201d: no card of that name" in done.output


@pytest.mark.model
def test_cards_jsonl_says_which_cards_a_run_of_ruling_files_is_about(seed_run):
    """Plain ruling files carry no card data, but the run knows the cards: their names from
    the card index, in the run's languages."""
    import json

    rows = [json.loads(line) for line in (seed_run / "cards.jsonl").read_text().splitlines()]
    names = {(row["card"], row["lang"]): row["name"] for row in rows}
    assert names[("Hypergenesis", "es")] == "Hipergénesis"
    assert names[("Epochrasite", "zh")] == "时代寄生虫"
    assert {row["source"] for row in rows} == {"card index"}


def test_the_index_ingest_hands_to_the_checks_is_that_of_the_card_names_it_wrote(
    tmp_path: Path, corpus_dir
):
    """A run's check stage takes the index ingest built instead of building it again from
    cards.jsonl, as a check stage started on its own does: the two are the same index."""
    ingested = stages.ingest_stage([corpus_dir], tmp_path, Settings(cache_dir=tmp_path / "c"))
    written = read_records(tmp_path / CARD_NAMES, CardName)
    assert any(entry.source == "card index" for entry in written)
    built = CardIndex.build(written)
    assert ingested.index.by_key == built.by_key
    assert ingested.index.names == built.names and ingested.index.oracle == built.oracle


SLIVERS = {
    "en/frenzy-sliver.txt": (
        "Frenzy Sliver",
        "Frenzy 1 means that whenever a Sliver attacks and isn't blocked, it gets +1/+0 "
        "until end of turn.",
    ),
    "en/frenetic-sliver.txt": (
        "Frenetic Sliver",
        "If a Sliver's {0} ability resolves while that Sliver is no longer on the "
        "battlefield, the coin is still flipped, but nothing else happens.",
    ),
}


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("如果某裂片妖的{0}异能结算时，该裂片妖已不在战场上，则仍要掷硬币。", "Frenetic Sliver"),
        ("狂乱1是指每当某个裂片妖攻击且未受阻挡时，它得+1/+0直到回合结束。", "Frenzy Sliver"),
    ],
)  # fmt: skip
def test_a_title_two_cards_share_is_the_card_whose_english_shares_its_symbols(
    tmp_path: Path, text: str, card: str
):
    """狂热裂片妖 is the Chinese name of both Frenzy Sliver and Frenetic Sliver: the document
    is about the one whose English rulings in the input have its symbols and numbers."""
    for name, (title, ruling) in {**SLIVERS, "zh/sliver.txt": ("狂热裂片妖", text)}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"{title}\n\n{ruling}\n", encoding="utf-8")
    result = ingest([tmp_path / "en", tmp_path / "zh"])
    found = cards_by_file(result)
    assert found["frenzy-sliver.txt"] == {"Frenzy Sliver"}
    assert found["sliver.txt"] == {card}


def test_each_card_and_language_of_the_index_read_back_is_one_object(tmp_path):
    """The layout writes every card, language and name once: read back, a card's name in its
    owners and in its names is the same object, as is each language code."""
    names = [
        CardName("Epocrásito", "es", "Epochrasite", "test"),
        CardName("始祖兽", "zh", "Epochrasite", "test"),
        CardName("Cárcel", "es", "Oubliette", "test"),
        CardName("Cárcel", "es", "Pillory", "test"),
    ]
    CardIndex.cached(names, tmp_path)
    read = CardIndex.cached(names, tmp_path)
    objects: dict[str, set[int]] = {}
    for owners in read.by_key.values():
        for card, lang in owners:
            objects.setdefault(card, set()).add(id(card))
            objects.setdefault(lang, set()).add(id(lang))
    for card, by_lang in read.names.items():
        objects.setdefault(card, set()).add(id(card))
        for lang, name in by_lang.items():
            objects.setdefault(lang, set()).add(id(lang))
            objects.setdefault(name, set()).add(id(name))
    assert {"Epochrasite", "Oubliette", "es", "zh", "Cárcel"} <= set(objects)
    assert all(len(found) == 1 for found in objects.values())


@pytest.mark.parametrize(
    "damage",
    [
        {"keys": []},  # owners for keys that are not there
        {"counts": b"\x02\x00\x00\x00"},  # a key with several owners more than there are keys
        {"pairs": b"\x00\x00\x00"},  # not whole numbers
        {"names": b"\xff" * 16},  # a place past the texts
        {"named": b""},  # cards whose names are not counted
    ],
)
def test_an_index_file_whose_parts_disagree_is_rebuilt(tmp_path, damage):
    """A file checked whole but whose parts do not fit together (written by a faulty
    version) is not an index: it is built again, never half read."""
    names = [CardName("Epocrásito", "es", "Epochrasite", "test")]
    kept = CardIndex.cached(names, tmp_path).kept_in
    stored = msgspec.msgpack.decode(read_checked_bytes(kept), type=_StoredIndex)
    write_checked_bytes(kept, msgspec.msgpack.encode(msgspec.structs.replace(stored, **damage)))
    assert CardIndex.read(kept) is None
    assert CardIndex.cached(names, tmp_path).lookup("epocrasito") == {("Epochrasite", "es")}


def test_a_run_adds_the_names_of_its_cards_the_name_lists_give_and_its_inputs_do_not(
    tmp_path: Path,
):
    """``identified_names``: of the cards the rulings are about, the names the lists give in
    the run's languages, but those an input's entry gives (under any name), read from an
    index built now or read back from the cache."""
    lists = tmp_path / "names.tsv"
    lists.write_text(
        "card\tlang\tname\n"
        "Pillory\tes\tPicota\nPillory\tzh\t颈手枷\nPillory\tde\tPranger\n"
        "Oubliette\tes\tMazmorra\nCounterspell\tes\tContrahechizo\n",
        encoding="utf-8",
    )
    entries = [
        CardName("Picota del verdugo", "es", "Pillory", "mtgjson"),
        CardName("Oubliette", "en", "Oubliette", "mtgjson"),
    ]
    rulings = [
        Ruling(f"r{n}", "a.txt", n, "plain", card, card, None, "en", "en", [], None, None, "x")
        for n, card in enumerate(["Pillory", "Oubliette", "Pillory", None])
    ]
    expected = [
        CardName("Mazmorra", "es", "Oubliette", "card index"),
        CardName("颈手枷", "zh", "Pillory", "card index"),
    ]
    built = CardIndex.cached(entries, tmp_path, (lists,))
    read = CardIndex.cached(entries, tmp_path, (lists,))
    assert read is not built
    for index in (built, read):
        found = identified_names(rulings, index, ["en", "es", "zh"])
        assert sorted(found, key=lambda n: n.lang) == expected
