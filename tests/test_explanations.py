"""One source for each code's explanation: the catalogue (a check's docstring, an ingest code's
summary and details). `rulings rules`, the HTML page and SARIF say the same text."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pipelines import stages
from pipelines.catalogue import TABLE
from pipelines.check.registry import explanations
from pipelines.checklists import Rule
from pipelines.cli import main
from pipelines.report.writers.html import _rule_summaries
from pipelines.settings import Settings
from pipelines.tables import RunTables


def _rules_listed() -> dict[str, str]:
    result = CliRunner().invoke(main, ["rules"])
    assert result.exit_code == 0, result.output
    return {line.split("\t")[0]: line.split("\t")[6] for line in result.stdout.splitlines()}


def test_sarif_and_html_say_what_rulings_rules_says(tmp_path):
    listed = _rules_listed()
    run = RunTables([])
    settings = Settings(formats=("sarif",))
    stages.report_stage(tmp_path, settings, stages.Resources.load(settings), run=run)
    sarif = json.loads((tmp_path / "findings.sarif").read_text(encoding="utf-8"))
    rules = {rule["id"]: rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    html = _rule_summaries(run)
    for row in TABLE:
        assert rules[row.code]["fullDescription"]["text"] == listed[row.code], row.code
        assert html[row.code] == listed[row.code], row.code
        assert rules[row.code]["shortDescription"]["text"] == row.summary
    # a check's explanation is its docstring, not the one-sentence summary
    assert explanations()["TRUNC001"].startswith("The ruling ends with an ellipsis")
    full = rules["TRUNC001"]["fullDescription"]["text"]
    assert full == explanations()["TRUNC001"] and len(full) > 2 * len(
        rules["TRUNC001"]["shortDescription"]["text"]
    )


def test_a_team_rule_is_described_by_its_own_row():
    rule = Rule(
        code="X-CARDS",
        category="number",
        severity="warning",
        message="Keep {match}.",
        kind="pattern",
        source=r"(\d+) cards?",
        target=r"\1",
        description="Counts stay.",
        origin="rulings.toml",
    )
    run = RunTables([], codes=(rule.catalogue_row(),))
    assert (
        _rule_summaries(run)["X-CARDS"]
        == rule.explanation()
        == (
            "Keep …. Counts stay. Team rule: where the source matches /(\\d+) cards?/, the "
            "translation must match /\\1/. From rulings.toml."
        )
    )
