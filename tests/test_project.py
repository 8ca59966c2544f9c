"""The project file (rulings.toml, or [tool.rulings] in pyproject.toml): found from the first
input upwards, every option under its own name, profiles, per-path ignores, severity
overrides and named thresholds; the command line overrides it; every mistake is one line
naming the file, the key and what is wrong, with exit status 2, before any work."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pipelines.check.overrides import path_ignored, severity_for, with_severities
from pipelines.cli import main
from pipelines.model import Finding
from pipelines.thresholds import THRESHOLDS

RULE = """
[[rule]]
code = "X-CARDS"
category = "number"
message = "m"
"""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def project(tmp_path: Path, text: str, name: str = "rulings.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "in").mkdir(exist_ok=True)
    return path


def mistakes(result: Result, folder: Path | None = None) -> list[str]:
    """The lines of a failed command, the folder of the project file left out."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert lines and all(line.startswith("rulings: error: ") for line in lines), lines
    lines = [line.removeprefix("rulings: error: ") for line in lines]
    return [line.replace(f"{folder}/", "") for line in lines] if folder else lines


MISTAKES = [
    ("not TOML", 'fail-on = "warning\n', "rulings.toml: not valid TOML"),
    (
        "unknown key",
        'fial-on = "warning"\n',
        "rulings.toml: fial-on: unknown key; did you mean 'fail-on'?",
    ),
    ("list wanted", "languages = 5\n", "rulings.toml: languages: must be a list of strings"),
    ("number wanted", 'workers = "two"\n', "rulings.toml: workers: must be a whole number"),
    ("string wanted", "embedder = 3\n", "rulings.toml: embedder: must be a string"),
    ("not a choice", 'fail-on = "errors"\n', "rulings.toml: fail-on: 'errors' is not one of"),
    (
        "unknown code",
        'select = ["TERM01X"]\n',
        "rulings.toml: select: 'TERM01X' is no finding code",
    ),
    (
        "unknown language",
        'languages = ["en", "xx"]\n',
        "rulings.toml: languages: 'xx' is not a language",
    ),
    ("missing termbase", 'termbase = ["missing.tsv"]\n', "rulings.toml: termbase: "),
    (
        "engine options",
        'scheduler = "tcp://x:1"\n',
        "rulings.toml: scheduler: --scheduler goes with",
    ),
    (
        "bad severity",
        '[severity]\nTRUNC002 = "fatal"\n',
        "rulings.toml: severity.TRUNC002: 'fatal' is no severity",
    ),
    (
        "severity of no code",
        '[severity]\nTRUNX002 = "error"\n',
        "rulings.toml: severity.TRUNX002: no finding code",
    ),
    (
        "unknown threshold",
        '[thresholds]\n"truncation.shortratio" = 0.4\n',
        "did you mean 'truncation.short-ratio'?",
    ),
    (
        "threshold out of range",
        '[thresholds]\n"truncation.short-ratio" = 2\n',
        "rulings.toml: thresholds.truncation.short-ratio: must be at most 1",
    ),
    (
        "threshold not a number",
        '[thresholds]\n"meaning.min-words" = "ten"\n',
        "rulings.toml: thresholds.meaning.min-words: must be a whole number",
    ),
    (
        "per-path codes",
        '[per-path-ignores]\n"cr/**" = 5\n',
        "rulings.toml: per-path-ignores.cr/**: must be a list of codes",
    ),
    (
        "per-path unknown code",
        '[per-path-ignores]\n"cr/**" = ["STYLE05X"]\n',
        "rulings.toml: per-path-ignores.cr/**: 'STYLE05X' is no finding code",
    ),
    (
        "profile key",
        '[profile.rules]\ncolour = "red"\n',
        "rulings.toml: profile.rules.colour: unknown key",
    ),
    (
        "meta option",
        'config = "other.toml"\n',
        "rulings.toml: config: is chosen on the command line",
    ),
    (
        "default profile",
        'default-profile = "cards"\n',
        "rulings.toml: default-profile: no profile 'cards'",
    ),
    ("missing checklist", 'checklists = ["nope.toml"]\n', "nope.toml: no such checklist file"),
    ("missing allow list", 'allow = ["nope.tsv"]\n', "rulings.toml: allow: "),
    (
        "broken pattern",
        RULE + "source = '(\\d+ cards'\ntarget = 'cartas'\n",
        "rulings.toml: rule X-CARDS: source: not a regular expression: missing ), unterminated",
    ),
    (
        "back-reference to no group",
        RULE + "source = '(\\d+) cards'\ntarget = '\\2 cartas'\n",
        "rule X-CARDS: target: \\2 refers to group 2; the source pattern has 1 group(s)",
    ),
    (
        "team code",
        RULE.replace("X-CARDS", "CARDS") + "target-not = 'tarjeta'\n",
        "rulings.toml: rule 1: code: must be a code of the team's",
    ),
    (
        "a code twice",
        RULE + "target-not = 'tarjeta'\n" + RULE + "target-not = 'tarjeta'\n",
        "rulings.toml: rule X-CARDS: the code is used by two rules",
    ),
    (
        "category",
        RULE.replace('"number"', '"numbers"') + "target-not = 'tarjeta'\n",
        "rulings.toml: rule X-CARDS: category: 'numbers' is no category",
    ),
    (
        "two tests",
        RULE + "target-not = 'tarjeta'\nwords = { carta = 'naipe' }\n",
        "rulings.toml: rule X-CARDS: a rule needs one test",
    ),
    (
        "rule key",
        RULE + "target-not = 'tarjeta'\nlanguage = ['es']\n",
        "rulings.toml: rule X-CARDS: language: unknown key; did you mean 'languages'?",
    ),
]


