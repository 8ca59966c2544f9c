"""The checks on the printed text of cards the tool has never seen (official Spanish and
Chinese card text against the current Oracle English): what the official wording and house
style say, and what a new set's unknown cards must not turn into. The texts are real cards'
(DOM, ELD, AKH, RAV: tuning sets). No shared data, no embedding model."""

from __future__ import annotations

import functools

import pytest

from pipelines.cards import CardIndex
from pipelines.check import CheckContext, run_checks
from pipelines.model import Alignment, Finding, Ruling
from pipelines.termbase import Termbase


class Cards:
    """Card documents of unknown cards (no card data), paired line by line."""

    def __init__(self, termbase: Termbase, cards: CardIndex) -> None:
        self.termbase, self.cards = termbase, cards
        self.rulings: list[Ruling] = []
        self.alignment: list[Alignment] = []

    def line(self, english: str, translated: str, lang: str, card: str, title: str) -> Ruling:
        n = len(self.rulings) + 1
        source = _line(f"{card}.txt:{n}", english, "en", card)
        target = _line(f"{lang}/{card}.txt:{n}", translated, lang, title)
        self.rulings += [source, target]
        self.alignment.append(
            Alignment(source.id, target.id, lang, 0.95, "embedding", 0.8, source.doc)
        )
        return target

    def findings(self, code: str) -> list[Finding]:
        ctx = CheckContext(self.rulings, self.alignment, self.termbase, self.cards, "en")
        return run_checks(ctx, select=[code])

    def on(self, code: str, target: Ruling) -> list[Finding]:
        return [f for f in self.findings(code) if f.ruling_id == target.id]


def _line(rid: str, text: str, lang: str, title: str) -> Ruling:
    file, line = rid.rsplit(":", 1)
    return Ruling(
        rid, file, int(line), "plain-paragraphs", title, None, None, lang, lang, [], None,
        None, text, doc=file, doc_kind="source" if lang == "en" else "translation",
        position=int(line),
    )  # fmt: skip


@functools.cache
def _shipped() -> tuple[Termbase, CardIndex]:
    """The shipped termbase and card index, built once (read, never changed)."""
    return Termbase.load(), CardIndex.build([])


@pytest.fixture
def cards() -> Cards:
    return Cards(*_shipped())


def test_a_card_text_line_may_leave_out_its_reminder_text(cards):
    """Trail of Crumbs: the printed Spanish leaves out the Food reminder."""
    target = cards.line(
        "When Trail of Crumbs enters the battlefield, create a Food token. (It's an artifact "
        'with "{2}, {T}, Sacrifice this artifact: You gain 3 life.")',
        "Cuando el Rastro de migajas entre al campo de batalla, crea una ficha de Comida.",
        "es",
        "trail-of-crumbs",
        "Rastro de migajas",
    )
    for code in ("PH001", "NUM001", "TERM002"):
        assert cards.on(code, target) == [], code


def test_el_doble_states_twice(cards):
    """Anointed Procession."""
    target = cards.line(
        "If an effect would create one or more tokens under your control, it creates twice "
        "that many of those tokens instead.",
        "Si un efecto fuera a crear una o más fichas bajo tu control, en vez de eso, crea el "
        "doble de esas fichas.",
        "es",
        "anointed-procession",
        "Procesión ungida",
    )
    assert cards.on("NUM001", target) == []


def test_an_ordinal_in_the_card_s_own_name_states_no_number(cards):
    """Approach of the Second Sun: its name says "Second"."""
    target = cards.line(
        "If this spell was cast from your hand and you've cast another spell named Approach "
        "of the Second Sun this game, you win the game.",
        "如果此咒语是从你手上施放，且你在本盘游戏中曾施放过另一个名称为神日迫临的咒语，则你赢得这盘游戏。",
        "zh",
        "approach-of-the-second-sun",
        "神日迫临",
    )
    assert cards.on("NUM001", target) == []


def test_twelfth_is_twelve(cards):
    """Midnight Clock."""
    target = cards.line(
        "When the twelfth hour counter is put on Midnight Clock, shuffle your hand and "
        "graveyard into your library, then draw seven cards.",
        "当在午夜怪钟上放置第十二个时刻指示物时，将你的手牌和坟墓场洗入你的牌库，然后抓七张牌。",
        "zh",
        "midnight-clock",
        "午夜怪钟",
    )
    assert cards.on("NUM001", target) == []


