"""Terminology: game terms against the termbase (approved, forbidden and obsolete forms)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from ...model import Mark, Ruling
from ...termbase import USABLE, TermHit
from ...vocabulary import Role, Scope, is_unspaced
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check


def _expected(ctx: CheckContext, concept: str, lang: str) -> list[str]:
    return [t.canonical for t in ctx.termbase.terms(concept, lang, "approved")] or [
        t.canonical for t in ctx.termbase.terms(concept, lang, "admitted")
    ]


def _source_hits(ctx: CheckContext, pair: AlignedPair, concept: str) -> list[TermHit]:
    return [h for h in ctx.term_hits(pair.source.text, ctx.source_lang) if h.concept == concept]


def _source_term(ctx: CheckContext, pair: AlignedPair, concept: str) -> str:
    hits = _source_hits(ctx, pair, concept)
    return hits[0].form if hits else concept


def _source_marks(ctx: CheckContext, pair: AlignedPair, concept: str, role: Role) -> list[Mark]:
    return [Mark.source(h.start, h.end, role) for h in _source_hits(ctx, pair, concept)]


def _wrong_spans(ctx: CheckContext, pair: AlignedPair) -> dict[str, list[TermHit]]:
    """Forbidden forms of concepts the source names, not explained by another concept.

    A span can be forbidden for one concept and approved for another ("habilidad activada":
    wrong for triggered, right for activated). It is only wrong when the source names the
    first concept and does not name the second one often enough to account for the span,
    and the translation names the first concept (in a usable form) less often than the
    source does: a swap takes a term away from where it belongs. A translation that names
    the second concept more often than the source (起动该起动式异能 for "activated it",
    repeating the noun where English has a pronoun) while keeping every mention of the
    first has not swapped anything.
    """
    source_counts = ctx.concept_counts(pair.source.text, ctx.source_lang)
    hits = ctx.term_hits(pair.target.text, pair.lang)
    approved_at: dict[tuple[int, int], set[str]] = defaultdict(set)
    for hit in hits:
        if hit.status in USABLE:
            approved_at[hit.start, hit.end].add(hit.concept)
    target_counts = Counter(hit.concept for hit in hits if hit.status in USABLE)
    budget = Counter(source_counts)
    wrong: dict[str, list[TermHit]] = defaultdict(list)
    for hit in hits:
        if hit.status != "forbidden" or hit.concept not in source_counts:
            continue
        other = sorted(approved_at[hit.start, hit.end])
        explained = [c for c in other if budget[c] > 0]
        if explained:
            budget[explained[0]] -= 1
            continue
        if other and target_counts[hit.concept] >= source_counts[hit.concept]:
            continue
        wrong[hit.concept].append(hit)
    return wrong


@check("TERM001", scope=Scope.PAIR)
def forbidden_term(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source uses a game term and the translation uses a term the termbase forbids for
    it: "habilidad activada" where the source says triggered ability, "se activa" for
    "triggers", 起动式异能 for a triggered ability. The evidence names the source term, the
    wrong form and the approved ones."""
    for concept, hits in sorted(_wrong_spans(ctx, pair).items()):
        expected = _expected(ctx, concept, pair.lang)
        found = sorted({h.form for h in hits})
        note = next(
            (t.note for t in ctx.termbase.terms(concept, pair.lang, "forbidden") if t.note), ""
        )
        source_term = _source_term(ctx, pair, concept)
        yield Problem(
            pair.target,
            f"\u201c{found[0]}\u201d translates \u201c{source_term}\u201d wrongly; "
            f"use \u201c{expected[0] if expected else '?'}\u201d.",
            {
                "concept": concept,
                "source_term": source_term,
                "expected": expected,
                "found": found,
                "note": note,
            },
            source=pair.source,
            marks=[Mark.target(h.start, h.end) for h in hits]
            + _source_marks(ctx, pair, concept, Role.TERM),
        )


def _usable_forms(ctx: CheckContext, concept: str, lang: str) -> re.Pattern[str] | None:
    """Every approved or admitted form of a concept in a language, as one expression that
    finds a form anywhere (inside a longer term too: 操控 in 操控者, "habilidad" in
    "habilidad activada"); whole words in languages written with spaces."""
    key = f"usable-forms:{concept}:{lang}"
    if key not in ctx.cache:
        forms = sorted(
            {
                form
                for status in USABLE
                for term in ctx.termbase.terms(concept, lang, status)
                for form in term.forms
            },
            key=len,
            reverse=True,
        )
        body = "|".join(re.escape(form).replace(r"\ ", r"\s+") for form in forms)
        if not body:
            ctx.cache[key] = None
        elif is_unspaced(lang):
            ctx.cache[key] = re.compile(body, re.IGNORECASE)
        else:
            ctx.cache[key] = re.compile(rf"(?<!\w)(?:{body})(?!\w)", re.IGNORECASE)
    return ctx.cache[key]


