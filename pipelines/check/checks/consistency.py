"""Inconsistent translation: one English ruling translated several ways across documents."""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cache
from operator import attrgetter

from ...cards import WORD as NAME_WORD
from ...model import Ruling
from ...resources import read_tsv
from ...termbase import USABLE
from ...text import CARD_PLACEHOLDER, mask_card_names
from ...text.tokens import token_counts
from ...vocabulary import Method, Scope, is_unspaced
from ..context import REMINDER_TEXT, CheckContext, is_card_text
from ..lexicon import number_counts, words
from ..registry import Group, Problem, check
from .terminology import PARAPHRASED, replaced_phrases, wrong_spans


@dataclass
class Variant:
    key: str
    text: str
    rulings: list[Ruling] = field(default_factory=list)
    defects: int = 0
    confused: dict[str, str] = field(default_factory=dict)
    """Forbidden forms this version writes where another names the concept right."""

    @property
    def rank(self) -> tuple[int, int, str]:
        """Fewest defects, then most used, then the text itself: never the file order."""
        return (self.defects, -len(self.rulings), self.key)


def variant_key(ruling: Ruling, ctx: CheckContext, short_title_named: bool = False) -> str:
    """The text with quotes, spacing, case and every card name made uniform, with the words
    that agree with a name (its article: "la Micóloga", "el Micodermo pálido";
    resources/name_agreement.tsv) and the numbers and symbols that are a card's own
    parameters (Suspend 7—{1}{B}, Suspend 3—{1}{W}{W}), and a card document's title (the
    name of a card the card data may not know): two cards' versions of one ruling differ
    only in the card they name. In a text that names its card, the endings that agree
    with the name's gender and number are made uniform too (resources/agreement_endings.tsv:
    "entran giradas", "entra girado"), and a card's text line is read without its reminder
    text, which printed cards give or leave out as space allows. (A number or symbol a
    translation gets wrong is reported against its own source by NUM001 and PH001.)"""
    return uniform(compared_text(ruling, ctx, short_title_named), ruling.lang or "")


def compared_text(ruling: Ruling, ctx: CheckContext, short_title_named: bool = False) -> str:
    """``shown_text`` with the one-word card names written in lower case masked too."""
    text = shown_text(ruling, ctx, short_title_named)
    return _lower_case_names_masked(text, ruling.lang or "", ctx)


def _lower_case_names_masked(text: str, lang: str, ctx: CheckContext) -> str:
    """The words of a text written in lower case that are a one-word card name of its
    language, as the placeholder too: a basic land type printed in lower case in one set
    and capitalised in another ("una isla o una montaña", "una Isla o una Montaña") is one
    version, as a capitalised name alone would be masked (``mask_card_names`` finds names
    by their capital)."""
    wanted = lang.split("-")[0]

    def masked(word: re.Match[str]) -> str:
        found = word.group()
        if not found[0].islower():
            return found
        key = ("lower-case name", found, wanted)
        named = ctx.memo.get(key)
        if named is None:
            owners = ctx.cards.lookup(found)
            named = ctx.memo[key] = any(owner.split("-")[0] == wanted for _, owner in owners)
        return CARD_PLACEHOLDER if named else found

    return NAME_WORD.sub(masked, text)


def _short_titles_named(
    rulings: list[Ruling], keys: dict[str, str], ctx: CheckContext
) -> dict[str, str]:
    """The versions whose card document's title of one or two characters names their card in
    their text, with the key they have with it masked: a Chinese name is often two
    characters and often a word too (投掷 "throw", 反击 "counter"), so ``shown_text`` leaves
    such a title as it is unless masking it makes the version one that another version of
    the family writes ("以作为施放投掷的额外费用" in Fling's text, as "施放祭坛夺命" in Altar's
    Reap's). Counterspell's 反击目标咒语 is no name there: masked, it is no other version."""
    masked = {
        ruling.id: variant_key(ruling, ctx, short_title_named=True)
        for ruling in rulings
        if 0 < len(ruling.doc_title or "") <= 2 and ruling.doc_title in ruling.text
    }
    written, masked_alike = Counter(keys.values()), Counter(masked.values())
    return {
        ruling_id: key
        for ruling_id, key in masked.items()
        if key != keys[ruling_id] and (written[key] or masked_alike[key] > 1)
    }