def test_the_third_person_of_a_permanent_is_no_usted(cards):
    cards.line("Flying", "Vuela.", "es", "serra-angel", "Ángel de Serra")
    cards.line(
        "You may draw a card.", "Puedes robar una carta.", "es", "serra-angel", "Ángel de Serra"
    )
    effect = cards.line(
        "If an effect would put one or more counters on a permanent you control, it puts "
        "twice that many of those counters on that permanent instead.",
        "Si un efecto fuera a poner uno o más contadores sobre un permanente que controlas, en "
        "vez de eso, pone el doble de esa cantidad sobre ese permanente.",
        "es",
        "serra-angel",
        "Ángel de Serra",
    )
    usted = cards.line(
        "However, you may pay additional costs.",
        "Sin embargo, puede pagar costes adicionales.",
        "es",
        "serra-angel",
        "Ángel de Serra",
    )
    assert cards.on("STYLE001", effect) == []
    assert [f.evidence["expected"] for f in cards.on("STYLE001", usted)] == ["puedes"]


def test_the_printed_capital_after_a_keyword_dash_is_a_sentence_start(cards):
    """Vicious Offering: "Estímulo—Sacrificar una criatura." and "puedes sacrificar"."""
    cards.line(
        "Kicker—Sacrifice a creature. (You may sacrifice a creature in addition to any other "
        "costs as you cast this spell.)",
        "Estímulo—Sacrificar una criatura. (Puedes sacrificar una criatura como coste "
        "adicional al lanzar este hechizo.)",
        "es",
        "vicious-offering",
        "Ofrenda despiadada",
    )
    assert cards.findings("STYLE006") == []


def test_the_mana_pool_template_is_old_wording(cards):
    old = cards.line(
        "{T}: Add {G} or {U}.",
        "{T}: Agrega {G} o {U} a tu reserva de maná.",
        "es",
        "woodland-stream",
        "Arroyo forestal",
    )
    new = cards.line(
        "{T}: Add {W} or {B}.", "{T}: Agrega {W} o {B}.", "es", "isolated-chapel", "Capilla aislada"
    )
    found = cards.on("TERM003", old)
    assert [f.evidence["found"] for f in found] == [["a tu reserva de maná"]]
    assert cards.on("TERM003", new) == []
    old_zh = cards.line(
        "{T}: Add {C}.", "{T}：加{C}到你的法术力池中。", "zh", "cradle", "受诅者摇篮"
    )
    assert [f.code for f in cards.on("TERM003", old_zh)] == ["TERM003"]


def test_old_wording_quotes_what_the_source_says_not_the_ability_before_it(cards):
    """Channeler Initiate (tuning set AKH): the source says "Add"; the cost before it only
    places the word at the start of an effect."""
    ruling = cards.line(
        "{T}, Remove a -1/-1 counter from Channeler Initiate: Add one mana of any color.",
        "{T}, remover un contador -1/-1 del Iniciado canalizador: Agrega un maná de cualquier "
        "color a tu reserva de maná.",
        "es",
        "channeler-initiate",
        "Iniciado canalizador",
    )
    [finding] = cards.on("TERM003", ruling)
    assert finding.evidence["source_term"] == "Add"
    assert "the source says \u201cAdd\u201d" in finding.message


def test_an_english_line_with_symbols_is_no_kept_name(cards):
    """Maraleaf Pixie's mana ability left in English in a Spanish document."""
    target = cards.line(
        "{T}: Add {G} or {U}.", "{T}: Add {G} or {U}.", "es", "maraleaf-pixie", "Duendecilla"
    )
    assert [f.code for f in cards.on("UNTR002", target)] == ["UNTR002"]


def test_a_verb_that_is_a_split_cards_face_is_no_card_name(cards):
    """ "Return target …": the verb, not Return of Never // Return."""
    index = CardIndex.build([], shipped=True)
    cards.cards = index
    target = cards.line(
        "Return target creature card from your graveyard to your hand.",
        "Regresa la carta de criatura objetivo de tu cementerio a tu mano.",
        "es",
        "nature-s-spiral",
        "Espiral natural",
    )
    assert cards.on("CARD004", target) == []


def test_versions_that_differ_only_in_the_cards_gender_are_one(cards):
    """ "Las Cuevas … entran giradas" and "El Almacén … entra girado": one template."""
    cards.line(
        "Cave of Koilos enters the battlefield tapped.",
        "Las Cuevas de Koilos entran al campo de batalla giradas.",
        "es",
        "cave-of-koilos",
        "Cuevas de Koilos",
    )
    cards.line(
        "Warehouse enters the battlefield tapped.",
        "El Almacén entra al campo de batalla girado.",
        "es",
        "warehouse",
        "Almacén",
    )
    for row in cards.alignment:
        row.family = "template"
    assert cards.findings("INCON001") == []


