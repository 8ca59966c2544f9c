"""Inconsistent translation: one English ruling translated several ways across documents."""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from ...model import Ruling
from ...vocabulary import Method, Scope
from ..context import CheckContext
from ..lexicon import words
from ..registry import Problem, check
from .terminology import _wrong_spans

QUOTES = re.compile(r"[“”«»„\"「」]")


@dataclass
class Variant:
    text: str
    rulings: list[Ruling] = field(default_factory=list)
    term_problems: int = 0


def variant_key(ruling: Ruling, ctx: CheckContext) -> str:
    """The text with quotes, spacing and the ruling's own card name made uniform."""
    text = QUOTES.sub('"', ruling.text)
    if ruling.card and ruling.lang:
        for name in sorted({ctx.cards.name_in(ruling.card, ruling.lang), ruling.card} - {None}):
            text = _name_pattern(name).sub("~", text)
    return " ".join(text.split())


@lru_cache(maxsize=100_000)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(name), re.IGNORECASE)


def differences(preferred: str, other: str, lang: str) -> list[dict[str, str]]:
    """Word-level replacements that turn the preferred variant into the other one."""
    left, right = words(preferred, lang), words(other, lang)
    joiner = "" if lang.split("-")[0] in ("zh", "ja", "ko") else " "
    changes = []
    matcher = difflib.SequenceMatcher(a=left, b=right, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            changes.append(
                {"preferred": joiner.join(left[i1:i2]), "found": joiner.join(right[j1:j2])}
            )
    return changes


def term_problems(ruling: Ruling, ctx: CheckContext) -> int:
    """Wrong terms in a translation: forbidden for what its source says, forbidden for
    everything, or obsolete."""
    hits = ctx.term_hits(ruling.text, ruling.lang or "")
    approved = {(h.start, h.end) for h in hits if h.status in ("approved", "admitted")}
    count = sum(
        1
        for h in hits
        if h.status == "obsolete" or (h.status == "forbidden" and (h.start, h.end) not in approved)
    )
    pair = ctx.pairs_by_target.get(ruling.id)
    if pair:
        count += sum(len(hits) for hits in _wrong_spans(ctx, pair).values())
    return count


def describe_change(change: dict[str, str]) -> str:
    found, preferred = change["found"], change["preferred"]
    if not preferred:
        return f"adds \u201c{found}\u201d"
    if not found:
        return f"omits \u201c{preferred}\u201d"
    return f"\u201c{found}\u201d instead of \u201c{preferred}\u201d"


@check("INCON001", scope=Scope.CORPUS)
def translated_several_ways(ctx: CheckContext) -> Iterator[Problem]:
    """One English ruling (the same text on several cards, or in several files) is
    translated in more than one way into the same language. Each variant that is not the
    preferred one is reported, with all the variants side by side, the words that differ,
    and which variant agrees with the termbase (fewest wrong terms) and with the majority.
    Quote style, spacing and the card's own name do not count as differences."""
    families: dict[tuple[str, str], list[Ruling]] = defaultdict(list)
    for row in ctx.alignment:
        if row.family and row.target_id and row.method != Method.UNTRANSLATED:
            target = ctx.by_id[row.target_id]
            if target.lang and target.lang != ctx.source_lang:
                families[row.family, target.lang].append(target)
    for (family, lang), rulings in sorted(families.items()):
        if len({r.doc for r in rulings}) < 2:
            continue
        variants: dict[str, Variant] = {}
        for ruling in sorted(rulings, key=lambda r: (r.file, r.line or 0, r.id)):
            key = variant_key(ruling, ctx)
            variants.setdefault(key, Variant(ruling.text)).rulings.append(ruling)
        if len(variants) < 2:
            continue
        for variant in variants.values():
            variant.term_problems = term_problems(variant.rulings[0], ctx)
        ranked = sorted(variants.values(), key=lambda v: (v.term_problems, -len(v.rulings)))
        preferred = ranked[0]
        summary = [
            {
                "text": v.text,
                "rulings": [r.id for r in v.rulings],
                "count": len(v.rulings),
                "wrong_terms": v.term_problems,
                "preferred": v is preferred,
            }
            for v in ranked
        ]
        why = (
            "fewest wrong terms"
            if preferred.term_problems < ranked[1].term_problems
            else ("most used" if len(preferred.rulings) > len(ranked[1].rulings) else "first found")
        )
        source = ctx.by_id.get(family)
        for variant in ranked[1:]:
            changes = differences(preferred.text, variant.text, lang)
            shown = "; ".join(describe_change(c) for c in changes[:3])
            for ruling in variant.rulings:
                yield Problem(
                    ruling,
                    f"Translated differently elsewhere ({len(variants)} versions); this one "
                    f"{shown}.",
                    {
                        "variants": summary,
                        "preferred_because": why,
                        "differences": changes,
                        "family": family,
                    },
                    source=source if source and source.lang == ctx.source_lang else None,
                )
