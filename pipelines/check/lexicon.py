"""The data-file driven text analyses the checks share: tokens, numbers, variants, address."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache

from ..resources import read_tsv
from ..text import dates
from ..text.tokens import token_kinds

UNSPACED = ("zh", "ja", "ko")


YEAR = re.compile(r"\d{4}")
"""Every date the date reader knows has a four-digit year: no year, no date to look for."""


def strip_tokens(text: str) -> str:
    """The text with placeholder tokens and dates blanked, for number extraction."""
    for kind in token_kinds():
        text = kind.pattern.sub(" ", text)
    while YEAR.search(text) and (found := dates.search(text)):
        text = text[: found.start] + " " + text[found.end :]
    return text


STRICT_KINDS = ("cardinal", "ordinal")


@cache
def _number_rows(lang: str) -> tuple[dict[str, str], ...]:
    return tuple(row for row in read_tsv("number_words.tsv") if row["lang"] == lang.split("-")[0])


def _alternation(forms: str) -> str:
    return "|".join(sorted(map(re.escape, forms.split("|")), key=len, reverse=True))


@cache
def _number_patterns(lang: str, loose: bool = False) -> list[tuple[re.Pattern[str], str]]:
    """(pattern, "kind:value") per number word row; strictly, Chinese cardinals count only
    before a classifier; loosely, every form counts, and the "loose" rows too."""
    rows = _number_rows(lang)
    classifiers = next((r["forms"] for r in rows if r["kind"] == "classifier"), "")
    kinds = (*STRICT_KINDS, "loose") if loose else STRICT_KINDS
    patterns = []
    for row in rows:
        if row["kind"] not in kinds:
            continue
        forms = _alternation(row["forms"])
        value = f"{row['kind']}:{row['value']}"
        if lang.split("-")[0] in UNSPACED:
            strict_cardinal = row["kind"] == "cardinal" and not loose
            after = f"(?=[{classifiers.replace('|', '')}])" if strict_cardinal else ""
            patterns.append((re.compile(f"(?:{forms}){after}"), value))
        else:
            patterns.append((re.compile(rf"\b(?:{forms})\b", re.IGNORECASE), value))
    return patterns


@cache
def _numerals(lang: str) -> tuple[dict[str, int], re.Pattern[str] | None]:
    """Chinese-style numeral characters and their values, and a pattern for runs of them."""
    values = {
        form: int(row["value"])
        for row in _number_rows(lang)
        if row["kind"] == "numeral"
        for form in row["forms"].split("|")
    }
    if not values:
        return values, None
    return values, re.compile(f"(?:{_alternation('|'.join(values))})+")


def numeral_value(run: str, values: dict[str, int]) -> int:
    """十一 -> 11, 二十 -> 20, 一百零五 -> 105, 两千 -> 2000, 三 -> 3."""
    total, section, digit = 0, 0, None
    for char in run:
        value = values[char]
        if value >= 10000:
            total = (total + section + (digit or 0)) * value
            section, digit = 0, None
        elif value >= 10:
            section += (digit if digit is not None else 1) * value
            digit = None
        else:
            digit = value
    return total + section + (digit or 0)


@cache
def _pronouns(lang: str) -> re.Pattern[str] | None:
    """Phrases where a number word is no quantity: a pronoun ("the two need not"), a name
    (Two-Headed Giant)."""
    forms = "|".join(row["forms"] for row in _number_rows(lang) if row["kind"] == "other-sense")
    if not forms:
        return None
    if lang.split("-")[0] in UNSPACED:
        return re.compile(_alternation(forms))
    return re.compile(rf"\b(?:{_alternation(forms)})\b", re.IGNORECASE)


@cache
def _classifiers(lang: str) -> str:
    return next((r["forms"] for r in _number_rows(lang) if r["kind"] == "classifier"), "")


def _plain_numbers(text: str, lang: str) -> str:
    """The text as numbers are read from it: symbols and dates blanked, number words that
    are no quantity blanked (a pronoun, a name), and a Chinese numeral of several
    characters before a classifier written in digits (十六位 -> 16位: one number)."""
    plain = strip_tokens(text)
    pronouns = _pronouns(lang)
    if pronouns is not None:
        plain = pronouns.sub(lambda m: " " * len(m.group()), plain)
    values, runs = _numerals(lang)
    classifiers = _classifiers(lang).replace("|", "")
    if runs is not None and classifiers:
        whole = re.compile(f"(?:{runs.pattern})(?=[{classifiers}])")
        plain = whole.sub(
            lambda m: str(numeral_value(m.group(), values)) if len(m.group()) > 1 else m.group(),
            plain,
        )
    return plain


@lru_cache(maxsize=300_000)
def stated_values(text: str, lang: str) -> frozenset[str]:
    """Every number a translation may be stating, read loosely (values only, no kinds): to
    tell whether it states a number its source states, whatever words it uses."""
    plain = _plain_numbers(text, lang)
    found = {_number_value(m.group()) for m in DIGITS.finditer(plain)}
    for pattern, value in _number_patterns(lang, loose=True):
        if pattern.search(plain):
            found.add(value.split(":")[1])
    values, runs = _numerals(lang)
    if runs is not None:
        found.update(str(numeral_value(m.group(), values)) for m in runs.finditer(plain))
    return frozenset(found)


@lru_cache(maxsize=100_000)
def first_words(text: str, lang: str) -> tuple[str, ...]:
    """Words for "the first" in a text (what a translation says instead of another ordinal)."""
    found = []
    for row in _number_rows(lang):
        if row["kind"] == "first":
            flags = 0 if lang.split("-")[0] in UNSPACED else re.IGNORECASE
            bounded = _alternation(row["forms"])
            if lang.split("-")[0] not in UNSPACED:
                bounded = rf"\b(?:{bounded})\b"
            found += [m.group() for m in re.finditer(bounded, text, flags)]
    return tuple(found)


ENUMERATION = re.compile(r"(?:^|[.;:!?。；：！？]\s*)$")
"""What comes before an ordinal that opens a sentence: "Second, the active player…" is a
step of an enumeration, which translations render with 然后 / "luego" as often as with a
number."""


SPACED_WORD_CHAR = r"[^\W\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
"""A word character of a script written with spaces (letters, digits, underscore). Han,
kana and hangul are word characters to ``\\w`` too, but a number glued to them (2点伤害,
规则714, 第3章) is still a number of its own."""
DIGITS = re.compile(rf"(?<!{SPACED_WORD_CHAR})(?<!\.)\d+(?:[.,]\d+)?(?!{SPACED_WORD_CHAR})")


THOUSANDS = re.compile(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*")


def _number_value(digits: str) -> str:
    """999,999 and 999.999 (groups of three) are 999999; 1,5 is 1.5."""
    if THOUSANDS.fullmatch(digits):
        return digits.replace(",", "").replace(".", "")
    return digits.replace(",", ".")


def numbers(text: str, lang: str) -> Counter[str]:
    """Numbers a ruling states: digits and number words (``cardinal:3``, ``ordinal:2``)."""
    return Counter(_numbers(text, lang))


@lru_cache(maxsize=300_000)
def _numbers(text: str, lang: str) -> Counter[str]:
    """``numbers`` once per text (a ruling shared by many cards, or a source with many
    translations, is read once); callers get a copy."""
    plain = _plain_numbers(text, lang)
    found: Counter[str] = Counter()
    for match in DIGITS.finditer(plain):
        found[f"cardinal:{_number_value(match.group())}"] += 1
    matches = [
        (match.start(), match.end(), value)
        for pattern, value in _number_patterns(lang)
        for match in pattern.finditer(plain)
        if not _enumerates(plain, match, value)
    ]
    matches.sort(key=lambda m: (m[0] - m[1], m[0]))  # the longest first (第二个: ordinal 2)
    taken: list[tuple[int, int]] = []
    for start, end, value in matches:
        if any(start < other_end and other_start < end for other_start, other_end in taken):
            continue
        taken.append((start, end))
        found[value] += 1
    return found


def _enumerates(text: str, match: re.Match[str], value: str) -> bool:
    """An ordinal that opens a sentence and is followed by a comma ("Third, …")."""
    return (
        value.startswith("ordinal")
        and text[match.end() : match.end() + 1] in (",", "，")
        and bool(ENUMERATION.search(text[: match.start()]))
    )


@dataclass(frozen=True, slots=True)
class Variant:
    group: str
    region: str
    pattern: re.Pattern[str]
    forms: tuple[str, ...]


@cache
def regional_variants(lang: str) -> dict[str, list[Variant]]:
    groups: dict[str, list[Variant]] = defaultdict(list)
    for row in read_tsv("regional_variants.tsv"):
        if row["lang"] != lang.split("-")[0]:
            continue
        forms = tuple(row["variant"].split("|"))
        alternation = "|".join(sorted(map(re.escape, forms), key=len, reverse=True))
        pattern = re.compile(rf"\b(?:{alternation})\b", re.IGNORECASE)
        groups[row["group"]].append(Variant(row["group"], row["region"], pattern, forms))
    return dict(groups)


@cache
def address_forms(lang: str) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, str]]:
    """Patterns for informal and formal verb forms, and formal -> informal."""
    rows = [row for row in read_tsv("formality.tsv") if row["lang"] == lang.split("-")[0]]
    informal = "|".join(sorted((re.escape(r["informal"]) for r in rows), key=len, reverse=True))
    telling = [r for r in rows if r.get("as_imperative") != "yes"]
    formal = "|".join(sorted((re.escape(r["formal"]) for r in telling), key=len, reverse=True))
    never = re.compile(r"(?!x)x")
    return (
        re.compile(rf"\b(?:{informal})\b", re.IGNORECASE) if rows else never,
        re.compile(rf"\b(?:{formal})\b", re.IGNORECASE) if rows else never,
        {r["formal"]: r["informal"] for r in rows},
    )


WORD = re.compile(r"\w+(?:['’]\w+)?", re.UNICODE)


def words(text: str, lang: str) -> list[str]:
    """Word tokens; characters for unspaced languages."""
    if lang.split("-")[0] in UNSPACED:
        return [c for c in text if not c.isspace()]
    return WORD.findall(text)


@cache
def _kept_patterns(kind: str, lang: str) -> re.Pattern[str] | None:
    rows = [
        row["pattern"]
        for row in read_tsv("kept_text.tsv")
        if row["kind"] == kind and row["lang"] in ("*", lang.split("-")[0])
    ]
    return re.compile("|".join(f"(?:{p})" for p in rows), re.IGNORECASE) if rows else None


def translator_notes(text: str, lang: str) -> list[tuple[int, int]]:
    """Where the translator's own notes are (（译注：…）): text kept there on purpose."""
    pattern = _kept_patterns("note", lang)
    return [m.span() for m in pattern.finditer(text)] if pattern else []


def is_legal(text: str) -> bool:
    """Legal or credit text (addresses, trademarks), which translations keep as it is."""
    pattern = _kept_patterns("legal", "*")
    return bool(pattern and pattern.search(text))


def digit_counts(text: str) -> Counter[str]:
    """How often a text writes each number in digits (symbols, dates and rule references
    aside)."""
    return Counter(_number_value(m.group()) for m in DIGITS.finditer(strip_tokens(text)))


def digit_values(text: str) -> frozenset[str]:
    """The numbers a text writes in digits (symbols, dates and rule references aside)."""
    return frozenset(_number_value(m.group()) for m in DIGITS.finditer(strip_tokens(text)))
