"""glossary-terms.tsv: the term pairs of the glossaries in the input, as a termbase.

A bilingual glossary is exactly what the termbase wants: each entry's headwords become one
concept (English headword as the id) with a row per language, status ``approved`` and
``enforce`` off, noted with the glossary it came from. Review the file, then pass it with
``--termbase`` to check translations against it.
"""

from __future__ import annotations

from pathlib import Path

from ...tables import RunTables
from ...termbase import Term, concept_id, write_tsv
from ...vocabulary import DocKind
from .. import writer

COMMENTS = (
    "Term pairs read from the glossaries in the input (rulings report, glossary-terms.tsv),",
    "leaving out concepts the termbase of the run already has. Review them, then use the",
    "file with --termbase; statuses are approved, enforce is off.",
)


@writer("terms", filename="glossary-terms.tsv", reads=("rulings",))
def write_glossary_terms(run: RunTables, out: Path) -> Path:
    """The headword pairs of every glossary document in the input, in the termbase TSV
    format (empty but for its header when the input has no glossary). Concepts the run's
    termbase already has are left out: the file only adds."""
    entries: dict[str, dict[str, str]] = {}
    origin: dict[str, str] = {}
    for ruling in sorted(run.rulings, key=lambda r: (r.file, r.line or 0)):
        if ruling.doc_kind != DocKind.GLOSSARY or not ruling.term or not ruling.lang:
            continue
        key = ruling.context or ruling.term
        entries.setdefault(key, {}).setdefault(ruling.lang, ruling.term)
        origin.setdefault(key, ruling.file)
    terms: list[Term] = []
    seen: set[str] = set(run.termbase.concepts) if run.termbase is not None else set()
    for key, by_lang in entries.items():
        source = by_lang.get(run.source_lang)
        concept = concept_id(source) if source else ""
        if not concept or concept in seen or len(by_lang) < 2:
            continue
        seen.add(concept)
        note = f"from {origin[key]}"
        for lang in sorted(by_lang, key=lambda tag: (tag != run.source_lang, tag)):
            forms = tuple(form.strip() for form in by_lang[lang].split(",") if form.strip())
            terms.append(Term(concept, lang, forms, "approved", False, note, origin[key]))
    return write_tsv(out / "glossary-terms.tsv", terms, COMMENTS)
