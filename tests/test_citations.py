"""SRC001: a rule the English cites by the wrong number, and the translation cites right.

The fixture is an excerpt shaped like a newer release of the Comprehensive Rules than the
ones in ../shared, where 723 is The Initiative, 724 Restarting the Game and 726 Subgames
(the texts are the 2023 rules' own, en and zh): three citations without a title that the
English gets wrong, as a reviewer found them in that release, and two it gets right.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES

from pipelines.check.references import miscited, plain_citations, rule_topics, topic_words
from pipelines.cli import main

EXCERPT = FIXTURES / "citations"


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    import json

    from click.testing import CliRunner

    out = tmp_path_factory.mktemp("citations")
    result = CliRunner().invoke(
        main, ["run", str(EXCERPT), "--out", str(out), "--fail-on", "never"]
    )
    assert result.exit_code == 0, result.output
    lines = (out / "findings.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.model
def test_the_source_is_blamed_for_the_numbers_it_gets_wrong(findings):
    by_line = {f["line"]: f for f in findings if f["code"] == "SRC001"}
    assert sorted(by_line) == [25, 27, 42]
    assert {(f["evidence"]["found"], f["evidence"]["expected"]) for f in by_line.values()} == {
        ("723", "724"),  # "(see rule 723)" for restarting the game: 723 is The Initiative
        ("724", "726"),  # "If a Magic subgame (see rule 724)": subgames are 726
        ("110.10", "111.10"),  # the glossary's Food: predefined tokens are 111.10
    }
    assert all(f["file"] == "rules_en.txt" for f in by_line.values())
    subgame = by_line[27]
    assert subgame["evidence"]["found_title"] == "Restarting the Game"
    assert subgame["evidence"]["expected_title"] == "Subgames"
    assert "726 (Subgames)" in subgame["message"]


@pytest.mark.model
def test_the_translation_is_not_asked_to_copy_the_wrong_number(findings):
    on_translation = [f for f in findings if f["file"] == "rules_zh.txt"]
    assert [f for f in on_translation if f["code"] in ("PH001", "NUM001")] == []


def test_a_number_the_sentence_is_about_on_both_sides_is_no_error():
    """725.1 cites 702.145 and the translation too; a citation whose rule the sentence is
    about on both sides ("restarts the game … subgame") leaves the translation's number to
    NUM001."""
    from pipelines.model import Ruling

    def rule(number: str, text: str, lang: str = "en", kind: str = "rule") -> Ruling:
        return Ruling(
            f"{lang}:{number}",
            f"{lang}.txt",
            1,
            "cr-text",
            None,
            None,
            number,
            lang,
            lang,
            [],
            None,
            None,
            text,
            doc=f"{lang}.txt",
            kind=kind,
        )

    rules = [
        rule("724", "Restarting the Game", kind="heading"),
        rule("724.1", "One card (Karn Liberated) restarts the game."),
        rule("726", "Subgames", kind="heading"),
        rule("726.1", "One card (Shahrazad) allows players to play a Magic subgame."),
    ]
    topics = rule_topics(rules, "en")["en.txt"]
    both = "A restarted game is no subgame (see rule 724)."
    source = rule("727.1", both)
    target = rule("727.1", "重新开始的游戏不是子游戏（参见规则726）。", "zh")
    assert topic_words("subgames") == topic_words("subgame")
    assert miscited(source, target, {}, "en", "zh", topics) == []
    wrong = rule("727.1", "If a Magic subgame (see rule 724) is restarted, nothing happens.")
    assert [(o.number, t.number) for o, t in miscited(wrong, target, {}, "en", "zh", topics)] == [
        ("724", "726")
    ]
    assert dict(topics) == {
        "724": topic_words("Restarting the Game Restarting the Game"),
        "724.1": topic_words("One card (Karn Liberated) restarts the game. Restarting the Game"),
        "726": topic_words("Subgames Subgames"),
        "726.1": topic_words(
            "One card (Shahrazad) allows players to play a Magic subgame. Subgames"
        ),
    }
    assert "725" not in topics and len(topics) == 4
    asked = rule_topics(rules, "en")["en.txt"]
    assert asked["726"] == topics["726"] and list(asked._words) == ["726"]  # worked out when asked


def test_plain_citations_read_numbers_after_rule_and_dotted_references():
    text = "See rule 702.19, “Trample,” and rule 726; also 601.2b–h. Not 3.5 or 12."
    assert [c.number for c in plain_citations(text, "en")] == ["702.19", "726", "601.2b"]
    assert [c.number for c in plain_citations("参见规则726，“子游戏”以及601.2f。", "zh")] == [
        "726",
        "601.2f",
    ]


def test_the_fixture_is_the_excerpt_described():
    english = (EXCERPT / "rules_en.txt").read_text(encoding="utf-8")
    assert "If a Magic subgame (see rule 724) is restarted" in english
    assert Path(EXCERPT / "rules_zh.txt").read_text(encoding="utf-8").count("参见规则726") == 2
