"""The rules-text checks on pairs taken from the Comprehensive Rules (2023-10-13, en/zh):
dropped variables and conditions (OMIT001, OMIT002), compound terms (TERM005) and
translator's notes (SRC002). Each fires on the real defect and stays quiet on the correct
translation. No shared data, no embedding model."""

from __future__ import annotations

import pytest

from pipelines.cards import CardIndex
from pipelines.check import CheckContext, run_checks
from pipelines.model import Alignment, Finding, Ruling
from pipelines.termbase import Termbase


@pytest.fixture(scope="module")
def context_of():
    termbase, cards = Termbase.load(), CardIndex.build([])

    def build(*pairs: tuple[str, str], section: str = "702.1") -> CheckContext:
        rulings, alignment = [], []
        for n, (english, chinese) in enumerate(pairs, 1):
            source = _rule(f"en.txt:{n}", english, "en", section)
            target = _rule(f"zh.txt:{n}", chinese, "zh", section)
            rulings += [source, target]
            alignment.append(Alignment(source.id, target.id, "zh", 0.9, "rule", 0.8, "en.txt"))
        return CheckContext(rulings, alignment, termbase, cards, "en")

    return build


def _rule(rid: str, text: str, lang: str, section: str | None) -> Ruling:
    file, line = rid.rsplit(":", 1)
    return Ruling(
        rid, file, int(line), "cr-text", "Comprehensive Rules", None, section, lang, lang, [],
        None, None, text, doc=file, kind="rule",
        doc_kind="source" if lang == "en" else "translation", position=int(line),
    )  # fmt: skip


def findings(ctx: CheckContext, code: str) -> list[Finding]:
    return run_checks(ctx, select=[code])


TEMPLATES = (
    "Some permanents have text that reads “[This permanent] enters the battlefield with . . . ,” "
    "“As [this permanent] enters the battlefield . . . ,” “[This permanent] enters the "
    "battlefield as . . . ,” or “[This permanent] enters the battlefield tapped.”"
)


def test_omit001_a_template_left_out(context_of):
    ctx = context_of(
        (
            TEMPLATES,
            "一些永久物具有叙述“[此永久物]进入战场时上面有……”、“于[此永久物]进入战场时，……”"
            "或“[此永久物]横置进入战场”。",
        ),
        (
            TEMPLATES,
            "一些永久物具有叙述“[此永久物]进入战场时上面有……”、“于[此永久物]进入战场时，……”、"
            "“[此永久物]作为……进入战场”或“[此永久物]横置进入战场”。",
        ),
    )
    found = findings(ctx, "OMIT001")
    assert [f.ruling_id for f in found] == ["zh.txt:1"]
    assert len(found[0].evidence["expected"]) == 4 and len(found[0].evidence["found"]) == 3


def test_omit001_is_quiet_on_card_text_and_loyalty_brackets(context_of):
    ctx = context_of(("[+2]: Create a Food token.", "+2：派出一个食品衍生物。"), section=None)
    assert findings(ctx, "OMIT001") == []


SUBGAME = (
    "If a spell’s controller declares the intention to pay any of that spell’s kicker costs, "
    "that spell has been “kicked.” If a spell has two kicker costs or has multikicker, it may "
    "be kicked multiple times."
)


def test_omit002_a_condition_left_out(context_of):
    ctx = context_of(
        (SUBGAME, "如果一个咒语的操控者宣告将要支付该咒语的任何增幅费用，则该咒语为“已增幅”。"),
        (
            SUBGAME,
            "如果一个咒语的操控者宣告将要支付该咒语的任何增幅费用，则该咒语为“已增幅”。"
            "如果一个咒语具有两个增幅费用或具有多重增幅，则其可以被增幅多次。",
        ),
    )
    assert [f.ruling_id for f in findings(ctx, "OMIT002")] == ["zh.txt:1"]


def test_omit002_if_so_refers_back_and_is_no_condition(context_of):
    ctx = context_of(
        (
            "Continuous effects that affect a phased-out permanent may expire while that "
            "permanent is phased out. If so, they will no longer affect that permanent once it’s "
            "phased in.",
            "影响已跃离永久物的持续性效应的时限，可能在该永久物跃离的期间过期。对于这种情况，"
            "该永久物跃回时已不再受该些持续性效应影响。",
        )
    )
    assert findings(ctx, "OMIT002") == []


DOCTOR = (
    "A partner ability that allows a player to play with two legendary creature cards as their "
    "commander if one of them has Doctor’s companion and the other is a Time Lord Doctor."
)


def test_term005_another_compound_with_the_right_one(context_of):
    ctx = context_of(
        (
            DOCTOR,
            "在指挥官玩法中，如果两张传奇永久物牌其中之一具有“博士伙伴”异能，则可将其用作指挥官。",
        ),
        (
            DOCTOR,
            "在指挥官玩法中，如果两张传奇生物牌其中之一具有“博士伙伴”异能，则可将其用作指挥官。",
        ),
    )
    found = findings(ctx, "TERM005")
    assert [f.ruling_id for f in found] == ["zh.txt:1"]
    assert found[0].evidence["expected"] == "传奇生物牌"
    assert found[0].evidence["instead"] == {"found": "permanent", "expected": "creature"}


def test_term005_is_quiet_when_another_compound_is_said_besides(context_of):
    ctx = context_of(
        (
            "A player can’t cast a legendary instant or sorcery spell unless that player "
            "controls a legendary creature or a legendary planeswalker.",
            "除非牌手操控传奇生物或传奇鹏洛客，否则其不能施放传奇瞬间或法术咒语。",
        )
    )
    assert findings(ctx, "TERM005") == []


def test_src002_a_translators_note_once_and_not_checked(context_of):
    note = "（译注：英文原文遗漏了「战役」。）"
    ctx = context_of(
        (
            "Permanents are artifacts, creatures, enchantments, lands, and planeswalkers.",
            f"永久物包括神器、生物、结界、地、鹏洛客和战役{note}。",
        ),
        (
            "A permanent is a card or token on the battlefield.",
            f"永久物指战场上的牌或衍生物{note}。",
        ),
    )
    notes = findings(ctx, "SRC002")
    assert len(notes) == 1
    assert notes[0].evidence["note"] == note
    assert notes[0].evidence["rulings"] == ["zh.txt:1", "zh.txt:2"]
    assert notes[0].ruling_id == "en.txt:1"  # where the English team reads it
    assert findings(ctx, "STYLE004") == []  # its corner quotes are not the document's
