"""The command line a user relies on: every option checked before any work, one line and exit
status 2 for a mistake, inputs that cannot be read reported and skipped, output folders never
read back as input, and summaries in plain English."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import CORPUS, ROOT, output_bytes, said

from pipelines import console
from pipelines.cli import build_settings, load_resources, main
from pipelines.ingest import IngestResult
from pipelines.model import Finding, Ruling
from pipelines.settings import SettingsError
from pipelines.termbase import Termbase

HYPERGENESIS = "000_40e512ac1ae253c1.txt"
"""The Spanish Hypergenesis rulings: TERM001 errors (“habilidad activada” for triggered)."""
EPOCHRASITE = "002_f829283b2bc10ea3.txt"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def one_line(result: Result) -> str:
    """The single stderr line of a failed command (no traceback)."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def small_corpus(tmp_path: Path, *names: str) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in names or (HYPERGENESIS, EPOCHRASITE):
        shutil.copy(CORPUS / name, corpus / name)
    return corpus


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# --- --select / --ignore -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "written", "suggested"),
    [
        ("--select", "FOO123", "did you mean"),
        ("--select", "TERM01", "did you mean TERM001?"),
        ("--select", "parse10", "did you mean PARSE010?"),
        ("--ignore", "termnology", "did you mean terminology?"),
        ("--select", "TERM001,trunk", "did you mean TRUNC001?"),
    ],
)
def test_an_unknown_code_is_an_error_that_suggests_the_closest(
    tmp_path, option, written, suggested
):
    out = tmp_path / "out"
    result = invoke("run", str(CORPUS), "--out", str(out), option, written)
    assert result.exit_code == 2
    line = one_line(result)
    assert line.startswith(f"rulings: error: {option}: ") and suggested in line
    assert not out.exists()


def test_codes_and_categories_match_in_any_case():
    settings = build_settings(select=("term001", "Style", "parse"), ignore=("trunc",))
    assert settings.select == ("TERM001", "style", "parse")
    assert settings.ignore == ("TRUNC",)


@pytest.mark.model
def test_select_in_lower_case_reports_that_code(tmp_path):
    out = tmp_path / "out"
    result = invoke("run", str(small_corpus(tmp_path)), "--out", str(out), "--select", "untr001")
    assert result.exit_code == 1, result.output
    codes = {f["code"] for f in read_jsonl(out / "findings.jsonl")}
    assert codes == {"UNTR001"}
    assert "No findings." not in result.stdout


# --- languages, source language, embedder, engine: checked before any work -----------------

NEEDS_ST = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="the optional sentence-transformers extra is not installed",
)
NEEDS_DASK = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="the optional dask extra is not installed",
)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--languages", "en,xx"), "rulings: error: --languages: 'xx' is not a language"),
        (("--source-lang", "xx"), "rulings: error: --source-lang: 'xx' is not a language"),
        (("--languages", "en"), "--languages needs at least one language besides"),
        (("--embedder", "foo"), "rulings: error: --embedder: unknown embedder 'foo'"),
        pytest.param(
            ("--embedder", "st:no-such-model"),
            "rulings never downloads models",
            marks=NEEDS_ST,
        ),
        (("--scheduler", "tcp://127.0.0.1:1"), "--scheduler goes with --engine dask"),
        (("--workers", "2"), "--workers and --worker-memory size the LocalCluster"),
        pytest.param(
            ("--engine", "dask", "--worker-memory", "lots"),
            "'lots' is not a size",
            marks=NEEDS_DASK,
        ),
        pytest.param(
            ("--engine", "dask", "--workers", "0"), "--workers must be at least 1", marks=NEEDS_DASK
        ),
        (("--source-lang", "fr"), "rulings: error: --source-lang fr: the termbase has no terms"),
    ],
)
def test_a_bad_option_stops_the_run_before_any_work(tmp_path, args, expected):
    out = tmp_path / "out"
    cache = tmp_path / "cache"
    result = invoke("run", str(CORPUS), "--out", str(out), "--cache-dir", str(cache), *args)
    assert result.exit_code == 2
    line = one_line(result)
    assert expected in line
    assert "pipelines/resources" not in line  # about the user's input, not a shipped file
    assert not out.exists() and not cache.exists()


