"""Corpus facts worked out from rulings alone (``corpus_fact(reads=...)``) are kept in the
work cache: a rerun that changed none of the rulings they read takes them from it, with the
same value and digest; one that changed one works them out again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from check_helpers import Run

from pipelines.check import CheckContext, corpus_facts_digest, run_checks
from pipelines.check.checks.card_names import _source_words
from pipelines.check.checks.dates import _english_dates
from pipelines.check.registry import CORPUS_FACTS
from pipelines.store import open_store
from pipelines.work import Cache, Reuse

PAIRS = [
    ("Draw a card.", "Roba una carta."),
    ("Exile target artifact.", "Exilia el artefacto objetivo."),
    ("Target player gains 3 life.", "El jugador objetivo gana 3 vidas."),
]


def a_run(termbase, cards) -> Run:
    run = Run(termbase, cards)
    for source, target in PAIRS:
        run.pair(source, target, "es", source_date="2024-02-02", date="2024-02-02")
    return run


def context(run: Run) -> CheckContext:
    return CheckContext(run.rulings, run.alignment, run.termbase, run.cards, "en")


def kept_facts() -> int:
    return sum(1 for entry in CORPUS_FACTS if entry.meta.get("reads"))


def test_facts_are_read_back_while_the_rulings_they_read_are_the_same(termbase, cards, tmp_path):
    store = tmp_path / "store"
    first, reuse = context(a_run(termbase, cards)), Reuse()
    digest = corpus_facts_digest(first, Cache(open_store(store), (), reuse))
    assert reuse.counts["check-fact"] == [0, kept_facts()]

    translation_edited = a_run(termbase, cards)
    # not the first of its document, which the titles of the documents are read from
    translation_edited.rulings[3] = replace(
        translation_edited.rulings[3], text="Exilia el artefacto."
    )
    again, reuse = context(translation_edited), Reuse()
    assert corpus_facts_digest(again, Cache(open_store(store), (), reuse)) == digest
    assert reuse.counts["check-fact"] == [kept_facts(), 0]
    # read back as the values worked out: sets stay sets
    # the words written in lower case ("Draw", "Exile" and "Target" open their sentences)
    assert _source_words(again) == {"a", "card", "target", "artifact", "player", "gains", "life"}
    assert isinstance(_source_words(again), set)
    assert _english_dates(again) == _english_dates(context(a_run(termbase, cards)))
    assert corpus_facts_digest(context(translation_edited)) == digest  # without the cache


def test_an_edited_english_ruling_has_the_facts_worked_out_again(termbase, cards, tmp_path):
    store = tmp_path / "store"
    digest = corpus_facts_digest(context(a_run(termbase, cards)), Cache(open_store(store), ()))
    edited = a_run(termbase, cards)
    edited.rulings[0] = replace(edited.rulings[0], text="Draw a card, then discard a card.")
    ctx, reuse = context(edited), Reuse()
    assert corpus_facts_digest(ctx, Cache(open_store(store), (), reuse)) != digest
    assert reuse.counts["check-fact"] == [0, kept_facts()]
    assert {"then", "discard"} <= _source_words(ctx)


def test_findings_with_facts_read_back_are_those_of_a_run_without_a_cache(
    termbase, cards, tmp_path: Path
):
    store = tmp_path / "store"
    run_checks(context(a_run(termbase, cards)), work=Cache(open_store(store), ()))
    edited = a_run(termbase, cards)
    edited.rulings[3] = replace(edited.rulings[3], text="Exilia el artifact objetivo.")
    reuse = Reuse()
    kept = run_checks(context(edited), work=Cache(open_store(store), (), reuse))
    assert reuse.counts["check-fact"] == [kept_facts(), 0]
    assert kept == run_checks(context(edited))
