"""Meaning: a translation that belongs to another source (swapped, pasted, misaligned)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import TypeVar

from ...model import Ruling
from ...text.card_text import is_card_document_line
from ...text.tokens import token_counts
from ...vocabulary import TRANSLATION_METHODS, DocKind, Method, Scope, is_unspaced
from ..context import REMINDER_TEXT, CheckContext, is_card_text
from ..lexicon import numbers, stated_values
from ..registry import Problem, check, corpus_fact
from .terminology import replaced_phrases

T = TypeVar("T")


@check("MEAN002", scope=Scope.DOCUMENT)
def translation_of_another_unit(document: list[Ruling], ctx: CheckContext) -> Iterator[Problem]:
    """The translation matches another English unit clearly better than its own (cross-
    lingual similarity at least 0.12 higher, and high in itself): it was swapped with
    another ruling, or a CAT file's segments were misaligned. The evidence names the unit
    it translates, with both similarities. A translation paired with nothing that is very
    close to another unit is reported too, and so is one that repeats a translation of its
    document, and so is a pair of low similarity that shares no game term, symbol or
    number. Similarity alone is not trusted where the texts say otherwise: when the game
    terms, symbols and numbers of the translation agree with its own source at least as
    well as with the other unit (Flash / 闪现 with its reminder text, Mana / 法术力), it
    stays; a card's reminder text, which explains a keyword alike on every card, does not
    count as agreement. A unit that repeats another unit of its document says so. A card's
    line that names another card of the folder (its document's title) where its English
    names its own card, and does not name its own, is that card's line, whatever the
    similarity says (Vantress Paladin's adamant line with Ardenvale Paladin's name and
    colour). A card's line that only reads more like another card's line is MEAN003's
    (off by default)."""
    yield from (problem for problem, by_likeness in _misplaced(document, ctx) if not by_likeness)


@check("MEAN003", scope=Scope.DOCUMENT)
def card_line_like_another(document: list[Ruling], ctx: CheckContext) -> Iterator[Problem]:
    """A card's text line reads more like another card's line than like its own (cross-
    lingual similarity at least 0.12 higher, and its game terms, symbols and numbers agree
    no better with its own): a line pasted from another card, or swapped with another line
    of its card; and a card's line paired with nothing that matches another card's line
    very closely. Off by default: on real printed card text the similarity is often
    misled by an old printing's wording or by a keyword line of another card (Serra
    Angel's vigilance read as Wall of Bone's defender), where the line is its own. The
    same finding on rules text, CAT files and rulings is MEAN002's."""
    yield from (problem for problem, by_likeness in _misplaced(document, ctx) if by_likeness)


def _misplaced(document: list[Ruling], ctx: CheckContext) -> list[tuple[Problem, bool]]:
    """Every unit of the document that translates another unit, each with whether it is a
    card's line found by likeness alone (MEAN003) rather than by what MEAN002 reports;
    worked out once for both codes."""
    doc = document[0].doc
    return _of_one_document(
        ctx, "misplaced units", doc, lambda: list(_misplaced_units(document, ctx))
    )


def _misplaced_units(document: list[Ruling], ctx: CheckContext) -> Iterator[tuple[Problem, bool]]:
    titles = _titles(ctx)
    for row in ctx.rows_by_document.get(document[0].doc, ()):
        if row.target_id and not row.better_source:
            found = list(_unrelated(ctx, row))
            for problem in found or _names_another_card(ctx, row, titles):
                yield problem, False
            continue
        if not row.target_id:
            continue
        target, other = ctx.by_id[row.target_id], ctx.by_id[row.better_source]
        own = ctx.by_id.get(row.source_id) if row.method != Method.NO_SOURCE else None
        if own is not None and own.id == other.id:
            own = None  # paired with another card's own text: it has no source of its own
        elif (
            own is not None
            and not _repeats_another_unit(ctx, target, other)
            and _agreement_with_own(ctx, target, own) >= _agreement(ctx, target, other)
        ):
            for problem in _names_another_card(ctx, row, titles):
                yield problem, False
            continue
        where = other.card or other.section or other.doc
        place = f"{where}: " if where and where != target.card else ""
        twin = _twin(ctx, target, other)
        if twin is not None:
            message = (
                f"This repeats line {twin.line} of its document, the translation of "
                f"\u201c{_short(other.text)}\u201d: a unit given twice"
                + (f", in place of its own source \u201c{_short(own.text)}\u201d." if own else ".")
            )
        else:
            message = (
                f"This translates another unit ({place}\u201c{_short(other.text)}\u201d), not "
                + (
                    f"its own source \u201c{_short(own.text)}\u201d."
                    if own
                    else "a unit of its own."
                )
            )
        problem = Problem(
            target,
            message,
            {
                "expected": own.text if own else None,
                "found": other.text,
                "translates": other.id,
                "similarity_to_it": row.better_similarity,
                "similarity_to_own": row.similarity,
            },
            source=own,
        )
        yield problem, twin is None and is_card_document_line(target)


