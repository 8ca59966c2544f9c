"""Terminology: game terms against the termbase (approved, forbidden and obsolete forms)."""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from ...model import Mark, Ruling
from ...resources import read_tsv
from ...termbase import USABLE, TermHit
from ...thresholds import CHECK, threshold
from ...vocabulary import Role, Scope, is_unspaced
from ..context import AlignedPair, CheckContext, is_card_text
from ..lengths import length_share
from ..lexicon import without_translator_notes
from ..registry import Problem, check, quoted

CONDENSED_SHARE = threshold(
    "terminology.condensed-share",
    0.875,
    """TERM002: a translation shorter than this share of the usual length for its source is
    condensed: a missing term there is less sure to be an error (its finding's confidence is
    the condensed class's, ``TERM002/condensed`` in resources/confidence.tsv).""",
    stage=CHECK,
    minimum=0,
    maximum=1,
)
MIN_SHARED_ENDING = 3
"""Letters of ending the suggested form must share with the wrong one: "disparadas" for
"activadas" (-adas), but not "jugadora" for "duelista" (-a is no gender there)."""


def matching_form(found: str, ctx: CheckContext, concept: str, lang: str) -> str | None:
    """The approved form that inflects like the wrong one: "habilidades disparadas" for
    "habilidades activadas", "se disparará" for "se activará" (same words around it, same
    ending), else the canonical form."""
    forms = [
        form
        for status in ("approved", "admitted")
        for term in ctx.termbase.terms(concept, lang, status)
        for form in term.forms
    ]
    if not forms:
        return None
    found_words = found.casefold().split()

    def likeness(form: str) -> tuple[int, int, int]:
        words = form.casefold().split()
        shared = sum(1 for word in words if word in found_words)
        endings = sum(
            len(os.path.commonprefix([a[::-1], b[::-1]]))  # noqa: RUF071 (strings, not paths)
            for a, b in zip(words[::-1], found_words[::-1], strict=False)
        )
        return (shared + (len(words) == len(found_words)), endings, -forms.index(form))

    best = max(forms, key=likeness)
    return best if likeness(best)[1] >= MIN_SHARED_ENDING else forms[0]


def _expected(ctx: CheckContext, concept: str, lang: str) -> list[str]:
    return [t.canonical for t in ctx.termbase.terms(concept, lang, "approved")] or [
        t.canonical for t in ctx.termbase.terms(concept, lang, "admitted")
    ]


def _source_hits(ctx: CheckContext, pair: AlignedPair, concept: str) -> list[TermHit]:
    return [h for h in ctx.term_hits(pair.source_text, ctx.source_lang) if h.concept == concept]


def _source_term(ctx: CheckContext, pair: AlignedPair, concept: str) -> str:
    hits = _source_hits(ctx, pair, concept)
    return hits[0].form if hits else concept


def _source_marks(ctx: CheckContext, pair: AlignedPair, concept: str, role: Role) -> list[Mark]:
    return [Mark.source(h.start, h.end, role) for h in _source_hits(ctx, pair, concept)]


def wrong_spans(ctx: CheckContext, pair: AlignedPair) -> dict[str, list[TermHit]]:
    """Forbidden forms of concepts the source names, not explained by another concept
    (once per source text, translation and language: a value to read, not to change).

    A span can be forbidden for one concept and approved for another ("habilidad activada":
    wrong for triggered, right for activated). It is only wrong when the source names the
    first concept and does not name the second one often enough to account for the span,
    and the translation names the first concept (in a usable form) less often than the
    source does: a swap takes a term away from where it belongs. A translation that names
    the second concept more often than the source (起动该起动式异能 for "activated it",
    repeating the noun where English has a pronoun) while keeping every mention of the
    first has not swapped anything. Nor has a rules example that names the concept rightly
    as often as the source does: examples name cards, and a translated card name may hold
    a forbidden form (墓地 inside 墓地鼠群, Graf Rats, beside 坟墓场 for the one "graveyard"
    of the source). Nor is a form inside the card's own name where the document's title names
    it (墓地 in 墓地翻拣怪, Grave Scrabbler, a card no card data names yet).
    """
    key = ("wrong_spans", pair.source_text, pair.target.text, pair.lang)
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = _wrong_spans(ctx, pair.source_text, pair.target.text, pair.lang)
    if not found:
        return found
    titled = _own_title_spans(pair.target)
    if not titled:
        return found
    kept = {
        concept: [h for h in hits if not any(a <= h.start and h.end <= b for a, b in titled)]
        for concept, hits in found.items()
    }
    return {concept: hits for concept, hits in kept.items() if hits}


