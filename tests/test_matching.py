"""The automata that find terms and card names give exactly what a plain reference gives.

``Termbase.find`` and ``CardIndex.mentions`` search with Aho-Corasick automata plus the
rules around them (whole words, leftmost-longest, key folding, the Chinese script). Each is
compared here, hit for hit, with a small brute-force reference that states the rules
directly, on a few thousand strings generated from the shipped termbase and card names with
realistic noise: case, apostrophe and white-space variants, glued letters, digits and
underscores, punctuation, traditional Chinese, characters that fold to several.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterator
from functools import cache

import pytest
import zhconv
from conftest import examples

from pipelines import cards
from pipelines.cards import HAN_RUN, WORD, CardIndex, Mention, _fold_names, name_key
from pipelines.model import CardName
from pipelines.termbase import Termbase, TermHit
from pipelines.termbase.model import fold, form_key, languages_related, normalize_lang
from pipelines.vocabulary import is_unspaced

WORD_CHARACTER = re.compile(r"\w")
FILLER = {
    "en": ["the", "a", "If", "you", "control", "Each", "it's", "(", ")", ",", ".", ":", "—"],
    "es": ["el", "la", "Si", "controlas", "cada", "de", "“", "”", ",", ".", "¿", "—"],
    "zh": ["的", "你", "如果", "每个", "。", "，", "（", "）", "：", "“", "”", "—"],
}
ODD = ["İ", "ß", "ẞ", "ﬁ", "Σ", "\u0301", "²", "Ⅷ", "Ⓐ", "_", "7", "ª", "’", "'", "-", "乾"]
SPACES = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", " \n "]


# --- terms ---------------------------------------------------------------------------


def reference_find(termbase: Termbase, text: str, lang: str) -> list[TermHit]:
    """The matching rules of ``Termbase.find``, by brute force: at each position where a
    form may start, every form is tried and the longest that ends a word wins."""
    spaced = not is_unspaced(normalize_lang(lang))
    folded = fold(text)
    hits: list[TermHit] = []
    for owners, by_first in _reference_layers(termbase, normalize_lang(lang)):
        position = 0
        while position < len(folded):
            if spaced and position and WORD_CHARACTER.match(folded, position - 1):
                position += 1
                continue
            ends = [
                (found.end(), key)
                for key, pattern in by_first.get(folded[position], ())
                if (found := pattern.match(folded, position))
                and not (spaced and WORD_CHARACTER.match(folded, found.end()))
            ]
            if not ends:
                position += 1
                continue
            end, key = max(ends)
            for concept, status, term_lang in owners[key]:
                form = text[position:end]
                hits.append(TermHit(concept, term_lang, form, status, position, end))
            position = end
    return sorted(hits, key=lambda h: (h.start, h.end, h.concept, h.status, h.lang))


@cache
def _reference_layers(termbase: Termbase, query: str) -> list[tuple[dict, dict]]:
    """Per layer (enforced concepts, then the others): form key -> its owners, and first
    character -> (form key, its pattern) for every form key of the language."""
    related = [term for term in termbase if languages_related(term.lang, query)]
    layers = []
    for enforced in (True, False):
        owners: dict[str, set[tuple[str, str, str]]] = {}
        for term in related:
            if term.enforce == enforced:
                for form in term.forms:
                    owners.setdefault(form_key(form), set()).add(
                        (term.concept, term.status, term.lang)
                    )
        by_first: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
        for key in owners:
            pattern = re.compile("".join(map(_reference_char, key)))
            for first in ("'", "’") if key[0] == "'" else (key[0],):
                by_first.setdefault(first, []).append((key, pattern))
        layers.append((owners, by_first))
    return layers


def _reference_char(char: str) -> str:
    return r"\s+" if char == " " else "['’]" if char == "'" else re.escape(char)


def noisy_term_texts(termbase: Termbase, lang: str, count: int, seed: int) -> list[str]:
    """Strings of a language's forms (all layers, all statuses) mixed with filler words,
    each form written with random case, spacing, apostrophes and glued characters."""
    rng = random.Random(seed)
    forms = sorted({form for term in termbase if term.lang == lang for form in term.forms})
    filler = FILLER[lang.split("-")[0]]
    texts = []
    for _ in range(count):
        pieces = []
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.6:
                pieces.append(_noisy_form(rng, rng.choice(forms)))
            else:
                pieces.append(rng.choice(filler))
            if rng.random() < 0.15:
                pieces.append(rng.choice(ODD))
        joiner = "" if is_unspaced(lang) and rng.random() < 0.7 else rng.choice(SPACES)
        texts.append(joiner.join(pieces))
    return texts


def _noisy_form(rng: random.Random, form: str) -> str:
    form = rng.choice([form, form.upper(), form.title(), form.capitalize(), form])
    if " " in form and rng.random() < 0.4:
        form = form.replace(" ", rng.choice(SPACES))
    if "'" in form and rng.random() < 0.5:
        form = form.replace("'", "’")
    if rng.random() < 0.2:
        form = rng.choice(["x", "7", "_", "é", "中"]) + form
    if rng.random() < 0.2:
        form = form + rng.choice(["s", "ed", "7", "_", "-", "'", "的"])
    return form


@pytest.mark.parametrize(
    ("lang", "text_lang", "seed"),
    [("en", "en", 1), ("es", "es", 2), ("zh", "zh", 3), ("es-MX", "es", 4), ("zh-Hans", "zh", 5)],
)
def test_term_hits_are_the_reference_hits(termbase, lang, text_lang, seed):
    texts = noisy_term_texts(termbase, text_lang, examples(700), seed)
    assert sum(len(termbase.find(text, lang)) for text in texts) > examples(700)
    for text in texts:
        assert termbase.find(text, lang) == reference_find(termbase, text, lang), text


@pytest.mark.parametrize(
    ("text", "lang", "form"),
    [
        ("When a  Time\u00a0Counter is removed", "en", "Time\u00a0Counter"),
        ("Exiled cards; then exile it.", "en", "exile"),
        ("la habilidad disparada’s", "es", "habilidad disparada"),
        ("支付法术力费用", "zh", "法术力费用"),
    ],
)
def test_term_hits_keep_the_text_as_written(termbase, text, lang, form):
    found = termbase.find(text, lang)
    assert found == reference_find(termbase, text, lang)
    assert form in [hit.form for hit in found]


# --- card names ----------------------------------------------------------------------

EXTRA_NAMES = [
    ("Akroma, Angel of Wrath", "en"),
    ("Akroma, Ángel de la Ira", "es"),
    ("Jötun Grunt", "en"),
    ("Lim-Dûl's Vault", "en"),
    ("Æther Vial", "en"),
    ("Straße der Könige", "de"),
    ("Ночной кошмар", "ru"),
    ("ショック", "ja"),
    ("乾坤之力", "zh"),
    ("干枯", "zh"),
    ("時代寄生蟲", "zh-Hant"),
    ("Mago entrometido", "es"),
    ("A", "en"),
]


@pytest.fixture(scope="module", params=["automata", "looked up"])
def card_index(request) -> Iterator[CardIndex]:
    """The shipped names and some awkward ones, searched with the index's automata or by
    looking every candidate n-gram up (how an index searches its first texts:
    ``cards.LOOKED_UP_TEXTS``): the tests find the same mentions either way."""
    extra = [
        CardName(name, lang, f"Card {i}", "test") for i, (name, lang) in enumerate(EXTRA_NAMES)
    ]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cards, "LOOKED_UP_TEXTS", 0 if request.param == "automata" else 10**9)
        index = CardIndex.build(extra)
        yield index
        assert ("_search" in index.__dict__) == (request.param == "automata")


def test_an_index_builds_its_automata_once_it_has_searched_many_texts(monkeypatch) -> None:
    """The first texts are searched by looking their n-grams up (the checks of an edited
    document read a few): the automata are built for the text after the last of them, and
    find the same mentions."""
    monkeypatch.setattr(cards, "LOOKED_UP_TEXTS", 2)
    index = CardIndex.build([CardName("Mago entrometido", "es", "Meddling Mage", "test")])
    texts = ["Si el Mago entrometido deja el campo de batalla", "干预法师", "Mago entrometido."]
    found = [index.mentions(text) for text in texts[:2]]
    assert "_search" not in index.__dict__
    found.append(index.mentions(texts[2]))
    assert "_search" in index.__dict__
    assert [[m.name for m in mentions] for mentions in found] == [
        ["Mago entrometido"],
        [],
        ["Mago entrometido"],
    ]
    assert index.mentions(texts[0]) == found[0]


def reference_mentions(index: CardIndex, text: str) -> tuple[Mention, ...]:
    """Card names by brute force: every word n-gram from a capitalised word (as long as
    names with that first word go) and every Han substring of a name's length, looked up
    with ``name_key``; the longest first, none overlapping."""
    first_words: dict[str, int] = {}
    han_lengths: dict[str, set[int]] = {}
    for key in index.by_key:
        if key and "\u4e00" <= key[0] <= "\u9fff":
            han_lengths.setdefault(key[0], set()).add(len(key))
        elif key:
            first = key.split(" ")[0]
            first_words[first] = max(first_words.get(first, 0), len(key.split(" ")))
    spans = set()
    words = [m.span() for m in WORD.finditer(text)]
    for i, (start, end) in enumerate(words):
        if text[start].isupper():
            longest = first_words.get(name_key(text[start:end]), 0)
            spans.update((start, words[j][1]) for j in range(i, min(i + longest, len(words))))
    for run in HAN_RUN.finditer(text):
        chars, simplified = run.group(), name_key(run.group())
        for offset in range(len(chars)):
            first = simplified[offset] if len(simplified) == len(chars) else name_key(chars[offset])
            for length in han_lengths.get(first, ()):
                if offset + length <= len(chars):
                    spans.add((run.start() + offset, run.start() + offset + length))
    found = [
        Mention(card, lang, text[start:end], start, end)
        for start, end in sorted(spans, key=lambda span: (span[0] - span[1], span[0]))
        for card, lang in sorted(index.by_key.get(name_key(text[start:end]), ()))
    ]
    taken: list[Mention] = []
    for mention in found:
        if all(mention.end <= t.start or mention.start >= t.end for t in taken):
            taken.append(mention)
    ends = {t.end for t in taken}
    return tuple(
        sorted((t for t in taken if not _after_a_name_part(text, t, ends)), key=lambda m: m.start)
    )


def _after_a_name_part(text: str, mention: Mention, ends: set[int]) -> bool:
    """The second half of a name written with a comma ("named Teferi, Timebender, reveal"),
    character by character: ", " before the name, and before it a word of letters that
    starts with a capital and after a space (or the text's start), within 40 characters of
    the name; the word ends no name found, no list goes on after the name (", and", " or",
    ", Island"), and nothing in the 40 characters before the word (but spaces) ends a
    sentence or the text."""
    comma = mention.start - 2
    if comma < 1 or text[comma : mention.start] != ", " or comma in ends:
        return False
    word_start = comma
    while word_start > 0 and (text[word_start - 1].isalnum() or text[word_start - 1] in "_'’-"):
        word_start -= 1
    if not "A" <= text[word_start] <= "Z" or word_start < mention.start - 40:
        return False
    if word_start > 0 and not text[word_start - 1].isspace():
        return False
    if re.match(r",?\s+(?:and|or)\s|,\s*[A-Z]", text[mention.end :]):
        return False
    window = text[max(0, word_start - 40) : word_start]
    words = window.rstrip()
    if not words:
        return word_start > 40
    return "\n" not in window[len(words) :] and words[-1] not in '.!?:;()"“”—•\n'


def noisy_mention_texts(index: CardIndex, count: int, seed: int) -> list[str]:
    """Sentences of card names (written with random case, script, separators and glued
    characters) and filler words; a third Latin script only, a third Han only, a third
    mixed, so that every way of searching is taken."""
    rng = random.Random(seed)
    names = sorted({name for names in index.names.values() for name in names.values()})
    names += [name for name, _ in EXTRA_NAMES]
    fillers = [word for words in FILLER.values() for word in words]
    by_script = {
        "latin": ([n for n in names if not HAN_RUN.search(n)], FILLER["en"] + FILLER["es"]),
        "han": ([n for n in names if HAN_RUN.search(n)], FILLER["zh"]),
        "mixed": (names, fillers),
    }
    texts = []
    for _ in range(count):
        script_names, filler = by_script[rng.choice(list(by_script))]
        pieces = []
        for _ in range(rng.randint(1, 7)):
            roll = rng.random()
            if roll < 0.5:
                pieces.append(_noisy_name(rng, rng.choice(script_names)))
            elif roll < 0.9:
                pieces.append(rng.choice(filler))
            else:
                pieces.append(rng.choice(ODD))
        joiner = rng.choice(["", " ", " ", ", ", "  ", "\n", "，"])
        texts.append(joiner.join(pieces))
    return texts


def _noisy_name(rng: random.Random, name: str) -> str:
    roll = rng.random()
    if roll < 0.15:
        name = name.lower()
    elif roll < 0.25:
        name = name.upper()
    elif roll < 0.35:
        name = zhconv.convert(name, "zh-hant")
    elif roll < 0.4:
        name = unicodedata.normalize("NFD", name)
    if rng.random() < 0.2:
        name = name.replace(" ", rng.choice(["-", "  ", " ", ", ", "’"]))
    if rng.random() < 0.15:
        name = rng.choice(["x", "2", "_", "-", "'", "的", "é"]) + name
    if rng.random() < 0.15:
        name = name + rng.choice(["s", "'s", "2", "的", "。", "-"])
    return name


@pytest.mark.parametrize(
    "seed", [11, pytest.param(12, marks=pytest.mark.slow), pytest.param(13, marks=pytest.mark.slow)]
)
def test_card_mentions_are_the_reference_mentions(card_index, seed):
    texts = noisy_mention_texts(card_index, examples(600), seed)
    assert sum(len(card_index._find_mentions(text)) for text in texts) > examples(600)
    for text in texts:
        assert card_index._find_mentions(text) == reference_mentions(card_index, text), text


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("If Akroma,  Angel of Wrath attacks", ["Akroma,  Angel of Wrath"]),
        ("Jötun Grunt and Æther Vial.", ["Jötun Grunt", "Æther Vial"]),
        ("Straße der Könige ist", ["Straße der Könige"]),
        ("当時代寄生蟲进入战场", ["時代寄生蟲"]),
        ("乾坤之力和干枯", ["乾坤之力", "干枯"]),
        ("2Mago entrometido", ["Mago entrometido"]),
    ],
)
def test_card_mentions_in_awkward_text(card_index, text, names):
    found = card_index._find_mentions(text)
    assert found == reference_mentions(card_index, text)
    assert [mention.name for mention in found] == names


@pytest.mark.parametrize("script", ["latin", "han"])
def test_card_mentions_in_a_long_text(card_index, script):
    """Thousands of characters with hundreds of names, in one script (offsets are mapped
    from a table, bytes decoded as they come)."""
    pieces = noisy_mention_texts(card_index, 1500, 14)
    if script == "latin":  # and no character that folds to several: the automaton's path
        pieces = [p for p in pieces if not HAN_RUN.search(p) and _fold_names(p) is not None]
    else:
        pieces = [p for p in pieces if HAN_RUN.search(p)]
    text = ", ".join(pieces)
    assert len(text) > 10_000
    found = card_index._find_mentions(text)
    assert len(found) > 100
    assert found == reference_mentions(card_index, text)