def test_of_two_versions_the_one_that_names_its_card_unlike_the_english_is_not_preferred(cards):
    voice = cards.line(
        "As an additional cost to cast this spell, discard a card.",
        "Como coste adicional para lanzar la Voz del tormento, descarta una carta.",
        "es",
        "tormenting-voice",
        "Voz del tormento",
    )
    cards.line(
        "As an additional cost to cast this spell, discard a card.",
        "Como coste adicional para lanzar este hechizo, descarta una carta.",
        "es",
        "cathartic-reunion",
        "Reencuentro catártico",
    )
    for row in cards.alignment:
        row.family = "template"
    found = cards.findings("INCON001")
    assert [f.ruling_id for f in found] == [voice.id]
    assert found[0].evidence["preferred_because"] == "fewest defects"


def test_the_current_wording_is_preferred_over_a_majority_of_old_printings(cards):
    """ISD printed "ataca cada turno si puede" (now "attacks each combat if able"), KTK's
    Zurgo "ataca cada combate si puede": the old printings are the old wording (TERM003) and
    the versions that differ from the current one (INCON001), whatever their number."""
    old = [
        cards.line(
            f"{name} attacks each combat if able.",
            f"{spanish} ataca cada turno si puede.",
            "es",
            slug,
            spanish,
        )
        for name, spanish, slug in [
            ("Bloodcrazed Neonate", "La Neonata sanguinaria", "bloodcrazed-neonate"),
            ("Valley Dasher", "El Traviesavalles", "valley-dasher"),
        ]
    ]
    zurgo = cards.line(
        "Zurgo Helmsmasher attacks each combat if able.",
        "Zurgo Aplastacráneos ataca cada combate si puede.",
        "es",
        "zurgo-helmsmasher",
        "Zurgo Aplastacráneos",
    )
    stalker = cards.line(
        "Invisible Stalker can't be blocked.",
        "El Acechador invisible es imbloqueable.",
        "es",
        "invisible-stalker",
        "Acechador invisible",
    )
    for row in cards.alignment:
        row.family = "template" if row.target_id != stalker.id else None
    assert sorted(f.ruling_id for f in cards.findings("INCON001")) == sorted(r.id for r in old)
    assert zurgo.id not in {f.ruling_id for f in cards.findings("TERM003")}
    for ruling in [*old, stalker]:
        assert [f.evidence["expected"] for f in cards.on("TERM003", ruling)] == [
            ["ataca cada combate si puede"] if ruling in old else ["no puede ser bloqueado"]
        ]


def test_the_suggestion_for_old_wording_agrees_with_its_subject(cards):
    """RAV's Ethereal Usher printed "La criatura objetivo es imbloqueable este turno": the
    current wording for a feminine subject is "no puede ser bloqueada", and a plural subject
    takes a plural verb. The mark stays on the old phrase, not its subject."""
    cases = [
        (
            "{U}, {T}: Target creature can't be blocked this turn.",
            "{U}, {T}: La criatura objetivo es imbloqueable este turno.",
            "no puede ser bloqueada",
        ),
        (
            "Creatures you control can't be blocked this turn.",
            "Las criaturas que controlas son imbloqueables este turno.",
            "no pueden ser bloqueadas",
        ),
        (
            "Warriors you control can't be blocked this turn.",
            "Los Guerreros que controlas son imbloqueables este turno.",
            "no pueden ser bloqueados",
        ),
        (
            "Creatures your opponents control attack each combat if able.",
            "Las criaturas que controlan tus oponentes atacan cada turno si pueden.",
            "atacan cada combate si pueden",
        ),
    ]
    lines = [
        (cards.line(english, spanish, "es", f"card-{k}", f"Carta {k}"), spanish, expected)
        for k, (english, spanish, expected) in enumerate(cases)
    ]
    for ruling, spanish, expected in lines:
        [finding] = cards.on("TERM003", ruling)
        assert finding.evidence["expected"] == [expected]
        [mark] = finding.marks
        assert spanish[mark["start"] : mark["end"]] == finding.evidence["found"][0]
        assert finding.evidence["found"][0].split()[0] in {"es", "son", "atacan"}


