"""The fast paths of the checks' text analyses give exactly what the plain expressions give.

Number words are found with one Aho-Corasick automaton per language instead of one regular
expression per row of ``number_words.tsv``; digits with an expression that looks for a digit
first; texts without tokens, notation or regional variants skip the expressions of each
kind after one search; the card index tells a run of Han that is its own name key without
converting it; subtype names are found with one automaton instead of an alternation of
hundreds, and whether a longer name holds a term with a look-up instead of a scan of the
names; regional variants are read once per text. Each is compared here with the plain
way, on texts generated from the data files with noise (case, glued letters and digits,
characters that case-insensitive matching treats specially), and on the seed corpus.
"""

from __future__ import annotations

import random
import re
import sys
import unicodedata
from collections import defaultdict
from functools import cache

import pytest
from conftest import ROOT, examples
from zhconv.zhconv import getdict

from pipelines.cards import HAN_RUN, _converted, _is_own_key, name_key
from pipelines.check import lexicon
from pipelines.check.lexicon import (
    DIGITS,
    SPACED_WORD_CHAR,
    UNSURE,
    _number_rows,
    _pronoun_finder,
    _pronouns,
    _word_rows,
    number_counts,
    stated_values,
    word_finder,
)
from pipelines.check.names import Names, subtype_spans
from pipelines.resources import read_tsv
from pipelines.text.tokens import (
    _notations,
    either,
    in_source_notation,
    token_counts,
    token_kinds,
)

LANGS = ("en", "es", "zh")
FILLER = {
    "en": ["the", "a", "If", "you", "Each", "it's", "(", ")", ",", ".", ":", "—", "\n"],
    "es": ["el", "la", "Si", "cada", "de", "“", "”", ",", ".", "¿", "—", "ñ"],
    "zh": ["的", "你", "如果", "。", "，", "（", "）", "：", "第", "个", "张", "位", "十"],
}
ODD = ["İ", "ı", "ſ", "K", "ß", "Σ", "ς", "\u0301", "²", "_", "7", "0", "’", "-", "\x00", "é"]


def noisy_texts(lang: str, count: int, seed: int) -> list[str]:
    """Texts of number words (every form of every row of the language), filler and odd
    characters, in any case, glued or spaced."""
    forms = [form for row in _number_rows(lang) for form in row["forms"].split("|")]
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(1, 12)):
            piece = rng.choice(forms + FILLER[lang] + ODD)
            piece = rng.choice([piece, piece.upper(), piece.title(), piece.lower()])
            pieces.append(piece)
            pieces.append(rng.choice(["", " ", " ", ", ", "  ", "-"]))
        texts.append("".join(pieces))
    return texts


@cache
def seed_texts() -> list[tuple[str, str]]:
    """Every line of the seed corpus, read as each language (any text will do)."""
    found = set()
    for path in sorted((ROOT / "corpus").rglob("*")):
        if path.is_file() and path.suffix in (".json", ".txt", ".md", ".xlf", ".tmx", ".po"):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                found.update((line, lang) for lang in LANGS)
    return sorted(found)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("loose", [False, True])
def test_word_finder_finds_what_each_rows_expression_finds(lang: str, loose: bool) -> None:
    finder = word_finder(lang, loose)
    assert finder.usable
    texts = noisy_texts(lang, examples(3000), seed=LANGS.index(lang) * 2 + loose)
    texts += [text for text, text_lang in seed_texts() if text_lang == lang]
    for text in texts:
        expected = {}
        for index, row in enumerate(_word_rows(lang, loose)):
            spans = [m.span() for m in row.pattern.finditer(text)]
            if spans:
                expected[index] = spans
        assert finder.matches(text) == expected, text


@pytest.mark.parametrize("lang", LANGS)
def test_pronoun_finder_finds_what_the_pronoun_expression_finds(lang: str) -> None:
    finder, pattern = _pronoun_finder(lang), _pronouns(lang)
    if pattern is None:
        assert finder is None
        return
    assert finder is not None
    texts = noisy_texts(lang, examples(3000), seed=10 + LANGS.index(lang))
    texts += ["The two need not", "the two NEED", "Two-Headed Giant", "双头巨人", "two-headed"]
    for text in texts:
        assert finder.matches(text).get(0, []) == [m.span() for m in pattern.finditer(text)]


