"""Coverage: English rulings with no translation, translations with no English source."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ...vocabulary import DocKind, Method, Release, Scope
from ..context import CheckContext
from ..registry import Problem, check, corpus_fact


@check("MISS001", scope=Scope.CORPUS)
def missing_translation(ctx: CheckContext) -> Iterator[Problem]:
    """An English ruling (or rule) that the translated document should have and does not:
    it is one of the card's current English rulings, or it lies inside the stretch of rules
    the translation covers, and nothing in the translation matches it."""
    for row in ctx.alignment:
        if row.method != Method.NO_TRANSLATION or row.source_id is None:
            continue
        source = ctx.by_id[row.source_id]
        new = f", new in the {source.doc_version} release," if row.release == Release.NEW else ""
        yield Problem(
            source,
            f"No {row.lang} translation of this {source.kind}"
            + (f" ({source.section})" if source.section else "")
            + f"{new} in the {row.lang} document for {row.group}.",
            {"expected_lang": row.lang, "group": row.group, "source_text": source.text[:200]},
            source=source,
            lang=row.lang,
        )


@check("EXTRA001", scope=Scope.CORPUS)
def translation_without_source(ctx: CheckContext) -> Iterator[Problem]:
    """A translated ruling that matches none of the English rulings its document is aligned
    with: a ruling the English does not have (removed, or added by the translator), or one
    translated so freely that it cannot be matched. Documents with no English source in the
    input at all are reported once instead (EXTRA002)."""
    sourced_docs = _documents_with_sources(ctx)
    for row in ctx.alignment:
        if row.method != Method.NO_SOURCE or row.target_id is None:
            continue
        target = ctx.by_id[row.target_id]
        if target.doc not in sourced_docs:
            continue
        yield Problem(
            target,
            "No English ruling in the input matches this translation.",
            {"group": row.group},
        )


@check("EXTRA002", scope=Scope.CORPUS)
def document_without_source(ctx: CheckContext) -> Iterator[Problem]:
    """A translated document whose own English source (the card's rulings, or the rules
    document) is not in the input: its rulings that are not shared with other cards could
    not be compared with any English, so only the checks that need no source ran on them.
    Add the English master (MTGJSON, Scryfall, an English document or the Comprehensive
    Rules) to check them fully."""
    sourced_docs = _documents_with_sources(ctx)
    orphans = defaultdict(list)
    for row in ctx.alignment:
        if row.method == Method.NO_SOURCE and row.target_id:
            target = ctx.by_id[row.target_id]
            if target.doc not in sourced_docs:
                orphans[target.doc].append(target)
    for doc, members in sorted(orphans.items()):
        yield Problem(
            members[0],
            f"No English source in the input for {len(members)} "
            f"ruling{'s' if len(members) > 1 else ''} of \u201c{members[0].doc_title or doc}"
            "\u201d.",
            {"rulings": len(members), "document": doc},
            document=members,
        )


@corpus_fact
def _documents_with_sources(ctx: CheckContext) -> set[str]:
    """Documents aligned with their own English source (a card's own rulings or a rules
    document), as opposed to ones only matched ruling by ruling with other cards' rulings,
    and documents of a card whose own English is in the input (even if nothing in them
    matched it)."""
    english_cards = {r.card for r in ctx.rulings if r.card and r.doc_kind == DocKind.SOURCE}
    return {
        ctx.by_id[row.target_id].doc
        for row in ctx.alignment
        if row.source_id
        and row.target_id
        and row.method not in (Method.UNTRANSLATED, Method.TEMPLATE)
    } | {r.doc for r in ctx.translations if r.card in english_cards}
