"""Coverage: English rulings with no translation, translations with no English source."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from ...text.card_text import is_card_document_line, is_reminder_line
from ...vocabulary import DocKind, Method, Release, Scope
from ..context import CheckContext
from ..registry import Problem, check, corpus_fact, split_pass

UNKNOWN_SHOWN = 5


@check("MISS001", scope=Scope.CORPUS)
def missing_translation(ctx: CheckContext) -> Iterator[Problem]:
    """An English ruling (or rule) that the translated document should have and does not:
    it is one of the card's current English rulings, or it lies inside the stretch of rules
    the translation covers, and nothing in the translation matches it. A line of a card's
    text is MISS002's (off by default)."""
    yield from (problem for problem, card_line in _missing(ctx) if not card_line)


@check("MISS002", scope=Scope.CORPUS)
def missing_card_line(ctx: CheckContext) -> Iterator[Problem]:
    """A line of a card's English text that nothing in the translated card text matches.
    Off by default: printed cards run lines together (two keywords on one line, a sliver's
    two granted abilities in one sentence) in ways the pairing does not always see, and
    then the line is there, inside another."""
    yield from (problem for problem, card_line in _missing(ctx) if card_line)


def _missing(ctx: CheckContext) -> list[tuple[Problem, bool]]:
    """Every English unit with no translation, each with whether it is a line of a card's
    text (MISS002) rather than a ruling or a rule (MISS001); worked out once for both."""
    return split_pass(ctx, "missing units", lambda: _missing_units(ctx))


def _missing_units(ctx: CheckContext) -> Iterator[tuple[Problem, bool]]:
    merged = {line.id for lines in ctx.merged_sources.values() for line in lines}
    for row in ctx.alignment:
        if row.method != Method.NO_TRANSLATION or row.source_id is None:
            continue
        if row.source_id in merged:
            continue
        source = ctx.by_id[row.source_id]
        new = f", new in the {source.doc_version} release," if row.release == Release.NEW else ""
        problem = Problem(
            source,
            f"No {row.lang} translation of this {source.kind}"
            + (f" ({source.section})" if source.section else "")
            + f"{new} in the {row.lang} document for {row.group}.",
            {"expected_lang": row.lang, "group": row.group, "source_text": source.text[:200]},
            source=source,
            lang=row.lang,
        )
        yield problem, is_card_document_line(source)


@check("EXTRA001", scope=Scope.CORPUS)
def translation_without_source(ctx: CheckContext) -> Iterator[Problem]:
    """A translated ruling that matches none of the English rulings its document is aligned
    with: a ruling the English does not have (removed, or added by the translator), or one
    translated so freely that it cannot be matched. Documents with no English source in the
    input at all are reported once instead (EXTRA002). A line of a card's translated text
    is EXTRA003's (off by default)."""
    yield from (problem for problem, card_line in _unmatched(ctx) if not card_line)


@check("EXTRA003", scope=Scope.CORPUS)
def card_line_without_source(ctx: CheckContext) -> Iterator[Problem]:
    """A line of a card's translated text that matches no line of its English text. Off by
    default: printed cards split a line in two, run lines together or add a sentence Oracle
    text no longer has, in ways the pairing does not always see. A line that is only
    reminder text is none: printed cards add reminder lines as space allows."""
    yield from (problem for problem, card_line in _unmatched(ctx) if card_line)


def _unmatched(ctx: CheckContext) -> list[tuple[Problem, bool]]:
    """Every translated unit its document's English does not match, each with whether it
    is a line of a card's text (EXTRA003) rather than a ruling, a rule or a CAT file's
    segment (EXTRA001); worked out once for both."""
    return split_pass(ctx, "unmatched units", lambda: _unmatched_units(ctx))


def _unmatched_units(ctx: CheckContext) -> Iterator[tuple[Problem, bool]]:
    sourced_docs = _documents_with_sources(ctx)
    for row in ctx.alignment:
        if row.method != Method.NO_SOURCE or row.target_id is None:
            continue
        target = ctx.by_id[row.target_id]
        if target.doc not in sourced_docs or is_reminder_line(target):
            continue
        problem = Problem(
            target,
            "No English ruling in the input matches this translation.",
            {"group": row.group},
        )
        yield problem, is_card_document_line(target)


@check("EXTRA002", scope=Scope.CORPUS)
def document_without_source(ctx: CheckContext) -> Iterator[Problem]:
    """A translated document whose own English source (the card's rulings, or the rules
    document) is not in the input: its rulings that are not shared with other cards could
    not be compared with any English, so only the checks that need no source ran on them.
    Add the English master (MTGJSON, Scryfall, an English document or the Comprehensive
    Rules) to check them fully. Documents about cards no card data names (a new set's),
    which their text could not pair with an English document of the input, are counted in
    one finding per language for the run instead: whether their English is missing or was
    not recognised cannot be told."""
    sourced_docs = _documents_with_sources(ctx)
    orphans = defaultdict(list)
    for row in ctx.alignment:
        if row.method == Method.NO_SOURCE and row.target_id:
            target = ctx.by_id[row.target_id]
            if target.doc not in sourced_docs:
                orphans[target.doc].append(target)
    unknown: dict[str, list[list]] = defaultdict(list)
    for doc, members in sorted(orphans.items()):
        if members[0].card is None and members[0].section is None:
            unknown[members[0].doc_lang or ""].append(members)
            continue
        yield Problem(
            members[0],
            f"No English source in the input for {len(members)} "
            f"ruling{'s' if len(members) > 1 else ''} of \u201c{members[0].doc_title or doc}"
            "\u201d.",
            {"rulings": len(members), "document": doc},
            document=members,
        )
    for lang, documents in sorted(unknown.items()):
        titles = sorted({members[0].doc_title or members[0].doc for members in documents})
        shown = ", ".join(f"\u201c{t}\u201d" for t in titles[:UNKNOWN_SHOWN])
        more = f" and {len(titles) - UNKNOWN_SHOWN} more" if len(titles) > UNKNOWN_SHOWN else ""
        yield Problem(
            documents[0][0],
            f"{len(documents)} {lang} documents about cards the card data does not know match "
            f"no English document of the input clearly enough to be paired ({shown}{more}): "
            "only the checks that need no English ran on them. Add the English documents, "
            "or the set's card data to pair them by card.",
            {
                "documents": len(documents),
                "rulings": sum(len(members) for members in documents),
                "titles": titles,
                "files": sorted({members[0].file for members in documents}),
            },
            lang=lang,
            whole_run=True,
        )


@corpus_fact
def _documents_with_sources(ctx: CheckContext) -> set[str]:
    """Documents aligned with their own English source (a card's own rulings or a rules
    document), as opposed to ones only matched ruling by ruling with other cards' rulings,
    and documents of a card whose own English is in the input (even if nothing in them
    matched it)."""
    source, elsewhere = DocKind.SOURCE, _MATCHED_ELSEWHERE
    english_cards = {r.card for r in ctx.rulings if r.card and r.doc_kind == source}
    return {  # a row with a translation is under its document: a document's first row will do
        doc
        for doc, rows in ctx.rows_by_document.items()
        if any(row.source_id and row.target_id and row.method not in elsewhere for row in rows)
    } | {r.doc for r in ctx.translations if r.card in english_cards}


_MATCHED_ELSEWHERE = frozenset({Method.UNTRANSLATED, Method.TEMPLATE})
"""Rows that pair a translation with no source of its own document."""