def shown_text(ruling: Ruling, ctx: CheckContext, short_title_named: bool = False) -> str:
    """The text as versions are compared and shown: without a card line's reminder text,
    every card name (and a card document's title, one of one or two characters only where
    it names its card: ``_short_titles_named``) as one placeholder."""
    lang = ruling.lang or ""
    text = mask_card_names(_without_reminder(ruling), lang, ctx.cards, own=ruling.card)
    title = ruling.doc_title
    long_enough = len(title or "") > 2 or short_title_named
    if title and ruling.section is None and long_enough and title in text:
        text = text.replace(title, CARD_PLACEHOLDER)  # a card no card data names yet
    return text


def uniform(text: str, lang: str) -> str:
    """``shown_text`` with the words that agree with a name made uniform, parameters as #,
    case folded, wordings that say the same made one (resources/equivalent_wording.tsv) and
    spacing squeezed (``variant_key``)."""
    for pattern, replacement in _equivalent_wording(lang):
        text = pattern.sub(replacement, text)
    if CARD_PLACEHOLDER in text:  # the agreement patterns all end with a name
        for pattern, replacement in _name_agreement(lang):
            text = pattern.sub(replacement + CARD_PLACEHOLDER, text)
        endings = _agreement_endings(lang)
        if endings:
            text = WORD.sub(lambda m: _uniform_ending(m.group(), endings), text)
    text = SPACE_BESIDE_HAN.sub("", text)
    return " ".join(PARAMETER.sub("#", ENDING.sub("", text)).casefold().split())


def _equivalent_wording(lang: str) -> list[tuple[re.Pattern[str], str]]:
    """Wordings read as one version (resources/equivalent_wording.tsv): an accepted old
    spelling, a particle Chinese writes or leaves out, the two orders of a comparison."""
    return _replacements("equivalent_wording.tsv", lang)


HAN_OR_FULL_WIDTH = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
SPACE_BESIDE_HAN = re.compile(rf"(?<=[{HAN_OR_FULL_WIDTH}])\s+|\s+(?=[{HAN_OR_FULL_WIDTH}])")
"""Spacing beside Chinese characters and full-width punctuation, which Chinese text does
not use: "…直到回合结束。 此异能…" and "…直到回合结束。此异能…" are one version."""

WORD = re.compile(r"\w+")
ENDING = re.compile(r"[\s.。;；,，:：]+$")
"""The punctuation a line ends with, which printings give or leave out ("Dragar 2." and
"Dragar 2 (…)" read without its reminder)."""


def _without_reminder(ruling: Ruling) -> str:
    """A card's text line without its reminder text, which printed cards give or leave out
    as space allows ("Alcance." and "Alcance (Esta criatura puede bloquear…)")."""
    if not is_card_text(ruling):
        return ruling.text
    return REMINDER_TEXT.sub("", ruling.text).strip() or ruling.text


def _uniform_ending(word: str, endings: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, replacement in endings:
        word = pattern.sub(replacement, word)
    return word


def _agreement_endings(lang: str) -> list[tuple[re.Pattern[str], str]]:
    """The endings that agree with a card name's gender and number (agreement_endings.tsv)."""
    return _replacements("agreement_endings.tsv", lang)


@cache
def _replacements(resource: str, lang: str) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, replacement) of a resource's rows for a language, matched ignoring case."""
    return [
        (re.compile(row["pattern"], re.IGNORECASE), row["replacement"])
        for row in read_tsv(resource)
        if row["lang"] == lang.split("-")[0]
    ]


SHOWN_RULINGS = 20
"""Ruling ids a finding's evidence lists per version (``count`` gives them all, and the
finding's own ruling is always among them). A ruling shared by thousands of cards would
otherwise list every card on each of its findings: evidence quadratic in the family's size
(6.5 GB of findings.jsonl on a generated corpus of a million units)."""
PARAMETER = re.compile(r"(?:\{[^{}\s]{1,8}\})+|\d+")
"""A card's parameters in its text: a cost (a run of symbols) and numbers."""


