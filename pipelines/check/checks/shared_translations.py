"""Inconsistent translation the other way round: one translation used for English texts that
say different things (INCON002)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from ...model import Mark
from ...termbase import USABLE
from ...text import mask_card_names
from ...thresholds import CHECK, threshold
from ...vocabulary import OWN_SOURCE_METHODS, Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import number_counts
from ..registry import Group, Problem, check, pair_key
from .consistency import PARAMETER, SHOWN_RULINGS, differences, variant_key

MIN_SIMILARITY = threshold(
    "incon002.min-similarity",
    0.0,
    """INCON002: only pairs at least this similar (cross-lingual) are compared. A
    translation pasted from another card is far from its own English (0.17 for the Spanish
    Icatian Crier that carries Return to Dust's text), so by default every pair of a
    translation with its own document's English counts.""",
    stage=CHECK,
    minimum=-1,
    maximum=1,
)
NOT_WORD = re.compile(r"[^\w#]+")


@pair_key
def english_key(pair: AlignedPair, ctx: CheckContext) -> str:
    """The English a translation is compared with, its card names, numbers, symbols, case
    and punctuation made uniform (two cards' versions of one text are one text)."""
    key = ("english key", pair.source_text, pair.source.card)
    found = ctx.memo.get(key)
    if found is None:
        text = mask_card_names(pair.source_text, ctx.source_lang, ctx.cards, own=pair.source.card)
        text = PARAMETER.sub("#", text).casefold()
        found = ctx.memo[key] = " ".join(NOT_WORD.sub(" ", text).split())
    return found


@pair_key
def translation_key(pair: AlignedPair, ctx: CheckContext) -> str:
    """The translation as versions are told apart (``consistency.variant_key``)."""
    return variant_key(pair.target, ctx)


def shared_translations(ctx: CheckContext) -> list[Group]:
    """The pairs of each translation (its text with card names, numbers and symbols made
    uniform) whose English differs, in the same way: a translation paired with its own
    document's English (not a look-alike of another card) and close to it in meaning."""
    least = ctx.threshold(MIN_SIMILARITY)
    by_translation: dict[tuple[str, str], list[AlignedPair]] = defaultdict(list)
    for pair in ctx.pairs:
        row = pair.alignment
        if row.method not in OWN_SOURCE_METHODS or row.similarity is None:
            continue
        if row.similarity < least or not pair.lang or pair.lang == ctx.source_lang:
            continue
        by_translation[pair.lang, translation_key(pair, ctx)].append(pair)
    groups = []
    for (lang, key), pairs in sorted(by_translation.items()):
        if len({english_key(pair, ctx) for pair in pairs}) < 2:
            continue
        members = sorted({pair.target.id: pair.target for pair in pairs}.values(), key=_id)
        sources = sorted({pair.source.id: pair.source for pair in pairs}.values(), key=_id)
        groups.append(Group((lang, key), members, [*members, *sources]))
    return groups


def _id(ruling) -> str:
    return ruling.id


def _what_it_says(ctx: CheckContext, text: str, lang: str) -> tuple[frozenset[str], Counter]:
    return ctx.named_concepts(text, lang), number_counts(text, lang)


@check(
    "INCON002",
    scope=Scope.GROUP,
    groups=shared_translations,
    pair_keys=(translation_key, english_key),
)
def one_translation_for_different_english(group: Group, ctx: CheckContext) -> Iterator[Problem]:
    """One translation (the same text, card names, numbers and symbols aside) stands for
    English texts that say different things, on several cards or in several files: a
    translation copied from another unit ("除非防御牌手操控沼泽…" for "…controls an Island",
    copied from the Swamp card). Reported on the units whose English lacks what the shared
    translation says: a game term (of the termbase) or a number that the other English has
    and this one has not. English that differs only in wording, templating or card names
    (or whose difference the translation does not take sides on, "Este permanente" for "This
    creature" and "This Aura") is not reported; nor are pairs of a translation with another
    card's English (a look-alike the aligner paired it with)."""
    pairs = [ctx.pairs_by_target[member.id] for member in group.members]
    variants: dict[str, list[AlignedPair]] = defaultdict(list)
    for pair in sorted(pairs, key=lambda p: (p.source_text, p.target.id)):
        variants[english_key(pair, ctx)].append(pair)
    if len(variants) < 2:
        return
    translation = pairs[0].target.text
    said = {
        key: _what_it_says(ctx, members[0].source_text, ctx.source_lang)
        for key, members in variants.items()
    }
    listing = [
        {
            "source": members[0].source_text,
            "source_id": members[0].source.id,
            "rulings": sorted(p.target.id for p in members)[:SHOWN_RULINGS],
            "count": len(members),
        }
        for members in variants.values()
    ]
    for key, members in variants.items():
        concepts, numbers = said[key]
        for pair in members:
            for other_key, others in variants.items():
                if other_key == key:
                    continue
                other_concepts, other_numbers = said[other_key]
                found = _taken_from_other(
                    ctx, pair, concepts, numbers, other_concepts, other_numbers
                )
                if found is not None:
                    yield _problem(ctx, pair, others[0], *found, listing, translation)
                    break


def _taken_from_other(
    ctx: CheckContext,
    pair: AlignedPair,
    concepts: frozenset[str],
    numbers: Counter,
    other_concepts: frozenset[str],
    other_numbers: Counter,
) -> tuple[list[str], list[str]] | None:
    """What the translation says that the other English says and this English does not
    (concepts, numbers), when there is any."""
    said, said_numbers = _what_it_says(ctx, pair.target.text, pair.lang)
    terms = sorted(
        concept
        for concept in (other_concepts - concepts) & said
        if not _inflected(ctx, pair.source_text, concept)
    )
    extra_numbers = []
    if numbers != other_numbers and said_numbers == other_numbers:
        extra_numbers = sorted(str(n).rpartition(":")[2] for n in (other_numbers - numbers))
    if not terms and not extra_numbers:
        return None
    return terms, extra_numbers


def _inflected(ctx: CheckContext, text: str, concept: str) -> bool:
    """Whether the English names the concept in a form the termbase does not list (an
    inflection: "Vanguards" for the vanguard), a word starting with one of its forms."""
    forms = [
        form
        for status in USABLE
        for term in ctx.termbase.terms(concept, ctx.source_lang, status)
        for form in term.forms
    ]
    return any(re.search(rf"(?<![\w]){re.escape(form)}", text, re.IGNORECASE) for form in forms)


def _problem(
    ctx: CheckContext,
    pair: AlignedPair,
    other: AlignedPair,
    terms: list[str],
    numbers: list[str],
    listing: list[dict],
    translation: str,
) -> Problem:
    hits = [h for h in ctx.term_hits(pair.target.text, pair.lang) if h.concept in terms]
    marks = [Mark.target(h.start, h.end, Role.WRONG) for h in hits]
    shown = {h.concept: pair.target.text[h.start : h.end] for h in reversed(hits)}
    said = [f"\u201c{shown[c]}\u201d ({c})" if c in shown else c for c in terms]
    said += [f"the number {number}" for number in numbers]
    return Problem(
        pair.target,
        f"The same translation stands for other English elsewhere (\u201c{other.source_text}\u201d"
        f", {other.target.id}): it says {', '.join(said)}, which this unit's English does "
        "not say.",
        {
            "translation": translation,
            "variants": listing,
            "says_not_in_source": {"terms": terms, "numbers": numbers},
            "other_source": other.source.id,
            "differences": differences(other.source_text, pair.source_text, ctx.source_lang),
        },
        source=pair.source,
        marks=marks,
    )
