"""The data-file driven text analyses the checks share: tokens, numbers, variants, address."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache

import ahocorasick

from ..bounded import TEXTS_REMEMBERED
from ..resources import read_tsv
from ..text import dates
from ..text.tokens import token_kinds

UNSPACED = ("zh", "ja", "ko")


YEAR = re.compile(r"\d{4}")
"""Every date the date reader knows has a four-digit year: no year, no date to look for."""


@lru_cache(maxsize=TEXTS_REMEMBERED)
def strip_tokens(text: str) -> str:
    """The text with placeholder tokens and dates blanked, for number extraction (once per
    text: the number readings of a text all start here)."""
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


@dataclass(frozen=True, slots=True)
class WordRow:
    """One number-word row as a reading counts it: its value ("kind:value"), its forms,
    the expression that defines where a form counts, and for a Chinese cardinal read
    strictly the classifier that must follow it."""

    value: str
    forms: tuple[str, ...]
    pattern: re.Pattern[str]
    after: re.Pattern[str] | None


@cache
def _word_rows(lang: str, loose: bool = False) -> tuple[WordRow, ...]:
    """The number-word rows of a reading; strictly, Chinese cardinals count only before a
    classifier; loosely, every form counts, and the "loose" rows too. In languages written
    with spaces a form counts as a whole word, in any case."""
    rows = _number_rows(lang)
    classifiers = next((r["forms"] for r in rows if r["kind"] == "classifier"), "")
    kinds = (*STRICT_KINDS, "loose") if loose else STRICT_KINDS
    found = []
    for row in rows:
        if row["kind"] not in kinds:
            continue
        forms = _alternation(row["forms"])
        value = f"{row['kind']}:{row['value']}"
        if lang.split("-")[0] in UNSPACED:
            strict_cardinal = row["kind"] == "cardinal" and not loose
            after = f"(?=[{classifiers.replace('|', '')}])" if strict_cardinal else ""
            pattern = re.compile(f"(?:{forms}){after}")
            following = re.compile(after[3:-1]) if after else None
        else:
            pattern = re.compile(rf"\b(?:{forms})\b", re.IGNORECASE)
            following = None
        found.append(WordRow(value, tuple(row["forms"].split("|")), pattern, following))
    return tuple(found)


NOT_ASCII = re.compile(r"[^\x00-\x7f]")
UNSURE = "\x00"
"""Stands in a folded text for a character that case-insensitive matching may not match
as its lower case does."""


class _CaseFold(dict):
    """str.translate table: each character as its lower case, where the regular expression
    engine's case-insensitive matching (re.IGNORECASE) matches it against the forms'
    characters exactly when that lower case is theirs (checked with ``re`` itself, once per
    character met); else UNSURE (the dotless ı, the long ſ: the engine matches them as i
    and s). Filled in as characters are met."""

    def __init__(self, chars: frozenset[str]) -> None:
        super().__init__()
        self.chars = tuple(sorted(chars))

    def __missing__(self, code: int) -> str:
        char = chr(code)
        lower = char.lower()
        sure = len(lower) == 1 and all(
            (re.fullmatch(re.escape(c), char, re.IGNORECASE) is not None) == (lower == c.lower())
            for c in self.chars
        )
        folded = self[code] = lower if sure else UNSURE
        return folded


def _is_word(char: str) -> bool:
    """A word character as ``\\w`` means it (what ``\\b`` tells apart)."""
    return char.isalnum() or char == "_"


def _at_boundary(text: str, index: int) -> bool:
    """Whether ``\\b`` matches at ``index`` of ``text``."""
    before = index > 0 and _is_word(text[index - 1])
    after = index < len(text) and _is_word(text[index])
    return before != after


class WordFinder:
    """Where the forms of a reading's rows stand in a text, as each row's expression finds
    them (``pattern.finditer``), for all rows in one pass of an Aho-Corasick automaton over
    the text (folded to lower case in languages written with spaces), instead of one
    expression per row. Texts with a character the fold is not sure of are read with the
    expressions."""

    def __init__(self, rows: tuple[WordRow, ...], spaced: bool) -> None:
        self.rows = rows
        self.spaced = spaced
        self.fold: _CaseFold | None = None
        self.ascii_lower = False
        if spaced:
            self.fold = _CaseFold(frozenset(c for row in rows for f in row.forms for c in f))
            self.ascii_lower = all(self.fold[code] == chr(code).lower() for code in range(128))
        keys: dict[str, list[tuple[int, int]]] = {}
        self.usable = True
        for index, row in enumerate(rows):
            for form in row.forms:
                key = form.translate(self.fold) if self.fold is not None else form
                if not key or UNSURE in key:
                    self.usable = False  # a form the fold cannot key: the expressions read
                    continue
                entries = keys.setdefault(key, [])
                if (index, len(key)) not in entries:
                    entries.append((index, len(key)))
        self.automaton = ahocorasick.Automaton()
        for key, entries in keys.items():
            self.automaton.add_word(key, tuple(entries))
        if keys:
            self.automaton.make_automaton()
        else:
            self.usable = False

    def _keyed(self, text: str) -> str | None:
        if self.fold is None:
            return text
        if self.ascii_lower:
            if text.isascii():
                return text.lower()
            others = set(NOT_ASCII.findall(text))
            if "\u03a3" not in others and all(self.fold[ord(c)] != UNSURE for c in others):
                return text.lower()  # each character's own lower case (Σ aside: ς or σ)
        keyed = text.translate(self.fold)
        return None if UNSURE in keyed else keyed

    def matches(self, text: str) -> dict[int, list[tuple[int, int]]]:
        """Row index -> the spans its expression finds in ``text`` (rows with none left
        out), rows in order."""
        keyed = self._keyed(text) if self.usable else None
        if keyed is None:
            return self._matched(text)
        candidates: dict[int, list[tuple[int, int]]] = {}
        for last, entries in self.automaton.iter(keyed):
            end = last + 1
            for index, length in entries:
                start = end - length
                if self.spaced:
                    if not (_at_boundary(text, start) and _at_boundary(text, end)):
                        continue
                else:
                    after = self.rows[index].after
                    if after is not None and after.match(text, end) is None:
                        continue
                candidates.setdefault(index, []).append((start, end))
        found = {}
        for index in sorted(candidates):
            spans = candidates[index]
            spans.sort(key=_leftmost_longest)
            taken, reach = [], 0
            for start, end in spans:
                if start >= reach:  # the longest form that counts here, as the
                    taken.append((start, end))  # alternation (longest first) takes it
                    reach = end
            found[index] = taken
        return found

    def _matched(self, text: str) -> dict[int, list[tuple[int, int]]]:
        found = {}
        for index, row in enumerate(self.rows):
            spans = [m.span() for m in row.pattern.finditer(text)]
            if spans:
                found[index] = spans
        return found


def _leftmost_longest(span: tuple[int, int]) -> tuple[int, int]:
    return span[0], -span[1]


@cache
def word_finder(lang: str, loose: bool = False) -> WordFinder:
    return WordFinder(_word_rows(lang, loose), lang.split("-")[0] not in UNSPACED)


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
def _pronoun_finder(lang: str) -> WordFinder | None:
    """``_pronouns`` as a ``WordFinder`` of one row."""
    pattern = _pronouns(lang)
    if pattern is None:
        return None
    forms = "|".join(row["forms"] for row in _number_rows(lang) if row["kind"] == "other-sense")
    row = WordRow("other-sense", tuple(forms.split("|")), pattern, None)
    return WordFinder((row,), lang.split("-")[0] not in UNSPACED)


@cache
def _classifiers(lang: str) -> str:
    return next((r["forms"] for r in _number_rows(lang) if r["kind"] == "classifier"), "")


@cache
def _whole_numerals(lang: str) -> re.Pattern[str] | None:
    """A run of Chinese numerals before a classifier."""
    _, runs = _numerals(lang)
    classifiers = _classifiers(lang).replace("|", "")
    if runs is None or not classifiers:
        return None
    return re.compile(f"(?:{runs.pattern})(?=[{classifiers}])")


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _plain_numbers(text: str, lang: str) -> str:
    """The text as numbers are read from it: symbols and dates blanked, number words that
    are no quantity blanked (a pronoun, a name), and a Chinese numeral of several
    characters before a classifier written in digits (十六位 -> 16位: one number)."""
    plain = strip_tokens(text)
    pronouns = _pronoun_finder(lang)
    if pronouns is not None:
        for start, end in pronouns.matches(plain).get(0, ()):
            plain = plain[:start] + " " * (end - start) + plain[end:]
    whole = _whole_numerals(lang)
    if whole is not None:
        values, _ = _numerals(lang)
        plain = whole.sub(
            lambda m: str(numeral_value(m.group(), values)) if len(m.group()) > 1 else m.group(),
            plain,
        )
    return plain


@lru_cache(maxsize=TEXTS_REMEMBERED)
def stated_values(text: str, lang: str) -> frozenset[str]:
    """Every number a translation may be stating, read loosely (values only, no kinds): to
    tell whether it states a number its source states, whatever words it uses."""
    plain = _plain_numbers(text, lang)
    found = {_number_value(m.group()) for m in DIGITS.finditer(plain)}
    rows = _word_rows(lang, loose=True)
    found.update(
        rows[index].value.split(":")[1] for index in word_finder(lang, True).matches(plain)
    )
    values, runs = _numerals(lang)
    if runs is not None:
        found.update(str(numeral_value(m.group(), values)) for m in runs.finditer(plain))
    return frozenset(found)


@lru_cache(maxsize=TEXTS_REMEMBERED)
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
DIGITS = re.compile(rf"\d(?<!{SPACED_WORD_CHAR}.)(?<!\.\d)\d*(?:[.,]\d+)?(?!{SPACED_WORD_CHAR})")
r"""A number in digits: not glued to a word of a spaced script, nor after a dot. (The same
as ``(?<!W)(?<!\.)\d+…`` with the look-behinds after the first digit: a pattern that
starts with a digit is searched for digits first, several times faster.)"""


THOUSANDS = re.compile(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*")


def _number_value(digits: str) -> str:
    """999,999 and 999.999 (groups of three) are 999999; 1,5 is 1.5."""
    if THOUSANDS.fullmatch(digits):
        return digits.replace(",", "").replace(".", "")
    return digits.replace(",", ".")


def numbers(text: str, lang: str) -> Counter[str]:
    """Numbers a ruling states: digits and number words (``cardinal:3``, ``ordinal:2``)."""
    return Counter(number_counts(text, lang))


@lru_cache(maxsize=TEXTS_REMEMBERED)
def number_counts(text: str, lang: str) -> Counter[str]:
    """``numbers`` once per text (a ruling shared by many cards, or a source with many
    translations, is read once): the same value for every caller, to read and not to
    change (``numbers`` gives a copy)."""
    plain = _plain_numbers(text, lang)
    found: Counter[str] = Counter()
    for match in DIGITS.finditer(plain):
        found[f"cardinal:{_number_value(match.group())}"] += 1
    rows = _word_rows(lang)
    matches = [
        (start, end, rows[index].value)
        for index, spans in word_finder(lang).matches(plain).items()
        for start, end in spans
        if not _enumerates(plain, start, end, rows[index].value)
    ]
    matches.sort(key=lambda m: (m[0] - m[1], m[0]))  # the longest first (第二个: ordinal 2)
    taken: list[tuple[int, int]] = []
    for start, end, value in matches:
        if any(start < other_end and other_start < end for other_start, other_end in taken):
            continue
        taken.append((start, end))
        found[value] += 1
    return found


def _enumerates(text: str, start: int, end: int, value: str) -> bool:
    """An ordinal that opens a sentence and is followed by a comma ("Third, …")."""
    return (
        value.startswith("ordinal")
        and text[end : end + 1] in (",", "，")
        and bool(ENUMERATION.search(text[:start]))
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


@cache
def addressed_verbs(lang: str) -> dict[str, re.Pattern[str]]:
    """formal form -> a pattern of "you" doing what it translates in English ("you may",
    "you can't", "you don't have"), from formality.tsv's english column."""
    found = {}
    for row in read_tsv("formality.tsv"):
        if row["lang"] == lang.split("-")[0] and row.get("english"):
            verbs = "|".join(re.escape(v) for v in row["english"].split("|"))
            found[row["formal"]] = re.compile(
                rf"\byou\s+(?:\S+\s+){{0,2}}?(?:{verbs})\b", re.IGNORECASE
            )
    return found


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


