"""The reader of a file: the best score of every detector, asked from the highest ceiling
down and no further than needed (``ingest.readers.choose``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.ingest.readers import READERS, choose
from pipelines.ingest.source import SourceFile, discover

ROOT = Path(__file__).resolve().parent.parent
INPUTS = [ROOT / "corpus", ROOT / "tests" / "fixtures"]


def asked_every_reader(doc: SourceFile) -> str | None:
    """The choice with every detector asked (the rule ``choose`` must keep)."""
    scored = [
        (score, entry.meta["priority"], entry.name)
        for entry in READERS
        if (score := entry.meta["detect"](doc)) > 0
    ]
    return max(scored)[2] if scored else None


def files() -> list[SourceFile]:
    return [doc for doc in discover(INPUTS) if not doc.not_read]


def test_every_input_of_the_repository_gets_the_reader_every_detector_would_choose():
    found = files()
    assert len(found) >= 40
    chosen = {doc.rel: choose(doc) for doc in found}
    assert chosen == {doc.rel: asked_every_reader(doc) for doc in found}
    assert {"cr-text", "plain-dated", "mtgjson", "tmx", "xliff", "po"} <= set(chosen.values())


@pytest.mark.parametrize("doc", files(), ids=lambda doc: doc.rel)
def test_no_detector_scores_above_its_ceiling(doc):
    for entry in READERS:
        assert entry.meta["detect"](doc) <= entry.meta["ceiling"], entry.name


def test_a_share_that_rounds_up_stays_under_the_ceiling_and_still_wins():
    """0.95 * 19 / 19 is 0.9500000000000001: a rules summary of 19 items scores above a
    rules text's 0.95, and its reader must still be asked after the rules text's."""
    summary = "702. Keyword Abilities\n" + "".join(
        f"- 702.{n}. Keyword {n}\n" for n in range(1, 20)
    )
    doc = SourceFile.from_text("summary.txt", summary)
    scores = {entry.name: entry.meta["detect"](doc) for entry in READERS}
    assert scores["cr-summary"] > 0.95
    assert choose(doc) == asked_every_reader(doc) == "cr-summary"


def test_a_rules_file_is_not_scanned_by_readers_that_cannot_beat_the_rules_reader(monkeypatch):
    asked = []
    for entry in READERS:
        detect = entry.meta["detect"]
        monkeypatch.setitem(
            entry.meta,
            "detect",
            lambda doc, detect=detect, name=entry.name: asked.append(name) or detect(doc),
        )
    rules = "".join(f"{100 + n}.1. Rule {n} says what it says.\n" for n in range(50))
    assert choose(SourceFile.from_text("rules.txt", rules)) == "cr-text"
    assert "cr-text" in asked
    assert not {"plain-dated", "plain-block", "plain-paragraphs"} & set(asked)