def test_case_folding_defers_to_the_expressions_where_unsure() -> None:
    """re.IGNORECASE matches the long s as s and the dotless i as i, which lower case does
    not: texts with them are read with the expressions, and give what they give."""
    finder = word_finder("en")
    assert finder.fold is not None
    for odd in ("ſ", "ı", "İ"):
        assert finder.fold[ord(odd)] == UNSURE
    assert number_counts("ſeven ſix", "en") == {"cardinal:7": 1, "cardinal:6": 1}
    assert number_counts("SEVEN and Seven", "en") == {"cardinal:7": 2}
    assert number_counts("Σ seven", "en") == {"cardinal:7": 1}


def test_number_readings_on_examples() -> None:
    assert number_counts("dos veces y dos", "es") == {"cardinal:2": 2}
    assert number_counts("第二十个", "zh") == {"cardinal:20": 1}  # 二十个 is 20个
    assert number_counts("第二个", "zh") == {"ordinal:2": 1}
    assert number_counts("二十张牌", "zh") == {"cardinal:20": 1}
    assert number_counts("Second, the two players", "en") == {"cardinal:2": 1}
    assert stated_values("另一个", "zh") == {"1", "2"}


OLD_DIGITS = re.compile(rf"(?<!{SPACED_WORD_CHAR})(?<!\.)\d+(?:[.,]\d+)?(?!{SPACED_WORD_CHAR})")


def test_digits_found_as_the_look_behind_first_expression_finds_them() -> None:
    rng = random.Random(7)
    alphabet = "0123456789.,a Z中_-/\n²٣"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    texts += [text for text, _ in seed_texts()]
    for text in texts:
        assert [m.span() for m in DIGITS.finditer(text)] == [
            m.span() for m in OLD_DIGITS.finditer(text)
        ], text


def test_either_finds_a_match_where_one_of_them_does() -> None:
    patterns = (re.compile(r"(?<!\d)\d{3}"), re.compile(r"\{X\}"), re.compile(r"ab(?=c)"))
    anything = either(patterns)
    assert anything is not None
    for text in ["123", "a1234", "{X}", "abd", "abc", "", "12", "x{Y}"]:
        assert (anything.search(text) is None) == all(p.search(text) is None for p in patterns)
    assert either((re.compile(r"(a)\1"), re.compile("b"))) is None
    assert either((re.compile("a", re.I), re.compile("b"))) is None
    assert either(()) is None


@pytest.mark.parametrize("lang", LANGS)
def test_token_and_notation_shortcuts_change_nothing(lang: str) -> None:
    texts = [text for text, text_lang in seed_texts() if text_lang == lang]
    texts += ["903.6-11", "{等级N1-N2}", "{1}{白}", "+1/+1 and 2/2", "509.1b至c", "no token"]
    for text in texts:
        plain = text
        for pattern, replacement in _notations(lang):
            plain = pattern.sub(replacement, plain)
        assert in_source_notation(text, lang) == plain
        counts = token_counts(text)
        assert set(counts) == {kind.name for kind in token_kinds()}
        for kind in token_kinds():
            if not kind.pattern.search(text):
                assert not counts[kind.name]


def test_regional_variants_shortcut_keeps_findings() -> None:
    from pipelines.check.checks.style import _any_variant

    anything = _any_variant("es")
    assert anything is not None
    for text in ["El coste es", "el COSTO", "costea", "Sin variantes", "remover la carta"]:
        variants = [v for found in lexicon.regional_variants("es").values() for v in found]
        assert (anything.search(text) is None) == all(
            v.pattern.search(text) is None for v in variants
        )


def reference_own_key(chars: str) -> bool:
    """A run of Han is its own key: ``name_key`` leaves it as it is, and no piece of it is
    changed by the script conversion (the plain definition, piece by piece)."""
    changed = _changed_pieces()
    pieces = any(
        chars[start:end] in changed
        for start in range(len(chars))
        for end in range(start + 1, min(len(chars), start + 8) + 1)
    )
    return name_key(chars) == chars and not pieces


