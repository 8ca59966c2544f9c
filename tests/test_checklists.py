"""The team's checklists: each kind of rule on real-looking pairs, back-references from the
source into the target, inheritance, the Xbench-like TSV, the rules run as checks of their
own codes (selected, baselined, described by the reports, cached by their content), and
the allow lists the untranslated, mixed-language and card-name checks honour."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pipelines import tables
from pipelines.allowlists import AllowList, AllowListError
from pipelines.check import run_checks
from pipelines.check.baseline import Baseline
from pipelines.check.examples import context_of
from pipelines.checklists import ChecklistError, load_checklists
from pipelines.settings import Settings
from pipelines.work import Reuse

CARDS_RULE = """
[[rule]]
code = "X-CARDS"
category = "number"
severity = "error"
message = "“{match}” must stay “{expected}”."
languages = ["es"]
source = '(\\d+) cards?'
target = '\\1 cartas?'
"""

RULE_A = "[[rule]]\ncode = 'X-A'\ncategory = 'style'\nmessage = 'm'\n"


def checklist(tmp_path: Path, text: str, name: str = "team.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_checklists([path])


def found(units, termbase, cards, rules, select=("X-",)):
    ctx = context_of(units, termbase, cards, rules)
    return run_checks(ctx, select=list(select))


def test_a_back_reference_carries_the_source_match_into_the_target(tmp_path, termbase, cards):
    rules = checklist(tmp_path, CARDS_RULE)
    units = [
        {"source": "Draw 3 cards.", "target": "Roba 2 cartas."},
        {"source": "Draw 3 cards.", "target": "Roba 3 cartas."},
        {"source": "Draw 1 card.", "target": "Roba 1 carta."},
        {"source": "Draw 3 cards.", "target": "抽3张牌。", "lang": "zh"},  # not for Chinese
    ]
    [wrong] = found(units, termbase, cards, rules)
    assert (wrong.code, wrong.category, wrong.severity) == ("X-CARDS", "number", "error")
    assert wrong.ruling_id == "es.txt:1"
    assert wrong.message == "“3 cards” must stay “3 cartas?”."
    assert wrong.evidence == {"rule": "X-CARDS", "source_match": "3 cards", "expected": "3 cartas?"}
    assert wrong.marks == [{"side": "source", "start": 5, "end": 12, "role": "missing"}]


def test_a_group_value_is_matched_literally(tmp_path, termbase, cards):
    rules = checklist(
        tmp_path,
        """
        [[rule]]
        code = "X-COST"
        category = "placeholder"
        message = "The cost {match} is kept."
        source = 'pay (\\{[^}]+\\}+)'
        target = '\\1'
        """,
    )
    units = [
        {"source": "You may pay {X}.", "target": "Puedes pagar {X}."},
        {"source": "You may pay {X}.", "target": "Puedes pagar X."},
    ]
    assert [f.ruling_id for f in found(units, termbase, cards, rules)] == ["es.txt:2"]


def test_forbidden_required_and_word_list_rules(tmp_path, termbase, cards):
    (tmp_path / "words.tsv").write_text("# wrong\tright\nremueve\tretira\n", encoding="utf-8")
    rules = checklist(
        tmp_path,
        """
        [[rule]]
        code = "X-NO-TARJETA"
        category = "terminology"
        message = "“{found}”: a card is a carta."
        target-not = 'tarjetas?'

        [[rule]]
        code = "X-GRAVEYARD"
        category = "terminology"
        message = "Where the source says graveyard, write cementerio."
        if-source = ["graveyard", "graveyards"]
        then-target = ["cementerio", "cementerios"]

        [[rule]]
        code = "X-WORDS"
        category = "style"
        message = "{found}: use {expected}."
        words-file = "words.tsv"

        [[rule]]
        code = "X-CASE"
        category = "style"
        message = "Suspender is written in lower case mid-sentence."
        case-sensitive = true
        source = 'suspend'
        target-not = '(?<=\\w )Suspender'
        """,
    )
    units = [
        {"source": "Put it into your graveyard.", "target": "Ponla en tu pila de descarte."},
        {"source": "Put it into your graveyard.", "target": "Ponla en tu cementerio."},
        {"target": "Roba una tarjeta y remueve un contador."},
        {
            "source": "Cards with suspend are exiled.",
            "target": "Las cartas con Suspender se exilian.",
        },
        {"source": "Suspend is a keyword.", "target": "Suspender es una palabra clave."},
    ]
    by_code = {}
    for finding in found(units, termbase, cards, rules):
        by_code.setdefault(finding.code, []).append(finding)
    assert [f.ruling_id for f in by_code["X-GRAVEYARD"]] == ["es.txt:1"]
    assert [f.message for f in by_code["X-NO-TARJETA"]] == ["“tarjeta”: a card is a carta."]
    assert [f.message for f in by_code["X-WORDS"]] == ["remueve: use retira."]
    assert [f.ruling_id for f in by_code["X-CASE"]] == ["es.txt:4"]


def test_extends_replaces_and_disables_inherited_rules_and_tsv_is_xbench_like(tmp_path):
    base = tmp_path / "base.toml"
    base.write_text(
        textwrap.dedent(CARDS_RULE)
        + textwrap.dedent(
            """
            [[rule]]
            code = "X-OLD"
            category = "style"
            message = "old"
            target-not = 'en juego'
            """
        ),
        encoding="utf-8",
    )
    rules = checklist(
        tmp_path,
        """
        extends = "base.toml"
        disable = ["X-OLD"]

        [[rule]]
        code = "X-CARDS"
        category = "number"
        severity = "warning"
        message = "kept"
        source = '(\\d+) cards?'
        target = '\\1'
        """,
    )
    assert [(r.code, r.severity, r.target) for r in rules.rules] == [("X-CARDS", "warning", "\\1")]
    tsv = tmp_path / "xbench.tsv"
    tsv.write_text(
        "code\tcategory\tseverity\tlanguages\tsource\ttarget\tmessage\n"
        "X-TAPPED\tterminology\twarning\tes\ttapped\tgirad[ao]s?\tTapped is girado.\n"
        "X-NO-JUEGO\tterminology\terror\t\t\t-en juego\tThe battlefield is not en juego.\n",
        encoding="utf-8",
    )
    [tapped, no_juego] = load_checklists([tsv]).rules
    assert (tapped.kind, tapped.languages, tapped.source) == ("pattern", ("es",), "tapped")
    assert (no_juego.kind, no_juego.target_not, no_juego.severity) == (
        "forbidden",
        "en juego",
        "error",
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"team.toml": 'extends = "team.toml"\n'},
            "team.toml: extends: the checklists extend each other in a loop",
        ),
        ({"team.toml": 'disable = ["X-NONE"]\n'}, "team.toml: disable: 'X-NONE' is no rule"),
        (
            {"team.toml": RULE_A + "target = 'x'\n"},
            "rule X-A: source: a pattern rule needs it",
        ),
        (
            {"team.toml": RULE_A + "source = 'x'\ntarget = '\\g<n>'\n"},
            "rule X-A: target: \\g<n>: the source pattern has no group 'n'",
        ),
        (
            {"team.toml": RULE_A + "target-not = 'x['\n"},
            "rule X-A: target-not: not a regular expression",
        ),
        (
            {"team.tsv": "code\tcategory\tmessage\ttarget\n"},
            "team.tsv:1: the header lacks the column severity",
        ),
        (
            {
                "team.tsv": "code\tcategory\tseverity\tsource\ttarget\tmessage\n"
                "X-A\tstyle\twarning\tx\t(x\tm\n"
            },
            "team.tsv:2: rule X-A: target: not a regular expression",
        ),
    ],
)
def test_a_broken_checklist_is_one_line_per_mistake(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ChecklistError) as raised:
        load_checklists([tmp_path / next(iter(files))])
    assert len(raised.value.lines) == 1 and expected in raised.value.lines[0], raised.value.lines


def test_team_rules_are_selected_baselined_and_described_by_the_reports(tmp_path, termbase, cards):
    rules = checklist(tmp_path, CARDS_RULE)
    units = [{"source": "Draw 3 cards.", "target": "Roba 2 cartas."}]
    assert "X-CARDS" in {f.code for f in found(units, termbase, cards, rules, select=("number",))}
    assert found(units, termbase, cards, rules, select=("TERM",)) == []
    [finding] = found(units, termbase, cards, rules)
    (tmp_path / "baseline.txt").write_text(finding.fingerprint + "\n", encoding="utf-8")
    new, accepted = Baseline.load(tmp_path / "baseline.txt").split([finding])
    assert (new, accepted) == ([], [finding])

    from pipelines.report.writers.html import _rule_summaries
    from pipelines.report.writers.sarif import write_sarif

    run = tables.RunTables([], findings=[finding], codes=tuple(rules.codes().values()))
    sarif = json.loads(write_sarif(run, tmp_path).read_text(encoding="utf-8"))
    [rule] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "X-CARDS"]
    assert rule["properties"]["category"] == "number"
    assert sarif["runs"][0]["results"][0]["ruleId"] == "X-CARDS"
    assert "X-CARDS" in _rule_summaries(run)
    bare = tables.RunTables([], findings=[finding])  # a report without the checklist
    assert (
        json.loads(write_sarif(bare, tmp_path).read_text(encoding="utf-8"))["runs"][0]["results"][
            0
        ]["ruleId"]
        == "X-CARDS"
    )


def test_a_documents_findings_are_cached_by_the_checklists_content(tmp_path, termbase, cards):
    """The same tables and cache: a changed rule is computed again, an unchanged one is
    taken from the cache."""
    from pipelines import stages

    out = tmp_path / "out"
    out.mkdir()
    ctx = context_of([{"source": "Draw 3 cards.", "target": "Roba 2 cartas."}], termbase, cards)
    tables.write_jsonl(out / tables.CORPUS, ctx.rulings)
    tables.write_jsonl(out / tables.ALIGNMENT, ctx.alignment)
    tables.write_jsonl(out / tables.PARSE_FINDINGS, [])
    tables.write_jsonl(out / tables.CARD_NAMES, [])
    resources = stages.Resources(termbase)

    def check(text: str, expect_cached: int) -> list[str]:
        rules = checklist(tmp_path, text)
        settings = Settings(cache_dir=tmp_path / "cache", select=("X-",), checklist=rules)
        reuse = Reuse()
        result = stages.check_stage(out, settings, resources, reuse=reuse)
        assert reuse.reused("check") == expect_cached
        return [f.message for f in result.findings]

    assert check(CARDS_RULE, 0) == ["“3 cards” must stay “3 cartas?”."]
    assert check(CARDS_RULE.replace("must stay", "is"), 0) == ["“3 cards” is “3 cartas?”."]
    assert check(CARDS_RULE.replace("must stay", "is"), 1) == ["“3 cards” is “3 cartas?”."]


def test_allow_lists_let_words_stay_in_english(tmp_path, termbase, cards):
    allow_file = tmp_path / "allow.tsv"
    allow_file.write_text(
        "# what may stay in English\nlang\ttext\tnote\n"
        "es\tMeddling Mage\tknown by its English name\n"
        "*\tMagic Online Championship\ta product name\n"
        "zh\tsideboard\tplayers say it in English\n",
        encoding="utf-8",
    )
    allow = AllowList.load([allow_file])
    sideboard = "你可以在对局之间使用sideboard。"
    units = [
        {
            "source": "Meddling Mage's ability stops it.",
            "target": "La habilidad de Meddling Mage lo impide.",
        },
        {"target": "Magic Online Championship", "lang": "zh", "text_lang": "en"},
        {"target": sideboard, "lang": "zh", "spans": [{"lang": "en", "start": 10, "end": 19}]},
    ]

    def codes(allowed: AllowList) -> list[tuple[str, str]]:
        ctx = context_of(units, termbase, cards)
        ctx.allow = allowed
        return sorted(
            (f.code, f.ruling_id) for f in run_checks(ctx, select=["CARD003", "UNTR001", "MIX001"])
        )

    assert codes(AllowList()) == [
        ("CARD003", "es.txt:1"),
        ("MIX001", "zh.txt:2"),
        ("UNTR001", "zh.txt:1"),
    ]
    assert codes(allow) == []
    assert allow.spans("La carta dice magic online  championship.", "es-419") == [(14, 40)]
    assert allow.spans("La carta dice sideboard.", "es") == []  # a Chinese entry
    bad = tmp_path / "bad.tsv"
    bad.write_text("lang\ttext\nspanish\tMTG\n", encoding="utf-8")
    with pytest.raises(AllowListError, match=r"bad.tsv:2: 'spanish' is no language code"):
        AllowList.load([bad])
