"""Translator's notes: what a translator says about the source, inside the translation."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ...model import Mark, Ruling
from ...vocabulary import Scope
from ..context import CheckContext
from ..lexicon import about_the_source, translator_notes
from ..registry import Problem, check


@check("SRC002", scope=Scope.CORPUS)
def translators_note(ctx: CheckContext) -> Iterator[Problem]:
    """A translator's note inside a translation that says something about the English
    source ("（译注：遗漏了「战役」。）": the source lacks, misstates or has not updated
    something; the words that tell are data, resources/source_note_cues.tsv), for the
    English team to read. Reported once per note text, on the English unit the first
    translation that holds it follows (or on that translation when it has none), with every
    unit that holds it. No note is checked as translation (no term, number, symbol,
    quotation mark or untranslated word inside one is reported); a note that explains the
    translation's own wording (how its cards write a template) is for its readers and is
    not reported."""
    found: dict[tuple[str, str], list[Ruling]] = defaultdict(list)
    where: dict[str, tuple[int, int]] = {}
    for ruling in ctx.translations:
        lang = ruling.lang or ""
        for start, end in translator_notes(ruling.text, lang):
            note = " ".join(ruling.text[start:end].split())
            if not about_the_source(note, lang):
                continue
            found[lang, note].append(ruling)
            where.setdefault(ruling.id, (start, end))
    for (lang, note), rulings in sorted(found.items()):
        first = min(rulings, key=lambda r: (r.file, r.line or 0, r.id))
        pair = ctx.pairs_by_target.get(first.id)
        start, end = where[first.id]
        yield Problem(
            pair.source if pair else first,
            f"A translator's note in the {lang} translation: \u201c{note}\u201d",
            {
                "note": note,
                "rulings": sorted(r.id for r in rulings),
                "translation": first.id,
            },
            lang=lang,
            marks=[] if pair else [Mark.target(start, end)],
        )
