"""The rules-text checks on pairs taken from the Comprehensive Rules (2023-10-13, en/zh):
dropped variables, templates and conditions (OMIT001, OMIT005, OMIT002), compound terms
(TERM005) and
translator's notes (SRC002). Each fires on the real defect and stays quiet on the correct
translation. No shared data, no embedding model."""

from __future__ import annotations

import pytest

from pipelines.cards import CardIndex
from pipelines.check import CheckContext, run_checks
from pipelines.check.confidence import with_confidence
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


ECHO = (
    "Echo is a triggered ability. “Echo [cost]” means “At the beginning of your upkeep, if "
    "this permanent came under your control since the beginning of your last upkeep, "
    "sacrifice it unless you pay [cost].”"
)
ECHO_ZH = (
    "返响属于触发式异能。“返响[费用]”意指，“在你的维持开始时，若你在你最近的维持开始后"
    "才开始操控该永久物，则除非你支付[费用]，否则牺牲之。”"
)
OVERLOAD = (
    "Overload is a keyword that represents two static abilities that function while the spell "
    "with overload is on the stack. Overload [cost] means “You may choose to pay [cost] rather "
    "than pay this spell’s mana cost” and “If you chose to pay this spell’s overload cost, "
    "change its text by replacing all instances of the word ‘target’ with the word ‘each.’”"
)
OVERLOAD_ZH = (
    "超载此关键字代表两个具有该异能的咒语在堆叠上时生效的静止式异能。超载[费用]指：“你可以"
    "选择支付[费用]，而非支付此咒语的法术力费用”以及“如果你选择支付此咒语的超载费用，则将其"
    "规则叙述中的‘目标’字样全部更改为‘每个’”。"
)


def test_omit005_a_keyword_defined_without_its_variable(context_of):
    """702.30a and 702.96a (2023) with the keyword's [费用] left out: “返响”意指, 超载指："""
    ctx = context_of(
        (ECHO, ECHO_ZH),
        (ECHO, ECHO_ZH.replace("“返响[费用]”", "“返响”")),
        (OVERLOAD, OVERLOAD_ZH),
        (OVERLOAD, OVERLOAD_ZH.replace("超载[费用]指", "超载指")),
    )
    found = findings(ctx, "OMIT005")
    assert [f.ruling_id for f in found] == ["zh.txt:2", "zh.txt:4"]
    assert found[0].evidence["gap"] == "bare keyword"
    assert found[0].evidence["expected"] == ["“Echo [cost]” means"]


REPLICATE = (
    "“Replicate [cost]” means “As an additional cost to cast this spell, you may pay [cost] "
    "any number of times” and “When you cast this spell, if a replicate cost was paid for it, "
    "copy it for each time its replicate cost was paid. If the spell has any targets, you may "
    "choose new targets for any of the copies.”"
)
REPLICATE_ZH = (
    "“覆诵[费用]”意指，“你可以支付[费用]任意次数，以作为施放此咒语的额外费用”以及“当你施放此"
    "咒语时，若支付过其覆诵费用，则每支付过一次覆诵费用，就可以将它复制一次。若此咒语需要"
    "目标，你可以为任意数量之复制选择新的目标。”"
)
DASH = (
    "“Dash [cost]” means “You may cast this card by paying [cost] rather than its mana cost,” "
    "“If this spell’s dash cost was paid, return the permanent this spell becomes to its "
    "owner’s hand at the beginning of the next end step,” and “As long as this permanent’s "
    "dash cost was paid, it has haste.”"
)
DASH_ZH = (
    "“掩袭[费用]”意指“你可以支付[费用]来施放此牌，而非支付其法术力费用”，“如果你选择支付此"
    "咒语的掩袭费用，则在结束步骤开始时，将此咒语成为的永久物移回其拥有者手上”，以及“只要"
    "支付了此永久物的掩袭费用，它便具有敏捷”。"
)


