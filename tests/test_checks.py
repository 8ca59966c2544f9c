"""Each check family on small hand-built pairs: it fires on a real defect and stays quiet on
the correct translation. No shared data, no embedding model."""

from __future__ import annotations

import pytest
from check_helpers import Run, codes_on, ruling

from pipelines.check.lexicon import numbers
from pipelines.check.registry import CHECKS, check
from pipelines.model import Alignment


@pytest.fixture
def run(termbase, cards) -> Run:
    return Run(termbase, cards)


# --- terminology -------------------------------------------------------------------------


SUSPEND_EN = (
    "The last ability of suspend is a triggered ability; it triggers when the last time "
    "counter is removed."
)


def test_term001_habilidad_activada_for_a_triggered_ability(run):
    wrong = run.pair(
        SUSPEND_EN,
        "La última habilidad de suspender es una habilidad activada; se dispara cuando se "
        "remueve el último contador de tiempo.",
        "es",
    )
    right = run.pair(
        SUSPEND_EN,
        "La última habilidad de suspender es una habilidad disparada; se dispara cuando se "
        "remueve el último contador de tiempo.",
        "es",
    )
    found = codes_on(run, "TERM001", wrong)
    assert [f.evidence["concept"] for f in found] == ["triggered-ability"]
    assert found[0].evidence["found"] == ["habilidad activada"]
    assert found[0].severity == "error" and found[0].category == "terminology"
    assert codes_on(run, "TERM001", right) == []


def test_term001_se_activa_for_triggers(run):
    wrong = run.pair(
        "Suspend's last ability triggers when the last time counter is removed.",
        "La última habilidad de suspender se activa cuando se remueve el último contador de "
        "tiempo.",
        "es",
    )
    right = run.pair(
        "Suspend's last ability triggers when the last time counter is removed.",
        "La última habilidad de suspender se dispara cuando se remueve el último contador de "
        "tiempo.",
        "es",
    )
    assert {f.evidence["concept"] for f in codes_on(run, "TERM001", wrong)} == {"trigger-verb"}
    assert codes_on(run, "TERM001", right) == []


def test_term001_chinese_activated_for_triggered(run):
    wrong = run.pair(
        "A triggered ability uses the stack.", "起动式异能使用堆叠。", "zh", doc_lang="zh"
    )
    right = run.pair(
        "A triggered ability uses the stack.", "触发式异能使用堆叠。", "zh", doc_lang="zh"
    )
    assert [f.evidence["found"] for f in codes_on(run, "TERM001", wrong)] == [["起动式异能"]]
    assert codes_on(run, "TERM001", right) == []


def test_term001_a_repeated_noun_is_not_a_swap(run):
    """起动该起动式异能 repeats the noun where English says "activated it"; every triggered
    ability of the source is still there, so nothing was swapped."""
    repeated = run.pair(
        "The controller of an activated ability is the player who activated it. The "
        "controller of a triggered ability is the player who controlled its source.",
        "起动式异能的操控者为起动该起动式异能的人。触发式异能的操控者为操控其来源的牌手。",
        "zh",
    )
    swapped = run.pair(
        "The controller of an activated ability is the player who activated it. The "
        "controller of a triggered ability is the player who controlled its source.",
        "起动式异能的操控者为起动该起动式异能的人。起动式异能的操控者为操控其来源的牌手。",
        "zh",
    )
    assert codes_on(run, "TERM001", repeated) == []
    assert [f.evidence["concept"] for f in codes_on(run, "TERM001", swapped)] == [
        "triggered-ability"
    ]


def test_term001_a_coordination_that_says_the_noun_once_is_not_a_swap(run):
    """Trickbind (TSP): "la habilidad activada o disparada" says both abilities, as
    "activated or triggered ability" does; the later "habilidades activadas" are the
    activated ones. A triggered ability translated as activated is still reported."""
    trickbind = (
        "Counter target activated or triggered ability. If a permanent's ability is "
        "countered this way, activated abilities of that permanent can't be activated this "
        "turn."
    )
    coordinated = run.pair(
        trickbind,
        "Contrarresta la habilidad activada o disparada objetivo. Si la habilidad de un "
        "permanente es contrarrestada de esta manera, las habilidades activadas de ese "
        "permanente no pueden jugarse este turno.",
        "es",
    )
    swapped = run.pair(
        trickbind,
        "Contrarresta la habilidad activada objetivo. Si la habilidad de un permanente es "
        "contrarrestada de esta manera, las habilidades activadas de ese permanente no "
        "pueden jugarse este turno.",
        "es",
    )
    assert codes_on(run, "TERM001", coordinated) == []
    assert [f.evidence["concept"] for f in codes_on(run, "TERM001", swapped)] == [
        "triggered-ability"
    ]