def test_a_space_after_chinese_punctuation_is_no_other_version(cards):
    """Darkthicket Wolf (ISD) prints "直到回合结束。 此异能", Savage Knuckleblade (KTK)
    "直到回合结束。此异能": the same translation of one line."""
    for slug, name in [("darkthicket-wolf", "暗丛狼"), ("savage-knuckleblade", "蛮野指套剑手")]:
        gap = " " if slug == "darkthicket-wolf" else ""
        cards.line(
            "{2}{G}: CARD gets +2/+2 until end of turn. Activate only once each turn.",
            f"{{2}}{{G}}：{name}得+2/+2直到回合结束。{gap}此异能每回合只能起动一次。",
            "zh",
            slug,
            name,
        )
    for row in cards.alignment:
        row.family = "template"
    assert cards.findings("INCON001") == []


def test_a_rate_for_equal_to_states_no_new_number(cards):
    """Chant of Vitu-Ghazi: "life equal to the damage prevented" printed as a rate of 1;
    a rate that changes the source's number is still reported."""
    source = (
        "Prevent all damage that would be dealt by creatures this turn. You gain life equal "
        "to the damage prevented this way."
    )
    es = cards.line(
        source,
        "Prevén todo el daño que fueran a hacer las criaturas este turno. Ganas 1 vida por "
        "cada punto de daño prevenido de esta manera.",
        "es",
        "chant-of-vitu-ghazi",
        "Cántico de Vitu-Ghazi",
    )
    zh = cards.line(
        source,
        "防止生物于本回合中将造成的所有伤害。 每以此法防止1点伤害，你便获得1点生命。",
        "zh",
        "chant-of-vitu-ghazi",
        "维图加基吟颂",
    )
    changed = cards.line(
        "You gain 2 life for each creature you control.",
        "Ganas 1 vida por cada criatura que controlas.",
        "es",
        "chant-of-vitu-ghazi",
        "Cántico de Vitu-Ghazi",
    )
    counters = cards.line(
        "When Hooded Hydra dies, create a 1/1 green Snake creature token for each +1/+1 "
        "counter on it.",
        "Cuando la Hidra con capucha muera, pon en el campo de batalla una ficha de criatura "
        "Víbora verde 1/1 por cada contador +1/+1 sobre ella.",
        "es",
        "hooded-hydra",
        "Hidra con capucha",
    )
    shrinking = cards.line(
        "Grim Strider gets -1/-1 for each card in your hand.",
        "El Montaraz lúgubre obtiene -1/-1 por cada carta en tu mano.",
        "es",
        "grim-strider",
        "Montaraz lúgubre",
    )
    assert cards.on("NUM001", shrinking) == []
    assert cards.on("NUM001", es) == []
    assert cards.on("NUM001", zh) == []
    assert cards.on("NUM001", counters) == []
    assert [f.evidence["missing"] for f in cards.on("NUM001", changed)] == [["2"]]


def test_a_line_printed_in_parts_or_run_together_is_no_other_translation():
    """Aether Membrane (PLC) prints "Defender; reach" as two paragraphs, 守军 and the reach
    sentence; a reprint that prints it as one is no other way of translating the line, nor
    are the parts. Aven Mindcensor (FUT) runs "Flash" and "Flying" into one paragraph: no
    other way of translating "Flying" either."""
    termbase, index = _shipped()
    defender = "Defender; reach (This creature can block creatures with flying.)"
    docs = [
        ("plc", [(defender, "守军", "order+embedding"),
                 (defender, "乙太护膜能视同具有飞行异能地进行阻挡。", "merged")]),
        ("reprint", [(defender, "守军，延势（此生物能阻挡具飞行异能的生物。）", "embedding")]),
        ("fut", [("Flash", "闪现，飞行", "order+embedding"), ("Flying", "闪现，飞行", "merged")]),
        ("other", [("Flying", "飞行", "embedding")]),
        ("third", [("Flying", "飞行", "embedding")]),
    ]  # fmt: skip
    rulings, alignment, family = [], [], {}
    for name, rows in docs:
        sources: dict[str, Ruling] = {}
        targets: dict[str, Ruling] = {}
        for english, chinese, method in rows:
            if english not in sources:
                sources[english] = _line(f"en/{name}.txt:{len(sources) + 1}", english, "en", name)
                rulings.append(sources[english])
            if chinese not in targets:
                targets[chinese] = _line(f"zh/{name}.txt:{len(targets) + 1}", chinese, "zh", name)
                rulings.append(targets[chinese])
            source, target = sources[english], targets[chinese]
            alignment.append(
                Alignment(
                    source.id, target.id, "zh", 0.9, method, 0.7, name,
                    family=family.setdefault(english, source.id),
                )
            )  # fmt: skip
    ctx = CheckContext(rulings, alignment, termbase, index, "en")
    assert run_checks(ctx, select=["INCON001"]) == []
    alone = [
        Alignment(a.source_id, a.target_id, "zh", 0.9, "embedding", 0.7, a.group, family=a.family)
        for a in alignment
    ]
    assert run_checks(CheckContext(rulings, alone, termbase, index, "en"), select=["INCON001"])


