"""--cache-dir is taken by every command that uses the cache, and used: nothing goes into the
default cache folder when it is given."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import CORPUS

from pipelines.cli import main

SEED = CORPUS / "000_40e512ac1ae253c1.txt"
COMMANDS = ("ingest", "align", "check", "report", "run", "cards", "fetch")


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_uses_the_cache_takes_cache_dir(command, tmp_path):
    assert "cache_dir" in {param.name for param in main.commands[command].params}
    # an option click does not know would be a usage error (exit 2) before --help is read
    result = CliRunner().invoke(main, [command, "--cache-dir", str(tmp_path), "--help"])
    assert result.exit_code == 0, result.output
    assert "--cache-dir" in result.stdout


@pytest.mark.slow
def test_ingest_keeps_its_work_in_the_cache_dir_given(tmp_path, monkeypatch):
    default = tmp_path / "default-cache"
    monkeypatch.setenv("RULINGS_CACHE_DIR", str(default))
    cache = tmp_path / "cache"
    result = CliRunner().invoke(
        main,
        ["ingest", str(SEED), "--out", str(tmp_path / "out"), "--cache-dir", str(cache)],
    )
    assert result.exit_code == 0, result.output
    assert any(path.is_file() for path in cache.rglob("*"))
    assert not default.exists()