def test_term001_a_form_inside_the_cards_own_name_is_the_names(run):
    """A new set's card no card data names yet, whose printed Chinese name holds 墓地 (as
    墓地翻拣怪, Grave Scrabbler, did in the tuning runs whose card index lacked FUT): where
    the document's title names the card, its 墓地 is the name's, not "graveyard" in the
    forbidden form. The same 墓地 for the graveyard itself is still reported."""
    english = (
        "When Gravewatch Gargoyle enters the battlefield, you may return target creature "
        "card from a graveyard to its owner's hand."
    )
    named = run.pair(
        english,
        "当墓地守望石像鬼进场时，你可以将目标生物牌从坟墓场移回其拥有者手上。",
        "zh",
        card="Gravewatch Gargoyle",
    )
    wrong = run.pair(
        english,
        "当墓地守望石像鬼进场时，你可以将目标生物牌从墓地移回其拥有者手上。",
        "zh",
        card="Gravewatch Gargoyle",
    )
    for unit in (named, wrong):
        unit.doc_title = "墓地守望石像鬼"  # a card document's title: the printed name
    assert codes_on(run, "TERM001", named) == []
    assert [f.evidence["found"] for f in codes_on(run, "TERM001", wrong)] == [["墓地"]]


def test_term002_missing_term_and_a_term_inside_a_longer_one(run):
    dropped = run.pair(
        "Put that card into its owner's graveyard.", "将该牌置入其拥有者的墓穴。", "zh"
    )
    inside = run.pair(
        "An emblem is controlled by the player who puts it into the command zone.",
        "徽记的操控者为将它放进统帅区的牌手。",
        "zh",
    )
    assert [f.evidence["concept"] for f in codes_on(run, "TERM002", dropped)] == ["graveyard"]
    # 操控 (control) is inside 操控者 (controller): the term is there.
    assert codes_on(run, "TERM002", inside) == []


def test_term002_everyday_senses_are_not_the_game_term(run):
    draw_game = run.pair(
        "If both players lose, the game is a draw.", "如果两位牌手都输，游戏为平手。", "zh"
    )
    card_draw = run.pair("Each player draws a card.", "每位牌手各抽一张卡。", "zh")
    assert codes_on(run, "TERM002", draw_game) == []  # "is a draw" is not drawing a card
    assert "draw" in {f.evidence["concept"] for f in codes_on(run, "TERM002", card_draw)}


def test_term002_a_word_in_another_sense_names_no_term(run):
    """resources/other_senses.tsv: "counter target spell" is the verb, not a counter; "with
    the same face up" is no face-up status; a counter put on a creature still is one."""
    verb = run.pair("Counter target spell.", "反击目标咒语。", "zh")
    same_face = run.pair(
        "Put it onto the battlefield with the same face up.",
        "将它以同一面向上的方式放进战场。",
        "zh",
    )
    noun = run.pair("Put a +1/+1 counter on it.", "在其上放置一个+1/+1。", "zh")

    def concepts(target):
        return {f.evidence["concept"] for f in codes_on(run, "TERM002", target)}

    assert "counter-noun" not in concepts(verb)
    assert "face-up" not in concepts(same_face)
    assert "counter-noun" in concepts(noun)


def test_term002_everyday_words_are_not_held_to_their_term(run):
    """Concepts good translations often express another way (player, turn: a pronoun, a
    restructured clause) are checked when used but not reported when absent."""
    whose_turn = run.pair("It is chosen by the player whose turn it is.", "由当前的人选择。", "zh")
    assert codes_on(run, "TERM002", whose_turn) == []


# --- placeholders --------------------------------------------------------------------------


def test_ph001_dropped_x(run):
    wrong = run.pair("You may cast it by paying {X}{R}.", "Puedes lanzarlo pagando {R}.", "es")
    right = run.pair("You may cast it by paying {X}{R}.", "Puedes lanzarlo pagando {X}{R}.", "es")
    found = codes_on(run, "PH001", wrong)
    assert [f.evidence["missing"] for f in found] == [["{X}"]]
    assert codes_on(run, "PH001", right) == []


