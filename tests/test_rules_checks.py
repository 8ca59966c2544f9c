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


def test_src002_a_note_on_the_translations_own_wording_is_not_reported(context_of):
    note = "（译注：中文版之副类别都是单独的一个词，且接在“～”符号后面。）"
    ctx = context_of(
        (
            "Subtypes are printed after a long dash.",
            f"副类别印在长破折号之后{note}。",
        )
    )
    assert findings(ctx, "SRC002") == []
    assert findings(ctx, "STYLE004") == []  # still no translation to check


BANDING = (
    "During the combat damage step, if an attacking creature is being blocked by a creature "
    "with banding, or by both a [quality] creature with “bands with other [quality]” and "
    "another [quality] creature, the defending player (rather than the active player) chooses "
    "how the attacking creature’s damage is assigned."
)


def test_omit001_a_repeated_variable_said_once_is_no_omission(context_of):
    """702.22j (2023): two placeholders say the three of the English."""
    ctx = context_of(
        (
            BANDING,
            "在战斗伤害步骤中，如果一个攻击生物的阻挡者符合下述情形之一，则由防御牌手（而不是"
            "主动牌手）来分配攻击生物所造成的伤害：该阻挡生物具结合异能、或两个阻挡生物同为"
            "[特性]生物，且其中之一具有“与其他[特性]结合”异能。",
        )
    )
    assert findings(ctx, "OMIT001") == []


def test_omit001_a_variable_left_out_entirely(context_of):
    """107.8 (2023): the [P/T] box's variable is written as words."""
    ctx = context_of(
        (
            "The same is true of the power/toughness box printed within that striation, "
            "indicated here as “[P/T].”",
            "而印在同一区块文字栏的力量／防御力方格，此处表示为“P/T”，也是同法看待。",
        )
    )
    assert [f.ruling_id for f in findings(ctx, "OMIT001")] == ["zh.txt:1"]


def test_omit002_a_condition_folded_into_the_sentence_is_no_omission(context_of):
    """603.7d (2023): the condition becomes a relative clause with every term kept."""
    ctx = context_of(
        (
            "If a spell creates a delayed triggered ability, the source of that delayed "
            "triggered ability is that spell.",
            "由咒语创造的延迟触发式异能的来源为该咒语。",
        )
    )
    assert findings(ctx, "OMIT002") == []


def test_ph001_a_symbol_the_source_names_in_words(context_of):
    """311.7 (2023): "the chaos symbol" rendered as 混沌符号{CHAOS}."""
    ctx = context_of(
        (
            "A plane card has a chaos ability, one that triggers “whenever you roll the chaos "
            "symbol” on the planar die.",
            "时空牌具有混沌异能，即“每当你在时空骰上掷出混沌符号{CHAOS}时”触发的异能。",
        )
    )
    assert findings(ctx, "PH001") == []


def test_ph001_counters_referred_back_to_in_words(context_of):
    """704.5q (2023): 两种指示物 stands for the repeated +1/+1 and -1/-1 counters."""
    ctx = context_of(
        (
            "If a permanent has both a +1/+1 counter and a -1/-1 counter on it, N +1/+1 and N "
            "-1/-1 counters are removed from it, where N is the smaller of the number of +1/+1 "
            "and -1/-1 counters on it.",
            "如果一个永久物上同时有+1/+1和-1/-1指示物，则从其上移去N个+1/+1和N个-1/-1指示物，"
            "N为两种指示物当中较少者的数量。",
        ),
        (
            "If a permanent has both a +1/+1 counter and a -1/-1 counter on it, N +1/+1 and N "
            "-1/-1 counters are removed from it.",
            "如果一个永久物上同时有+1/+1指示物，则从其上移去N个+1/+1和N个-1/-1指示物。",
        ),
    )
    assert [f.ruling_id for f in findings(ctx, "PH001")] == ["zh.txt:2"]


