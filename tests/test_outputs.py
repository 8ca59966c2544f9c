"""An output folder holds the outputs of one complete run: a run that fails, is interrupted or
cannot write leaves the previous set as it was, and says so in one line."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import CORPUS, said

from pipelines import outputs, stages
from pipelines.cli import main

SEEDS = ("000_40e512ac1ae253c1.txt", "002_f829283b2bc10ea3.txt")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def leftovers(out: Path) -> list[str]:
    """Staging or set-aside folders of runs that are over."""
    return sorted(
        p.name
        for p in out.parent.iterdir()
        if p.name.startswith(f".{out.name}.rulings-") and p.is_dir()
    )


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in SEEDS:
        shutil.copy(CORPUS / name, folder / name)
    return folder


@pytest.fixture
def previous(tmp_path: Path, corpus: Path) -> Path:
    """An output folder with a complete run in it, and a file of the user's."""
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out)])
    assert done.exit_code in (0, 1), done.output
    (out / "NOTES.txt").write_text("the user's own notes\n", encoding="utf-8")
    return out


# --- the staging folder itself -----------------------------------------------------------------


def test_a_block_that_ends_normally_replaces_the_outputs_and_keeps_the_users_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "findings.jsonl").write_text("old\n")
    (out / "report.html").write_text("old\n")
    (out / "NOTES.txt").write_text("mine\n")
    with outputs.staged(out, ["findings.jsonl", "report.html"]) as staging:
        (staging / "findings.jsonl").write_text("new\n")
    assert snapshot(out) == {"NOTES.txt": b"mine\n", "findings.jsonl": b"new\n"}
    assert leftovers(out) == []


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError, OSError])
def test_a_block_that_fails_leaves_the_previous_outputs(tmp_path, stop):
    out = tmp_path / "out"
    out.mkdir()
    (out / "findings.jsonl").write_text("old\n")
    with (
        contextlib.suppress(KeyboardInterrupt, RuntimeError, OSError),
        outputs.staged(out, ["findings.jsonl"]) as staging,
    ):
        (staging / "findings.jsonl").write_text("new\n")
        raise stop("stopped")
    assert snapshot(out) == {"findings.jsonl": b"old\n"}
    assert leftovers(out) == []


def test_the_first_run_into_a_new_folder_makes_it_whole(tmp_path):
    out = tmp_path / "deeper" / "out"
    with outputs.staged(out, ["a"]) as staging:
        (staging / "a").write_text("1")
    assert snapshot(out) == {"a": b"1"}


def test_a_run_killed_between_the_two_renames_is_put_back_by_the_next(tmp_path):
    """Where the one-step exchange is not available OUT is moved aside first; a run killed
    right then leaves OUT missing and the previous set aside, which the next run restores."""
    out = tmp_path / "out"
    aside = tmp_path / f".out{outputs.ASIDE}99999999-abcdef"
    aside.mkdir()
    (aside / "findings.jsonl").write_text("previous\n")
    dead_staging = tmp_path / f".out{outputs.STAGING}99999999-fedcba"
    dead_staging.mkdir()
    (dead_staging / "findings.jsonl").write_text("half\n")
    outputs.recover(out)
    assert snapshot(out) == {"findings.jsonl": b"previous\n"}
    assert leftovers(out) == []


def test_the_fallback_without_the_exchange_gives_the_same_result(tmp_path, monkeypatch):
    monkeypatch.setattr(outputs, "_exchange", lambda left, right: False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "findings.jsonl").write_text("old\n")
    with outputs.staged(out, ["findings.jsonl"]) as staging:
        (staging / "findings.jsonl").write_text("new\n")
    assert snapshot(out) == {"findings.jsonl": b"new\n"}
    assert leftovers(out) == []


def test_a_live_runs_staging_folder_is_left_alone(tmp_path):
    out = tmp_path / "out"
    live = tmp_path / f".out{outputs.STAGING}{os.getppid()}-abcdef"
    live.mkdir()
    outputs.recover(out)
    assert live.is_dir()