def test_ph002_plural_endings_and_short_quotes_do_not_count(run):
    free = run.pair(
        "Choose the target(s). This isn't the same as “putting” a land.",
        "选择目标。这与放置地不同。",
        "zh",
    )
    dropped = run.pair(
        "It reads “Draw a card, then discard a card.”", "其叙述为抓一张牌，然后弃一张牌。", "zh"
    )
    assert codes_on(run, "PH002", free) == []
    assert [f.evidence for f in codes_on(run, "PH002", dropped)] == [
        {"quotations": {"expected": 1, "found": 0}}
    ]


# --- numbers ---------------------------------------------------------------------------------


def test_num001_number_words_across_languages(run):
    same = run.pair("Remove three time counters.", "Remueve tres contadores de tiempo.", "es")
    changed = run.pair("Remove three time counters.", "Remueve dos contadores de tiempo.", "es")
    assert codes_on(run, "NUM001", same) == []
    found = codes_on(run, "NUM001", changed)
    assert [(f.evidence["missing"], f.evidence["extra"]) for f in found] == [(["3"], ["2"])]


def test_num001_chinese_words_and_digits(run):
    changed = run.pair("Draw two cards.", "抓三张牌。", "zh")
    same = run.pair("Draw two cards.", "抓两张牌。", "zh")
    glued = run.pair("It deals 3 damage to each creature.", "它对每个生物造成3点伤害。", "zh")
    wrong_digit = run.pair("It deals 3 damage to each creature.", "它对每个生物造成2点伤害。", "zh")
    ordinal = run.pair("The second ability triggers.", "第二个异能触发。", "zh")
    assert [f.evidence["missing"] for f in codes_on(run, "NUM001", changed)] == [["2"]]
    assert codes_on(run, "NUM001", same) == []
    assert codes_on(run, "NUM001", glued) == []
    assert [f.evidence["extra"] for f in codes_on(run, "NUM001", wrong_digit)] == [["2"]]
    assert codes_on(run, "NUM001", ordinal) == []


def test_num001_numbers_inside_a_keyword_name_are_not_quantities(run):
    keyword = run.pair("Split second is a static ability.", "转瞬属于静止式异能。", "zh")
    assert codes_on(run, "NUM001", keyword) == []


def test_numbers_thousands_separators():
    assert numbers("999,999 tokens", "en") == numbers("999999个衍生物", "zh")
    assert numbers("1,5", "es") == {"cardinal:1.5": 1}


def test_numbers_digits_next_to_han_and_rule_numbers():
    assert numbers("参见规则714。", "zh") == numbers("See rule 714.", "en")
    assert numbers("第二个行动阶段", "zh") == {"ordinal:2": 1}
    assert numbers("先攻", "zh") == numbers("first strike", "en") == {}


# --- truncation ------------------------------------------------------------------------------


def test_trunc001_ellipsis_mid_sentence(run):
    cut = run.alone(
        "Si un permanente entra al campo de batalla, las habilidades de entrar al…",
        "es",
    )
    whole = run.alone("Si un permanente entra al campo de batalla, nada sucede.", "es")
    quoted = run.alone("El texto dice «Roba una carta.»…", "es")
    found = run.findings("TRUNC001")
    assert [f.ruling_id for f in found] == [cut.id]
    assert whole.id not in {f.ruling_id for f in found}
    assert quoted.id not in {f.ruling_id for f in found}


# --- language --------------------------------------------------------------------------------


def test_untr001_and_mix001(run):
    english = run.alone("Suspend is a keyword ability.", "en", doc_lang="zh")
    half_text = "意指一张牌(1) has suspend, (2) is in exile."
    start = half_text.index("has")
    half = run.pair(
        "It means a card that (1) has suspend, (2) is in exile.",
        half_text,
        "zh",
        spans=[{"lang": "en", "start": start, "end": len(half_text)}],
    )
    name_text = "例如：Lost Order of Jarkeld的力量等于1+*。"
    kept_name = run.pair(
        "Example: Lost Order of Jarkeld has power equal to 1+*.",
        name_text,
        "zh",
        spans=[{"lang": "en", "start": 3, "end": name_text.index("的")}],
    )
    kept_keyword = run.alone("Space Sculptor", "en", doc_lang="zh")  # the glossary keeps it
    found = [f.ruling_id for f in run.findings("UNTR001")]
    assert found == [english.id]
    assert kept_keyword.id not in found
    mixed = run.findings("MIX001")
    assert [f.ruling_id for f in mixed] == [half.id]
    assert kept_name.id not in {f.ruling_id for f in mixed}


# --- card names ------------------------------------------------------------------------------