@check("TERM002", scope=Scope.PAIR)
def missing_term(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source uses a core game term (one the termbase enforces) and the translation
    contains none of its approved or admitted forms, not even inside a longer term: the term
    was paraphrased, dropped or mistranslated. (A forbidden form is reported by TERM001
    instead; a source that uses old wording, such as "play" for casting a spell, is not
    held to the new term; nor is a source word used in another sense, such as "turn it face
    down", listed in resources/other_senses.tsv; a half-translated ruling is reported as
    such, MIX001.)"""
    if any(span["lang"] == ctx.source_lang for span in pair.target.spans):
        return
    named = ctx.named_concepts(pair.source.text, ctx.source_lang)
    hits = ctx.term_hits(pair.target.text, pair.lang)
    present = {h.concept for h in hits if h.status in USABLE}
    flagged = set(_wrong_spans(ctx, pair))
    for concept in sorted(named):
        if not ctx.termbase.is_enforced(concept) or concept in present or concept in flagged:
            continue
        forms = _usable_forms(ctx, concept, pair.lang)
        if forms is not None and forms.search(pair.target.text):
            continue
        expected = _expected(ctx, concept, pair.lang)
        if not expected:
            continue
        source_term = _source_term(ctx, pair, concept)
        yield Problem(
            pair.target,
            f"The source says \u201c{source_term}\u201d but the translation has no "
            f"\u201c{expected[0]}\u201d.",
            {"concept": concept, "source_term": source_term, "expected": expected, "found": []},
            source=pair.source,
            marks=_source_marks(ctx, pair, concept, Role.MISSING),
        )


@check("TERM003", scope=Scope.RULING)
def obsolete_term(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """The translation uses old official wording the termbase marks obsolete ("poner en
    juego" for "put onto the battlefield", 场上). Not reported when the English source itself
    uses the old wording of that concept (an old ruling translated faithfully), nor when the
    termbase has no current term of the concept in the language to use instead (the
    glossary's "unblockable" is obsolete, yet 不可被阻挡 still says "can't be blocked")."""
    if not ruling.lang or ruling.lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    source_old = set()
    if pair:
        source_old = {
            h.concept
            for h in ctx.term_hits(pair.source.text, ctx.source_lang)
            if h.status == "obsolete"
        }
    by_concept: dict[str, list[TermHit]] = defaultdict(list)
    for hit in ctx.term_hits(ruling.text, ruling.lang):
        if hit.status == "obsolete" and hit.concept not in source_old:
            by_concept[hit.concept].append(hit)
    for concept, hits in sorted(by_concept.items()):
        expected = _expected(ctx, concept, ruling.lang)
        if not expected:
            continue
        found = sorted({h.form for h in hits})
        yield Problem(
            ruling,
            f"\u201c{found[0]}\u201d is old wording; use \u201c{expected[0]}\u201d.",
            {
                "concept": concept,
                "expected": expected,
                "found": found,
            },
            source=pair.source if pair else None,
            marks=[Mark.target(h.start, h.end) for h in hits],
        )


@check("TERM004", scope=Scope.RULING)
def never_a_game_term(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """The text uses a word the termbase forbids and approves for no concept at all
    ("duelista" for player, 玩家), in a ruling that has no English source to compare with
    or whose source does not name the concept (otherwise TERM001 reports it)."""
    if not ruling.lang or ruling.lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    source_concepts = set(ctx.concept_counts(pair.source.text, ctx.source_lang)) if pair else set()
    hits = ctx.term_hits(ruling.text, ruling.lang)
    approved_spans = {(h.start, h.end) for h in hits if h.status in USABLE}
    by_concept: dict[str, list[TermHit]] = defaultdict(list)
    for hit in hits:
        if (
            hit.status == "forbidden"
            and (hit.start, hit.end) not in approved_spans
            and hit.concept not in source_concepts
        ):
            by_concept[hit.concept].append(hit)
    for concept, found_hits in sorted(by_concept.items()):
        expected = _expected(ctx, concept, ruling.lang)
        found = sorted({h.form for h in found_hits})
        yield Problem(
            ruling,
            f"\u201c{found[0]}\u201d is not a game term; use "
            f"\u201c{expected[0] if expected else '?'}\u201d.",
            {
                "concept": concept,
                "expected": expected,
                "found": found,
            },
            source=pair.source if pair else None,
            marks=[Mark.target(h.start, h.end) for h in found_hits],
        )