def test_a_correct_cross_reference_the_translation_adds(context_of):
    """704.5v (2023): the translation adds a reference to rule 310, Battles; a reference to
    an unrelated rule is still reported."""
    rulings = context_of(
        (
            "If a battle has no defense counters on it and it isn’t the source of an ability "
            "that has triggered but not yet left the stack, it’s put into its owner’s "
            "graveyard.",
            "如果一个战役上没有防御指示物，且它不是已触发但尚未离开堆叠的异能之来源，则将它置入"
            "其拥有者的坟墓场。参见规则310，“战役”。",
        ),
        (
            "If a battle has no defense counters on it, it’s put into its owner’s graveyard.",
            "如果一个战役上没有防御指示物，则将它置入其拥有者的坟墓场。参见规则702.19。",
        ),
    ).rulings
    battles = _rule("en.txt:10", "Battles", "en", "310")
    battles.kind = "heading"
    trample = _rule("en.txt:11", "Trample", "en", "702.19")
    trample.kind = "heading"
    ctx = CheckContext(
        [*rulings, battles, trample],
        [
            Alignment("en.txt:1", "zh.txt:1", "zh", 0.9, "rule", 0.8, "en.txt"),
            Alignment("en.txt:2", "zh.txt:2", "zh", 0.9, "rule", 0.8, "en.txt"),
        ],
        Termbase.load(),
        CardIndex.build([]),
        "en",
    )
    assert findings(ctx, "NUM001") == []
    assert [f.ruling_id for f in findings(ctx, "PH001")] == ["zh.txt:2"]


def test_term003_old_wording_the_source_itself_quotes(context_of):
    """406.8 (2023) quotes the old wording of exile."""
    ctx = context_of(
        (
            "Previously, the exile zone was called the “removed-from-the-game zone.” Cards "
            "that were printed with text that “removes [an object] from the game” exiles that "
            "object.",
            "多年以来，放逐区被称为“移出对战区”。牌的文字栏印有“将[一个物件]移出对战”放逐该物件。",
        )
    )
    assert findings(ctx, "TERM003") == []


def test_term001_a_card_name_in_an_example(context_of):
    """712.21d (2023): 墓地 inside the card name 墓地鼠群 (Graf Rats), beside 坟墓场."""
    ctx = context_of(
        (
            "Example: If a card would be put into an opponent’s graveyard from anywhere, exile "
            "it instead. Midnight Scavengers and Graf Rats are put into the appropriate zone.",
            "例如：如果某牌将从任何区域置入对手的坟墓场，则改为将它放逐。午夜拾荒客和墓地鼠群都会"
            "被移到对应的区域。",
        ),
        (
            "If a card would be put into an opponent’s graveyard from anywhere, exile it instead.",
            "如果某牌将从任何区域置入对手的墓地，则改为将它放逐。",
        ),
    )
    assert [f.ruling_id for f in findings(ctx, "TERM001")] == ["zh.txt:2"]


def test_term002_a_concept_the_rules_make_implicit(context_of):
    """702.106c and 702.154a (2023): a conspiracy is only in the command zone, and only an
    untapped creature can be tapped; an untap left out is still reported."""
    ctx = context_of(
        (
            "Any time you have priority, you may turn a face-down conspiracy card you control "
            "in the command zone face up.",
            "于任何你拥有优先权的时机，你可以把由你操控的牌面朝下之诡局牌翻回正面。",
        ),
        (
            "As this creature attacks, you may tap up to one untapped creature you control.",
            "于此生物攻击时，你可以横置至多一个由你操控的生物。",
        ),
        (
            "Untap target creature you control.",
            "横置目标由你操控的生物。",
        ),
    )
    found = [(f.ruling_id, f.evidence["concept"]) for f in findings(ctx, "TERM002")]
    assert found == [("zh.txt:3", "untap")]


TWO_HEADED = (
    "For each player a team has beyond the second, that team’s starting life total is "
    "increased by 15 and the number of poison counters required for the team to lose is "
    "increased by five. (These variants are called Three-Headed Giant, and so on.)"
)


def test_num001_numbers_of_an_aside_the_translation_adds_are_its_explanation(context_of):
    """810.11: the translation adds what a team of two starts with (30 life, 15 poison
    counters) in an aside of its own; a number changed outside it is still reported."""
    explained = (
        "从两位牌手算起（起始总生命为30，且得到15个中毒指示物输去游戏），队伍中每多出一名牌手，"
        "队伍的起始总生命便增加15，输去游戏所需的中毒指示物便增加5。（这些玩法称为三头巨人，依此类推。）"
    )
    changed = explained.replace("便增加15", "便增加20")
    ctx = context_of((TWO_HEADED, explained), (TWO_HEADED, changed), section="810.11")
    found = findings(ctx, "NUM001")
    assert [f.ruling_id for f in found] == ["zh.txt:2"]
    assert "20" in found[0].message