def test_card003_english_card_name_in_spanish(run):
    english = run.pair(
        "Meddling Mage's ability doesn't stop you from casting it.",
        "La habilidad de Meddling Mage no te impide lanzarlo.",
        "es",
    )
    localized = run.pair(
        "Meddling Mage's ability doesn't stop you from casting it.",
        "La habilidad de Mago entrometido no te impide lanzarlo.",
        "es",
    )
    found = run.findings("CARD003")
    assert [(f.ruling_id, f.evidence["expected"]) for f in found] == [
        (english.id, "Mago entrometido")
    ]
    assert localized.id not in {f.ruling_id for f in found}


# --- style -----------------------------------------------------------------------------------


def test_style005_half_width_parenthesis_next_to_chinese(run):
    half = run.alone("意指一张牌(已延缓)。", "zh")
    full = run.alone("意指一张牌（已延缓）。", "zh")
    found = run.findings("STYLE005")
    assert [f.ruling_id for f in found] == [half.id]
    assert full.id not in {f.ruling_id for f in found}


def test_style003_capital_after_semicolon(run):
    capital = run.alone("Puedes lanzarlo normalmente; Necesitarás una forma de pagar.", "es")
    lower = run.alone("Puedes lanzarlo normalmente; necesitarás una forma de pagar.", "es")
    found = run.findings("STYLE003")
    assert [(f.ruling_id, f.evidence["found"]) for f in found] == [(capital.id, "Necesitarás")]
    assert lower.id not in {f.ruling_id for f in found}


def test_style002_coste_and_costo_in_one_document(termbase, cards):
    mixed = Run(termbase, cards)
    for n, text in enumerate(
        ["Pagas el coste de suspender.", "El coste no cambia.", "Pagas su costo."], start=1
    ):
        mixed.rulings.append(ruling(f"mixed.txt:{n}", text, "es"))
    consistent = Run(termbase, cards)
    for n, text in enumerate(["Pagas el coste de suspender.", "El coste no cambia."], start=1):
        consistent.rulings.append(ruling(f"same.txt:{n}", text, "es"))
    found = mixed.findings("STYLE002")
    assert [(f.ruling_id, f.evidence["found"]) for f in found] == [("mixed.txt:3", "costo")]
    assert consistent.findings("STYLE002") == []


# --- dates -----------------------------------------------------------------------------------


def test_date001_day_and_month_swapped_is_an_error(run):
    swapped = run.pair(
        "Suspend works the same way.",
        "Suspender funciona igual.",
        "es",
        source_date="2013-06-07",
        date="2013-07-06",
        date_raw="07/06/2013",
    )
    other = run.pair(
        "Suspend works the same way.",
        "Suspender funciona igual.",
        "es",
        source_date="2013-06-07",
        date="2021-03-19",
    )
    older = run.pair(
        "Suspend works the same way.",
        "Suspender funciona igual.",
        "es",
        source_date="2013-06-07",
        date="2007-05-01",
    )
    same = run.pair(
        "Suspend works the same way.",
        "Suspender funciona igual.",
        "es",
        source_date="2013-06-07",
        date="2013-06-07",
    )
    by_id = {f.ruling_id: f for f in run.findings("DATE001")}
    assert by_id[swapped.id].severity == "error"
    assert by_id[swapped.id].evidence["day_month_swapped"] is True
    assert by_id[older.id].severity == "warning"
    assert other.id not in by_id and same.id not in by_id
    newer = {f.ruling_id: f for f in run.findings("DATE006")}
    assert set(newer) == {other.id}  # newer than its source: an old master
    assert newer[other.id].severity == "info"


# --- coverage --------------------------------------------------------------------------------


def test_miss001_for_a_no_translation_row(run):
    source = ruling("en.txt:40", "A rule the translation lacks.", "en")
    run.rulings.append(source)
    run.alignment.append(Alignment(source.id, None, "zh", 0.0, "no-translation", group="en.txt"))
    found = run.findings("MISS001")
    assert [(f.ruling_id, f.category) for f in found] == [(source.id, "missing-translation")]


def test_check_tasks_never_split_a_card_or_rules_section():
    from pipelines.check import doc_runs, task_bounds
    from pipelines.vocabulary import Scope

    keys = ["Hypergenesis"] * 3 + ["708"] * 4 + ["Epochrasite"]
    assert doc_runs(keys) == [(0, 3), (3, 7), (7, 8)]
    assert doc_runs([]) == []
    runs = [(Scope.PAIR, ("NUM001",), keys[start], start, end) for start, end in doc_runs(keys)]
    assert task_bounds(runs, size=2) == [
        ((Scope.PAIR, ("NUM001",), [(0, 3)]), [0]),
        ((Scope.PAIR, ("NUM001",), [(3, 7)]), [1]),
        ((Scope.PAIR, ("NUM001",), [(7, 8)]), [2]),
    ]
    assert task_bounds(runs, size=100) == [
        ((Scope.PAIR, ("NUM001",), [(0, 3), (3, 7), (7, 8)]), [0, 1, 2])
    ]