def about_the_source(note: str, lang: str) -> bool:
    """Whether a translator's note says the source lacks, misstates or has not updated
    something (resources/source_note_cues.tsv), as opposed to explaining the translation."""
    pattern = _source_note_cues().get(lang.split("-")[0])
    return bool(pattern and pattern.search(note))


@cache
def _source_note_cues() -> dict[str, re.Pattern[str]]:
    by_lang: dict[str, list[str]] = defaultdict(list)
    for row in read_tsv("source_note_cues.tsv"):
        by_lang[row["lang"]].append(f"(?:{row['pattern']})")
    return {
        lang: re.compile("|".join(patterns), re.IGNORECASE) for lang, patterns in by_lang.items()
    }


def without_translator_notes(text: str, lang: str) -> str:
    """The text with its translator's notes blanked (offsets kept): what is checked as
    translation."""
    for start, end in translator_notes(text, lang):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


@lru_cache(maxsize=TEXTS_REMEMBERED)
def is_legal(text: str) -> bool:
    """Legal or credit text (addresses, trademarks), which translations keep as it is."""
    pattern = _kept_patterns("legal", "*")
    return bool(pattern and pattern.search(text))


def digit_counts(text: str) -> Counter[str]:
    """How often a text writes each number in digits (symbols, dates and rule references
    aside)."""
    return Counter(_digits(text))


@lru_cache(maxsize=TEXTS_REMEMBERED)
def digit_values(text: str) -> frozenset[str]:
    """The numbers a text writes in digits (symbols, dates and rule references aside)."""
    return frozenset(_digits(text))


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _digits(text: str) -> tuple[str, ...]:
    return tuple(_number_value(m.group()) for m in DIGITS.finditer(strip_tokens(text)))