TITLE_MIN_CHARS = 3


@corpus_fact(reads="document_heads", kept_as=list[tuple[str, str]])
def _translated_titles(ctx: CheckContext) -> list[tuple[str, str]]:
    """The titles of the run's translated card documents, case-folded, each with its
    document's language, sorted: what a card's line may name of another card."""
    titles: set[tuple[str, str]] = set()
    for head in ctx.document_heads:
        title = (head.doc_title or "").strip()
        if head.doc_kind == DocKind.TRANSLATION and len(title) >= TITLE_MIN_CHARS:
            titles.add((head.doc_lang or head.lang or "", title.casefold()))
    return sorted(titles)


def _titles(ctx: CheckContext) -> _Titles:
    key = "titles of the translated card documents"
    if key not in ctx.cache:
        ctx.cache[key] = _Titles(ctx)
    return ctx.cache[key]


class _Titles:
    """The titles of the run's translated card documents, by language: the names of its
    cards, whether or not any card data knows them. Found in a text by their first two
    characters (an index, not a pattern of thousands of names); in a language with spaces,
    only as a capitalised name of two words or more ("Tierra", the Spanish title of the
    Amonkhet half Earth, is also the word for land)."""

    def __init__(self, ctx: CheckContext) -> None:
        self._ctx = ctx

    @cached_property
    def _by_start(self) -> dict[tuple[str, str], list[str]]:
        """Built on first use: most documents have no line that needs it."""
        titles = _translated_titles(self._ctx)
        by_start: dict[tuple[str, str], list[str]] = defaultdict(list)
        for lang, name in sorted(titles, key=lambda t: (t[0], -len(t[1]), t[1])):
            by_start[lang, name[:2]].append(name)
        return dict(by_start)

    def named(self, text: str, lang: str) -> list[str]:
        """The titles a text names, longest first where two start at one place."""
        folded, found = text.casefold(), []
        spaced = not is_unspaced(lang)
        for start in range(len(folded) - 1):
            for name in self._by_start.get((lang, folded[start : start + 2]), ()):
                end = start + len(name)
                if not folded.startswith(name, start):
                    continue
                if spaced and (
                    _letter(folded, start - 1)
                    or _letter(folded, end)
                    or not text[start].isupper()
                    or " " not in name
                ):
                    continue
                found.append(text[start:end])
                break
        return found


def _letter(text: str, at: int) -> bool:
    return 0 <= at < len(text) and text[at].isalnum()


def _names_another_card(ctx: CheckContext, row, titles: _Titles) -> Iterator[Problem]:
    """A card line whose English names its own card and whose translation names another
    card of the folder instead (``_Titles``), not its own: a line pasted from that card."""
    if not row.target_id or not row.source_id or row.method not in TRANSLATION_METHODS:
        return
    target, own = ctx.by_id[row.target_id], ctx.by_id[row.source_id]
    mine, theirs = (target.doc_title or "").strip(), (own.doc_title or "").strip()
    if not (is_card_text(target) and mine and theirs and theirs in own.text):
        return
    if mine.casefold() in target.text.casefold():
        return
    lang = target.lang or ""
    others = [
        name
        for name in titles.named(target.text, lang)
        if name.casefold() not in mine.casefold() and mine.casefold() not in name.casefold()
    ]
    if not others:
        return
    yield Problem(
        target,
        f"This is another card's line: it names “{others[0]}” where its source "
        f"names its own card (“{_short(own.text)}”), and not “{mine}”.",
        {"expected": own.text, "found": target.text, "names": others[0], "own_name": mine},
        source=own,
    )


UNRELATED_SIMILARITY = 0.5
UNRELATED_MIN_WORDS = 3
"""Headings and single terms ("Exile" over 放逐区, the zone) are not judged this way."""


def _unrelated(ctx: CheckContext, row) -> Iterator[Problem]:
    """A pair that shares no game term, symbol or number, where both name game terms, and
    whose similarity is low: the translation says something else than its source ("Sáltate
    tu paso de robar." for "Destroy all lands."), whatever it was pasted from. (A pair that
    differs only in symbols or numbers is the placeholder and number checks' business.)"""
    if row.method not in TRANSLATION_METHODS or row.similarity is None:
        return
    if row.similarity >= UNRELATED_SIMILARITY or not row.source_id:
        return
    target, own = ctx.by_id[row.target_id], ctx.by_id[row.source_id]
    if len(own.text.split()) < UNRELATED_MIN_WORDS:
        return
    mine = _features(ctx, target.text, target.lang or "", loose=True)
    theirs = _features(ctx, own.text, ctx.source_lang)
    if not _terms(mine) or not _terms(theirs) or mine & theirs:
        return
    yield Problem(
        target,
        f"This does not translate its source \u201c{_short(own.text)}\u201d: they share no "
        "game term, symbol or number.",
        {"expected": own.text, "found": target.text, "similarity_to_own": row.similarity},
        source=own,
    )


