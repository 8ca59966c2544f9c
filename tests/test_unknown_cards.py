"""A new set's cards, which no card data names: one CARD002 for the run, English documents
never counted, no card taken from a name the text mentions in passing, a card-name list of
the team's own instead of the shipped one, and each document's language from its folder
when its own text cannot tell it. Real card texts (DOM, ELD: tuning sets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES

from pipelines.cards import NameListError, read_name_list
from pipelines.ingest import ingest

CARDS = {
    slug: card
    for slug, card in json.loads((FIXTURES / "new_set.json").read_text("utf-8"))["cards"].items()
    if card["es_name"]
}
"""Real DOM cards (tuning set): name, Oracle lines, printed Spanish name and lines."""  # fmt: skip


def write_set(root: Path) -> tuple[Path, Path]:
    for slug, card in CARDS.items():
        for lang, title, text in (
            ("en", card["name"], card["lines"]),
            ("es", card["es_name"], card["es_lines"]),
        ):
            path = root / lang / "DOM" / f"{slug}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n\n".join([title, *text]) + "\n", encoding="utf-8")
    return root / "en", root / "es"


@pytest.fixture(scope="module")
def new_set(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("new-set")
    english, spanish = write_set(root)
    names = root / "names.tsv"
    names.write_text("card\tlang\tname\nCounterspell\ten\tCounterspell\n", encoding="utf-8")
    return ingest([english, spanish], name_lists=(names,))


def test_unknown_cards_are_one_finding_for_the_run(new_set):
    unknown = [f for f in new_set.findings if f.code == "CARD002"]
    assert len(unknown) == 1
    assert unknown[0].file is None and unknown[0].severity == "info"
    assert unknown[0].evidence["documents"] == 4  # the Spanish ones: English titles are names
    assert "Marwyn, la Cuidadora" in unknown[0].evidence["titles"]


def test_no_card_from_a_name_the_text_mentions_in_passing(new_set):
    """Marwyn's own name holds a shorter card's (Cuidadora, Caregiver); a land names its
    land type (Plains): neither is the card the document is about."""
    assert {r.card for r in new_set.rulings} == {None}
    assert [f for f in new_set.findings if f.code == "CARD001"] == []


def test_a_short_document_takes_its_folders_language(new_set):
    """ "Scry 1. / Draw a card." is English in the English folder, whatever a detector makes
    of two short lines."""
    opt = [r for r in new_set.rulings if r.file.endswith("opt.txt") and "es/" not in r.file]
    assert {(r.doc_lang, r.lang) for r in opt} == {("en", "en")}


def test_the_teams_card_names_replace_the_shipped_index(new_set):
    assert len(new_set.index) == 1  # Counterspell only: Opt is in the shipped list


def test_a_card_name_list_that_cannot_be_read_names_its_file_and_line(tmp_path):
    bad = tmp_path / "names.tsv"
    bad.write_text("card\tname\nOpt\tOpt\n", encoding="utf-8")
    with pytest.raises(NameListError, match=r"names.tsv:1: .* missing lang"):
        read_name_list(bad)
    empty = tmp_path / "empty.tsv"
    empty.write_text("card\tlang\tname\nOpt\t\tOpt\n", encoding="utf-8")
    with pytest.raises(NameListError, match=r"empty.tsv:2"):
        read_name_list(empty)
