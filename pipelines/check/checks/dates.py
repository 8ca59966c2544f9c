"""Dates: a translation dated differently from its source, or from its sister translations."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from ...model import Ruling
from ...text import template_text
from ...vocabulary import Method, Scope
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check, corpus_fact


def _swapped(date: str) -> str | None:
    """The same date with day and month exchanged, if that is a date."""
    year, month, day = date.split("-")
    if int(day) > 12 or day == month:
        return None
    return f"{year}-{day}-{month}"


@check("DATE001", scope=Scope.PAIR)
def date_differs_from_source(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation carries a different date than the English ruling it translates (and
    than every other English ruling of the same text in the input: a ruling repeated on
    many cards may carry a newer date on some of them). When exchanging day and month makes
    them agree (06/07/2013 for 2013-06-07), the date was written in the wrong order, which
    is reported as an error. A translation newer than its English source is DATE006."""
    source, target = pair.source.date, pair.target.date
    if not _dated_differently(pair, ctx) or (target > source and _swapped(target) != source):
        return
    swapped = _swapped(target) == source
    if swapped:
        verdict, severity = ": day and month are swapped.", "error"
    else:
        verdict, severity = ": the translation may be out of date.", None
    yield Problem(
        pair.target,
        f"Dated {target} ({pair.target.date_raw}) but its source is dated {source}{verdict}",
        {
            "expected": source,
            "found": target,
            "found_raw": pair.target.date_raw,
            "day_month_swapped": swapped,
        },
        source=pair.source,
        severity=severity,
    )


@check("DATE006", scope=Scope.PAIR)
def translation_newer_than_source(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation is dated later than every English version of its ruling in the
    input: the English masters in the input are older than the English that was translated
    (an old snapshot of MTGJSON or Scryfall). What else differs between the two texts may
    be the English's own update, so the content findings on the unit (a missing term, a
    dropped parenthesis, a number) are folded under this one. Add the current masters."""
    source, target = pair.source.date, pair.target.date
    if not _dated_differently(pair, ctx) or target < source or _swapped(target) == source:
        return
    yield Problem(
        pair.target,
        f"Dated {target} ({pair.target.date_raw}) but its English source in the input is "
        f"dated {source}: the English masters may be older than the English translated.",
        {"expected": source, "found": target, "found_raw": pair.target.date_raw},
        source=pair.source,
    )


def _dated_differently(pair: AlignedPair, ctx: CheckContext) -> bool:
    """Both sides dated, and the translation's date is none of the English text's dates.
    Units of rules documents are dated by their release (see the release checks)."""
    source, target = pair.source.date, pair.target.date
    if not source or not target or pair.source.doc_version or pair.target.doc_version:
        return False
    return target not in english_dates(ctx, pair.source)


def english_dates(ctx: CheckContext, source: Ruling) -> set[str]:
    """Every date the English text of this ruling carries in the input (any card)."""
    return _english_dates(ctx).get(template_text(source), set()) | {source.date}


@corpus_fact(reads="in_source_language", kept_as=dict[str, set[str]])
def _english_dates(ctx: CheckContext) -> dict[str, set[str]]:
    dates: dict[str, set[str]] = defaultdict(set)
    for ruling in ctx.in_source_language:
        if ruling.date and not ruling.section:
            dates[template_text(ruling)].add(ruling.date)
    return dict(dates)


@check("DATE002", scope=Scope.CORPUS)
def dates_disagree_across_translations(ctx: CheckContext) -> Iterator[Problem]:
    """The translations of one ruling (in several documents or languages) carry different
    dates, and the input has no dated English source to settle it (otherwise DATE001 compares
    each with the source): 02/02/2024 in one document, 07/06/2013 in another. The date most
    of them carry is the expected one and each translation dated otherwise is reported;
    when no date prevails every translation is reported. All the dates are in the
    evidence."""
    members: dict[str, list[Ruling]] = defaultdict(list)
    by_id, untranslated = ctx.by_id, Method.UNTRANSLATED
    for row in ctx.alignment:
        if row.family and row.target_id and row.method != untranslated:
            target = by_id[row.target_id]
            if target.date:
                members[row.family].append(target)
    disagreeing = [
        family
        for family, rulings in members.items()
        if len({r.doc for r in rulings}) > 1 and len({r.date for r in rulings}) > 1
    ]  # put in order alone: most families are one document's, or agree
    for family in sorted(disagreeing):
        rulings = members[family]
        family_source = ctx.by_id.get(family)
        if family_source and family_source.lang == ctx.source_lang and family_source.date:
            continue
        votes = Counter(r.date for r in rulings)
        top = max(votes.values())
        if list(votes.values()).count(top) == 1:
            expected = {date for date, count in votes.items() if count == top}
        else:
            expected = set()
        dated = [{"date": r.date, "ruling": r.id, "lang": r.lang} for r in rulings]
        for ruling in rulings:
            if ruling.date in expected:
                continue
            others = sorted({r.date for r in rulings if r.date != ruling.date})
            yield Problem(
                ruling,
                f"Dated {ruling.date}, but other translations of this ruling are dated "
                f"{', '.join(others)}.",
                {"expected": sorted(expected) or None, "found": ruling.date, "translations": dated},
            )