def _wrong_spans(
    ctx: CheckContext, source_text: str, text: str, lang: str
) -> dict[str, list[TermHit]]:
    hits = ctx.term_hits(text, lang)
    if not any(hit.status == "forbidden" for hit in hits):
        return {}  # only a forbidden form is wrong
    source_counts = ctx.concept_counts(source_text, ctx.source_lang)
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
        if (other or EXAMPLE.match(source_text)) and target_counts[hit.concept] >= source_counts[
            hit.concept
        ]:
            continue
        if other and _said_in_coordination(ctx, hit.concept, text, lang):
            continue  # "la habilidad activada o disparada" for "activated or triggered ability"
        wrong[hit.concept].append(hit)
    return dict(wrong)


@check("TERM001", scope=Scope.PAIR)
def forbidden_term(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source uses a game term and the translation uses a term the termbase forbids for
    it: "habilidad activada" where the source says triggered ability, "se activa" for
    "triggers", 起动式异能 for a triggered ability. The evidence names the source term, the
    wrong form and the approved ones."""
    for concept, hits in sorted(wrong_spans(ctx, pair).items()):
        expected = _expected(ctx, concept, pair.lang)
        found = sorted({h.form for h in hits})
        note = next(
            (t.note for t in ctx.termbase.terms(concept, pair.lang, "forbidden") if t.note), ""
        )
        source_term = _source_term(ctx, pair, concept)
        suggestion = matching_form(found[0], ctx, concept, pair.lang) or "?"
        yield Problem(
            pair.target,
            f"\u201c{found[0]}\u201d translates \u201c{source_term}\u201d wrongly; "
            f"use \u201c{suggestion}\u201d.",
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


def _own_title_spans(unit: Ruling) -> list[tuple[int, int]]:
    """Where a unit's text names its document's title (a card document: the card's name)."""
    title = (unit.doc_title or "").strip()
    if len(title) < 2 or not is_card_text(unit):
        return []
    return [(m.start(), m.end()) for m in re.finditer(re.escape(title), unit.text)]


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


EXAMPLE = re.compile(r"\s*Examples?:")
"""A rules example (CR: "Example: …"), which names cards."""
PARAPHRASED = frozenset(row["concept"] for row in read_tsv("paraphrased_concepts.tsv"))
"""Concepts whose absence is not reported (resources/paraphrased_concepts.tsv)."""
COMPOSED = {
    row["concept"]: frozenset(row["parts"].split("|")) for row in read_tsv("composed_concepts.tsv")
}
"""Concepts a translation may name by their parts (resources/composed_concepts.tsv)."""
HOMOGRAPHS = [
    (row["concept"], row["other"], row["lang"], {f.casefold() for f in row["forms"].split("|")})
    for row in read_tsv("homographs.tsv")
]
"""Source words of two concepts (resources/homographs.tsv)."""


def _other_sense_named(
    ctx: CheckContext, pair: AlignedPair, concept: str, present: set[str]
) -> bool:
    """The source word was used in the other sense of a homograph, as the translation says:
    every source word of the concept is ambiguous, and the translation names the other
    concept and not this one ("Counter" -> 反击, the verb)."""
    for name, other, lang, forms in HOMOGRAPHS:
        if name != concept or lang != ctx.source_lang or other not in present:
            continue
        if all(h.form.casefold() in forms for h in _source_hits(ctx, pair, concept)):
            return True
    return False


COORDINATION = {"unspaced": re.compile(r"、|或|和|及|与")}
GAP_CHARS = 20
STOP = re.compile(r"[。；;，,：:]")
"""Punctuation that ends the phrase a coordination stands in."""
"""How far apart the two halves of a Chinese compound term may stand in a coordination."""


def _said_in_coordination(ctx: CheckContext, concept: str, text: str, lang: str) -> bool:
    """Whether a text names the concept in a coordination that says the shared half of its
    term once (``_coordinated``)."""
    return any(
        _coordinated(form, text, lang)
        for status in USABLE
        for term in ctx.termbase.terms(concept, lang, status)
        for form in term.forms
    )


def _coordinated(form: str, text: str, lang: str) -> bool:
    """A compound term whose shared half is said once for a coordination: 替代、额外、或其他
    …费用 names 额外费用; "costes alternativos o adicionales" names "costes adicionales"."""
    if is_unspaced(lang):
        if len(form) < 4:
            return False
        for split in (2, len(form) - 2):
            first, second = form[:split], form[split:]
            for match in re.finditer(re.escape(first), text):
                window = text[match.end() : match.end() + GAP_CHARS]
                end = window.find(second)
                gap = window[:end] if end > 0 else ""
                if gap and COORDINATION["unspaced"].search(gap) and not STOP.search(gap):
                    return True
        return False
    words = form.split()
    if len(words) != 2:
        return False
    head, modifier = (re.escape(w) for w in words)
    pattern = rf"\b{head}\s+\w+(?:\s*,\s*\w+)*\s*(?:,\s*)?(?:y|o|u|e|and|or)\s+{modifier}\b"
    return bool(re.search(pattern, text, re.IGNORECASE))


@check("TERM002", scope=Scope.PAIR)
def missing_term(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source uses a core game term (one the termbase enforces) and the translation
    contains none of its approved or admitted forms, not even inside a longer term: the term
    was paraphrased, dropped or mistranslated. (A forbidden form is reported by TERM001
    instead, and old wording of the term, "en juego" for the battlefield, by TERM003; a
    source that uses old wording, such as "play" for casting a spell, is not
    held to the new term; nor is a source word used in another sense, such as "turn it face
    down", listed in resources/other_senses.tsv; nor are everyday concepts that good
    translations express another way, "the player who" as a pronoun, listed in
    resources/paraphrased_concepts.tsv; nor a concept the translation names by its parts
    ("the ability that triggers": …时触发的异能, resources/composed_concepts.tsv), or by
    saying its shared half once in a coordination (替代、额外、或其他…费用); nor a source
    word of two concepts that the translation reads as the other one ("Counter" as the verb,
    反击; resources/homographs.tsv); nor a concept the rules make implicit where the
    translation names another (a permanent "on the battlefield", a conspiracy "in the
    command zone", an "untapped" creature to tap: resources/implied_concepts.tsv); a
    half-translated ruling is reported as such, MIX001.) Where the translation is condensed
    (shorter than usual for its source), the term may have been folded into fewer words
    ("与咒语一样" for a clause on casting spells): the finding says so, and is less sure."""
    if any(span["lang"] == ctx.source_lang for span in pair.target.spans):
        return
    named = ctx.named_concepts(pair.source_text, ctx.source_lang)
    hits = ctx.term_hits(pair.target.text, pair.lang)
    present = {h.concept for h in hits if h.status in USABLE}
    present |= set(old_wording(pair.target, pair, ctx))
    flagged = set(wrong_spans(ctx, pair))
    present |= {concept for concept, parts in COMPOSED.items() if parts <= present}
    for concept in sorted(named):
        if (
            not ctx.termbase.is_enforced(concept)
            or concept in PARAPHRASED
            or concept in present
            or concept in flagged
            or _other_sense_named(ctx, pair, concept, present)
            or _implied(concept, pair.source_text, present)
        ):
            continue
        forms = _usable_forms(ctx, concept, pair.lang)
        if forms is not None and forms.search(pair.target.text):
            continue
        if _said_in_coordination(ctx, concept, pair.target.text, pair.lang):
            continue
        expected = _expected(ctx, concept, pair.lang)
        if not expected:
            continue
        source_term = _source_term(ctx, pair, concept)
        evidence = {
            "concept": concept,
            "source_term": source_term,
            "expected": expected,
            "found": [],
        }
        message = (
            f"The source says \u201c{source_term}\u201d but the translation has no "
            f"\u201c{expected[0]}\u201d."
        )
        share = length_share(pair, ctx)
        if share is not None and share < ctx.threshold(CONDENSED_SHARE):
            evidence |= {"_class": "condensed", "_length_share": round(share, 2)}
            message += (
                f" The translation is condensed here ({share:.0%} of the usual length): it"
                " may say this in fewer words."
            )
        yield Problem(
            pair.target,
            message,
            evidence,
            source=pair.source,
            marks=_source_marks(ctx, pair, concept, Role.MISSING),
        )


IMPLIED = [
    (row["concept"], row["implied_by"], re.compile(row["source"], re.IGNORECASE))
    for row in read_tsv("implied_concepts.tsv")
]
"""Concepts the rules make implicit (resources/implied_concepts.tsv)."""


def _implied(concept: str, source_text: str, present: set[str]) -> bool:
    """Whether the translation names a concept that implies this one, as the source uses it
    (a permanent is only on the battlefield)."""
    return any(
        concept == implied and by in present and pattern.search(source_text)
        for implied, by, pattern in IMPLIED
    )


@check("TERM003", scope=Scope.RULING)
def obsolete_term(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """The translation uses old official wording the termbase marks obsolete ("poner en
    juego" for "put onto the battlefield", 场上). Not reported when the English source itself
    uses the old wording of that concept (an old ruling translated faithfully), nor when the
    termbase has no current term of the concept in the language to use instead (the
    glossary's "unblockable" is obsolete, yet 不可被阻挡 still says "can't be blocked").
    A word that is old wording for one concept and still right for another ("jugar": old
    for casting a spell, right for playing a land; 使用) is reported only when the source
    names the first concept, not the second, and the translation has no current term for
    the first in its place. Where the current English says the whole thing with another
    concept (tokens are now created, "Pon en juego una ficha"; a creature now dies, "vaya a
    un cementerio desde el juego", 从场上置入坟墓场: resources/replaced_wording.tsv), the old
    phrase is reported with that concept's current wording ("crea", "muera", 派出, 死去)."""
    if not ruling.lang or ruling.lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    phrases = replaced_phrases(ruling, pair, ctx)
    by_phrase: dict[Replaced, list[TermHit]] = defaultdict(list)
    for concept, hits in sorted(old_wording(ruling, pair, ctx).items()):
        kept = []
        for hit in hits:
            phrase = next((p for p in phrases if p.start <= hit.start and hit.end <= p.end), None)
            if phrase is None:
                kept.append(hit)
            else:
                by_phrase[phrase].append(hit)
        expected = _expected(ctx, concept, ruling.lang)
        if not kept or not expected:
            continue
        found = sorted({h.form for h in kept})
        yield Problem(
            ruling,
            f"\u201c{found[0]}\u201d is old wording; use \u201c{expected[0]}\u201d.",
            {
                "concept": concept,
                "expected": expected,
                "found": found,
            },
            source=pair.source if pair else None,
            marks=[Mark.target(h.start, h.end) for h in kept],
        )
    by_wording: dict[tuple[str, str, str], list[Replaced]] = defaultdict(list)
    for phrase in phrases:
        by_wording[(phrase.concept, phrase.said, phrase.suggestion)].append(phrase)
    for (concept, said, suggestion), found in by_wording.items():
        texts = list(dict.fromkeys(phrase.text for phrase in found))
        yield Problem(
            ruling,
            f"{quoted(texts)} {'is' if len(texts) == 1 else 'are'} old wording; the source says "
            f"\u201c{said}\u201d: use \u201c{suggestion}\u201d.",
            {
                "concept": concept,
                "source_term": said,
                "expected": [suggestion],
                "found": texts,
                "old_terms": sorted({h.form for p in found for h in by_phrase.get(p, [])}),
            },
            source=pair.source if pair else None,
            marks=[Mark.target(phrase.start, phrase.end) for phrase in found],
        )


@dataclass(frozen=True)
class Replaced:
    """An old phrase of a translation whose source now says it with another concept."""

    start: int
    end: int
    text: str
    concept: str
    said: str
    """What the source says now ("create", "dies")."""
    suggestion: str


@cache
def _replaced_wording(lang: str) -> tuple[tuple[re.Pattern[str], re.Pattern[str], str, str], ...]:
    return tuple(
        (
            re.compile(row["source"], re.IGNORECASE),
            re.compile(row["pattern"], re.IGNORECASE),
            row["concept"],
            row["suggestion"],
        )
        for row in read_tsv("replaced_wording.tsv")
        if row["lang"] == lang.split("-")[0]
    )


def replaced_phrases(ruling: Ruling, pair: AlignedPair | None, ctx: CheckContext) -> list[Replaced]:
    """The old phrases of a translation whose source says the thing with another concept
    now (resources/replaced_wording.tsv), outside its translator's notes (（译注：一些较旧版本
    的简体中文牌译为“受此结界”…）: a note that names the old wording is no use of it)."""
    if pair is None:
        return []
    lang = ruling.lang or ""
    key = ("replaced_phrases", pair.source_text, ruling.text, lang)
    found = ctx.memo.get(key)
    if found is None:
        text = without_translator_notes(ruling.text, lang)
        found = ctx.memo[key] = _replaced_phrases(ctx, pair.source_text, text, lang)
    return found


def _said(
    ctx: CheckContext, source_text: str, lang: str
) -> list[tuple[re.Pattern[str], str, str, str]]:
    """(pattern, concept, suggestion, what the source says) of the rows of replaced
    wording whose new wording the source uses; what it says is the source pattern's group
    ``said`` when it has one (the rest of the match only places it: "Add" at the start of
    an ability, not "{T}, Remove a -1/-1 counter from Channeler Initiate: Add")."""
    key = ("replaced wording said", source_text, lang)
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = [
            (pattern, concept, suggestion, said.group(_group(source, "said")))
            for source, pattern, concept, suggestion in _replaced_wording(lang)
            if (said := source.search(source_text)) is not None
        ]
    return found


def _replaced_phrases(ctx: CheckContext, source_text: str, text: str, lang: str) -> list[Replaced]:
    """A row's phrase is its pattern's group ``old`` when it has one (the words around it
    only choose the row: "La criatura objetivo es imbloqueable" takes the feminine
    suggestion); a span an earlier row of the concept found is that row's."""
    found: dict[tuple[str, int, int], Replaced] = {}
    for pattern, concept, suggestion, said in _said(ctx, source_text, lang):
        group = _group(pattern, "old")
        for match in pattern.finditer(text):
            start, end = match.span(group)
            found.setdefault(
                (concept, start, end),
                Replaced(start, end, match.group(group), concept, said, suggestion),
            )
    return sorted(found.values(), key=lambda p: (p.start, p.end))


def _group(pattern: re.Pattern[str], name: str) -> str | int:
    """The pattern's group of this name when it has one, else the whole match."""
    return name if name in pattern.groupindex else 0


def old_wording(ruling: Ruling, pair: AlignedPair | None, ctx: CheckContext) -> dict:
    """Obsolete forms in a translation, by concept (see TERM003 for which count); once per
    translation, language and source text: a value to read, not to change."""
    source_text = pair.source_text if pair else None
    key = ("old_wording", ruling.text, ruling.lang or "", source_text)
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = _old_wording(ctx, ruling.text, ruling.lang or "", source_text)
    return found


def _old_wording(
    ctx: CheckContext, text: str, lang: str, source_text: str | None
) -> dict[str, list[TermHit]]:
    hits = ctx.term_hits(text, lang)
    if not any(hit.status == "obsolete" for hit in hits):
        return {}  # only an obsolete form is old wording
    source_counts: Counter[str] = Counter()
    source_old: set[str] = set()
    if source_text is not None:
        source_counts = ctx.concept_counts(source_text, ctx.source_lang)
        source_old = {
            h.concept for h in ctx.term_hits(source_text, ctx.source_lang) if h.status == "obsolete"
        }
    current_at: dict[tuple[int, int], set[str]] = defaultdict(set)
    for hit in hits:
        if hit.status in USABLE:
            current_at[hit.start, hit.end].add(hit.concept)
    usable = Counter(hit.concept for hit in hits if hit.status in USABLE)
    found: dict[str, list[TermHit]] = defaultdict(list)
    for hit in hits:
        if hit.status != "obsolete" or hit.concept in source_old:
            continue
        others = current_at[hit.start, hit.end] - {hit.concept}
        if others and (
            source_text is None
            or not source_counts[hit.concept]
            or usable[hit.concept] >= source_counts[hit.concept]
            or any(source_counts[other] for other in others)
        ):
            continue
        found[hit.concept].append(hit)
    if source_text is not None:
        _keep_the_named_sense(found, source_counts)
    return dict(found)


def _keep_the_named_sense(found: dict[str, list[TermHit]], source_counts: Counter[str]) -> None:
    """A word that is old wording for several concepts ("jugarse": old for casting a spell
    and for activating an ability) is reported for the ones the source names, when it
    names any: "can't be activated" is not also a spell to cast (tuning set TSP,
    Trickbind)."""
    senses: dict[tuple[int, int], set[str]] = defaultdict(set)
    for concept, hits in found.items():
        for hit in hits:
            senses[hit.start, hit.end].add(concept)
    for concept in list(found):
        kept = [
            hit
            for hit in found[concept]
            if source_counts[concept]
            or not any(source_counts[other] for other in senses[hit.start, hit.end])
        ]
        if kept:
            found[concept] = kept
        else:
            del found[concept]


@check("TERM004", scope=Scope.RULING)
def never_a_game_term(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """The text uses a word the termbase forbids and approves for no concept at all
    ("duelista" for player, 玩家), in a ruling that has no English source to compare with
    (with a source, TERM001 reports a forbidden word that stands for a term of the source;
    one that stands for no term of the source is part of a name or another word: measured on
    the Chinese Comprehensive Rules, every such finding was a card name or a creature type)."""
    if not ruling.lang or ruling.lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    if pair is not None:
        return
    hits = ctx.term_hits(ruling.text, ruling.lang)
    approved_spans = {(h.start, h.end) for h in hits if h.status in USABLE}
    by_concept: dict[str, list[TermHit]] = defaultdict(list)
    for hit in hits:
        if hit.status == "forbidden" and (hit.start, hit.end) not in approved_spans:
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
            marks=[Mark.target(h.start, h.end) for h in found_hits],
        )