def test_omit005_a_definition_listing_fewer_templates(context_of):
    """702.56a and 702.109a (2023): one of the quoted templates after 意指 left out, the
    list left opening with 以及, or two of three left."""
    ctx = context_of(
        (REPLICATE, REPLICATE_ZH),
        (
            REPLICATE,
            REPLICATE_ZH.replace("，“你可以支付[费用]任意次数，以作为施放此咒语的额外费用”", ""),
        ),
        (DASH, DASH_ZH),
        (DASH, DASH_ZH.replace("“你可以支付[费用]来施放此牌，而非支付其法术力费用”，", "")),
    )
    found = findings(ctx, "OMIT005")
    assert [f.ruling_id for f in found] == ["zh.txt:2", "zh.txt:4"]
    assert {f.evidence["gap"] for f in found} == {"definition list"}


MADNESS = (
    "“Madness [cost]” means “If a player would discard this card, that player discards it, "
    "but exiles it instead of putting it into their graveyard” and “When this card is exiled "
    "this way, its owner may cast it by paying [cost] rather than paying its mana cost. If "
    "that player doesn’t, they put this card into their graveyard.”"
)
MADNESS_ZH = (
    "“疯魔[费用]”意指，“若牌手将弃掉此牌，则该牌手将其弃掉，但改为将其放逐，而非置于其坟墓场”"
    "以及“当此牌以此法被放逐时，其拥有者可通过支付[费用]来施放之，而不是支付其法术力费用。若"
    "该牌手未如此作，则将此牌置入其坟墓场。”"
)
BOAST = (
    "A boast ability is a special kind of activated ability. “Boast — [Cost]: [Effect]” means "
    "“[Cost]: [Effect]. Activate only if this creature attacked this turn and only once each "
    "turn.”"
)
BOAST_ZH = (
    "炫威异能属于一类特殊的起动式异能。“炫威～[费用]：[效应]”意指，“[费用]：[效应]。只能于此"
    "生物攻击过的回合中起动，且每回合只能起动一次。”"
)


def test_omit005_a_slot_left_empty(context_of):
    """702.35a and 702.142a (2023): 支付 with nothing to pay, a colon with no effect."""
    ctx = context_of(
        (MADNESS, MADNESS_ZH),
        (MADNESS, MADNESS_ZH.replace("通过支付[费用]来", "通过支付来")),
        (BOAST, BOAST_ZH),
        (BOAST, BOAST_ZH.replace("“[费用]：[效应]。", "“[费用]：。")),
    )
    found = findings(ctx, "OMIT005")
    assert [f.ruling_id for f in found] == ["zh.txt:2", "zh.txt:4"]
    assert {f.evidence["gap"] for f in found} == {"empty slot"}


EQUIP = (
    "Equip abilities may further restrict what creatures may be chosen as legal targets. Such "
    "restrictions usually appear in the form “Equip [quality]” or “Equip [quality] creature.”"
)
EQUIP_ZH = (
    "佩带异能可能会进一步限制哪些生物可以选作合法目标。此类限制通常以“佩带[特性]”或"
    "“佩带[特性]生物”的形式出现。"
)


def test_omit005_a_short_template_quoted_without_its_variable(context_of):
    """702.6c (2023): “Equip [quality]” quoted as “佩带”."""
    ctx = context_of((EQUIP, EQUIP_ZH), (EQUIP, EQUIP_ZH.replace("“佩带[特性]”或", "“佩带”或")))
    found = findings(ctx, "OMIT005")
    assert [f.ruling_id for f in found] == ["zh.txt:2"]
    assert found[0].evidence == {"gap": "short template", "expected": ["[quality]"]}


