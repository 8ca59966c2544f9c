"""The report writers shared between two processes: the same files as one process writes,
and a writer's failure in the forked process is the report's failure."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import said

from pipelines.cli import main
from pipelines.report import WRITERS, balance, write_reports
from pipelines.report import processes as two_processes
from pipelines.tables import RunTables

pytestmark = pytest.mark.skipif(
    not two_processes.usable(), reason="writers share two processes on Linux only"
)


@pytest.fixture
def forks(monkeypatch) -> list[int]:
    """The processes forked (counted in the parent). The writers fork whatever this test
    process's size (a whole suite's models and tables can take it past ``MAX_RESIDENT``),
    and are shared by their declared cost, as ``balanced_halves`` without seconds shares
    them (not by the seconds an earlier run kept in the cache folder)."""
    monkeypatch.setattr(two_processes, "MAX_RESIDENT", 2**40)
    monkeypatch.setattr(balance, "last_seconds", lambda cache_dir: {})
    made: list[int] = []
    real_fork = os.fork

    def counted_fork() -> int:
        pid = real_fork()
        if pid:
            made.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", counted_fork)
    return made


def _files(folder: Path) -> dict[str, bytes]:
    return {
        path.name: path.read_bytes()
        if path.is_file()
        else [p.relative_to(path).as_posix() for p in sorted(path.rglob("*"))]
        for path in sorted(folder.iterdir())
    }


@pytest.mark.model
def test_two_processes_write_the_files_one_process_writes(seed_run: Path, tmp_path, forks):
    run = RunTables.load(seed_run)
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    assert write_reports(run, one, processes=1) == [
        one / p.name for p in write_reports(run, two, processes=2)
    ]
    assert len(forks) == 1
    assert _files(one) == _files(two)
    assert len(_files(two)) == len(WRITERS.names())


@pytest.mark.model
def test_a_process_too_large_for_the_copy_to_pay_writes_alone(
    seed_run: Path, tmp_path, forks, monkeypatch
):
    """Above ``MAX_RESIDENT`` the child's copy of the pages it reads would cost more than the
    time it saves: the writers run one after the other, and write the same files."""
    run = RunTables.load(seed_run)
    monkeypatch.setattr(two_processes, "MAX_RESIDENT", 1)
    written = write_reports(run, tmp_path, processes=2)
    assert forks == []
    assert [path.name for path in written] == [
        WRITERS[name].meta["filename"] for name in WRITERS.names()
    ]


def test_the_writers_are_shared_by_cost():
    entries = [WRITERS[name] for name in WRITERS.names()]
    parent, child = two_processes.balanced_halves(entries)
    assert sorted(parent + child) == sorted(WRITERS.names())
    cost = {entry.name: entry.meta["cost"] for entry in entries}
    loads = [sum(cost[name] for name in half) for half in (parent, child)]
    assert abs(loads[0] - loads[1]) <= max(cost.values())
    assert {"xlsx", "html"} - set(parent) and {"xlsx", "html"} - set(child), (
        "the two heaviest writers run side by side"
    )


def test_the_writers_are_shared_by_the_seconds_they_took_last_time():
    """Seconds for every writer (the last nightly run's, where the page and the XLIFF were
    the slow ones) share them by those; seconds for some only, by the declared costs."""
    entries = [WRITERS[name] for name in WRITERS.names()]
    seconds = dict.fromkeys(WRITERS.names(), 0.1) | {"html": 2.0, "xliff": 1.8, "xlsx": 0.6}
    parent, child = two_processes.balanced_halves(entries, seconds)
    assert {"html", "xliff"} - set(parent) and {"html", "xliff"} - set(child)
    loads = [sum(seconds[name] for name in half) for half in (parent, child)]
    assert abs(loads[0] - loads[1]) <= max(seconds.values())
    assert two_processes.balanced_halves(entries, {"html": 2.0, "xliff": 1.8}) == (
        two_processes.balanced_halves(entries)
    )


def test_the_seconds_kept_are_read_back_and_a_damaged_file_is_none(tmp_path: Path):
    assert balance.last_seconds(tmp_path) == {} == balance.last_seconds(None)
    balance.keep_seconds(tmp_path, {"html": 2.25, "csv": 0.5})
    balance.keep_seconds(tmp_path, {"csv": 0.75})
    assert balance.last_seconds(tmp_path) == {"csv": 0.75, "html": 2.25}
    kept = tmp_path / balance.SECONDS_FILE
    kept.write_bytes(kept.read_bytes().replace(b"2.25", b"9.25"))
    assert balance.last_seconds(tmp_path) == {}


@pytest.mark.model
def test_every_writer_is_timed_in_either_process(seed_run: Path, tmp_path, forks):
    run = RunTables.load(seed_run)
    seconds: dict[str, float] = {}
    write_reports(run, tmp_path, processes=2, seconds=seconds)
    assert len(forks) == 1
    assert sorted(seconds) == sorted(WRITERS.names())
    assert all(0 < value < 60 for value in seconds.values())


def _failing(error: BaseException):
    def write(run: RunTables, out: Path) -> Path:
        if os.getpid() == parent:
            raise AssertionError("meant to fail in the forked process")
        raise error

    parent = os.getpid()
    return write


@pytest.mark.model
def test_a_writer_failing_in_the_forked_process_fails_the_report(
    seed_run: Path, tmp_path, monkeypatch, forks
):
    run = RunTables.load(seed_run)
    entry = type(WRITERS["csv"])("broken", _failing(ValueError("bad value")), {"cost": 1})
    monkeypatch.setitem(WRITERS._entries, "broken", entry)
    with pytest.raises(two_processes.WriterError, match="ValueError: bad value"):
        write_reports(run, tmp_path, ["csv", "broken"], processes=2)
    assert len(forks) == 1
    assert (tmp_path / "findings.csv").is_file(), "the parent's own writers finished"


@pytest.mark.model
def test_a_full_disk_in_the_forked_process_is_one_line_and_exit_2(
    seed_run: Path, corpus_dir: Path, tmp_path, monkeypatch, forks
):
    _, child = two_processes.balanced_halves([WRITERS[name] for name in WRITERS.names()])
    name, out = child[0], tmp_path / "out"
    filename = WRITERS[name].meta["filename"]
    full = OSError(28, "No space left on device", str(out / filename))
    monkeypatch.setitem(
        WRITERS._entries, name, type(WRITERS[name])(name, _failing(full), WRITERS[name].meta)
    )
    done = CliRunner().invoke(main, ["run", str(corpus_dir), "--out", str(out)])
    assert len(forks) == 1
    assert done.exit_code == 2
    assert said(done.stderr) == f"rulings: error: {out / filename}: No space left on device\n"
    assert not out.exists() or not any(out.iterdir()), "nothing of the failed run is left"


@pytest.mark.model
def test_ctrl_c_while_the_forked_writer_works_ends_it_and_keeps_the_previous_run(
    corpus_dir: Path, tmp_path, monkeypatch, forks
):
    """Ctrl-C reaches the parent while the child is still writing: the child is ended (no
    process is left behind), nothing of the new run reaches OUT, exit status 130."""
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["run", str(corpus_dir), "--out", str(out)]).exit_code in (0, 1)
    before = _files(out)
    parent, child = two_processes.balanced_halves([WRITERS[name] for name in WRITERS.names()])

    def stuck(run: RunTables, out: Path) -> Path:
        time.sleep(600)
        raise AssertionError("never ends on its own")

    def interrupted(run: RunTables, out: Path) -> Path:
        raise KeyboardInterrupt

    for name, write in ((child[0], stuck), (parent[0], interrupted)):
        entry = type(WRITERS[name])(name, write, WRITERS[name].meta)
        monkeypatch.setitem(WRITERS._entries, name, entry)
    forks.clear()
    started = time.monotonic()
    done = CliRunner().invoke(main, ["run", str(corpus_dir), "--out", str(out), "--force"])
    assert done.exit_code == 130
    assert time.monotonic() - started < 60, "the parent did not wait for the stuck writer"
    assert len(forks) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(forks[0], os.WNOHANG)  # already reaped: no zombie, no orphan
    assert _files(out) == before