@cache
def _name_agreement(lang: str) -> list[tuple[re.Pattern[str], str]]:
    return [
        (
            re.compile(f"(?:{row['pattern']}){re.escape(CARD_PLACEHOLDER)}", re.IGNORECASE),
            row["replacement"],
        )
        for row in read_tsv("name_agreement.tsv")
        if row["lang"] == lang.split("-")[0]
    ]


def differences(preferred: str, other: str, lang: str) -> list[dict[str, str]]:
    """Word-level replacements that turn one variant into the other."""
    left, right = words(preferred, lang), words(other, lang)
    joiner = "" if is_unspaced(lang) else " "
    changes = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changes.append(
                {"preferred": joiner.join(left[i1:i2]), "found": joiner.join(right[j1:j2])}
            )
    return changes


def shown_differences(
    preferred: Ruling, other: Ruling, ctx: CheckContext, lang: str, named: Collection[str] = ()
) -> list[dict[str, str]]:
    """The word-level differences of two versions as a translator reads them (card names as
    a placeholder shown "[card]"; ``named``: the ids of versions whose short title names
    their card), leaving out those that only agree with a card name."""
    left, right = (compared_text(ruling, ctx, ruling.id in named) for ruling in (preferred, other))
    placeholder_free = CARD_PLACEHOLDER not in left and CARD_PLACEHOLDER not in right
    kept = []
    for change in differences(left, right, lang):
        if placeholder_free or _agreeing(change, lang):
            kept.append(
                {key: value.replace(CARD_PLACEHOLDER, SHOWN_NAME) for key, value in change.items()}
            )
    return kept


SHOWN_NAME = "[card]"


def _agreeing(change: dict[str, str], lang: str) -> bool:
    """Whether a change says more than the agreement with a card name (with the name as the
    placeholder on both sides, the uniform forms differ)."""
    mark = CARD_PLACEHOLDER
    return uniform(change["preferred"] + " " + mark, lang) != uniform(
        change["found"] + " " + mark, lang
    )


def defects(ruling: Ruling, ctx: CheckContext, short_title_named: bool = False) -> int:
    """What is wrong with one translation as far as a check can tell: wrong or old terms,
    and, against its own source, lost symbols and numbers (``short_title_named``: its title
    of one or two characters is its card's name in its text, ``_short_titles_named``)."""
    hits = ctx.term_hits(ruling.text, ruling.lang or "")
    approved = {(h.start, h.end) for h in hits if h.status in ("approved", "admitted")}
    count = sum(
        1
        for h in hits
        if h.status == "obsolete" or (h.status == "forbidden" and (h.start, h.end) not in approved)
    )
    pair = ctx.pairs_by_target.get(ruling.id)
    if pair:
        count += sum(len(found) for found in wrong_spans(ctx, pair).values())
        count += len(_unnamed_concepts(ctx, pair))
        count += len(replaced_phrases(ruling, pair, ctx))
        count += _names_itself_unlike_source(ruling, pair.source, short_title_named)
        source_tokens = token_counts(pair.source.text)
        target_tokens = token_counts(ruling.text)
        count += sum(len(source_tokens[kind] - target_tokens[kind]) for kind in source_tokens)
        source_numbers = number_counts(pair.source.text, ctx.source_lang)
        count += len(source_numbers - number_counts(ruling.text, ruling.lang or ""))
    return count


def _names_itself_unlike_source(
    ruling: Ruling, source: Ruling, short_title_named: bool = False
) -> int:
    """1 where the translation names its own card and its English does not (an old template:
    "Como coste adicional para lanzar la Voz del tormento" where the English now says "this
    spell"), else 0. A card document's title is its card's name; a title shorter than three
    characters only where it is known to name it there (``short_title_named``)."""
    own = ruling.doc_title or ""
    english = source.card or source.doc_title or ""
    if (
        (len(own) < 3 and not short_title_named)
        or len(english) < 3
        or ruling.section
        or source.section
    ):
        return 0
    return int(own.casefold() in ruling.text.casefold() and english not in source.text)


def _unnamed_concepts(ctx: CheckContext, pair) -> set[str]:
    """Game terms the source names that the translation names in no form (an old printed
    wording that spells out what the keyword means instead of naming it), leaving aside the
    everyday concepts translations rightly express another way (PARAPHRASED)."""
    lang = pair.lang
    present = {h.concept for h in ctx.term_hits(pair.target.text, lang)}
    return {
        concept
        for concept in ctx.named_concepts(pair.source_text, ctx.source_lang)
        if concept not in present
        and concept not in PARAPHRASED
        and any(ctx.termbase.terms(concept, lang, status) for status in USABLE)
    }


