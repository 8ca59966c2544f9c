"""Printed cards whose lines do not pair one to one with their Oracle text: a paragraph that
says several English lines (a line separator, a keyword run into the next ability, a modal
spell in one sentence), a printing that splits a line in two, a colour sentence Oracle text
no longer has. The texts are the real cards' printed Spanish and Chinese (TSP, PLC, FUT:
tuning sets) against their current Oracle English; the whole pipeline runs on them, with
the bundled model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pipelines.catalogue import CATALOGUE
from pipelines.cli import main

pytestmark = pytest.mark.model

CARDS = {
    "narcomoeba": (
        "Narcomoeba",
        [
            "Flying",
            "When Narcomoeba is put into your graveyard from your library, you may put it "
            "onto the battlefield.",
        ],
        {
            "es": (
                "Narcomiba",
                [
                    "Vuela. Cuando la Narcomiba vaya a tu cementerio desde tu biblioteca, "
                    "puedes ponerla en juego."
                ],
            )
        },
    ),
    "sehts-tiger": (
        "Seht's Tiger",
        [
            "Flash (You may cast this spell any time you could cast an instant.)",
            "When Seht's Tiger enters the battlefield, you gain protection from the color of "
            "your choice until end of turn. (You can't be targeted, dealt damage, or enchanted "
            "by anything of the chosen color.)",
        ],
        {
            "es": (
                "Tigre de Seht",
                [
                    "Destello (Puedes jugar este hechizo en cualquier momento en que pudieras "
                    "jugar un instantáneo.)\u2028Cuando el Tigre de Seht entre en juego, ganas "
                    "protección contra el color de tu elección hasta el final del turno. (No "
                    "puedes ser objetivo, recibir daño o ser encantado por nada del color "
                    "elegido.)"
                ],
            )
        },
    ),
    "ancestral-vision": (
        "Ancestral Vision",
        [
            "Suspend 4—{U} (Rather than cast this card from your hand, pay {U} and exile it "
            "with four time counters on it. At the beginning of your upkeep, remove a time "
            "counter. When the last is removed, you may cast it without paying its mana "
            "cost.)",
            "Target player draws three cards.",
        ],
        {
            "zh": (
                "先人的预视",
                [
                    "先人的预视是蓝色。",
                    "延缓4～{U}（除了从你手上使用此牌，你能支付{U}并将此牌移出对战，且上面有四个"
                    "计时指示物。在你的维持开始时，从其上移去一个计时指示物。当最后一个计时指示物"
                    "被移去时，你可以使用此牌且不需支付其法术力费用。）",
                    "目标牌手抓三张牌。",
                ],
            )
        },
    ),
    "aether-membrane": (
        "Aether Membrane",
        [
            "Defender; reach (This creature can block creatures with flying.)",
            "Whenever Aether Membrane blocks a creature, return that creature to its owner's "
            "hand at end of combat.",
        ],
        {
            "zh": (
                "乙太护膜",
                [
                    "守军",
                    "乙太护膜能视同具有飞行异能地进行阻挡。",
                    "每当乙太护膜阻挡某生物，在战斗结束时将该生物移回其拥有者手上。",
                ],
            )
        },
    ),
    "cascading-cataracts": (
        "Cascading Cataracts",
        [
            "Indestructible",
            "{T}: Add {C}.",
            "{5}, {T}: Add five mana in any combination of colors.",
        ],
        {
            "es": (
                "Cataratas en cascada",
                [
                    "Indestructible.",
                    "{T}: Agrega {C}.",
                    "{5}, {T}: Agrega cinco manás de cualquier combinación de colores.",
                ],
            )
        },
    ),
    "riftsweeper": (
        "Riftsweeper",
        [
            "When Riftsweeper enters the battlefield, choose target face-up exiled card. Its "
            "owner shuffles it into their library.",
            "Morph {2}{G}",
        ],
        # the second line is missing for real: it stays missing
        {"es": ("Barrefisuras", ["Cuando el Barrefisuras entre en juego, elige la carta "
                                 "objetivo boca arriba removida del juego. Su propietario "
                                 "la baraja en su biblioteca."])},
    ),
}  # fmt: skip


def _write(root: Path, lang: str, slug: str, title: str, lines: list[str]) -> None:
    folder = root / lang
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{slug}.txt").write_text("\n\n".join([title, *lines]) + "\n", "utf-8")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("printed")
    for slug, (name, english, translations) in CARDS.items():
        _write(root, "en", slug, name, english)
        for lang, (title, lines) in translations.items():
            _write(root, lang, slug, title, lines)
    out = tmp_path_factory.mktemp("printed-run")
    _run_every_code(root, out)
    return out


def _run_every_code(root: Path, out: Path) -> None:
    """``rulings run`` on ``root`` with every code selected, the ones off by default too."""
    every = ",".join(sorted({str(row.category) for row in CATALOGUE.values()}))
    result = CliRunner().invoke(
        main, ["run", str(root), "--out", str(out), "--fail-on", "never", "--select", every]
    )
    assert result.exit_code == 0, result.output


def _says(out: Path) -> dict[str, set[str]]:
    """The English lines each translated line is paired or merged with."""
    says: dict[str, set[str]] = {}
    for r in _rows(out, "alignment.jsonl"):
        if r["source_id"] and r["target_id"]:
            says.setdefault(r["target_id"], set()).add(r["source_id"])
    return says


def _rows(run: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (run / name).read_text("utf-8").splitlines()]


def _findings(run: Path, code: str, file_part: str) -> list[dict]:
    return [
        f
        for f in _rows(run, "findings.jsonl")
        if f["code"] == code and file_part in (f.get("file") or "")
    ]


@pytest.mark.parametrize("slug", ["narcomoeba", "sehts-tiger"])
def test_a_paragraph_that_says_two_lines_leaves_neither_missing(run, slug):
    assert _findings(run, "MISS002", slug) == _findings(run, "MISS001", slug) == []
    merged = [
        r for r in _rows(run, "alignment.jsonl")
        if r["method"] == "merged" and slug in r["target_id"]
    ]  # fmt: skip
    assert len(merged) == 1 and merged[0]["source_id"] == f"en/{slug}.txt:3"


def test_a_line_really_left_out_is_still_missing(run):
    """A card line with no translation is MISS002 (off by default: printed cards run lines
    together more often than they leave one out; this run selects every code)."""
    assert _findings(run, "MISS001", "riftsweeper") == []
    missing = _findings(run, "MISS002", "riftsweeper")
    assert [f["ruling_id"] for f in missing] == ["en/riftsweeper.txt:5"]


def test_a_printed_colour_sentence_is_no_extra_translation(run):
    assert _findings(run, "EXTRA003", "ancestral-vision") == []


def test_a_printing_that_splits_a_line_is_no_extra_translation(run):
    assert _findings(run, "EXTRA003", "aether-membrane") == []
    split = [
        r for r in _rows(run, "alignment.jsonl")
        if r["method"] == "merged" and r["target_id"] == "zh/aether-membrane.txt:3"
    ]  # fmt: skip
    assert [r["source_id"] for r in split] == ["en/aether-membrane.txt:3"]


def test_a_keyword_spelt_as_in_english_is_translated(run):
    assert _findings(run, "UNTR002", "cascading-cataracts") == []


def test_a_line_of_keywords_printed_a_keyword_a_line(tmp_path_factory):
    """Thornweald Archer (FUT): "Reach, deathtouch" printed as two Chinese lines, each with
    its reminder text."""
    root = tmp_path_factory.mktemp("keywords")
    _write(root, "en", "thornweald-archer", "Thornweald Archer", ["Reach, deathtouch"])
    _write(
        root,
        "zh",
        "thornweald-archer",
        "荆林箭手",
        [
            "延势（此生物能阻挡具飞行异能的生物。）",
            "死触（每当此生物对任一生物造成伤害时，消灭后者。）",
        ],
    )
    out = tmp_path_factory.mktemp("keywords-run")
    _run_every_code(root, out)
    rows = {r["target_id"]: r for r in _rows(out, "alignment.jsonl") if r["target_id"]}
    assert rows["zh/thornweald-archer.txt:3"]["source_id"] == "en/thornweald-archer.txt:3"
    assert rows["zh/thornweald-archer.txt:5"]["method"] == "merged"
    codes = {f["code"] for f in _rows(out, "findings.jsonl")}
    assert not codes & {"EXTRA001", "EXTRA003", "MISS001", "MISS002", "EXTRA002"}


def test_keyword_lines_printed_as_one_listing_paragraph(tmp_path_factory):
    """Wildborn Preserver and So Tiny (ELD): Oracle's "Flash" and "Reach" (or "Enchant
    creature") lines, printed as one paragraph that lists them, as a reprint may: the
    paragraph says both lines, none is missing, and it is no other way of translating
    "Flash" than Faerie Vandal's lone 闪现."""
    root = tmp_path_factory.mktemp("listing")
    preserver = (
        "Whenever another non-Human creature enters the battlefield under your control, you "
        "may pay {X}. When you do, put X +1/+1 counters on Wildborn Preserver."
    )
    so_tiny = (
        "Enchanted creature gets -2/-0. It gets -6/-0 instead as long as its controller has "
        "seven or more cards in their graveyard."
    )
    vandal = "Whenever you draw your second card each turn, put a +1/+1 counter on Faerie Vandal."
    _write(root, "en", "wildborn-preserver", "Wildborn Preserver", ["Flash", "Reach", preserver])
    _write(root, "en", "so-tiny", "So Tiny", ["Flash", "Enchant creature", so_tiny])
    _write(root, "en", "faerie-vandal", "Faerie Vandal", ["Flash", "Flying", vandal])
    _write(root, "es", "wildborn-preserver", "Preservador silvestre", [
        "Destello, alcance.",
        "Siempre que otra criatura que no sea Humano entre al campo de batalla bajo tu "
        "control, puedes pagar {X}. Cuando lo hagas, pon X contadores +1/+1 sobre el "
        "Preservador silvestre.",
    ])  # fmt: skip
    _write(root, "es", "so-tiny", "Tan pequeñito", [
        "Destello, encantar criatura.",
        "La criatura encantada obtiene -2/-0. En vez de eso, obtiene -6/-0 mientras su "
        "controlador tenga siete o más cartas en su cementerio.",
    ])  # fmt: skip
    _write(root, "zh", "wildborn-preserver", "野生保育师", [
        "闪现，延势",
        "每当另一个非人类生物在你的操控下进战场时，你可以支付{X}。当你如此作时，在野生保育师上放置X个+1/+1指示物。",
    ])  # fmt: skip
    _write(root, "zh", "faerie-vandal", "精怪破坏者", [
        "闪现",
        "飞行",
        "每当你抓每回合中你的第二张牌时，在精怪破坏者上放置一个+1/+1指示物。",
    ])  # fmt: skip
    out = tmp_path_factory.mktemp("listing-run")
    _run_every_code(root, out)
    says = _says(out)
    for target in (
        "es/so-tiny.txt:3",
        "es/wildborn-preserver.txt:3",
        "zh/wildborn-preserver.txt:3",
    ):
        card = target.split("/")[1].split(":")[0]
        assert says[target] == {f"en/{card}:3", f"en/{card}:5"}, target
    assert says["zh/faerie-vandal.txt:3"] == {"en/faerie-vandal.txt:3"}
    codes = {f["code"] for f in _rows(out, "findings.jsonl")}
    assert not codes & {"MISS001", "MISS002", "EXTRA001", "EXTRA003", "INCON001", "INCON002"}
    assert not codes & {"MEAN002", "MEAN003"}