@pytest.mark.parametrize(("kind", "text", "expected"), MISTAKES, ids=[m[0] for m in MISTAKES])
def test_every_mistake_is_one_line_naming_the_file_and_the_key(tmp_path, kind, text, expected):
    project(tmp_path, text)
    out = tmp_path / "out"
    lines = mistakes(invoke("run", str(tmp_path / "in"), "--out", str(out)), tmp_path)
    assert len(lines) == 1, lines
    assert expected in lines[0], lines[0]
    assert not out.exists()  # checked before any work


def test_several_mistakes_are_one_line_each(tmp_path):
    project(
        tmp_path,
        """
        fial-on = "warning"
        languages = 5
        [severity]
        TRUNC002 = "fatal"
        [thresholds]
        "truncation.short-ratio" = -1
        """,
    )
    lines = mistakes(invoke("config", str(tmp_path / "in")), tmp_path)
    assert [line.split(": ")[1] for line in lines] == [
        "fial-on",
        "languages",
        "severity.TRUNC002",
        "thresholds.truncation.short-ratio",
    ]
    assert all(line.startswith("rulings.toml: ") for line in lines)


def test_an_unknown_profile_and_a_missing_config_file(tmp_path):
    project(tmp_path, '[profile.rules]\nselect = ["TERM"]\n')
    [line] = mistakes(invoke("config", str(tmp_path / "in"), "--profile", "rule"), tmp_path)
    assert line == "rulings.toml: --profile: no profile 'rule'; did you mean 'rules'?"
    [line] = mistakes(invoke("config", "--config", str(tmp_path / "none.toml")))
    assert line.endswith("none.toml: no such project file")
    [line] = mistakes(
        invoke(
            "config",
            str(tmp_path / "in"),
            "--profile",
            "rules",
            "--config",
            str(tmp_path / "none.toml"),
        )
    )
    assert "no such project file" in line


def test_a_pyproject_table_names_its_keys_in_full(tmp_path):
    project(tmp_path, '[project]\nname = "x"\n[tool.rulings]\nfial-on = "never"\n', PYPROJECT)
    [line] = mistakes(invoke("config", str(tmp_path / "in")), tmp_path)
    assert line == "pyproject.toml: tool.rulings.fial-on: unknown key; did you mean 'fail-on'?"


PYPROJECT = "pyproject.toml"


def shown(result: Result) -> dict[str, tuple[str, str]]:
    """``rulings config``'s lines: key -> (value, where it came from)."""
    assert result.exit_code == 0, result.output
    found = {}
    for line in result.stdout.splitlines():
        if " = " in line and not line.startswith("# "):
            setting, _, origin = line.partition("  # ")
            key, _, value = setting.partition(" = ")
            found[key.strip().strip('"')] = (value.strip(), origin.strip())
    return found


def test_config_shows_each_value_and_where_it_came_from(tmp_path):
    termbase = tmp_path / "terms" / "team.tsv"
    termbase.parent.mkdir()
    termbase.write_text("concept\tlang\tterm\tstatus\tenforce\tnote\n", encoding="utf-8")
    project(
        tmp_path,
        """
        languages = ["en", "es"]
        fail-on = "warning"
        termbase = ["terms/team.tsv"]
        [thresholds]
        "truncation.short-ratio" = 0.4
        [profile.rules]
        select = ["TERM", "PH"]
        [profile.rules.thresholds]
        "meaning.robust-z" = -4
        """,
    )
    inputs = tmp_path / "in" / "deeper"
    inputs.mkdir()
    settings = shown(invoke("config", str(inputs), "--fail-on", "error", "--profile", "rules"))
    assert settings["languages"] == ('["en", "es"]', "rulings.toml") or settings["languages"][
        1
    ].endswith("rulings.toml")
    assert settings["fail-on"] == ('"error"', "command line")
    assert settings["select"][1].endswith("rulings.toml [profile.rules]")
    assert settings["termbase"][0] == f'["{termbase}"]' or settings["termbase"][0].endswith(
        'terms/team.tsv"]'
    )
    assert settings["truncation.short-ratio"][0] == "0.4"
    assert settings["meaning.robust-z"] == ("-4.0", settings["select"][1])
    assert settings["truncation.min-source-chars"] == ("40", "default")
    assert settings["lang-id"] == ('"lingua"', "default")