@pytest.mark.parametrize(
    ("lang", "first", "second"),
    [
        (
            "es",  # Darkthicket Wolf (ISD) and Savage Knuckleblade (KTK)
            "{2}{G}: El Lobo de maleza oscura obtiene +2/+2 hasta el final del turno. Activa "
            "esta habilidad sólo una vez cada turno.",
            "{2}{G}: El Nudillos de acero salvaje obtiene +2/+2 hasta el final del turno. "
            "Activa esta habilidad solo una vez por turno.",
        ),
        (
            "zh",  # Boneyard Wurm and Splinterfright (ISD)
            "聚骨场亚龙的力量和防御力各等同于你坟墓场中的生物牌之数量。",
            "碎身惧妖的力量和防御力各等同于你坟墓场中的生物牌数量。",
        ),
        (
            "zh",  # Smite the Monstrous, printed in ISD and in KTK
            "消灭目标力量大于或等于4的生物。",
            "消灭目标力量等于或大于4的生物。",
        ),
        (
            "es",  # Geist-Honored Monk (ISD) and Scion of the Wild (RAV)
            "Tanto la fuerza como la resistencia de la Monje honrada por los geist es igual al "
            "número de criaturas que controlas.",
            "Tanto la fuerza como la resistencia del Vástago de lo salvaje son iguales al "
            "número de criaturas que controlas.",
        ),
    ],
)
def test_wordings_that_say_the_same_are_one_version(cards, lang, first, second):
    """An accepted old spelling (sólo), the particle 之, the two orders of 大于或等于, the
    agreement both readings allow: no inconsistency (resources/equivalent_wording.tsv)."""
    for n, text in enumerate([first, second]):
        cards.line("CARD's text.", text, lang, f"card-{n}", _title(text, lang))
    for row in cards.alignment:
        row.family = "template"
    assert cards.findings("INCON001") == []


def _title(text: str, lang: str) -> str:
    """The card name a test line names (what the card data would say)."""
    for name in (
        "Lobo de maleza oscura",
        "Nudillos de acero salvaje",
        "聚骨场亚龙",
        "碎身惧妖",
        "Monje honrada por los geist",
        "Vástago de lo salvaje",
    ):
        if name in text:
            return name
    return "消灭怪物" if lang == "zh" else "Carta"


def test_a_different_word_is_still_another_version(cards):
    """The equivalences stop at what they name: "cada combate" is not "cada turno"."""
    for n, (name, word) in enumerate([("Lobo de maleza oscura", "turno"), ("Carta", "combate")]):
        cards.line(
            "CARD attacks each combat if able.",
            f"El {name} ataca una vez cada {word}.",
            "es",
            f"card-{n}",
            name,
        )
    for row in cards.alignment:
        row.family = "template"
    assert len(cards.findings("INCON001")) == 1


@pytest.mark.parametrize(
    ("english", "translated", "lang", "suggestion"),
    [
        ("Enchanted creature has flying.", "受此结界的生物具有飞行异能。", "zh", "所结附的"),
        ("Enchant creature", "生物结界", "zh", "结附于…"),
        (
            "At the beginning of your upkeep, mill two cards.",
            "Al comienzo de tu mantenimiento, pon las primeras dos cartas de tu biblioteca en "
            "tu cementerio.",
            "es",
            "muele",
        ),
        (
            "Target player mills three cards.",
            "目标牌手将其牌库顶的三张牌置入其坟墓场。",
            "zh",
            "磨",
        ),
    ],
)
def test_old_printings_of_enchant_and_mill_are_old_wording(
    cards, english, translated, lang, suggestion
):
    """RAV's 受此结界的生物 and 生物结界 (ISD and later 所结附的, 结附于生物); "put the top
    cards of your library into your graveyard", now "mill" (Splinterfright, ISD)."""
    target = cards.line(english, translated, lang, "card", "Carta")
    assert [f.evidence["expected"] for f in cards.on("TERM003", target)] == [[suggestion]]