def test_a_listing_line_printed_apart_after_one_keyword_was_paired(tmp_path_factory):
    """Serra Angel's "Flying, vigilance" (DOM) printed as two Chinese lines, as an older
    printing may give it: 飞行 pairs with the line one to one, and 警戒 with its reminder
    text looks like the walls' 守军 line (Defender, on three cards) more than like any line
    of its own card. It says part of its own card's line: it is no other card's line,
    nothing is extra, and 飞行 is no other way of translating "Flying, vigilance" than Aven
    Wind Guide's 飞行，警戒 (INCON001)."""
    root = tmp_path_factory.mktemp("apart")
    _write(root, "en", "serra-angel", "Serra Angel", ["Flying, vigilance"])
    _write(root, "zh", "serra-angel", "撒拉天使", ["飞行", "警戒（进行攻击不会使此生物横置。）"])
    guide = "Creature tokens you control have flying and vigilance."
    _write(root, "en", "aven-wind-guide", "Aven Wind Guide", ["Flying, vigilance", guide])
    _write(
        root,
        "zh",
        "aven-wind-guide",
        "风兆艾文",
        ["飞行，警戒", "由你操控的衍生生物具有飞行与警戒异能。"],
    )
    walls = {
        "benevolent-ancestor": ("Benevolent Ancestor", "善心祖灵", "{T}: Prevent the next 1 "
            "damage that would be dealt to any target this turn.", "{T}：于本回合中，防止接下来"
            "将对目标生物或牌手造成的1点伤害。"),
        "wall-of-roots": ("Wall of Roots", "根墙", "Put a -0/-1 counter on Wall of Roots: Add "
            "{G}. Activate only once each turn.", "在根墙上放置一个-0/-1指示物：加{G}。每回合"
            "中只能起动一次。"),
        "amaranthine-wall": ("Amaranthine Wall", "不凋墙", "{2}: Amaranthine Wall gains "
            "indestructible until end of turn.", "{2}：不凋墙获得不灭异能直到回合结束。"),
    }  # fmt: skip
    for slug, (name, title, english, chinese) in walls.items():
        _write(root, "en", slug, name, ["Defender (This creature can't attack.)", english])
        _write(root, "zh", slug, title, ["守军（此生物不能攻击。）", chinese])
    out = tmp_path_factory.mktemp("apart-run")
    _run_every_code(root, out)
    says = _says(out)
    assert says["zh/serra-angel.txt:3"] == {"en/serra-angel.txt:3"}
    assert says["zh/serra-angel.txt:5"] == {"en/serra-angel.txt:3"}
    codes = {f["code"] for f in _rows(out, "findings.jsonl") if "serra" in (f["file"] or "")}
    assert not codes & {"EXTRA001", "EXTRA003", "INCON001", "MISS001", "MISS002"}