# --- whole runs ----------------------------------------------------------------------------------


@pytest.mark.model
def test_ctrl_c_while_reports_are_written_leaves_the_previous_run(previous, corpus, monkeypatch):
    """Interrupted after findings.jsonl and some reports were written: nothing of the new
    run reaches OUT, and the command says so in one line with exit status 130."""
    before = snapshot(previous)
    real_write_reports = stages.write_reports

    def write_some_then_stop(run, out, formats=(), **_options):
        real_write_reports(run, out, ("csv", "html"))
        raise KeyboardInterrupt

    monkeypatch.setattr(stages, "write_reports", write_some_then_stop)
    done = CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(previous), "--ignore", "STYLE", "--force"]
    )
    assert done.exit_code == 130
    assert said(done.stderr) == f"rulings: interrupted; {previous} holds the last complete run\n"
    assert snapshot(previous) == before
    assert leftovers(previous) == []


@pytest.mark.model
def test_a_failing_writer_leaves_the_previous_run(previous, corpus, monkeypatch):
    before = snapshot(previous)

    def fail(run, out, formats=(), **_options):
        (out / "findings.csv").write_text("partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(stages, "write_reports", fail)
    done = CliRunner().invoke(main, ["run", str(corpus), "--out", str(previous), "--force"])
    assert done.exit_code == 2
    assert (
        said(done.stderr)
        == f"rulings: error: cannot write to {previous}: No space left on device\n"
    )
    assert snapshot(previous) == before


@contextlib.contextmanager
def mounted(tmp_path: Path, name: str, options: str) -> Iterator[Path]:
    """A small tmpfs (root only): real ENOSPC and a read-only file system for root too."""
    point = tmp_path / name
    point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def test_a_read_only_output_folder_is_named_not_a_temporary_file(tmp_path, corpus):
    if os.geteuid() == 0:
        context = mounted(tmp_path, "ro", "size=1m,ro")
    else:
        context = contextlib.nullcontext(tmp_path / "locked")
    with context as parent:
        out = parent / "out"
        if os.geteuid() != 0:
            out.mkdir(parents=True)
            parent.chmod(0o555)
            out.chmod(0o555)
        try:
            done = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out)])
        finally:
            if os.geteuid() != 0:
                out.chmod(0o755)
                parent.chmod(0o755)
    assert done.exit_code == 2
    message = done.stderr.strip()
    assert message.startswith(f"rulings: error: cannot write to {out}: ")
    assert message.endswith(("Read-only file system", "Permission denied"))
    assert ".tmp" not in message and "staging" not in message


@pytest.mark.model
def test_a_full_disk_keeps_the_previous_run(tmp_path, corpus):
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    with mounted(tmp_path, "small", "size=8m") as disk:
        out = disk / "out"
        first = CliRunner().invoke(main, ["run", str(corpus), "--out", str(out)])
        assert first.exit_code in (0, 1), first.output
        before = snapshot(out)
        used = shutil.disk_usage(disk).used
        # room for one run and half of another
        subprocess.run(["mount", "-o", f"remount,size={used * 3 // 2}", str(disk)], check=True)
        done = CliRunner().invoke(
            main, ["run", str(corpus), "--out", str(out), "--force", "--ignore", "STYLE"]
        )
        assert done.exit_code == 2, done.output
        assert (
            said(done.stderr) == f"rulings: error: cannot write to {out}: No space left on device\n"
        )
        assert snapshot(out) == before
        assert leftovers(out) == []


# --- no lock file --------------------------------------------------------------------------------


def test_no_lock_file_is_left_beside_the_output_folder(tmp_path):
    out = tmp_path / "reports"
    with outputs.staged(out, ["findings.jsonl"]) as staging:
        (staging / "findings.jsonl").write_text("new\n")
    outputs.recover(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_the_lock_file_of_an_older_version_is_removed(tmp_path):
    out = tmp_path / "reports"
    out.mkdir()
    (tmp_path / ".reports.rulings-lock").write_bytes(b"")
    outputs.recover(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]