def _confused_terms(variants: list[Variant], ctx: CheckContext, lang: str) -> None:
    """A version that writes the form the termbase forbids for a concept (a confusable:
    "habilidad activada" for a triggered ability) where another version of the same ruling
    names that concept more often with an approved form ("habilidad disparada") has the
    wrong term: a defect, recorded in ``confused`` (found -> expected). A form approved for
    one concept and forbidden for another counts against the one the versions name more
    often together. This tells which version is right with no English source to read."""
    approved: list[Counter[str]] = []
    forbidden: list[list[tuple[str, str, set[str]]]] = []
    for variant in variants:
        hits = ctx.term_hits(variant.text, lang)
        approved.append(Counter(h.concept for h in hits if h.status in USABLE))
        meant = defaultdict(set)
        for hit in hits:
            if hit.status in USABLE:
                meant[hit.start, hit.end].add(hit.concept)
        forbidden.append(
            [(h.concept, h.form, meant[h.start, h.end]) for h in hits if h.status == "forbidden"]
        )
    totals = sum(approved, Counter())
    for mine, variant in enumerate(variants):
        for concept, form, also in sorted(forbidden[mine], key=lambda f: (f[0], f[1])):
            if any(totals[other] >= totals[concept] for other in also):
                continue
            rivals = [
                k for k, found in enumerate(approved) if found[concept] > approved[mine][concept]
            ]
            if not rivals:
                continue
            expected = next(
                h.form
                for h in ctx.term_hits(variants[rivals[0]].text, lang)
                if h.concept == concept and h.status in USABLE
            )
            variant.defects += 1
            variant.confused[form] = expected


def _lost_tokens(variants: list[Variant], lang: str) -> None:
    """Symbols and numbers are copied, never invented: a version that lacks a symbol or a
    number that another version of the same ruling has lost it (a defect)."""
    found = [(token_counts(v.text), number_counts(v.text, lang)) for v in variants]
    for variant, (mine, my_numbers) in zip(variants, found, strict=True):
        if any(
            any(theirs[kind] - mine[kind] for kind in theirs) or their_numbers - my_numbers
            for theirs, their_numbers in found
        ):
            variant.defects += 1


def describe_change(change: dict[str, str]) -> str:
    found, preferred = change["found"], change["preferred"]
    if not preferred:
        return f"adds \u201c{found}\u201d"
    if not found:
        return f"omits \u201c{preferred}\u201d"
    return f"\u201c{found}\u201d instead of \u201c{preferred}\u201d"


def _listing(summary: list[dict], own: str, own_version: int) -> list[dict]:
    """The versions as one finding lists them: at most SHOWN_RULINGS ruling ids each, the
    finding's own (in version ``own_version``) among them (the same list for every finding
    of a family that fits)."""
    if all(len(v["rulings"]) <= SHOWN_RULINGS for v in summary):
        return summary
    listed = []
    for number, version in enumerate(summary):
        ids = version["rulings"]
        if len(ids) > SHOWN_RULINGS:
            shown = ids[:SHOWN_RULINGS]
            if number == own_version and own not in shown:
                shown = sorted([*shown[:-1], own])
            version = {**version, "rulings": shown}
        listed.append(version)
    return listed


def _not_alone(ctx: CheckContext) -> set[str]:
    """Translated lines that do not say one English line alone (``merged`` rows): a
    paragraph that says several lines (Aven Mindcensor's "Flash" and "Flying" run into
    one), and each paragraph of a line printed in parts (Aether Membrane's "Defender;
    reach" as 守军 and the reach sentence). None is another way of translating one line."""
    merged = ctx.merged_sources
    split_lines = {line.id for lines in merged.values() for line in lines}
    return set(merged) | {
        row.target_id for row in ctx.alignment if row.target_id and row.source_id in split_lines
    }


_DOC = attrgetter("doc")


