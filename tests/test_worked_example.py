"""docs/project-guide.md's worked example: the team's project file in docs/example/, run on
the seed corpus, adds, removes and changes exactly the findings the guide shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from pipelines.cli import main

EXAMPLE = ROOT / "docs" / "example"
GUIDE = ROOT / "docs" / "project-guide.md"


def findings(out: Path) -> dict[str, dict]:
    rows = (json.loads(line) for line in (out / "findings.jsonl").read_text("utf-8").splitlines())
    return {row["fingerprint"]: row for row in rows}


def changes(before: dict[str, dict], after: dict[str, dict]) -> dict[str, list[tuple]]:
    def where(row: dict) -> tuple:
        return (row["code"], row["file"], row["line"], row["severity"])

    return {
        "added": sorted(where(after[f]) for f in set(after) - set(before)),
        "removed": sorted(where(before[f]) for f in set(before) - set(after)),
        "changed": sorted(
            (*where(before[f])[:3], before[f]["severity"], after[f]["severity"])
            for f in set(before) & set(after)
            if before[f]["severity"] != after[f]["severity"]
        ),
    }


def test_the_guide_shows_the_example_files_as_they_are():
    guide = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:toml|tsv)\n(.*?)```", guide, re.DOTALL)
    files = ["rulings.toml", "team-rules.toml", "allow.tsv"]
    assert blocks == [(EXAMPLE / name).read_text(encoding="utf-8") for name in files]


@pytest.mark.model
def test_the_team_file_on_the_seeds_adds_removes_and_changes_what_the_guide_says(
    seed_run, tmp_path
):
    config = str(EXAMPLE / "rulings.toml")
    out = tmp_path / "team"
    result = CliRunner().invoke(main, ["run", "--config", config, "--out", str(out)])
    assert result.exit_code == 1, result.output  # fail-on = "warning"
    before, after = findings(seed_run), findings(out)
    assert (len(before), len(after)) == (57, 56)
    assert changes(before, after) == {
        "added": [("X-KEYWORD-EN", "004_a602d6d99571243f.txt", 20, "warning")],
        "removed": [
            ("CARD003", "001_09da9df6e0e3ee52.txt", 49, "warning"),
            ("EXTRA002", "003_4f023c532c7afcc4.txt", 1, "info"),
        ],
        "changed": [("STYLE006", "000_40e512ac1ae253c1.txt", 13, "info", "warning")],
    }
    [added] = [row for row in after.values() if row["code"] == "X-KEYWORD-EN"]
    assert added["message"] == (
        "Give the English keyword in brackets where the rules define it: “(Retrace)”."
    )
    sarif = json.loads((out / "findings.sarif").read_text(encoding="utf-8"))
    rules = {rule["id"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert {"X-KEYWORD-EN", "X-RULE-RANGE"} <= rules

    released = tmp_path / "release"
    result = CliRunner().invoke(
        main, ["run", "--config", config, "--profile", "release", "--out", str(released)]
    )
    assert result.exit_code == 1, result.output
    release = changes(before, findings(released))
    assert release["added"] == [("X-KEYWORD-EN", "004_a602d6d99571243f.txt", 20, "error")]
    assert [r[:3] for r in release["removed"]] == [
        ("CARD003", "001_09da9df6e0e3ee52.txt", 49),
        ("DATE002", "000_40e512ac1ae253c1.txt", 15),
        ("DATE002", "000_40e512ac1ae253c1.txt", 19),
        ("DATE002", "000_40e512ac1ae253c1.txt", 23),
        ("EXTRA002", "003_4f023c532c7afcc4.txt", 1),
    ]
    assert len(findings(released)) == 53

    quiet = CliRunner().invoke(
        main, ["run", "--config", config, "--out", str(out), "--fail-on", "never"]
    )
    assert quiet.exit_code == 0  # the command line wins over the file