def test_omit005_is_quiet_on_natural_translations(context_of):
    """Rules of 2023 translated in their own way: a [cost] said in words in a long template
    (702.34a), a variable before the keyword (702.41a), a definition not quoted (701.31a), a
    repeated [quality] said once (702.22j)."""
    ctx = context_of(
        (
            "“Flashback [cost]” means “You may cast this card from your graveyard if the "
            "resulting spell is an instant or sorcery spell by paying [cost] rather than paying "
            "its mana cost” and “If the flashback cost was paid, exile this card instead of "
            "putting it anywhere else any time it would leave the stack.”",
            "“返照[费用]”意指，“如果由此牌施放的咒语是瞬间或法术咒语，你可以从你的坟墓场中施放此"
            "牌，并支付其返照费用，而非支付其法术力费用”以及“若曾支付返照费用，则在它将于任何时机"
            "下离开堆叠时，改为将其放逐，而非置入任何其他地方。”",
        ),
        (
            "“Affinity for [text]” means “This spell costs you {1} less to cast for each [text] "
            "you control.”",
            "“[文字]共鸣”意指“你每操控一个[文字]，施放此咒语的费用便减少{1}来施放。”",
        ),
        (
            "“Monstrosity N” means “If this permanent isn’t monstrous, put N +1/+1 counters on "
            "it and it becomes monstrous.”",
            "“蛮化N”意指，如果此永久物未蛮化，则在其上放置N个+1/+1指示物且它蛮化。",
        ),
        (
            "During the combat damage step, if an attacking creature is being blocked by a "
            "creature with banding, or by both a [quality] creature with “bands with other "
            "[quality]” and another [quality] creature, the defending player (rather than the "
            "active player) chooses how the attacking creature’s damage is assigned.",
            "在战斗伤害步骤中，如果一个攻击生物的阻挡者符合下述情形之一，则由防御牌手（而不是主动"
            "牌手）来分配攻击生物所造成的伤害：该阻挡生物具结合异能、或两个阻挡生物同为[特性]生物，"
            "且其中之一具有“与其他[特性]结合”异能。",
        ),
    )
    assert findings(ctx, "OMIT005") == []


ATTACK_COSTS = (
    "If any of the chosen creatures require paying costs to attack, or if any optional costs "
    "to attack were chosen, the active player determines the total cost to attack. Costs may "
    "include paying mana, tapping permanents, sacrificing permanents, discarding cards, and so "
    "on."
)
CONSPIRACIES = (
    "If a player leaves the game, all face-down conspiracy cards controlled by that player "
    "must be revealed to all players. At the end of each game, all face-down conspiracy cards "
    "must be revealed to all players."
)
CONSPIRACIES_ZH = (
    "如果一位牌手将离开游戏，所有由该牌手操控的牌面朝下的诡局牌必须向所有牌手展示。在每盘游戏"
    "结束时，所有牌面朝下的诡局牌必须向所有牌手展示。"
)


def test_omit002_a_condition_whose_gap_is_left(context_of):
    """508.1h (2023) without its first condition, the sentence left opening with 或; 702.106e
    without its condition, 该牌手 left referring to a player nothing names."""
    ctx = context_of(
        (
            ATTACK_COSTS,
            "或选择了攻击的可选费用，则主动牌手确定攻击需要的总费用。费用可能包括支付法术力、横置"
            "永久物、牺牲永久物、弃牌等。",
        ),
        (CONSPIRACIES, CONSPIRACIES_ZH.replace("如果一位牌手将离开游戏，", "")),
        (CONSPIRACIES, CONSPIRACIES_ZH),
    )
    assert [f.ruling_id for f in findings(ctx, "OMIT002")] == ["zh.txt:1", "zh.txt:2"]


def test_omit002_a_folded_condition_that_refers_back_is_no_omission(context_of):
    """603.7d (2023): 该咒语 refers to the 咒语 the folded condition names."""
    ctx = context_of(
        (
            "If a spell creates a delayed triggered ability, the source of that delayed "
            "triggered ability is that spell. The controller of that delayed triggered ability "
            "is the player who controlled that spell as it resolved.",
            "由咒语创造的延迟触发式异能的来源为该咒语。该延迟触发式异能的操控者与创造它的咒语结算时"
            "该咒语的操控者相同。",
        )
    )
    assert findings(ctx, "OMIT002") == []


