"""The five seed documents: formats, languages, dates, sections, losslessness, determinism."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.cli import main
from pipelines.ingest import accounted_lines, ingest
from pipelines.ingest.source import SourceFile, discover

HYPERGENESIS = "000_40e512ac1ae253c1.txt"
DICHOTOMANCY = "001_09da9df6e0e3ee52.txt"
EPOCHRASITE = "002_f829283b2bc10ea3.txt"
SUMMARY = "003_4f023c532c7afcc4.txt"
RETRACE = "004_a602d6d99571243f.txt"


@pytest.fixture(scope="module")
def seeds(corpus_dir: Path):
    return ingest([corpus_dir])


def rulings_of(result, file):
    return [r for r in result.rulings if r.file == file]


def test_each_seed_is_read_by_the_reader_of_its_layout(seeds):
    formats = {r.file: r.format for r in seeds.rulings}
    assert formats == {
        HYPERGENESIS: "plain-dated",
        DICHOTOMANCY: "plain-block",
        EPOCHRASITE: "plain-block",
        SUMMARY: "cr-summary",
        RETRACE: "cr-text",
    }


def test_chinese_seed_languages(seeds):
    rulings = rulings_of(seeds, EPOCHRASITE)
    assert {r.doc_lang for r in rulings} == {"zh"}
    assert Counter(r.lang for r in rulings) == {"en": 12, "zh": 3}
    mixed = [r for r in rulings if r.spans]
    assert len(mixed) == 2
    for ruling in mixed:
        assert {span["lang"] for span in ruling.spans} == {"zh", "en"}
        english = [ruling.text[s["start"] : s["end"]] for s in ruling.spans if s["lang"] == "en"]
        assert any("such as" in part or "has suspend" in part for part in english)
    assert all(not r.spans for r in rulings if r.lang == "en")


def test_spanish_seeds_and_their_english_leftovers(seeds):
    hypergenesis = rulings_of(seeds, HYPERGENESIS)
    assert len(hypergenesis) == 20
    assert {r.lang for r in hypergenesis} == {"es"}
    dichotomancy = rulings_of(seeds, DICHOTOMANCY)
    assert [r.lang for r in dichotomancy].count("en") == 1
    assert dichotomancy[-1].lang == "en"
    assert dichotomancy[-1].text.startswith("The cards all enter simultaneously.")
    meddling = next(r for r in dichotomancy if "Meddling Mage" in r.text)
    english = [meddling.text[s["start"] : s["end"]] for s in meddling.spans if s["lang"] == "en"]
    assert english == ["Meddling Mage"]


def test_rules_excerpt_parts_have_their_own_language(seeds):
    rulings = rulings_of(seeds, RETRACE)
    by_doc = {}
    for ruling in rulings:
        by_doc.setdefault(ruling.doc, []).append(ruling)
    assert {doc: {r.lang for r in members} for doc, members in by_doc.items()} == {
        RETRACE: {"en"},
        f"{RETRACE}#part-2": {"es"},
    }
    assert [r.section for r in by_doc[RETRACE]] == ["502.81", "502.81a"] + ["502.81a"] * 5
    assert [r.kind for r in by_doc[RETRACE]] == ["rule", "rule"] + ["ruling"] * 5
    assert {r.doc_title for r in rulings} == {"Nuevas Mecanicas"}


def test_trailing_headings_without_content_are_reported(seeds):
    problems = [f for f in seeds.findings if f.file == RETRACE]
    assert [(f.code, f.evidence["heading"]) for f in problems] == [
        ("PARSE005", "Chroma"),
        ("PARSE005", "Nuevas que retornan"),
    ]


def test_section_summary_units(seeds):
    rulings = rulings_of(seeds, SUMMARY)
    assert rulings[0].kind == "heading" and rulings[0].section == "708"
    assert [r.section for r in rulings[1:]] == [f"708.{n}" for n in range(1, 13)]
    assert rulings[1].text == (
        "Algunas cartas permiten que los hechizos y los permanentes estén boca abajo."
    )
    assert all(r.text.endswith("…") for r in rulings[2:])
    assert {r.lang for r in rulings} == {"es"}


def test_dates_are_iso_and_day_first(seeds):
    dated = [r for r in seeds.rulings if r.date_raw]
    assert dated and all(r.date for r in dated)
    first = rulings_of(seeds, HYPERGENESIS)[0]
    assert (first.date_raw, first.date) == ("15/10/2006", "2006-10-15")
    epochrasite = rulings_of(seeds, EPOCHRASITE)[-1]
    assert (epochrasite.date_raw, epochrasite.date) == ("01/05/2007", "2007-05-01")
    assert not [f for f in seeds.findings if f.category == "date"]


def test_every_non_blank_line_is_accounted_for(corpus_dir):
    for source in discover([corpus_dir]):
        result = ingest([source.path])
        covered = accounted_lines(result.rulings, result.findings)
        lines = SourceFile(source.path, source.rel).lines
        non_blank = {n for n, line in enumerate(lines, 1) if line.strip()}
        assert non_blank <= covered, f"{source.rel}: lines {sorted(non_blank - covered)}"
        assert not [f for f in result.findings if f.code == "PARSE004"], source.rel


def test_ids_are_file_and_line(seeds):
    for ruling in seeds.rulings:
        assert ruling.id == f"{ruling.file}:{ruling.line}"
    assert len({r.id for r in seeds.rulings}) == len(seeds.rulings)


def test_two_runs_give_byte_identical_files(tmp_path, corpus_dir):
    runner = CliRunner()
    outputs = []
    for name in ("first", "second"):
        out = tmp_path / name
        result = runner.invoke(main, ["ingest", str(corpus_dir), "--out", str(out)])
        assert result.exit_code == 0, result.output
        outputs.append({p.name: p.read_bytes() for p in sorted(out.glob("*.jsonl"))})
    assert outputs[0] == outputs[1]
    first_line = json.loads(outputs[0]["corpus.jsonl"].splitlines()[0])
    assert list(first_line)[:13] == [
        "id", "file", "line", "format", "doc_title", "card", "section",
        "doc_lang", "lang", "spans", "date", "date_raw", "text",
    ]  # fmt: skip