def test_check_tasks_take_every_scope_of_a_batch_of_documents_before_the_next_batch():
    """What the checks remember of a text is bounded (pipelines/bounded.py): the ruling
    checks of a card run soon after its pair checks, not after the whole corpus's."""
    from pipelines.check import task_bounds
    from pipelines.vocabulary import Scope

    pair, ruling_ = (Scope.PAIR, ("NUM001",)), (Scope.RULING, ("UNTR001",))
    runs = [
        (*pair, "Hypergenesis", 0, 3),
        (*pair, "Epochrasite", 3, 5),
        (*ruling_, "Hypergenesis", 0, 3),
        (*ruling_, "Epochrasite", 3, 5),
    ]
    assert task_bounds(runs, size=3) == [
        ((*pair, [(0, 3)]), [0]),
        ((*ruling_, [(0, 3)]), [2]),
        ((*pair, [(3, 5)]), [1]),
        ((*ruling_, [(3, 5)]), [3]),
    ]
    assert task_bounds(runs, size=100) == [
        ((*pair, [(0, 3), (3, 5)]), [0, 1]),
        ((*ruling_, [(0, 3), (3, 5)]), [2, 3]),
    ]
    assert task_bounds([]) == []


def test_check_tasks_take_the_translations_of_one_english_document_one_after_the_other():
    """The English of a card is worked out while remembered for each of its translations;
    the findings still come back per run, whatever order the work was done in."""
    from pipelines.check import task_bounds
    from pipelines.vocabulary import Scope

    pair, ruling_ = (Scope.PAIR, ("NUM001",)), (Scope.RULING, ("UNTR001",))
    docs = ["es/Hypergenesis", "es/Epochrasite", "zh/Hypergenesis", "zh/Epochrasite"]
    runs = [(*pair, doc, 2 * n, 2 * n + 2) for n, doc in enumerate(docs)]
    runs += [(*ruling_, doc, 2 * n, 2 * n + 2) for n, doc in enumerate(docs)]
    read_with = {doc: "en/" + doc.split("/")[1] for doc in docs}
    assert task_bounds(runs, size=8, read_with=read_with) == [
        ((*pair, [(0, 2), (4, 6)]), [0, 2]),
        ((*ruling_, [(0, 2), (4, 6)]), [4, 6]),
        ((*pair, [(2, 4), (6, 8)]), [1, 3]),
        ((*ruling_, [(2, 4), (6, 8)]), [5, 7]),
    ]
    assert task_bounds(runs, size=100, read_with=read_with) == [
        ((*pair, [(0, 2), (4, 6), (2, 4), (6, 8)]), [0, 2, 1, 3]),
        ((*ruling_, [(0, 2), (4, 6), (2, 4), (6, 8)]), [4, 6, 5, 7]),
    ]
    assert task_bounds(runs, size=8) == [
        ((*pair, [(0, 2), (2, 4)]), [0, 1]),
        ((*ruling_, [(0, 2), (2, 4)]), [4, 5]),
        ((*pair, [(4, 6), (6, 8)]), [2, 3]),
        ((*ruling_, [(4, 6), (6, 8)]), [6, 7]),
    ]


def test_a_group_check_and_only_a_group_check_names_how_its_groups_are_gathered():
    with pytest.raises(ValueError, match="groups= goes with scope='group'"):
        check("INCON001", scope="group")
    with pytest.raises(ValueError, match="groups= goes with scope='group'"):
        check("TERM001", scope="pair", groups=lambda ctx: [])
    assert CHECKS["INCON001"].meta["scope"] == "group" and CHECKS["INCON001"].meta["groups"]


def test_style005_is_quiet_on_a_line_mostly_in_latin_script(run):
    """The credits of the Chinese rules list names in Latin typography."""
    credits = run.alone("编辑：Del Laugel (领队) , Lyz Liddell, Gregg Luben, 和 Hans Ziegler", "zh")
    prose = run.alone("结界具有其特有的副类别, 这些副类别被称为结界类别。", "zh")
    found = {f.ruling_id for f in run.findings("STYLE005")}
    assert prose.id in found and credits.id not in found
