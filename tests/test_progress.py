"""What a command prints while it works: without a terminal (a CI log), a line when each stage
starts and ends and a progress line at most, and at least, every 10 s; --quiet prints none."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pipelines import console
from pipelines.cli import main


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _reporter(clock: FakeClock, level: int = console.NORMAL) -> console.Reporter:
    return console.Reporter(terminal=False, level=level, clock=clock, heartbeat=False)


def test_a_line_when_each_stage_starts_and_ends(capsys):
    clock = FakeClock()
    with _reporter(clock) as reporter:
        with reporter.stage("ingest"):
            clock.now += 2.5
        with reporter.stage("align"):
            reporter.update("embed", 0, 40)
            clock.now += 1
            reporter.update("embed", 40, 40)
    assert capsys.readouterr().err.splitlines() == [
        "rulings: ingest: reading the inputs",
        "rulings: ingest: done in 2.5 s",
        "rulings: align: aligning translations with their sources",
        "rulings: align: done in 1.0 s, 40 texts",
    ]


def test_progress_lines_at_most_every_ten_seconds_with_counts_rate_and_time_left(capsys):
    clock = FakeClock()
    with _reporter(clock) as reporter, reporter.stage("align"):
        capsys.readouterr()
        reporter.update("embed", 0, 1000)
        for done in range(100, 1001, 100):
            clock.now += 4  # 25 texts a second
            reporter.update("embed", done, 1000)
        lines = capsys.readouterr().err.splitlines()
    # 40 s of updates every 4 s: a line at 12 s, 24 s and 36 s since the stage began
    assert lines == [
        "rulings: align: aligning translations with their sources",
        "rulings: align: embedding distinct texts 300/1,000 (30%, 25/s, about 28 s left), "
        "12 s elapsed",
        "rulings: align: embedding distinct texts 600/1,000 (60%, 25/s, about 16 s left), "
        "24 s elapsed",
        "rulings: align: embedding distinct texts 900/1,000 (90%, 25/s, about 4.0 s left), "
        "36 s elapsed",
    ]


def test_the_heartbeat_says_a_long_step_without_counts_is_alive(capsys):
    clock = FakeClock()
    with _reporter(clock) as reporter, reporter.stage("check"):
        clock.now += 0.9
        reporter.tick()
        assert capsys.readouterr().err == ""  # a stage line waits a second
        clock.now += 0.1
        reporter.tick()
        assert capsys.readouterr().err == "rulings: check: running the checks\n"
        clock.now += 9.9
        reporter.tick()
        assert capsys.readouterr().err == ""
        clock.now += 0.1
        reporter.tick()
        assert capsys.readouterr().err == "rulings: check: running the checks, 11 s elapsed\n"
        clock.now += 5
        reporter.tick()
        assert capsys.readouterr().err == ""
        clock.now += 5
        reporter.tick()
        assert capsys.readouterr().err == "rulings: check: running the checks, 21 s elapsed\n"


def test_the_heartbeat_thread_prints_while_a_stage_runs(monkeypatch):
    import io
    import sys
    import time

    monkeypatch.setattr(console, "ANNOUNCE_AFTER", 0.05)
    written = io.StringIO()  # read while the thread writes, never emptied under it
    monkeypatch.setattr(sys, "stderr", written)
    reporter = console.Reporter(terminal=False, level=console.NORMAL, every=0.1, beat=0.02)
    progress = "rulings: check: running the checks, "
    with reporter, reporter.stage("check"):
        # the start line after 0.05 s, a progress line 0.1 s later: waited for, not timed,
        # so that a loaded machine only makes the test slower
        deadline = time.monotonic() + 30
        while progress not in written.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    lines = written.getvalue().splitlines()
    assert lines[0] == "rulings: check: running the checks"
    assert any(line.startswith(progress) for line in lines[1:-1])
    assert lines[-1].startswith("rulings: check: done in ")


def test_a_failed_stage_leaves_the_saying_to_the_error(capsys):
    clock = FakeClock()
    with pytest.raises(RuntimeError), _reporter(clock) as reporter, reporter.stage("ingest"):
        raise RuntimeError("boom")
    assert capsys.readouterr().err == ""  # one that fails at once leaves it to the error line


def test_quiet_prints_nothing(capsys):
    clock = FakeClock()
    with _reporter(clock, console.QUIET) as reporter, reporter.stage("align"):
        reporter.update("embed", 0, 10)
        clock.now += 60
        reporter.update("embed", 5, 10)
        reporter.tick()
    assert capsys.readouterr().err == ""


def test_durations_read_as_a_person_writes_them():
    assert [console._duration(s) for s in (0.44, 12.4, 185, 3725)] == [
        "0.4 s",
        "12 s",
        "3 min 05 s",
        "1 h 02 min",
    ]


@pytest.mark.model
def test_a_cli_run_without_a_terminal_says_when_each_stage_starts_and_ends(
    seed_run_result, corpus_dir
):
    out, result = seed_run_result  # CliRunner: no terminal
    lines = [line for line in result.stderr.splitlines() if line.startswith("rulings: ")]
    stages = [line.split(":")[1].strip() for line in lines]
    for stage in ("ingest", "align", "check", "report"):
        assert f"rulings: {stage}: " in "\n".join(lines)
        assert any(line.startswith(f"rulings: {stage}: done in ") for line in lines), lines
    assert stages.index("ingest") < stages.index("align") < stages.index("check")
    assert stages.index("check") < stages.index("report")
    quiet = CliRunner().invoke(main, ["run", str(corpus_dir), "--out", str(out), "--quiet"])
    assert quiet.exit_code == result.exit_code  # the same run, reused: nothing said
    assert quiet.stderr == "" and quiet.stdout == ""


def test_quiet_and_verbose_together_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["report", "--out", str(tmp_path), "-q", "-v"])
    assert result.exit_code == 2
    assert "--quiet and --verbose cannot be given together" in result.stderr


def test_a_finished_step_says_no_time_left(capsys):
    clock = FakeClock()
    with _reporter(clock) as reporter, reporter.stage("align"):
        reporter.update("embed", 0, 10)
        clock.now += 12
        reporter.update("embed", 10, 10)
        lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == (
        "rulings: align: embedding distinct texts 10/10 (100%, 0.8/s), 12 s elapsed"
    )
