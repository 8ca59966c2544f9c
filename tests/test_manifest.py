"""A rerun with nothing changed reuses the outputs; any change recomputes them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.cli import main
from pipelines.manifest import MANIFEST

REUSED = "Nothing changed since the last run"


def run(*args: str) -> str:
    done = CliRunner().invoke(main, ["run", *args])
    assert done.exit_code in (0, 1), done.output
    return done.output


@pytest.mark.model
def test_rerun_reuses_and_changes_recompute(tmp_path: Path, corpus_dir: Path):
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    out = str(tmp_path / "out")
    first = run(str(corpus), "--out", out)
    assert REUSED not in first and (tmp_path / "out" / MANIFEST).is_file()
    before = (tmp_path / "out" / "findings.jsonl").read_bytes()

    again = run(str(corpus), "--out", out, "--fail-on", "never")
    assert REUSED in again and " findings: " in again
    assert (tmp_path / "out" / "findings.jsonl").read_bytes() == before

    assert REUSED not in run(str(corpus), "--out", out, "--force")
    assert REUSED not in run(str(corpus), "--out", out, "--ignore", "STYLE")

    document = corpus / "000_40e512ac1ae253c1.txt"
    document.write_text(document.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert REUSED not in run(str(corpus), "--out", out)
    assert REUSED in run(str(corpus), "--out", out)


@pytest.mark.model
def test_missing_outputs_recompute(tmp_path: Path, corpus_dir: Path):
    out = tmp_path / "out"
    run(str(corpus_dir), "--out", str(out))
    (out / "report.html").unlink()
    assert REUSED not in run(str(corpus_dir), "--out", str(out))
    assert (out / "report.html").is_file()


def test_the_key_follows_the_files_that_are_not_read(tmp_path: Path, corpus_dir: Path):
    """A hidden file's finding gives its size, and a special file is never opened: the run key
    changes when a hidden file does, and names a socket's kind (a FIFO, which would hang if
    opened, is tested in a child process with a time limit: tests/test_faults.py)."""
    import socket

    from pipelines.cli import build_settings
    from pipelines.manifest import run_key

    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    (corpus / ".notes.txt").write_text("Hipergénesis\n", encoding="utf-8")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(corpus / "socket.txt"))
    settings = build_settings()
    before = run_key([corpus], settings)
    server.close()
    assert before["inputs"]["socket.txt"] == "not read: a socket"
    (corpus / ".notes.txt").write_text("Hipergénesis\n\n02/02/2024 Una regla.\n", encoding="utf-8")
    assert run_key([corpus], settings)["inputs"] != before["inputs"]