def _terms(features: set[str]) -> set[str]:
    return {f for f in features if f.startswith("term:")}


def _repeats_another_unit(ctx: CheckContext, target: Ruling, other: Ruling) -> bool:
    """Another unit of the document has the very same text and translates ``other``: this
    one is a copy of it (a line pasted twice)."""
    return _twin(ctx, target, other) is not None


def _twin(ctx: CheckContext, target: Ruling, other: Ruling) -> Ruling | None:
    """The unit of the document with the very same text that translates ``other``."""
    return next(
        (
            unit
            for unit in _units_with_text(ctx, target.doc).get(target.text, ())
            if unit.id != target.id
            and (pair := ctx.pairs_by_target.get(unit.id)) is not None
            and pair.source.id == other.id
        ),
        None,
    )


def _units_with_text(ctx: CheckContext, doc: str) -> dict[str, list[Ruling]]:
    """A document's units by text, in order. Only the document being checked is indexed (a
    document's checks run together): an index of every document's units, built once per
    run, held a million entries for the one document an edited run checks again."""

    def index() -> dict[str, list[Ruling]]:
        found: dict[str, list[Ruling]] = defaultdict(list)
        for unit in ctx.documents.get(doc, ()):
            found[unit.text].append(unit)
        return found

    return _of_one_document(ctx, "units by text", doc, index)


def _of_one_document(ctx: CheckContext, name: str, doc: str, compute: Callable[[], T]) -> T:
    """What ``compute`` gives for one document, kept in the context for the document being
    checked only (a document's checks run together)."""
    key = f"{name}, of one document"
    kept = ctx.cache.get(key)
    if kept is None or kept[0] != doc:
        kept = ctx.cache[key] = (doc, compute())
    return kept[1]


def _content(ruling: Ruling) -> str:
    """What a unit says of its own: a card's text line without its reminder text, which
    explains a keyword the same way on every card ("Alcance (Esta criatura puede bloquear
    criaturas con la habilidad de volar.)" says "Reach", not "creature" and "block")."""
    if not is_card_text(ruling):
        return ruling.text
    return REMINDER_TEXT.sub("", ruling.text).strip() or ruling.text


def _features(ctx: CheckContext, text: str, lang: str, *, loose: bool = False) -> set[str]:
    """What a text says that survives translation: game terms (in current or old wording),
    symbols, numbers (read loosely for a translation when asked: 六对)."""
    found = {f"term:{c}" for c in ctx.concept_counts(text, lang)}
    found |= {f"{kind}:{t}" for kind, counts in token_counts(text).items() for t in counts}
    if loose:
        found |= {f"n:{v}" for v in stated_values(text, lang) if v not in ("0", "1")}
    else:
        found |= {f"n:{v.split(':')[1]}" for v in numbers(text, lang)}
    return found


def _agreement_with_own(ctx: CheckContext, target: Ruling, own: Ruling) -> float:
    """``_agreement`` with an old phrase of the translation read as the concept its own
    source says now (resources/replaced_wording.tsv: "pon las primeras dos cartas de tu
    biblioteca en tu cementerio" for "mill two cards"), not as the terms the old wording
    spelled it out with: an old printing agrees with its own line there, however much it
    reads like another card's "put the top two cards into your graveyard"."""
    mine = _features(ctx, _content(target), target.lang or "")
    theirs = _features(ctx, _content(own), ctx.source_lang)
    pair = ctx.pairs_by_target.get(target.id)
    phrases = replaced_phrases(target, pair, ctx) if pair and pair.source.id == own.id else []
    if phrases:
        lang = target.lang or ""
        spelled_out: Counter[str] = Counter()
        for phrase in phrases:
            spelled_out.update(ctx.concept_counts(phrase.text, lang))
        named = ctx.concept_counts(_content(target), lang)
        spent = {f"term:{c}" for c, n in spelled_out.items() if named[c] <= n} - theirs
        said = {f"term:{phrase.concept}" for phrase in phrases}
        mine, theirs = (mine - spent) | said, theirs | said
    return _share(mine, theirs)


def _agreement(ctx: CheckContext, target: Ruling, source: Ruling) -> float:
    """How well the terms, symbols and numbers of a translation and a source agree: the
    share of the smaller set found in the other (a source without its reminder text agrees
    fully with a translation that has it); 1.0 when neither has any, so similarity decides."""
    mine = _features(ctx, _content(target), target.lang or "")
    return _share(mine, _features(ctx, _content(source), ctx.source_lang))


def _share(mine: set[str], theirs: set[str]) -> float:
    if not mine or not theirs:
        return 1.0 if not mine and not theirs else 0.0
    return len(mine & theirs) / min(len(mine), len(theirs))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
