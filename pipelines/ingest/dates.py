"""Dates as rulings write them: 15/10/2006, 2006-10-15, October 15, 2006, 2006年10月15日.

Numeric dates are ambiguous between day-first and month-first. The order is inferred per
document from its unambiguous dates (a first number above 12 means day-first); the caller
falls back to the corpus-wide order when a document has none.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache

from ..catalogue import make_finding
from ..model import Finding, Ruling
from ..resources import read_tsv

DAY_FIRST = "dmy"
MONTH_FIRST = "mdy"


@cache
def _month_numbers() -> dict[str, int]:
    months: dict[str, int] = {}
    for row in read_tsv("month_names.tsv"):
        for number in range(1, 13):
            for name in row[str(number)].split("|"):
                months.setdefault(name.casefold(), number)
    return months


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    names = "|".join(sorted(map(re.escape, _month_numbers()), key=len, reverse=True))
    month = rf"(?P<month_name>{names})\.?"
    return [
        ("iso", re.compile(r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?!\d)")),
        ("cjk", re.compile(r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日")),
        ("numeric", re.compile(r"(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-](?P<y>\d{4})(?!\d)")),
        (
            "month-first",
            re.compile(rf"{month}\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})", re.I),
        ),
        (
            "day-first",
            re.compile(
                rf"(?P<d>\d{{1,2}})(?:st|nd|rd|th|º|\.)?\s+(?:de\s+)?{month}\s+(?:de\s+)?"
                rf"(?P<y>\d{{4}})",
                re.I,
            ),
        ),
    ]


@dataclass(frozen=True, slots=True)
class DateMatch:
    raw: str
    start: int
    end: int
    kind: str
    parts: tuple[int, int, int]
    """(year, first, second) for numeric dates; (year, month, day) otherwise."""

    @property
    def ambiguous(self) -> bool:
        """A numeric date that reads as two different valid dates."""
        if self.kind != "numeric":
            return False
        _, first, second = self.parts
        return first != second and first <= 12 and second <= 12

    @property
    def order_hint(self) -> str | None:
        """The order this date proves, if it is numeric and unambiguous."""
        if self.kind != "numeric":
            return None
        _, first, second = self.parts
        if first > 12 >= second:
            return DAY_FIRST
        if second > 12 >= first:
            return MONTH_FIRST
        return None

    def iso(self, order: str | None = DAY_FIRST) -> str | None:
        year, first, second = self.parts
        if self.kind == "numeric":
            if self.order_hint:
                order = self.order_hint
            day, month = (first, second) if order == DAY_FIRST else (second, first)
        else:
            month, day = first, second
        try:
            return dt.date(year, month, day).isoformat()
        except ValueError:
            return None


def _build(kind: str, match: re.Match[str]) -> DateMatch:
    groups = match.groupdict()
    year = int(groups["y"])
    if kind == "numeric":
        parts = (year, int(groups["a"]), int(groups["b"]))
    else:
        if groups.get("month_name"):
            month = _month_numbers()[groups["month_name"].casefold()]
        else:
            month = int(groups["m"])
        parts = (year, month, int(groups["d"]))
    return DateMatch(match.group(0), match.start(), match.end(), kind, parts)


def search(text: str) -> DateMatch | None:
    """The first date anywhere in the text."""
    found = [
        (match.start(), kind, match)
        for kind, pattern in _patterns()
        if (match := pattern.search(text))
    ]
    if not found:
        return None
    _, kind, match = min(found, key=lambda item: item[0])
    return _build(kind, match)


def leading(line: str) -> tuple[DateMatch, str] | None:
    """A date at the very start of the line, and the rest of the line after it."""
    stripped = line.lstrip()
    offset = len(line) - len(stripped)
    for kind, pattern in _patterns():
        match = pattern.match(stripped)
        if match:
            rest = stripped[match.end() :]
            if rest[:1].isalnum():
                continue
            date = _build(kind, match)
            shifted = DateMatch(date.raw, date.start + offset, date.end + offset, kind, date.parts)
            return shifted, rest.lstrip(" \t:-–—|").strip()
    return None


def is_date_line(line: str) -> bool:
    found = leading(line)
    return found is not None and not found[1]


def infer_order(dates: list[DateMatch]) -> str | None:
    """Day-first or month-first, from the document's unambiguous numeric dates (majority)."""
    votes = Counter(hint for date in dates if (hint := date.order_hint))
    if not votes:
        return None
    return votes.most_common(1)[0][0]


def assign_dates(rulings: list[Ruling]) -> list[Finding]:
    """Fill ``date`` (ISO) from ``date_raw``, inferring the day/month order per document."""
    parsed: dict[str, DateMatch | None] = {}
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        if item.date_raw:
            by_doc[item.doc].append(item)
            if item.date_raw not in parsed:
                found = leading(item.date_raw)
                parsed[item.date_raw] = found[0] if found else search(item.date_raw)
    corpus_order = infer_order([d for d in parsed.values() if d]) or DAY_FIRST
    findings: list[Finding] = []
    for members in by_doc.values():
        matches = [parsed[item.date_raw] for item in members]
        order = infer_order([m for m in matches if m])
        findings.extend(_order_problems(members, matches, order, corpus_order))
        for item, match in zip(members, matches, strict=True):
            item.date = match.iso(order or corpus_order) if match else None
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