def test_a_word_old_for_two_concepts_is_reported_for_the_one_the_english_names(cards):
    """ "jugarse" is old wording for casting a spell and for activating an ability; where
    the English says "can't be activated" it is reported once, for activating (Trickbind,
    TSP; Faith's Fetters, RAV), and where it says "can't be cast", once, for casting."""
    activated = cards.line(
        "Enchanted permanent can't attack or block, and its activated abilities can't be "
        "activated unless they're mana abilities.",
        "Las habilidades activadas del permanente encantado no pueden jugarse a menos que "
        "sean habilidades de maná. Si el permanente encantado es una criatura, no puede "
        "atacar ni bloquear.",
        "es",
        "faith-s-fetters",
        "Grilletes de fe",
    )
    cast = cards.line(
        "Spells with the chosen name can't be cast.",
        "Los hechizos con ese nombre no pueden jugarse.",
        "es",
        "voidstone-gargoyle",
        "Gárgola de piedra del vacío",
    )
    assert [f.evidence["concept"] for f in cards.on("TERM003", activated)] == ["activate-verb"]
    assert [f.evidence["concept"] for f in cards.on("TERM003", cast)] == ["cast"]


def test_the_current_wording_of_enchant_is_not_old(cards):
    for english, translated in [
        ("Enchanted creature has flying.", "所结附的生物具有飞行异能。"),
        ("Enchant creature", "结附于生物"),
        ("Target player mills three cards.", "目标牌手磨三张牌。"),
    ]:
        target = cards.line(english, translated, "zh", "card", "Carta")
        assert cards.on("TERM003", target) == []


def test_an_old_printing_of_mill_translates_its_own_line(cards):
    """Splinterfright (ISD): the printed "pon las primeras dos cartas de tu biblioteca en tu
    cementerio" reads more like Sultai Ascendancy's "look at the top two cards of your
    library. Put any number of them into your graveyard…" than like "mill two cards", yet it
    is the old wording of its own line (MEAN003 weighs "mill" as said)."""
    other = _line(
        "sultai-ascendancy.txt:1",
        "At the beginning of your upkeep, look at the top two cards of your library. Put any "
        "number of them into your graveyard and the rest back on top of your library in any "
        "order.",
        "en",
        "sultai-ascendancy",
    )
    cards.rulings.append(other)
    target = cards.line(
        "At the beginning of your upkeep, mill two cards.",
        "Al comienzo de tu mantenimiento, pon las primeras dos cartas de tu biblioteca en tu "
        "cementerio.",
        "es",
        "splinterfright",
        "Horror astillado",
    )
    row = cards.alignment[-1]
    row.similarity, row.better_source, row.better_similarity = 0.53, other.id, 0.69
    assert cards.on("MEAN003", target) == []
    dream_twist = cards.line(  # "mills": a form the glossary's "Mill" does not list
        "Target player mills three cards.",
        "El jugador objetivo pone las primeras tres cartas de su biblioteca en su cementerio.",
        "es",
        "dream-twist",
        "Torsión onírica",
    )
    row = cards.alignment[-1]
    row.similarity, row.better_source, row.better_similarity = 0.5, other.id, 0.7
    assert cards.on("MEAN003", dream_twist) == []
    swapped = cards.line(
        "Draw a card.",
        "Al comienzo de tu mantenimiento, mira las dos primeras cartas de tu biblioteca. Pon "
        "cualquier cantidad de ellas en tu cementerio y el resto en la parte superior de tu "
        "biblioteca en cualquier orden.",
        "es",
        "splinterfright",
        "Horror astillado",
    )
    row = cards.alignment[-1]
    row.similarity, row.better_source, row.better_similarity = 0.2, other.id, 0.9
    assert [f.evidence["translates"] for f in cards.on("MEAN003", swapped)] == [other.id]
    assert cards.on("MEAN002", swapped) == []  # a card line found by likeness alone


