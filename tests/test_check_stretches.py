"""A long translated document is checked and kept in stretches (``check.in_pieces``): a line
edited in place is checked again with its stretch and the document checks, and the findings
are those of a run that checks the document whole. The thresholds are made small, so that a
hand-made document of a dozen pairs is long."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from check_helpers import Run

from pipelines import check
from pipelines.check import CheckContext, in_pieces, run_checks
from pipelines.check.registry import CHECKS
from pipelines.model import Finding
from pipelines.store import open_store
from pipelines.vocabulary import Scope
from pipelines.work import Cache, Reuse

FILLER = [
    ("Draw a card.", "Roba una carta."),
    ("Each player discards a card.", "Cada jugador descarta una carta."),
    ("Destroy target creature.", "Destruye la criatura objetivo."),
    ("Tap target land.", "Gira la tierra objetivo."),
    ("Counter target spell.", "Contrarresta el hechizo objetivo."),
    ("Exile target artifact.", "Exilia el artefacto objetivo."),
    ("Create a 1/1 white Soldier creature token.", "Crea una ficha de criatura Soldado 1/1."),
    ("Target player gains 3 life.", "El jugador objetivo gana 3 vidas."),
    ("Sacrifice a creature.", "Sacrifica una criatura."),
    ("Return target card to its owner's hand.", "Regresa la carta objetivo a la mano."),
]
INFORMAL = ("You may draw a card.", "Puedes robar una carta.")
FORMAL = ("However, you may pay additional costs.", "Sin embargo, puede pagar costes adicionales.")


@pytest.fixture
def short_stretches(monkeypatch):
    monkeypatch.setattr(check, "LONG_DOCUMENT", 4)
    monkeypatch.setattr(check, "STRETCH_ITEMS", 4)


def document(termbase, cards, first: tuple[str, str] = INFORMAL) -> Run:
    """A Spanish document of twelve pairs: ``first``, the filler, the formal "puede" last
    (STYLE001 when the document says "puedes" somewhere)."""
    run = Run(termbase, cards)
    for source, target in [first, *FILLER, FORMAL]:
        run.pair(source, target, "es")
    return run


def findings(run: Run, store: Path, reuse: Reuse) -> list[Finding]:
    ctx = CheckContext(run.rulings, run.alignment, run.termbase, run.cards, "en")
    return run_checks(ctx, work=Cache(open_store(store), (), reuse))


def test_a_long_document_is_cut_into_stretches_and_its_document_checks(short_stretches):
    runs = [
        (Scope.PAIR, ("NUM001",), "es.txt", 0, 10),
        (Scope.PAIR, ("NUM001",), "fr.txt", 10, 13),
        (Scope.DOCUMENT, ("STYLE002",), "es.txt", 0, 1),
    ]
    assert in_pieces(runs) == [
        (Scope.PAIR, ("NUM001",), ("es.txt", 1), 0, 4),
        (Scope.PAIR, ("NUM001",), ("es.txt", 2), 4, 8),
        (Scope.PAIR, ("NUM001",), ("es.txt", 3), 8, 10),
        (Scope.PAIR, ("NUM001",), ("fr.txt", 0), 10, 13),
        (Scope.DOCUMENT, ("STYLE002",), ("es.txt", 0), 0, 1),
    ]


def test_a_line_edited_in_place_is_checked_again_with_its_stretch_only(
    termbase, cards, short_stretches, tmp_path: Path
):
    store = tmp_path / "store"
    whole = findings(document(termbase, cards), tmp_path / "cold", Reuse())
    assert findings(document(termbase, cards), store, Reuse()) == whole

    edited = document(termbase, cards)
    edited.rulings[9] = replace(edited.rulings[9], text="Gira la tierra objetivo. (editado)")
    reuse = Reuse()
    again = findings(edited, store, reuse)
    checked, total = reuse.counts["check"][1], sum(reuse.counts["check"])
    # of 3 pair stretches, 3 ruling stretches and the document checks: the two stretches of
    # the edited line and the document checks
    assert (checked, total) == (3, 7)
    assert again == findings(edited, tmp_path / "cold-edited", Reuse())


def test_a_stretch_is_checked_again_when_a_fact_of_its_document_changed(
    termbase, cards, short_stretches, tmp_path: Path
):
    """STYLE001 on the last stretch reads how often the document says "tú" (a document fact):
    the first line's "puedes" edited away (its English, and every corpus fact, the same)
    takes the finding away, the last stretch being unchanged."""
    store = tmp_path / "store"
    informal = findings(document(termbase, cards), store, Reuse())
    assert [f.evidence["expected"] for f in informal if f.code == "STYLE001"] == ["puedes"]

    formal_only = document(termbase, cards, first=(INFORMAL[0], "Se roba una carta."))
    again = findings(formal_only, store, Reuse())
    assert [f for f in again if f.code == "STYLE001"] == []
    assert again == findings(formal_only, tmp_path / "cold", Reuse())


def test_cutting_a_document_into_stretches_changes_no_finding(
    termbase, cards, monkeypatch, tmp_path: Path
):
    whole = findings(document(termbase, cards), tmp_path / "whole", Reuse())
    monkeypatch.setattr(check, "LONG_DOCUMENT", 2)
    monkeypatch.setattr(check, "STRETCH_ITEMS", 3)
    assert findings(document(termbase, cards), tmp_path / "cut", Reuse()) == whole
    assert whole


LONG = (
    "If a creature you control would die, exile it instead and return it to the battlefield "
    "at the beginning of the next end step.",
    "Si una criatura que controlas fuera a morir, roba una carta.",
)


def similar_pairs(termbase, cards, changed: float | None = None) -> Run:
    """22 pairs whose similarities spread around 0.8 (MEAN001's statistics), the last one
    far from its source in meaning; ``changed``: the first pair's similarity instead."""
    run = Run(termbase, cards)
    for n, (source, target) in enumerate([*FILLER, *FILLER, ("Scry 1.", "Adivina 1."), LONG]):
        run.pair(source, target, "es")
        row = run.alignment[-1]
        similarity = 0.2 if (source, target) == LONG else 0.7 + 0.01 * n
        if n == 0 and changed is not None:
            similarity = changed
        run.alignment[-1] = replace(row, similarity=similarity)
    return run


def test_a_check_that_reads_the_corpus_statistics_runs_every_time_and_keeps_nothing_stale(
    termbase, cards, short_stretches, tmp_path: Path
):
    """MEAN001 reads the median similarity of the language's pairs, which one edited pair
    moves: it runs every time, and the stretches that did not change are reused."""
    store = tmp_path / "store"
    first = findings(similar_pairs(termbase, cards), store, Reuse())
    assert [f.ruling_id for f in first if f.code == "MEAN001"] == ["es.txt:43"]
    reuse = Reuse()
    again = findings(similar_pairs(termbase, cards, changed=0.99), store, reuse)
    assert again == findings(similar_pairs(termbase, cards, changed=0.99), tmp_path / "c", Reuse())
    checked, total = reuse.counts["check"][1], sum(reuse.counts["check"])
    # the pair and ruling stretches of the first pair and the document checks
    assert (checked, total) == (3, 13)


def test_a_kept_check_may_not_read_a_changing_corpus_fact(
    termbase, cards, monkeypatch, tmp_path: Path
):
    monkeypatch.setitem(CHECKS["MEAN001"].meta, "every_run", False)
    with pytest.raises(RuntimeError, match="changing corpus fact"):
        findings(similar_pairs(termbase, cards), tmp_path / "store", Reuse())
