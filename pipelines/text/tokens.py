"""Placeholder tokens: what a translation must carry over unchanged ({X}, +1/+1, 2/2,
702.62a), and the notation a language writes its own way ({等级N1-N2} for {LEVEL N1-N2}).
The patterns are data (``placeholder_patterns.tsv``, ``notation.tsv``)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache

from ..bounded import TEXTS_REMEMBERED
from ..resources import read_tsv


@dataclass(frozen=True, slots=True)
class TokenKind:
    name: str
    pattern: re.Pattern[str]
    description: str


@cache
def token_kinds() -> tuple[TokenKind, ...]:
    return tuple(
        TokenKind(row["name"], re.compile(row["pattern"]), row["description"])
        for row in read_tsv("placeholder_patterns.tsv")
    )


REFERS_BACK = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")
"""A backreference or a conditional: an expression that cannot stand in an alternation of
others (its group numbers change there)."""


def either(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str] | None:
    """One expression that finds a match where any of ``patterns`` finds one (and nowhere
    else): a text it finds nothing in is left as it is by all of them, at the cost of one
    search. None when they cannot be put together (a backreference, clashing flags or
    group names)."""
    if not patterns or any(REFERS_BACK.search(p.pattern) for p in patterns):
        return None
    if len({p.flags for p in patterns}) != 1:
        return None
    try:
        return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), patterns[0].flags)
    except re.error:
        return None


def tokens(text: str) -> dict[str, Counter[str]]:
    """Placeholder tokens by kind ({X}, +1/+1, 702.62a), each kind's matches counted."""
    return {name: Counter(counts) for name, counts in token_counts(text).items()}


@lru_cache(maxsize=TEXTS_REMEMBERED)
def token_counts(text: str) -> dict[str, Counter[str]]:
    """``tokens`` once per text, to read and not to change (the same value for every
    caller)."""
    found: dict[str, Counter[str]] = {}
    taken: list[tuple[int, int]] = []
    for kind in token_kinds():
        counts: Counter[str] = Counter()
        for match in kind.pattern.finditer(text):
            if taken and any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            counts[_normal_token(match.group())] += 1
        found[kind.name] = counts
    return found


@cache
def _notations(lang: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple(
        (re.compile(row["pattern"]), row["replacement"])
        for row in read_tsv("notation.tsv")
        if row["lang"] in ("*", lang.split("-")[0])
    )


@cache
def _any_notation(lang: str) -> re.Pattern[str] | None:
    """The notation of a language in one expression (``either``), when it has several: one
    search tells most texts apart that have none."""
    patterns = tuple(pattern for pattern, _ in _notations(lang))
    return either(patterns) if len(patterns) > 1 else None


@lru_cache(maxsize=TEXTS_REMEMBERED)
def in_source_notation(text: str, lang: str) -> str:
    """The text with the notation its language writes its own way rewritten as the source
    writes it ({等级N1-N2} as {LEVEL N1-N2}, 903.6-11 as 903.6–903.11; notation.tsv)."""
    anything = _any_notation(lang)
    if anything is not None and anything.search(text) is None:
        return text
    for pattern, replacement in _notations(lang):
        text = pattern.sub(replacement, text)
    return text


def token_spans(text: str, kind_name: str, wanted: Counter[str]) -> list[tuple[int, int]]:
    """Where the wanted tokens of one kind stand in a text (as many of each as wanted)."""
    left = Counter(wanted)
    spans = []
    for kind in token_kinds():
        if kind.name != kind_name:
            continue
        for match in kind.pattern.finditer(text):
            token = _normal_token(match.group())
            if left[token] > 0:
                left[token] -= 1
                spans.append(match.span())
    return spans


def _normal_token(token: str) -> str:
    return (
        token.replace("−", "-").replace("–", "-").upper()
        if token.startswith("{")
        else (token.replace("−", "-").replace("–", "-"))
    )


@cache
def _token_words(use: str) -> tuple[tuple[str, str, re.Pattern[str], str], ...]:
    return tuple(
        (row["lang"], row["kind"], re.compile(row["pattern"], re.IGNORECASE), row["token"])
        for row in read_tsv("token_words.tsv")
        if row["use"] == use
    )


def named_in_words(text: str, lang: str) -> dict[str, Counter[str]]:
    """The tokens a text names in words ("the chaos symbol": {CHAOS}), by kind
    (resources/token_words.tsv)."""
    found: dict[str, Counter[str]] = {}
    for row_lang, kind, pattern, token in _token_words("named"):
        if row_lang == lang.split("-")[0] and pattern.search(text):
            found.setdefault(kind, Counter())[token] += 1
    return found


def refers_back(text: str, lang: str, kind: str) -> bool:
    """Whether a text refers back in words to tokens of a kind it writes ("两种指示物" for
    +1/+1 and -1/-1 counters; resources/token_words.tsv)."""
    return any(
        row_lang == lang.split("-")[0] and row_kind == kind and pattern.search(text)
        for row_lang, row_kind, pattern, _ in _token_words("refers-back")
    )
