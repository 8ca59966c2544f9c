"""Hand-built units and pairs for the tests of the checks: ``ruling`` makes a unit, ``Run``
a context of pairs that runs one check through the runner, ``codes_on`` the findings of a
check on one unit. Used by tests/test_checks.py and tests/test_false_findings.py."""

from __future__ import annotations

from pipelines.cards import CardIndex
from pipelines.check import CheckContext, run_checks
from pipelines.check.registry import CHECKS
from pipelines.model import Alignment, Finding, Ruling
from pipelines.termbase import Termbase


def ruling(
    rid: str,
    text: str,
    lang: str,
    *,
    doc_lang: str | None = None,
    date: str | None = None,
    date_raw: str | None = None,
    spans: list[dict] | None = None,
    card: str | None = None,
) -> Ruling:
    file, line = rid.rsplit(":", 1)
    return Ruling(
        id=rid,
        file=file,
        line=int(line),
        format="plain-dated",
        doc_title=None,
        card=card,
        section=None,
        doc_lang=doc_lang or lang,
        lang=lang,
        spans=spans or [],
        date=date,
        date_raw=date_raw or date,
        text=text,
        doc=file,
        doc_kind="source" if (doc_lang or lang) == "en" else "translation",
        position=int(line),
    )


class Run:
    """A context over hand-made pairs; ``findings(code)`` runs one check."""

    def __init__(self, termbase: Termbase, cards: CardIndex) -> None:
        self.termbase, self.cards = termbase, cards
        self.rulings: list[Ruling] = []
        self.alignment: list[Alignment] = []

    def pair(
        self, source: str, target: str, lang: str, *, n: int | None = None, **target_fields
    ) -> Ruling:
        n = len(self.rulings) + 1 if n is None else n
        en = ruling(f"en.txt:{n}", source, "en", date=target_fields.pop("source_date", None))
        translated = ruling(f"{lang}.txt:{n}", target, lang, **target_fields)
        self.rulings += [en, translated]
        self.alignment.append(
            Alignment(en.id, translated.id, lang, 0.9, "rule", similarity=0.8, group="en.txt")
        )
        return translated

    def alone(self, text: str, lang: str, **fields) -> Ruling:
        item = ruling(f"{lang}.txt:{len(self.rulings) + 1}", text, lang, **fields)
        self.rulings.append(item)
        return item

    def findings(self, code: str) -> list[Finding]:
        """The findings of one check, through the runner (as a run makes them)."""
        assert code in CHECKS
        ctx = CheckContext(self.rulings, self.alignment, self.termbase, self.cards, "en")
        return run_checks(ctx, select=[code])


def codes_on(run: Run, code: str, target: Ruling) -> list[Finding]:
    return [f for f in run.findings(code) if f.ruling_id == target.id]