def test_languages_are_read_in_any_case_and_the_source_comes_first():
    assert build_settings(languages=("ES", " Zh "), source_lang="EN").languages == (
        "en",
        "es",
        "zh",
    )
    with pytest.raises(SettingsError, match="'xx' is not a language"):
        build_settings(languages=("en", "xx"))


def test_a_language_without_terms_is_noted_once(capsys):
    load_resources(build_settings(languages=("en", "es", "zh", "fr")))
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("rulings: note: the termbase has no terms in fr")
    load_resources(build_settings())
    assert capsys.readouterr().err == ""


@pytest.mark.model
def test_spanish_as_the_source_language_runs(tmp_path):
    """The shipped glossary has no Spanish rows: its concepts are left out, not an error
    blamed on the package's own file."""
    out = tmp_path / "out"
    result = invoke("run", str(small_corpus(tmp_path)), "--out", str(out), "--source-lang", "es")
    assert result.exit_code in (0, 1), result.output
    assert (out / "findings.jsonl").is_file() and (out / "report.html").is_file()
    assert said(result.stderr) == ""


@pytest.mark.parametrize("kind", ["termbase", "baseline"])
def test_a_malformed_option_file_stops_the_run_before_any_work(tmp_path, kind):
    bad = tmp_path / f"bad.{'tsv' if kind == 'termbase' else 'json'}"
    bad.write_text(
        "concept\tlang\tterm\nx\ty\n" if kind == "termbase" else '{"accepted": [{"fp": 1}',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = invoke("run", str(CORPUS), "--out", str(out), f"--{kind}", str(bad))
    assert result.exit_code == 2
    assert str(bad) in one_line(result)
    assert not out.exists()


# --- inputs ----------------------------------------------------------------------------------


@pytest.mark.model
def test_dangling_links_and_link_loops_are_parse_findings_and_the_batch_goes_on(tmp_path):
    corpus = small_corpus(tmp_path)
    os.symlink(tmp_path / "gone.txt", corpus / "dangling.txt")
    os.symlink(corpus / "self.txt", corpus / "self.txt")
    os.symlink(corpus / "ping.txt", corpus / "pong.txt")
    os.symlink(corpus / "pong.txt", corpus / "ping.txt")
    out = tmp_path / "out"
    result = invoke("run", str(corpus), "--out", str(out))
    assert result.exit_code in (0, 1), result.output
    unreadable = {f["file"] for f in read_jsonl(out / "findings.jsonl") if f["code"] == "PARSE010"}
    assert unreadable == {"dangling.txt", "self.txt", "ping.txt", "pong.txt"}
    files = {r["file"] for r in read_jsonl(out / "corpus.jsonl")}
    assert files == {HYPERGENESIS, EPOCHRASITE}


@pytest.mark.model
def test_an_output_folder_inside_the_input_is_never_read_back(tmp_path):
    corpus = small_corpus(tmp_path)
    out = corpus / "reports"
    earlier = corpus / "an-earlier-run"
    earlier.mkdir()
    shutil.copy(CORPUS / "001_09da9df6e0e3ee52.txt", earlier / "ruling.txt")
    (earlier / "run-manifest.json").write_text("{}\n", encoding="utf-8")
    for _ in range(2):
        result = invoke("run", str(corpus), "--out", str(out), "--force")
        assert result.exit_code in (0, 1), result.output
        files = {r["file"] for r in read_jsonl(out / "corpus.jsonl")}
        assert files == {HYPERGENESIS, EPOCHRASITE}
        assert all(f["file"] in files | {None} for f in read_jsonl(out / "findings.jsonl"))


def test_an_empty_input_folder_leaves_no_tables_behind(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "out"
    result = invoke("run", str(empty), "--out", str(out))
    assert result.exit_code == 2
    assert one_line(result) == f"rulings: error: no rulings found in {empty}: no input files " + (
        "(hidden files are skipped)"
    )
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if "staging" in p.name] == []


@pytest.mark.model
def test_input_without_rulings_says_why_and_keeps_the_previous_outputs(tmp_path):
    out = tmp_path / "out"
    assert invoke("run", str(small_corpus(tmp_path)), "--out", str(out)).exit_code in (0, 1)
    before = output_bytes(out)
    binary = tmp_path / "binary"
    binary.mkdir()
    (binary / "scan.bin").write_bytes(bytes(range(256)) * 8)
    result = invoke("run", str(binary), "--out", str(out))
    assert result.exit_code == 2
    line = one_line(result)
    assert "PARSE001 scan.bin is not a text file" in line and ".rulings-staging" not in line
    assert output_bytes(out) == before


# --- summaries -------------------------------------------------------------------------------


def _ruling(text: str) -> Ruling:
    return Ruling(
        id="a.txt:2",
        file="a.txt",
        line=2,
        format="plain-dated",
        doc_title="Hipergénesis",
        card=None,
        section=None,
        doc_lang="es",
        lang="es",
        spans=[],
        date=None,
        date_raw=None,
        text=text,
        doc="a.txt",
    )


def test_summaries_say_one_file_and_one_finding(capsys):
    result = IngestResult(rulings=[_ruling("Una regla.")], files=1)
    result.formats["plain-dated"] = 1
    console.ingest_summary(result)
    finding = Finding(
        code="TERM001",
        category="terminology",
        severity="error",
        lang="es",
        file="a.txt",
        line=2,
        ruling_id="a.txt:2",
        source_id=None,
        card=None,
        section=None,
        message="A message.",
        evidence={},
    )
    console.findings_summary([finding], [finding])
    out = capsys.readouterr().out
    assert "Read 1 file: 1 document, 1 ruling (1 plain-dated)." in out
    assert "1 finding: 1 error." in out
    assert "1 finding accepted by the baseline was not reported." in out
    assert "1 files" not in out and "1 findings" not in out


@pytest.mark.model
def test_the_report_header_counts_documents_as_the_console_does(seed_run):
    rulings = read_jsonl(seed_run / "corpus.jsonl")
    files = len({r["file"] for r in rulings})
    documents = len({r["doc"] for r in rulings})
    page = (seed_run / "report.html").read_text(encoding="utf-8")
    expected = (
        f"{console.count(files, 'file')}: {console.count(documents, 'document')}, "
        f"{console.count(len(rulings), 'ruling')}"
    )
    assert expected in page
    assert "cards and documents" not in page


def test_the_termbase_guide_documents_the_tsv_format(tmp_path):
    """The --termbase TSV format, with an example that loads as written (the termbase guide)."""
    guide = (ROOT / "docs" / "guides" / "termbases.md").read_text(encoding="utf-8")
    block = re.search(r"```tsv\n(concept\tlang\tterm\tstatus\tenforce\tnote\n.*?)```", guide, re.S)
    assert block, "docs/guides/termbases.md has no ```tsv block with the termbase header"
    path = tmp_path / "team.tsv"
    path.write_text(block.group(1), encoding="utf-8")
    termbase = Termbase.load([path], shipped=False)
    assert len(termbase) >= 1 and {"en", "es"} <= set(termbase.languages)


@pytest.mark.parametrize(
    ("arguments", "status", "said_where", "words"),
    [
        (["--version"], 0, "stdout", "rulings, version"),
        (["run", "no-such-folder", "--out", "out"], 2, "stderr", "no such file or folder"),
    ],
)
def test_the_command_ends_with_its_status_its_output_and_its_exit_handlers(
    tmp_path: Path, arguments, status, said_where, words
):
    """The ``rulings`` command ends without the interpreter's teardown (``os._exit``): its
    exit status, what it printed into a pipe and what its exit handlers do are as they
    would be after a teardown."""
    import subprocess
    import sys

    marker = tmp_path / "exit-handlers"
    command = tmp_path / "rulings"  # the command's own name: started as the command
    command.write_text(
        "import atexit, pathlib\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'ran')\n"
        "from pipelines.cli import main\n"
        "main()\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(command), *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == status
    assert words in getattr(done, said_where)
    assert marker.read_text(encoding="utf-8") == "ran"