_CHANGED: set[str] = set()


def _changed_pieces() -> set[str]:
    if not _CHANGED:
        _CHANGED.update(k for k, v in getdict("zh-hans").items() if k != v)
    assert max(map(len, _CHANGED)) <= 8
    return _CHANGED


def test_own_han_keys_as_the_plain_definition_tells() -> None:
    rng = random.Random(3)
    changed = sorted(_changed_pieces())
    pool = [*"的你如果每个中文乾坤干豐丰丽鿿㐀䷀", *rng.sample(changed, 200)]
    runs = {"".join(rng.choice(pool) for _ in range(rng.randint(1, 6))) for _ in range(1500)}
    for text, _ in seed_texts():
        runs.update(m.group() for m in HAN_RUN.finditer(text))
    by_result: dict[bool, int] = defaultdict(int)
    for run in runs:
        expected = reference_own_key(run)
        assert _is_own_key.__wrapped__(run) == expected, run
        by_result[expected] += 1
    assert by_result[True] and by_result[False]
    assert _converted("乾") and not _converted("的")


def test_no_letter_or_digit_is_a_combining_mark() -> None:
    """What ``_is_own_key`` relies on to tell a run of letters is its own key."""
    assert not [
        code
        for code in range(sys.maxunicode + 1)
        if unicodedata.combining(chr(code)) and chr(code).isalnum()
    ]


def subtype_expression(lang: str) -> re.Pattern[str]:
    """The plain way: every subtype name of the language in one alternation, longest
    first, whole words in languages written with spaces."""
    names = {row[lang].strip() for row in read_tsv("subtypes.tsv") if len(row[lang].strip()) > 1}
    body = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(body if lang == "zh" else rf"(?<!\w)(?:{body})(?!\w)")


@pytest.mark.parametrize("lang", LANGS)
def test_subtype_finder_finds_what_the_alternation_finds(lang: str) -> None:
    pattern = subtype_expression(lang)
    names = [row[lang].strip() for row in read_tsv("subtypes.tsv") if row[lang].strip()]
    rng = random.Random(20 + LANGS.index(lang))
    texts = []
    for _ in range(3000):
        pieces = []
        for _ in range(rng.randint(1, 8)):
            piece = rng.choice(names + FILLER[lang] + ODD)
            pieces.append(rng.choice([piece, piece.upper(), piece.lower(), piece[:-1]]))
            pieces.append(rng.choice(["", " ", "-", "_", "s ", "’"]))
        texts.append("".join(pieces))
    texts += [text for text, text_lang in seed_texts() if text_lang == lang]
    for text in texts:
        assert subtype_spans(text, lang) == [m.span() for m in pattern.finditer(text)], text


@pytest.mark.slow
def test_names_hold_a_stretch_as_a_longer_name_does() -> None:
    def inside_a_longer_name(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
        return any(s <= start and end <= e and e - s > end - start for s, e in spans)

    rng = random.Random(3)
    for _ in range(3000):
        spans = []
        for _ in range(rng.randint(1, 6)):
            start = rng.randint(0, 30)
            spans.append((start, start + rng.randint(1, 12)))
        names = Names(spans)
        for start in range(0, 36):
            for end in range(start + 1, start + 14):
                assert names.hold(start, end) == inside_a_longer_name(start, end, spans)


def test_variant_uses_are_what_each_variant_finds() -> None:
    from pipelines.check.checks.style import _variant_uses

    texts = [text for text, text_lang in seed_texts() if text_lang == "es"]
    texts += ["El coste y el COSTO", "remover, quitar y Remover", "Sin variantes"]
    for text in texts:
        expected = {}
        for group, variants in lexicon.regional_variants("es").items():
            found = [
                (v.region, m.start(), m.end(), m.group())
                for v in variants
                for m in v.pattern.finditer(text)
            ]
            if found:
                expected[group] = found
        assert {g: [tuple(u) for u in uses] for g, uses in _variant_uses(text, "es").items()} == (
            expected
        ), text
