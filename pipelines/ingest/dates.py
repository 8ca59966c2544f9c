"""Dates of rulings: ``date`` (ISO) filled from ``date_raw``, the day/month order inferred
per document, and the dates that cannot be read reported (DATE003-005). How a date is
written and read is ``pipelines.text.dates``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ..catalogue import make_finding
from ..model import Finding, Ruling
from ..text.dates import DAY_FIRST, MONTH_FIRST, DateMatch, infer_order, leading, search


def assign_dates(rulings: list[Ruling], corpus_order: str | None = None) -> list[Finding]:
    """Fill ``date`` (ISO) from ``date_raw``, inferring the day/month order per document; a
    document that does not tell it takes the corpus's (``corpus_order``: by default, that
    of these rulings' dates, ``corpus_date_order``)."""
    parsed: dict[str, DateMatch | None] = {}
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        if item.date_raw:
            by_doc[item.doc].append(item)
            if item.date_raw not in parsed:
                parsed[item.date_raw] = _parsed(item.date_raw)
    if corpus_order is None:
        corpus_order = _order_of(parsed.values())
    findings: list[Finding] = []
    # each date read once, as one string: a million rulings held a million strings of a
    # few thousand dates
    iso: dict[tuple[str, str], str | None] = {}
    for members in by_doc.values():
        matches = [parsed[item.date_raw] for item in members]
        order = infer_order([m for m in matches if m])
        findings.extend(_order_problems(members, matches, order, corpus_order))
        for item, match in zip(members, matches, strict=True):
            key = (item.date_raw, order or corpus_order)
            if key not in iso:
                iso[key] = match.iso(key[1]) if match else None
            item.date = iso[key]
            if item.date is None:
                findings.append(
                    make_finding(
                        "DATE005",
                        f"\u201c{item.date_raw}\u201d is not a valid date.",
                        file=item.file,
                        line=item.line,
                        lang=item.lang,
                        ruling_id=item.id,
                        evidence={"found": item.date_raw},
                        anchor=item.text,
                    )
                )
    return findings


def corpus_date_order(rulings: list[Ruling]) -> str:
    """The day/month order the dates of the whole corpus tell (day first where they do not):
    the order of a document whose own dates do not tell it."""
    raw = dict.fromkeys(item.date_raw for item in rulings if item.date_raw)
    return _order_of(map(_parsed, raw))


def _order_of(dates: Iterable[DateMatch | None]) -> str:
    """The order the distinct dates tell, in corpus order (a tie goes to the first met),
    day first where they do not tell one."""
    return infer_order([d for d in dates if d]) or DAY_FIRST


def _parsed(raw: str) -> DateMatch | None:
    found = leading(raw)
    return found[0] if found else search(raw)


def _order_problems(
    members: list[Ruling],
    matches: list[DateMatch | None],
    order: str | None,
    corpus_order: str,
) -> list[Finding]:
    first = members[0]
    hints = {m.order_hint for m in matches if m and m.order_hint}
    if len(hints) > 1:
        wrong = sorted({m.raw for m in matches if m and m.order_hint and m.order_hint != order})
        return [
            make_finding(
                "DATE004",
                f"{first.file} writes dates both day-first and month-first; "
                f"{', '.join(wrong)} disagree with the rest.",
                file=first.file,
                line=first.line,
                lang=first.doc_lang,
                evidence={"order": _ORDER_NAMES[order], "disagreeing": wrong},
            )
        ]
    ambiguous = sorted({m.raw for m in matches if m and m.ambiguous})
    if order is None and ambiguous:
        return [
            make_finding(
                "DATE003",
                f"The dates in {first.file} ({', '.join(ambiguous)}) could be day-first or "
                f"month-first; they were read {_ORDER_NAMES[corpus_order]}.",
                file=first.file,
                line=first.line,
                lang=first.doc_lang,
                evidence={"ambiguous": ambiguous, "assumed": _ORDER_NAMES[corpus_order]},
            )
        ]
    return []


_ORDER_NAMES = {DAY_FIRST: "day-first", MONTH_FIRST: "month-first", None: "day-first"}
