"""Bad input never crashes the batch: it becomes a finding, or one line on stderr and exit 2."""

from __future__ import annotations

import codecs
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.ingest import ingest

SPANISH = (
    "Dicotomancia\n\n02/02/2024\n\n"
    "Las cartas exiliadas con suspender están exiliadas boca arriba.\n"
)


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def codes(result, file):
    return [f.code for f in result.findings if f.file == file]


def test_binary_file_is_reported_and_the_batch_goes_on(tmp_path):
    write(tmp_path / "image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    write(tmp_path / "ok.txt", SPANISH.encode())
    result = ingest([tmp_path])
    assert codes(result, "image.png") == ["PARSE001"]
    assert [r.file for r in result.rulings] == ["ok.txt"]


@pytest.mark.parametrize(
    ("encoding", "prefix", "expected"),
    [
        ("latin-1", b"", ["PARSE002"]),
        ("utf-16-le", codecs.BOM_UTF16_LE, ["PARSE002"]),
        ("utf-16-be", codecs.BOM_UTF16_BE, ["PARSE002"]),
        ("utf-8", codecs.BOM_UTF8, []),
        ("utf-16-le", b"", ["PARSE002"]),
    ],
)
def test_encodings_are_decoded_without_losing_accents(tmp_path, encoding, prefix, expected):
    write(tmp_path / "doc.txt", prefix + SPANISH.encode(encoding))
    result = ingest([tmp_path])
    assert codes(result, "doc.txt") == expected
    (ruling,) = result.rulings
    assert ruling.doc_title == "Dicotomancia"
    assert ruling.text == "Las cartas exiliadas con suspender están exiliadas boca arriba."
    assert ruling.date == "2024-02-02"


@pytest.mark.parametrize("content", [b"", b"\n\n   \n\t\n", "\u00a0\n".encode()])
def test_empty_files_are_reported(tmp_path, content):
    write(tmp_path / "empty.txt", content)
    result = ingest([tmp_path])
    assert codes(result, "empty.txt") == ["PARSE003"]
    assert result.rulings == []


def test_a_50_mb_single_line_file_is_reported_not_read(tmp_path):
    write(tmp_path / "huge.txt", b"a" * (50 * 1024 * 1024))
    write(tmp_path / "ok.txt", SPANISH.encode())
    result = ingest([tmp_path])
    assert codes(result, "huge.txt") == ["PARSE006"]
    (problem,) = [f for f in result.findings if f.file == "huge.txt"]
    assert problem.line == 1 and problem.evidence["length"] == 50 * 1024 * 1024
    assert [r.file for r in result.rulings] == ["ok.txt"]


def rulings_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipelines", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_missing_path_exits_2_with_one_line(tmp_path):
    done = rulings_cli("ingest", "no/such/folder", "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "no/such/folder" in done.stderr and "Traceback" not in done.stderr


def test_folder_without_rulings_exits_2_with_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "empty" / "blank.txt", b"\n\n")
    done = rulings_cli("run", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rulings: error: no rulings found")
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "args",
    [["run", "--bogus"], ["ingest", "corpus"], ["run", "--lang-id", "nope"], ["frobnicate"]],
)
def test_bad_usage_exits_2_with_one_line(tmp_path, args):
    done = rulings_cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("rulings: error:")


@pytest.mark.parametrize(
    ("option", "name", "content", "where"),
    [
        ("--termbase", "terms.tsv", "concept\tlang\tterm\nhaste\ten\thaste\n", "terms.tsv:1:"),
        ("--baseline", "baseline.json", '{"accepted": [\n  {"fingerprint": 1,\n', "baseline.json:"),
    ],
)
def test_malformed_option_file_exits_2_before_any_work(tmp_path, option, name, content, where):
    """The file is read first: the run stops with one line naming the file (and line) and
    leaves no stage output behind."""
    write(tmp_path / name, content.encode("utf-8"))
    out = tmp_path / "out"
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    done = rulings_cli("run", str(corpus), "--out", str(out), option, name, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("rulings: error:") and where in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not (out / "corpus.jsonl").exists()