def translation_families(ctx: CheckContext) -> list[Group]:
    """The translations of each English ruling into each language (its family: the same
    text on several cards or in several files), where they are in two documents or more,
    leaving out lines that say more or less than one line (``_not_alone``); a group reads
    its members, the English each is aligned with and the family's own."""
    families: dict[tuple[str, str], list[Ruling]] = defaultdict(list)
    partial = _not_alone(ctx)
    by_id, source_lang, untranslated = ctx.by_id, ctx.source_lang, Method.UNTRANSLATED
    for row in ctx.alignment:
        target_id = row.target_id
        if row.family and target_id and row.method != untranslated and target_id not in partial:
            target = by_id[target_id]
            lang = target.lang
            if lang and lang != source_lang:
                families[row.family, lang].append(target)
    groups = []
    pairs_by_target = ctx.pairs_by_target
    # most families are one document's: sorting only the others took a fifth of the time
    shared = [key for key, rulings in families.items() if len(set(map(_DOC, rulings))) > 1]
    for family, lang in sorted(shared):
        rulings = families[family, lang]
        sources = [pair.source for r in rulings if (pair := pairs_by_target.get(r.id))]
        family_source = by_id.get(family)
        reads = [*rulings, *sources, *([family_source] if family_source else [])]
        groups.append(Group((family, lang), rulings, reads))
    return groups


@check("INCON001", scope=Scope.GROUP, groups=translation_families)
def translated_several_ways(group: Group, ctx: CheckContext) -> Iterator[Problem]:
    """One English ruling (the same text on several cards, or in several files) is
    translated in more than one way into the same language. The preferred version is the
    one with the fewest defects (wrong or old terms, lost symbols or numbers), then the one
    most documents use; a version with a defect is never preferred over one without. When
    two versions tie on both, none is preferred: the finding says so and shows the versions
    side by side, on every version but the first in text order (one finding per version
    that differs, wherever the files are). Quote style, spacing, case and card names do not
    count as differences; nothing depends on file names or their order."""
    family, lang = group.name
    rulings = group.members
    keys = {ruling.id: variant_key(ruling, ctx) for ruling in rulings}
    named = _short_titles_named(rulings, keys, ctx)
    keys.update(named)
    variants: dict[str, Variant] = {}
    for ruling in sorted(rulings, key=lambda r: r.text):
        key = keys[ruling.id]
        variants.setdefault(key, Variant(key, ruling.text)).rulings.append(ruling)
    if len(variants) < 2:
        return
    for variant in variants.values():
        variant.defects = min(defects(r, ctx, r.id in named) for r in variant.rulings)
    _lost_tokens(list(variants.values()), lang)
    _confused_terms(list(variants.values()), ctx, lang)
    ranked = sorted(variants.values(), key=lambda v: v.rank)
    best, runner_up = ranked[0], ranked[1]
    decided = best.rank[:2] != runner_up.rank[:2]
    why = (
        "fewest defects"
        if best.defects < runner_up.defects
        else "used by most documents"
        if decided
        else None
    )
    summary = [
        {
            "text": v.text,
            "rulings": sorted(r.id for r in v.rulings),
            "count": len(v.rulings),
            "defects": v.defects,
            "preferred": decided and v is best,
        }
        for v in ranked
    ]
    source = ctx.by_id.get(family)
    source = source if source and source.lang == ctx.source_lang else None
    for version, variant in enumerate(ranked[1:], 1):
        changes = shown_differences(best.rulings[0], variant.rulings[0], ctx, lang, named)
        shown = "; ".join(
            [
                f"\u201c{found}\u201d instead of \u201c{expected}\u201d (the termbase forbids it)"
                for found, expected in sorted(variant.confused.items())
            ]
            + [describe_change(c) for c in changes[:3]]
        )
        if decided:
            message = (
                f"Translated differently elsewhere ({len(variants)} versions); against the "
                f"preferred one ({why}), this one {shown}."
            )
        else:
            message = (
                f"Translated differently elsewhere ({len(variants)} versions, none "
                f"preferred); against another version, this one {shown}."
            )
        for ruling in sorted(variant.rulings, key=lambda r: r.id):
            yield Problem(
                ruling,
                message,
                {
                    "variants": _listing(summary, ruling.id, version),
                    "preferred_because": why,
                    "differences": changes,
                    "confused_terms": dict(sorted(variant.confused.items())),
                    "family": family,
                },
                source=source,
            )