@pytest.mark.parametrize(
    ("translated", "lang", "use"),
    [
        (
            "La Araña Penumbra puede bloquear como si tuviera la habilidad de volar.",
            "es",
            "alcance",
        ),
        ("罔两蜘蛛能视同具有飞行异能地进行阻挡。", "zh", "延势"),
    ],
)
def test_the_old_printing_of_reach_is_old_wording_of_its_own_line(cards, translated, lang, use):
    """Penumbra Spider (TSP) printed "can block as though it had flying", now Reach: its
    "flying" (volar, 飞行) reads like Stormcloud Djinn's "can block only creatures with
    flying", yet the line is its own, in old wording (TERM003), not another card's."""
    other = _line(
        "stormcloud-djinn.txt:2",
        "Stormcloud Djinn can block only creatures with flying.",
        "en",
        "stormcloud-djinn",
    )
    cards.rulings.append(other)
    target = cards.line("Reach", translated, lang, "penumbra-spider", "Araña Penumbra")
    row = cards.alignment[-1]
    row.similarity, row.better_source, row.better_similarity = 0.33, other.id, 0.66
    assert cards.on("MEAN003", target) == []
    assert [f.evidence["expected"] for f in cards.on("TERM003", target)] == [[use]]


def test_a_printed_reminder_that_gives_fewer_sentences_leaves_out_the_later_ones(cards):
    """Treats to Share (ELD): the printed Adventure reminder without the Food reminder the
    Oracle text appends; a reminder that gives as many sentences is compared whole."""
    english = (
        "Create a Food token. (Then exile this card. You may cast the creature later from "
        'exile. A Food token is an artifact with "{2}, {T}, Sacrifice this artifact: You gain '
        '3 life.")'
    )
    short = cards.line(
        english,
        "派出一个食品衍生物。（然后放逐此牌。之后你还可以从放逐区中施放该生物。）",
        "zh",
        "treats-to-share",
        "分享美食",
    )
    dropped = cards.line(
        english,
        "派出一个食品衍生物。（然后放逐此牌。之后你还可以从放逐区中施放该生物。食品衍生物是一个神器，"
        "且具有「{T}，牺牲此神器：你获得3点生命。」）",
        "zh",
        "treats-to-share",
        "分享美食",
    )
    for code in ("PH001", "NUM001", "TERM002"):
        assert cards.on(code, short) == [], code
    assert [f.code for f in cards.findings("PH001") if f.ruling_id == dropped.id] == ["PH001"]


def test_a_printed_reminder_keeps_the_sentences_its_symbols_match(cards):
    """Siege Wurm (RAV): the printed convoke reminder is Oracle's second sentence, not its
    first ("Your creatures can help cast this spell." was put before it)."""
    target = cards.line(
        "Convoke (Your creatures can help cast this spell. Each creature you tap while casting "
        "this spell pays for {1} or one mana of that creature's color.)",
        "Convocar (Cada criatura que gires al jugar este hechizo reduce su coste en {1} o en un "
        "maná del color de esa criatura.)",
        "es",
        "siege-wurm",
        "Sierpe de asedio",
    )
    assert cards.on("PH001", target) == []


def test_a_translators_note_that_names_the_old_wording_uses_none(cards):
    """CR 303.4 (2023, the tuning edition): the note says older cards wrote 受此结界; the rule
    itself says 结附. Rule 303.4e's own 受此结界的生物 is still old wording."""
    note = cards.line(
        "The object or player an Aura is attached to is called enchanted. The Aura is attached "
        "to, or “enchants,” that object or player.",
        "被灵气所贴附的永久物或牌手称为被结附。（译注：一些较旧版本的简体中文牌译为“受此结界”，现已改译为"
        "“所结附”）此灵气贴附于，或“结附于”该物件或牌手。",
        "zh",
        "rules",
        "万智牌完整规则",
    )
    used = cards.line(
        "An Aura’s controller is separate from the enchanted object’s controller.",
        "灵气的操控者与受此结界的生物之操控者并不相干。",
        "zh",
        "rules",
        "万智牌完整规则",
    )
    assert cards.on("TERM003", note) == []
    assert len(cards.on("TERM003", used)) == 1


