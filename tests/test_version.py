"""One version, pyproject.toml's, read from the package metadata: the CLI, the run manifest,
the fetch user agent, SARIF, summary.json and the HTML page all say it."""

from __future__ import annotations

import json
import tomllib
from importlib import metadata
from pathlib import Path

from click.testing import CliRunner

import pipelines
from pipelines import masters
from pipelines.cli import main
from pipelines.model import Ruling
from pipelines.report.writers.html import render_html
from pipelines.report.writers.sarif import write_sarif
from pipelines.report.writers.summary import write_summary
from pipelines.tables import RunTables

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _run() -> RunTables:
    ruling = Ruling(
        id="es.txt:1",
        file="es.txt",
        line=1,
        format="plain-dated",
        doc_title=None,
        card=None,
        section=None,
        doc_lang="es",
        lang="es",
        spans=[],
        date=None,
        date_raw=None,
        text="Hola.",
    )
    return RunTables([ruling])


def test_the_version_is_pyprojects_read_from_the_package_metadata():
    assert pipelines.__version__ == PYPROJECT["version"] == metadata.version("rulings"), (
        "the installed metadata is not pyproject's: reinstall with pip install -e ."
    )


def test_without_metadata_the_version_comes_from_pyproject(monkeypatch):
    def missing(_name):
        raise metadata.PackageNotFoundError("rulings")

    monkeypatch.setattr(metadata, "version", missing)
    assert pipelines._version() == PYPROJECT["version"]


def test_every_place_says_the_one_version(tmp_path):
    version = pipelines.__version__
    result = CliRunner().invoke(main, ["--version"])
    assert result.stdout == f"rulings, version {version}\n"
    assert masters.USER_AGENT.startswith(f"rulings/{version} ")
    sarif = json.loads(write_sarif(_run(), tmp_path).read_text(encoding="utf-8"))
    assert sarif["runs"][0]["tool"]["driver"]["version"] == version
    summary = json.loads(write_summary(_run(), tmp_path).read_text(encoding="utf-8"))
    assert summary["tool"]["version"] == version
    assert f'<meta name="generator" content="rulings {version}">' in render_html(_run())


def test_the_run_manifest_carries_it():
    """The manifest says which version wrote a run (the work cache's entries carry their own
    kind's version instead: docs/work.md)."""
    from pipelines import manifest
    from pipelines.settings import Settings

    assert manifest.run_key([], Settings())["version"] == pipelines.__version__
