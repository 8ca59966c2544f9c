"""The passes over the files' readings are kept per file (``ingest/passes.py``): a rerun
takes each file's passed reading while what the passes read of the whole run is the same,
and passes again the files whose reading, card index, date order or folder language
changed. Whatever changed, what a rerun gives is what a run without a cache gives. Real card
texts (DOM: a tuning set), as in ``test_unknown_cards.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

from test_unknown_cards import CARDS, write_set

from pipelines.ingest import IngestResult, ingest
from pipelines.ingest.cards import title_coverage
from pipelines.ingest.counts import LanguageCounts
from pipelines.store import open_store
from pipelines.tables import CorpusDigests
from pipelines.tables import dumps as json_line
from pipelines.work import Cache, Reuse

COUNTERSPELL = "card\tlang\tname\nCounterspell\ten\tCounterspell\n"


def a_set(root: Path) -> tuple[list[Path], Path]:
    english, spanish = write_set(root / "in")
    names = root / "names.tsv"
    names.write_text(COUNTERSPELL, encoding="utf-8")
    return [english, spanish], names


def kept(inputs: list[Path], root: Path, names: Path) -> tuple[IngestResult, Reuse]:
    reuse = Reuse()
    work = Cache(open_store(root / "store"), (), reuse)
    result = ingest(inputs, cache_dir=root / "cache", work=work, name_lists=(names,))
    return result, reuse


def cold(inputs: list[Path], root: Path, names: Path) -> IngestResult:
    fresh = root / "cold"
    shutil.rmtree(fresh, ignore_errors=True)
    return ingest(inputs, cache_dir=fresh, name_lists=(names,))


def same(one: IngestResult, other: IngestResult) -> bool:
    """The same records, and the same count of titles the index does not know, which is
    the count over the whole run's rulings (each unit's is kept with its passed reading)."""
    assert one.titles == title_coverage(one.rulings, one.index)
    assert one.counts == LanguageCounts.of(one.rulings)
    return (one.rulings, one.findings, one.card_names, one.titles, one.counts) == (
        other.rulings,
        other.findings,
        other.card_names,
        other.titles,
        other.counts,
    )


def test_a_rerun_takes_every_file_passed_before_and_reads_none(tmp_path):
    inputs, names = a_set(tmp_path)
    first, reuse = kept(inputs, tmp_path, names)
    files = len(CARDS) * 2
    assert reuse.counts["ingest-passes"] == [0, files]
    again, reuse = kept(inputs, tmp_path, names)
    assert reuse.counts["ingest-passes"] == [files, 0]
    assert "ingest" not in reuse.counts  # no reading read back
    assert same(again, first) and same(again, cold(inputs, tmp_path, names))


def test_an_edited_file_is_the_only_one_read_and_passed_again(tmp_path):
    inputs, names = a_set(tmp_path)
    kept(inputs, tmp_path, names)
    edited = next((tmp_path / "in" / "es" / "DOM").glob("*.txt"))
    edited.write_text(edited.read_text("utf-8") + "\nUna línea más.\n", encoding="utf-8")
    again, reuse = kept(inputs, tmp_path, names)
    assert reuse.counts["ingest-passes"] == [len(CARDS) * 2 - 1, 1]
    assert reuse.counts["ingest"] == [0, 1]
    assert same(again, cold(inputs, tmp_path, names))


def test_a_document_follows_its_folders_language_as_the_folder_changes(tmp_path):
    """Opt ("Scry 1. / Draw a card.") takes its folder's English; once fewer than three other
    documents of the folder tell theirs, it keeps what its own text says, as a run without
    a cache has it."""
    inputs, names = a_set(tmp_path)
    first, _ = kept(inputs, tmp_path, names)
    folder = tmp_path / "in" / "en" / "DOM"
    for path in sorted(folder.glob("*.txt"))[:-3]:
        if path.name != "opt.txt":
            path.unlink()
    again, reuse = kept(inputs, tmp_path, names)
    assert same(again, cold(inputs, tmp_path, names))
    opt = [r for r in again.rulings if r.file.endswith("en/DOM/opt.txt")]
    assert opt and reuse.counts["ingest"][0] >= 1  # passed again from its kept reading
    assert [r.doc_lang for r in opt] != [r.doc_lang for r in first.rulings if r.id == opt[0].id]


def test_a_new_card_name_has_every_file_passed_again_from_its_reading(tmp_path):
    inputs, names = a_set(tmp_path)
    first, _ = kept(inputs, tmp_path, names)
    marwyn = next(card for card in CARDS.values() if card["es_name"] == "Marwyn, la Cuidadora")
    names.write_text(
        COUNTERSPELL + f"{marwyn['name']}\tes\t{marwyn['es_name']}\n", encoding="utf-8"
    )
    again, reuse = kept(inputs, tmp_path, names)
    files = len(CARDS) * 2
    assert reuse.counts["ingest-passes"] == [0, files]
    assert reuse.counts["ingest"] == [files, 0]
    assert same(again, cold(inputs, tmp_path, names))
    assert marwyn["name"] in {r.card for r in again.rulings}
    assert marwyn["name"] not in {r.card for r in first.rulings}
    assert again.titles == (first.titles[0] - 1, first.titles[1])  # her title now known


def test_a_document_without_its_own_date_order_takes_the_corpus_order_as_it_changes(tmp_path):
    """03/04/2020 is read in the corpus's order: day first while one document writes
    25/12/2019, month first once two write 12/25/2019 and 12/26/2019."""
    folder = tmp_path / "in" / "dated"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("Carta A\n\n03/04/2020 Robas una carta.\n", encoding="utf-8")
    (folder / "b.txt").write_text("Carta B\n\n25/12/2019 Descartas una carta.\n", encoding="utf-8")
    names = tmp_path / "names.tsv"
    names.write_text(COUNTERSPELL, encoding="utf-8")
    first, _ = kept([folder], tmp_path, names)
    (folder / "c.txt").write_text(
        "Carta C\n\n12/25/2019 Ganas 1 vida.\n\n12/26/2019 Pierdes 1 vida.\n", encoding="utf-8"
    )
    again, reuse = kept([folder], tmp_path, names)
    assert same(again, cold([folder], tmp_path, names))
    assert [r.date for r in first.rulings if r.file.endswith("a.txt")] == ["2020-04-03"]
    assert [r.date for r in again.rulings if r.file.endswith("a.txt")] == ["2020-03-04"]
    assert reuse.counts["ingest-passes"] == [0, 3]  # another order: every file passed again


def corpus_bytes(result: IngestResult) -> bytes:
    return b"".join(block.data for block in result.lines)


def test_the_corpus_lines_kept_are_those_of_the_rulings_a_card_told_across_the_run_included(
    tmp_path,
):
    """Each unit's rulings are kept as corpus.jsonl's lines (``PassedFile.lines``) and the
    table is written from them. A document whose title two cards share (狂热裂片妖: Frenzy
    Sliver and Frenetic Sliver) is given its card after the units are kept, by the English
    documents of the whole run: its unit's lines are those of its rulings as they end."""
    inputs, names = a_set(tmp_path)
    extra = tmp_path / "in" / "slivers"
    extra.mkdir()
    (extra / "frenzy_sliver.txt").write_text(
        "Frenzy Sliver\n\n2007-02-01 Sliver creatures you control get +1/+0 and have frenzy 1.\n",
        encoding="utf-8",
    )
    (extra / "zh_frenzy.txt").write_text(
        "狂热裂片妖\n\n2007-02-01 你操控的裂片妖生物得+1/+0且具有狂热1。\n", encoding="utf-8"
    )
    inputs.append(extra)
    with names.open("a", encoding="utf-8") as given:
        for card in ("Frenzy Sliver", "Frenetic Sliver"):
            given.write(f"{card}\ten\t{card}\n{card}\tzh\t狂热裂片妖\n")
    runs = [cold(inputs, tmp_path, names), *(kept(inputs, tmp_path, names)[0] for _ in "12")]
    for result in runs:
        told = [r for r in result.rulings if r.doc_title == "狂热裂片妖"]
        assert told and {r.card for r in told} == {"Frenzy Sliver"}
        encoded = CorpusDigests.of(result.rulings)
        assert corpus_bytes(result) == b"".join(
            (json_line(r) + "\n").encode() for r in result.rulings
        )
        assert result.digests.digest(result.rulings) == encoded.digest(result.rulings)
        assert b'"card":"Frenzy Sliver"' in corpus_bytes(result)


def test_the_summary_of_the_units_counts_is_the_summary_of_every_ruling(tmp_path):
    """The run's summary adds up the counts kept with each unit's passed reading: what it
    shows, a first run's or a rerun's, is what counting every ruling again shows."""
    from dataclasses import replace

    from pipelines import console

    inputs, names = a_set(tmp_path)

    def shown(result: IngestResult) -> str:
        with console.stdout.capture() as captured:
            console.ingest_summary(result)
        return captured.get()

    first, _ = kept(inputs, tmp_path, names)
    again, _ = kept(inputs, tmp_path, names)
    counted = shown(replace(again, counts=None, titles=None))
    assert shown(first) == shown(again) == counted
    assert "es (Spanish)" not in counted and "\nes " in counted and "unknown" in counted