def test_a_line_that_names_another_card_of_the_folder_is_that_cards(cards):
    """Vantress Paladin (ELD) given Ardenvale Paladin's adamant line, name and colour: the
    similarity cannot tell two siblings apart, their titles can. A line that names another
    card because its English does (Niambi's "a card named Teferi") is its own."""
    cards.line(
        "Adamant — If at least three white mana was spent to cast this spell, Ardenvale "
        "Paladin enters the battlefield with a +1/+1 counter on it.",
        "固色～如果施放此咒语时支付过至少三点白色法术力，则雅登瓦神圣武士进战场时上面有一个+1/+1指示物。",
        "zh",
        "Ardenvale Paladin",
        "雅登瓦神圣武士",
    )
    pasted = cards.line(
        "Adamant — If at least three blue mana was spent to cast this spell, Vantress Paladin "
        "enters the battlefield with a +1/+1 counter on it.",
        "固色～如果施放此咒语时支付过至少三点白色法术力，则雅登瓦神圣武士进战场时上面有一个+1/+1指示物。",
        "zh",
        "Vantress Paladin",
        "凡翠丝神圣武士",
    )
    cards.line(
        "Teferi, Timebender",
        "时光扭曲师泰菲力",
        "zh",
        "Teferi, Timebender",
        "时光扭曲师泰菲力",
    )
    niambi = cards.line(
        "When Niambi, Faithful Healer enters the battlefield, you may search your library "
        "and/or graveyard for a card named Teferi, Timebender.",
        "当可靠疗疾师妮安碧进战场时，你可以从你的牌库和／或坟墓场中搜寻一张名称为时光扭曲师泰菲力的牌。",
        "zh",
        "Niambi, Faithful Healer",
        "可靠疗疾师妮安碧",
    )
    found = cards.findings("MEAN002")
    assert [f.ruling_id for f in found] == [pasted.id]
    assert found[0].evidence["names"] == "雅登瓦神圣武士"
    assert niambi.id not in {f.ruling_id for f in found}


def _paladins(cards: Cards, ardenvale_title: str) -> Ruling:
    """Ardenvale Paladin's line in its own document, and the same line pasted into Vantress
    Paladin's (the line returned)."""
    line = (
        "固色～如果施放此咒语时支付过至少三点白色法术力，"
        "则雅登瓦神圣武士进战场时上面有一个+1/+1指示物。"
    )
    cards.line(
        "Adamant — If at least three white mana was spent to cast this spell, Ardenvale "
        "Paladin enters the battlefield with a +1/+1 counter on it.",
        line,
        "zh",
        "Ardenvale Paladin",
        ardenvale_title,
    )
    return cards.line(
        "Adamant — If at least three blue mana was spent to cast this spell, Vantress Paladin "
        "enters the battlefield with a +1/+1 counter on it.",
        line,
        "zh",
        "Vantress Paladin",
        "凡翠丝神圣武士",
    )


def test_a_line_of_another_card_is_found_again_from_the_cache_until_a_title_changes(tmp_path):
    """MEAN002 is kept per document: a rerun takes the pasted line's finding from the cache
    while the titles of the run's documents (a corpus fact) are the same, and checks the
    document again when another card's title changed (no longer the name its line gives)."""
    from pipelines.store import open_store
    from pipelines.work import Cache, Reuse

    def run(title: str, reuse: Reuse) -> tuple[Ruling, list[Finding]]:
        paladins = Cards(*_shipped())
        pasted = _paladins(paladins, title)
        ctx = CheckContext(
            paladins.rulings, paladins.alignment, paladins.termbase, paladins.cards, "en"
        )
        found = run_checks(ctx, select=["MEAN002"], work=Cache(open_store(tmp_path), (), reuse))
        return pasted, found

    pasted, found = run("雅登瓦神圣武士", Reuse())
    assert [f.ruling_id for f in found] == [pasted.id]
    reuse = Reuse()
    pasted, again = run("雅登瓦神圣武士", reuse)
    assert again == found and reuse.counts["check"] == [2, 0]
    reuse = Reuse()
    pasted, retitled = run("雅登瓦圣骑士", reuse)
    assert retitled == [] and reuse.counts["check"] == [0, 2]


def test_a_title_that_is_a_word_is_not_taken_for_a_card(cards):
    """Fabled Passage (ELD) says "tierra"; Earth (AKH) is titled "Tierra"."""
    cards.line("Earth", "Tierra", "es", "Earth", "Tierra")
    passage = cards.line(
        "{T}, Sacrifice Fabled Passage: Search your library for a basic land card, put it "
        "onto the battlefield tapped, then shuffle. Then if you control four or more lands, "
        "untap that land.",
        "{T}, sacrificar el Paisaje de leyenda: Busca en tu biblioteca una carta de tierra "
        "básica, ponla en el campo de batalla girada y luego baraja tu biblioteca. Luego, si "
        "controlas cuatro o más tierras, endereza esa tierra.",
        "es",
        "Fabled Passage",
        "Pasaje de leyenda",
    )
    assert cards.on("MEAN002", passage) == []
