"""Every check's bad and good example (resources/check_examples.toml) and `rulings rules CODE`,
which prints them with the check's documentation. What each check reports on its bad example
and that it stays quiet on its good one: tests/test_codes.py."""

from __future__ import annotations

from click.testing import CliRunner

from pipelines.catalogue import CHECK, TABLE
from pipelines.check.examples import examples
from pipelines.check.registry import CHECKS
from pipelines.cli import main


def test_every_check_has_an_example_and_every_example_a_check():
    assert set(examples()) == set(CHECKS.names())
    assert set(examples()) == {row.code for row in TABLE if row.stage == CHECK}


def test_rules_code_prints_the_documentation_and_both_examples():
    result = CliRunner().invoke(main, ["rules", "trunc001"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("TRUNC001  truncation, error, check stage\n")
    assert "The ruling ends with an ellipsis in the middle of a sentence" in text
    bad, good = text.index("Bad (reported):"), text.index("Good (not reported):")
    assert "las habilidades de entrar al…" in text[bad:good]
    assert "nada sucede." in text[good:]
    assert "Reported on the bad example:\n  es.txt:1: The text stops mid-sentence" in text
    assert "Folds NUM001, PH001" in text


def test_rules_code_for_an_ingest_code_a_team_rule_and_an_unknown_code(tmp_path):
    result = CliRunner().invoke(main, ["rules", "PARSE004"])
    assert result.exit_code == 0 and "No example" in result.stdout
    config = tmp_path / "rulings.toml"
    config.write_text(
        "[[rule]]\ncode = 'X-CARDS'\ncategory = 'number'\nmessage = 'Keep {match}.'\n"
        "source = '(\\d+) cards?'\ntarget = '\\1'\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["rules", "X-CARDS", "--config", str(config)])
    assert result.exit_code == 0
    assert result.stdout.startswith("X-CARDS  number, warning, team rule (pattern)")
    assert "where the source matches /(\\d+) cards?/, the translation must match /\\1/" in (
        result.stdout
    )
    listed = CliRunner().invoke(main, ["rules", "--config", str(config)]).stdout.splitlines()
    assert listed[-1].startswith("X-CARDS\tnumber\twarning\tcheck\tits:numbers\t")
    assert listed[-1].split("\t")[6].startswith("Keep ….")
    result = CliRunner().invoke(main, ["rules", "TRUNC01"])
    assert result.exit_code == 2
    assert (
        result.stderr
        == "rulings: error: rules: no finding code 'TRUNC01'; did you mean TRUNC001?\n"
    )
