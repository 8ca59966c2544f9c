"""Compound game terms: a translation that names another compound than its source's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from ...model import Mark
from ...resources import read_tsv
from ...termbase import USABLE, TermHit
from ...vocabulary import Role, Scope, is_unspaced
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check

JOINERS = {"en": re.compile(r"\s+"), "es": re.compile(r"\s+(?:de\s+(?:la\s+|el\s+)?)?")}
"""What may stand between the parts of a compound (nothing, in Chinese)."""


@cache
def _family_of() -> dict[str, str]:
    return {
        concept: row["family"]
        for row in read_tsv("term_families.tsv")
        for concept in row["concepts"].split("|")
    }


def compounds(hits: list[TermHit], text: str, lang: str) -> list[list[TermHit]]:
    """Runs of two or more adjacent parts of compound terms ("legendary creature card",
    传奇生物牌): object kinds and qualifiers (term_families.tsv), each the smallest term
    there (永久物 and 牌, not 永久物牌 over them)."""
    family = _family_of()
    usable = [h for h in hits if h.status in USABLE and h.concept in family]
    atoms = [
        h
        for h in usable
        if not any(o is not h and h.start <= o.start and o.end <= h.end for o in usable)
    ]
    atoms = sorted({(h.start, h.end): h for h in atoms}.values(), key=lambda h: h.start)
    joiner = JOINERS.get(lang.split("-")[0])
    runs: list[list[TermHit]] = []
    for hit in atoms:
        if runs and _adjacent(text, runs[-1][-1], hit, lang, joiner):
            runs[-1].append(hit)
        else:
            runs.append([hit])
    return [run for run in runs if len(run) >= 2]


def _adjacent(text: str, left: TermHit, right: TermHit, lang: str, joiner) -> bool:
    gap = text[left.end : right.start]
    if is_unspaced(lang):
        return gap == ""
    return right.start >= left.end and joiner is not None and joiner.fullmatch(gap) is not None


OBJECT_KIND = "object-kind"
HEAD_FIRST = frozenset({"es", "fr", "it", "pt"})
"""Languages whose compounds put the head first ("carta de criatura legendaria")."""


def _head(run: list[TermHit], lang: str) -> str:
    return (run[0] if lang.split("-")[0] in HEAD_FIRST else run[-1]).concept


@check("TERM005", scope=Scope.PAIR)
def another_compound(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source names a compound game term ("legendary creature cards") and the
    translation names another one in its place, that differs from it in one part of the same
    kind before the same head ("传奇永久物牌", legendary permanent cards: a permanent is not a
    creature), names the source's compound nowhere, and names the part it lost less often
    and the part it put in more often than the source: a terminology error, reported with
    the right compound.
    The parts are the termbase's terms; the kinds that cannot stand for each other (the
    object kinds: creature, permanent, artifact, card, token, …) are data
    (resources/term_families.tsv)."""
    lang = pair.lang
    ours = compounds(ctx.term_hits(pair.source_text, ctx.source_lang), pair.source_text, "en")
    if not ours:
        return
    theirs = compounds(ctx.term_hits(pair.target.text, lang), pair.target.text, lang)
    if not theirs:
        return
    family = _family_of()
    their_sets = [frozenset(h.concept for h in run) for run in theirs]
    our_counts = ctx.concept_counts(pair.source_text, ctx.source_lang)
    their_counts = ctx.concept_counts(pair.target.text, lang)
    for run in ours:
        wanted = frozenset(h.concept for h in run)
        if wanted in their_sets:
            continue
        for found, their_run in zip(their_sets, theirs, strict=True):
            lost, added = wanted - found, found - wanted
            if len(lost) != 1 or len(added) != 1 or _head(run, "en") != _head(their_run, lang):
                continue  # one part differs, and not the head: a legendary *card* stays a card
            (was,), (now,) = lost, added
            if family.get(was) != OBJECT_KIND or family.get(now) != OBJECT_KIND:
                continue
            if their_counts[was] >= our_counts[was] or their_counts[now] <= our_counts[now]:
                continue  # the translation names each as often: it says the same, otherwise
            said = pair.source_text[run[0].start : run[-1].end]
            written = pair.target.text[their_run[0].start : their_run[-1].end]
            expected = _rendered(ctx, run, lang)
            yield Problem(
                pair.target,
                f"\u201c{written}\u201d names another compound than the source's "
                f"\u201c{said}\u201d: {now} instead of {was}"
                + (f"; use \u201c{expected}\u201d." if expected else "."),
                {
                    "source_term": said,
                    "found": written,
                    "expected": expected,
                    "instead": {"found": now, "expected": was},
                },
                source=pair.source,
                marks=[Mark.target(their_run[0].start, their_run[-1].end, Role.WRONG)],
            )
            break


def _rendered(ctx: CheckContext, run: list[TermHit], lang: str) -> str | None:
    """The compound in the translation's language, part by part (each part's first approved
    form), where the language writes compounds in the source's order (Chinese)."""
    if not is_unspaced(lang):
        return None
    parts = []
    for hit in run:
        terms = ctx.termbase.terms(hit.concept, lang, "approved")
        if not terms:
            return None
        parts.append(terms[0].forms[0])
    return "".join(parts)
