"""Dates as rulings write them: 15/10/2006, 2006-10-15, October 15, 2006, 2006年10月15日.

Numeric dates are ambiguous between day-first and month-first. The order is inferred per
document from its unambiguous dates (a first number above 12 means day-first); the caller
falls back to the corpus-wide order when a document has none.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

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