def test_found_walking_up_and_pyproject_without_the_table_skipped(tmp_path):
    project(tmp_path, 'fail-on = "never"\n')
    inner = tmp_path / "team" / "docs"
    inner.mkdir(parents=True)
    (tmp_path / "team" / PYPROJECT).write_text('[project]\nname = "docs"\n', encoding="utf-8")
    assert shown(invoke("config", str(inner)))["fail-on"][1].endswith("rulings.toml")
    (tmp_path / "team" / PYPROJECT).write_text(
        '[tool.rulings]\nfail-on = "warning"\n', encoding="utf-8"
    )
    assert shown(invoke("config", str(inner)))["fail-on"] == (
        '"warning"',
        str(tmp_path / "team" / PYPROJECT),
    ) or shown(invoke("config", str(inner)))["fail-on"][1].endswith(PYPROJECT)
    other = tmp_path / "elsewhere.toml"
    other.write_text('fail-on = "error"\nengine = "local"\n', encoding="utf-8")
    assert shown(invoke("config", str(inner), "--config", str(other)))["fail-on"][1].endswith(
        "elsewhere.toml"
    )


def test_every_threshold_is_named_documented_and_keeps_its_default():
    from pipelines.project import declared_thresholds

    names = declared_thresholds()
    assert {"truncation.short-ratio", "meaning.robust-z", "align.vote-majority"} <= set(names)
    for name in names:
        named = THRESHOLDS[name].target
        assert named.problem(named.default) is None and len(named.doc.split()) >= 8, name
    from pipelines.check.checks import meaning, truncation

    assert truncation.SHORT_RATIO.default == 0.5 and meaning.ROBUST_Z.default == -3.5


def finding(code: str, file: str, severity: str = "warning", category: str = "style") -> Finding:
    return Finding(code, category, severity, "es", file, 1, None, None, None, None, "m", {})


def test_per_path_ignores_match_gitignore_patterns_against_the_finding_file():
    found = [
        finding("STYLE005", "cr/2023/zh.txt"),
        finding("STYLE005", "cards/zh.txt"),
        finding("TERM001", "cr/2023/zh.txt", category="terminology"),
        finding("STYLE004", "cr/x.txt"),
    ]
    kept = path_ignored(found, (("cr/**", ("STYLE005",)), ("*.txt", ("terminology",))))
    assert [(f.code, f.file) for f in kept] == [
        ("STYLE005", "cards/zh.txt"),
        ("STYLE004", "cr/x.txt"),
    ]


def test_the_most_specific_severity_override_wins_and_keeps_the_fingerprint():
    table = {"TRUNC002": "error", "TRUNC": "info", "style": "error"}
    assert severity_for("TRUNC002", "truncation", table) == "error"
    assert severity_for("TRUNC001", "truncation", table) == "info"
    assert severity_for("STYLE003", "style", table) == "error"
    assert severity_for("TERM001", "terminology", table) is None
    before = finding("STYLE003", "a.txt")
    [after] = with_severities([before], (("style", "error"),))
    assert after.severity == "error" and after.fingerprint == before.fingerprint


def test_a_threshold_of_the_file_reaches_the_check(tmp_path):
    from pipelines.cards import CardIndex
    from pipelines.check import run_checks
    from pipelines.check.examples import context_of, examples
    from pipelines.termbase import Termbase

    project(tmp_path, '[thresholds]\n"truncation.short-ratio" = 0.05\n')
    result = invoke("config", str(tmp_path / "in"))
    assert shown(result)["truncation.short-ratio"][0] == "0.05"
    units = examples()["TRUNC002"].bad
    ctx = context_of(units, Termbase.load(), CardIndex.build([]))
    assert [f.code for f in run_checks(ctx, select=["TRUNC002"])] == ["TRUNC002"]
    ctx = context_of(units, Termbase.load(), CardIndex.build([]))
    ctx.thresholds = {"truncation.short-ratio": 0.05}
    assert run_checks(ctx, select=["TRUNC002"]) == []
