"""Untranslated and half-translated text: the language of a ruling and of its runs."""

from __future__ import annotations

from collections.abc import Iterator

from ...model import Finding, Ruling
from ...resources import language_name
from ..context import CheckContext
from ..registry import check

EXCERPT = 160


def _excerpt(text: str) -> str:
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


@check("UNTR001", category="untranslated", severity="error", scope="ruling")
def untranslated_ruling(ruling: Ruling, ctx: CheckContext) -> Iterator[Finding]:
    """A ruling of a translated document is still in the source language (an English ruling
    in a Spanish or Chinese file). It stands where a translation should be; it is never
    scored as a good translation. The evidence names the English ruling it copies, when
    the input has it."""
    if ruling.lang != ctx.source_lang:
        return
    row = ctx.untranslated.get(ruling.id)
    copied = ctx.by_id.get(row.source_id) if row and row.source_id else None
    yield ctx.finding(
        "UNTR001",
        ruling,
        f"This ruling of a {language_name(ruling.doc_lang)} document is still in "
        f"{language_name(ctx.source_lang)}.",
        {
            "expected_lang": ruling.doc_lang,
            "found_lang": ruling.lang,
            "found": _excerpt(ruling.text),
            "copies": copied.id if copied else None,
        },
        source=copied,
    )


@check("MIX001", category="mixed-language", severity="error", scope="ruling")
def half_translated(ruling: Ruling, ctx: CheckContext) -> Iterator[Finding]:
    """Part of a translated ruling is still in another language: a sentence finished in
    English ("意指一张(1) has suspend, (2) is in exile…"), a clause left over. The evidence
    lists each foreign run with its offsets. A run that is only a card name is reported as
    an untranslated card name (CARD003) instead."""
    if not ruling.spans or not ruling.doc_lang:
        return
    runs = [
        span
        for span in ruling.spans
        if span["lang"] != ruling.doc_lang
        and not ctx.is_card_name(ruling.text[span["start"] : span["end"]])
    ]
    if not runs:
        return
    texts = [ruling.text[s["start"] : s["end"]] for s in runs]
    langs = sorted({s["lang"] for s in runs})
    yield ctx.finding(
        "MIX001",
        ruling,
        f"Part of this {language_name(ruling.doc_lang)} ruling is in "
        f"{', '.join(map(language_name, langs))}: "
        f"\u201c{_excerpt(texts[0])}\u201d.",
        {
            "expected_lang": ruling.doc_lang,
            "runs": [
                {"lang": s["lang"], "start": s["start"], "end": s["end"], "text": t}
                for s, t in zip(runs, texts, strict=True)
            ],
        },
    )
