"""INCON002: one translation used for English texts that say different things, and the
look-alikes it must leave alone (the same keyword line for the same English, English that
differs only in card names, numbers or templating, misaligned pairs)."""

from __future__ import annotations

import pytest

from pipelines.check import run_checks
from pipelines.check.examples import context_of

PERMANENT = "Desmaterializarse 3 (Este permanente entra con tres contadores de tiempo sobre él.)"
"""The Spanish Vanishing line that says "permanent" for "creature" and "Aura" alike."""


def on_cards(*pairs, lang="es", **row):
    """Each (English, translation) on a card document of its own."""
    return [
        {
            "source": en,
            "target": tr,
            "lang": lang,
            "doc": f"{lang}/{n}.txt",
            "source_doc": f"en/{n}.txt",
            **row,
        }
        for n, (en, tr) in enumerate(pairs)
    ]


def incon002(units, termbase, cards):
    return run_checks(context_of(units, termbase, cards), select=["INCON002"])


def test_a_translation_copied_onto_english_that_says_another_number(termbase, cards):
    units = on_cards(
        ("Draw two cards.", "Roba dos cartas."), ("Draw three cards.", "Roba dos cartas.")
    )
    [found] = incon002(units, termbase, cards)
    assert (found.ruling_id, found.source_id, found.file, found.line) == (
        "es/1.txt:1",
        "en/1.txt:1",
        "es/1.txt",
        1,
    )
    assert found.category == "inconsistent-translation"
    assert "“Draw two cards.”" in found.message and "it says the number 2, which" in found.message
    evidence = found.evidence
    assert evidence["translation"] == "Roba dos cartas."
    assert [v["source"] for v in evidence["variants"]] == ["Draw three cards.", "Draw two cards."]
    assert evidence["says_not_in_source"] == {"terms": [], "numbers": ["2"]}
    assert evidence["other_source"] == "en/0.txt:1"


def test_a_translation_that_names_the_other_englishs_term(termbase, cards):
    units = on_cards(
        ("Enchanted creature gets +2/+2.", "La criatura encantada obtiene +2/+2."),
        ("Enchanted artifact gets +2/+2.", "La criatura encantada obtiene +2/+2."),
    )
    [found] = incon002(units, termbase, cards)
    assert found.ruling_id == "es/1.txt:1"
    assert found.evidence["says_not_in_source"]["terms"] == ["creature"]
    assert found.marks and found.marks[0]["side"] == "target"


@pytest.mark.parametrize(
    "pairs",
    [
        # the same keyword line for the same English, on many cards
        [("Flying", "Vuela."), ("Flying", "Vuela."), ("Flying", "Vuela.")],
        # English that differs only in its numbers and symbols (the card's parameters)
        [("Kicker {2}{G}", "Estímulo {2}{G}."), ("Kicker {3}{G}", "Estímulo {3}{G}.")],
        # templated differently, and the translation takes no side (it says "permanent")
        [
            (
                "Vanishing 3 (This creature enters with three time counters on it.)",
                PERMANENT,
            ),
            (
                "Vanishing 3 (This Aura enters with three time counters on it.)",
                PERMANENT,
            ),
        ],
        # English that says the same thing in other words
        [("Draw a card.", "Roba una carta."), ("You draw a card.", "Roba una carta.")],
    ],
)
def test_look_alikes_are_not_reported(pairs, termbase, cards):
    assert incon002(on_cards(*pairs), termbase, cards) == []


def test_a_translation_pasted_from_another_card_and_pairs_not_compared(termbase, cards):
    """The Spanish Icatian Crier carries Return to Dust's text (MTGJSON TSP): far from its
    own English, and still its translation. A look-alike the aligner took from another
    card (a template) is no evidence; a threshold can leave out pairs of low similarity."""
    pasted = on_cards(
        ("Exile target artifact or enchantment.", "Exilia el artefacto o encantamiento objetivo."),
        (
            "{1}{W}, {T}, Discard a card: Create two 1/1 white Citizen creature tokens.",
            "Exilia el artefacto o encantamiento objetivo.",
        ),
    )
    pasted[1]["similarity"] = 0.17
    [found] = incon002(pasted, termbase, cards)
    assert found.ruling_id == "es/1.txt:1"
    assert {"artifact", "enchantment"} <= set(found.evidence["says_not_in_source"]["terms"])
    ctx = context_of(pasted, termbase, cards)
    ctx.thresholds = {"incon002.min-similarity": 0.5}
    assert run_checks(ctx, select=["INCON002"]) == []
    copied = [("Draw two cards.", "Roba dos cartas."), ("Draw three cards.", "Roba dos cartas.")]
    assert incon002(on_cards(*copied, method="template"), termbase, cards) == []