def test_term002_in_a_condensed_translation_says_so_and_is_less_sure(context_of):
    """506.7g (2023) folds the clause on casting into 与咒语一样 (a reviewer: debatable);
    700.7 writes 回合步骤 for the end step at the usual length (true): both are reported, the
    condensed one as such and less sure."""
    ctx = context_of(
        (
            "Rules 506.7 and 506.7a–f apply to abilities that state that they may be activated "
            "only at certain times with respect to combat just as they apply to spells that "
            "state that they may be cast only at certain times with respect to combat.",
            "与咒语一样，规则506.7和506.7a-f同样适用于叙述其只能在战斗阶段中的某个时间点起动的异能。",
        ),
        (
            "Example: An ability reads “Target creature gets +2/+2 until end of turn. Destroy "
            "that creature at the beginning of the next end step.” The ability will destroy the "
            "object it gave +2/+2 to even if that object isn’t a creature at the beginning of "
            "the next end step.",
            "例如：某异能为“目标生物得+2/+2直到回合结束。在下个回合步骤开始时，消灭该生物。”"
            "该异能将在下个回合步骤开始时消灭其赋予+2/+2的物件，即使它已不是生物。",
        ),
    )
    found = {f.evidence["concept"]: f for f in findings(ctx, "TERM002")}
    assert set(found) == {"cast", "end-step"}
    condensed, plain = found["cast"], found["end-step"]
    assert condensed.evidence["_class"] == "condensed"
    assert "condensed here" in condensed.message
    assert "_class" not in plain.evidence and "condensed" not in plain.message
    alignment = [
        Alignment(f.source_id, f.ruling_id, "zh", 0.9, "rule", 0.8, "en.txt")
        for f in (condensed, plain)
    ]
    sure = {
        f.evidence["concept"]: f.confidence for f in with_confidence([condensed, plain], alignment)
    }
    assert sure["cast"] < sure["end-step"]


def test_term003_one_finding_for_every_form_of_one_old_wording(context_of):
    """303.4e (2023) writes the old 受此结界 three times, twice with 的 and once without:
    one finding names both forms and marks all three."""
    ctx = context_of(
        (
            "An Aura’s controller is separate from the enchanted object’s controller or the "
            "enchanted player; the two need not be the same. If an Aura enchants an object, "
            "changing control of the object doesn’t change control of the Aura, and vice versa. "
            "Only the Aura’s controller can activate its abilities. However, if the Aura grants "
            "an ability to the enchanted object (with “gains” or “has”), the enchanted object’s "
            "controller is the only one who can activate that ability.",
            "灵气的操控者与受此结界的生物之操控者并不相干；他们并不需要是同一人。如果灵气结附"
            "于永久物上，改变该生物的操控权并不会改变灵气的操控权，反之亦然。只有灵气的操控者"
            "才能起动它的异能。如果灵气赋予受此结界的生物任何异能（使用“获得”或“具有”），"
            "则此异能只有受此结界之生物的操控者才能起动。",
        ),
        section="303.4e",
    )
    [found] = findings(ctx, "TERM003")
    assert found.evidence["found"] == ["受此结界的", "受此结界"]
    assert len(found.marks) == 3
    assert found.message.startswith("“受此结界的”, “受此结界” are old wording")


LEVEL_SYMBOL = (
    "A level symbol is a keyword ability that represents a static ability. The level symbol "
    "includes either a range of numbers, indicated here as “N1-N2,” or a single number "
    "followed by a plus sign, indicated here as “N3+.” Any abilities printed within the same "
    "text box striation as a level symbol are part of its static ability. The same is true of "
    "the power/toughness box printed within that striation, indicated here as “[P/T].”"
)


def test_omit001_a_variable_kept_without_its_brackets_is_no_omission(context_of):
    """711.2 (2023) writes [P/T] as “P/T”: reported as a variable without brackets, at info
    severity, not as a variable left out; a translation without it is still an omission."""
    kept = (
        "等级符号是代表静止式异能的关键字异能。等级符号可能包括了某范围的数字，此处表示为"
        "“N1-N2”；或是单一数字后面带着加号，此处表示为“N3+”。任何与等级符号印在同一区块文字栏"
        "的异能，都是其静止式异能的一部分。而印在同一区块文字栏的力量／防御力方格，此处表示为"
        "“P/T”，也是同法看待。"
    )
    dropped = kept.replace(
        "而印在同一区块文字栏的力量／防御力方格，此处表示为“P/T”，也是同法看待。", ""
    )
    ctx = context_of((LEVEL_SYMBOL, kept), (LEVEL_SYMBOL, dropped), section="711.2")
    by_unit = {f.ruling_id: f for f in findings(ctx, "OMIT001")}
    assert set(by_unit) == {"zh.txt:1", "zh.txt:2"}
    unbracketed, left_out = by_unit["zh.txt:1"], by_unit["zh.txt:2"]
    assert unbracketed.severity == "info"
    assert unbracketed.evidence["unbracketed"] == ["P/T"]
    assert "without its brackets" in unbracketed.message
    assert [kept[m["start"] : m["end"]] for m in unbracketed.marks] == ["P/T"]
    assert left_out.severity == "warning" and "left out" in left_out.message
