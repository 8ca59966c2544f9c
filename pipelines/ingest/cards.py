"""Card identity: the card-name index, and which card each ruling document is about.

The index maps every known card name, in every language, to the canonical English name.
It is built from the names the package ships (``resources/card_names*.tsv``) plus those the
inputs carry (MTGJSON ``foreignData``, Scryfall cards); lookups ignore case, accents,
punctuation and the simplified/traditional Chinese distinction.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import zhconv

from ..model import Finding, Ruling
from ..resources import read_tsv, resource_path
from ..rules import define, emit
from .readers import CardName

CJK_LANGS = ("zh", "zh-Hant", "ja", "ko")
ORACLE_ID = "oracle_id"
SHIPPED_NAMES = ("card_names.tsv", "card_names_manual.tsv")
MAX_CARD_RULINGS = 100
"""A card has at most a few dozen rulings: a longer document (a translated rules file that
mentions Mountain more than any other card) is not identified from the names it mentions."""

define(
    "CARD001",
    "card-name",
    "warning",
    """A card document's title is not the card's name in the document's language according
    to the card data (for example a Chinese document titled 古辉石 while the card data names
    Epochrasite 时代寄生虫). Use the official localized name.""",
)
define(
    "CARD002",
    "card-name",
    "warning",
    """The card a ruling document is about could not be identified: its title is no known
    card name in any language and its rulings name no known card. Add the card data
    (MTGJSON or Scryfall) to the input, or fix the title.""",
)


@lru_cache(maxsize=500_000)
def name_key(name: str) -> str:
    """Case-, accent-, punctuation- and Chinese-script-insensitive form of a name."""
    text = zhconv.convert(name, "zh-hans") if _has_han(name) else name
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.replace("’", "'").replace("‘", "'")
    return " ".join(re.sub(r"[^\w']+", " ", text).split())


def _has_han(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


@dataclass(frozen=True, slots=True)
class Mention:
    card: str
    lang: str
    name: str
    start: int
    end: int


@dataclass
class CardIndex:
    """Every known name -> canonical English card name, with each card's names per language."""

    by_key: dict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))
    names: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))
    oracle: dict[str, str] = field(default_factory=dict)

    @classmethod
    def cached(cls, entries: list[CardName], cache_dir: Path | None) -> CardIndex:
        """The index of these entries (and the shipped names), built once per set of
        inputs: it is kept in the cache folder, keyed by a hash of all the names."""
        if cache_dir is None:
            return cls.build(entries)
        digest = hashlib.sha256()
        for resource in SHIPPED_NAMES:
            digest.update(resource_path(resource).read_bytes())
        for entry in sorted(entries, key=lambda e: (e.card, e.lang, e.name)):
            digest.update(f"{entry.card}\x1f{entry.lang}\x1f{entry.name}\x1e".encode())
        path = cache_dir / "cards" / f"{digest.hexdigest()[:32]}.pickle"
        if path.is_file():
            try:
                with open(path, "rb") as handle:
                    return pickle.load(handle)
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                pass
        index = cls.build(entries)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        with open(temporary, "wb") as handle:
            pickle.dump(index, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
        return index

    @classmethod
    def build(cls, entries: Iterable[CardName], *, shipped: bool = True) -> CardIndex:
        index = cls()
        if shipped:
            for resource in SHIPPED_NAMES:
                for row in read_tsv(resource):
                    index.add(CardName(row["name"], row["lang"], row["card"], resource))
        for entry in entries:
            index.add(entry)
        return index

    def add(self, entry: CardName) -> None:
        if entry.lang == ORACLE_ID:
            self.oracle[entry.name] = entry.card
            return
        self.by_key[name_key(entry.name)].add((entry.card, entry.lang))
        self.names[entry.card].setdefault(entry.lang, entry.name)

    def __len__(self) -> int:
        return len(self.names)

    def lookup(self, name: str) -> set[tuple[str, str]]:
        """(card, language) pairs a name can stand for."""
        return self.by_key.get(name_key(name), set())

    def name_in(self, card: str, lang: str) -> str | None:
        names = self.names.get(card, {})
        return names.get(lang) or (names.get("zh-Hant") if lang == "zh" else None)

    def counts(self) -> Counter[str]:
        return Counter(lang for names in self.names.values() for lang in names)

    def mentions(self, text: str, langs: Iterable[str] | None = None) -> list[Mention]:
        """Card names written in the text (longest first, not overlapping)."""
        found = self._mentions_of(text)
        if langs is None:
            return list(found)
        wanted = set(langs)
        return [m for m in found if m.lang in wanted]

    def _mentions_of(self, text: str) -> tuple[Mention, ...]:
        cache = self.__dict__.setdefault("_mention_cache", {})
        if text not in cache:
            cache[text] = self._find_mentions(text)
        return cache[text]

    def _find_mentions(self, text: str) -> tuple[Mention, ...]:
        found: list[Mention] = []
        for start, end in self._candidate_spans(text):
            for card, lang in sorted(self.by_key.get(name_key(text[start:end]), ())):
                found.append(Mention(card, lang, text[start:end], start, end))
        found.sort(key=lambda m: (-(m.end - m.start), m.start))
        taken: list[Mention] = []
        for mention in found:
            if all(mention.end <= t.start or mention.start >= t.end for t in taken):
                taken.append(mention)
        return tuple(sorted(taken, key=lambda m: m.start))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_mention_cache", None)
        state.pop("_shapes", None)
        return state

    def _name_shapes(self) -> tuple[dict[str, int], dict[str, set[int]]]:
        """How names start: first word -> most words (Latin), first character -> lengths
        (Han), so that only n-grams that could be a name are looked up."""
        if "_shapes" not in self.__dict__:
            words: dict[str, int] = {}
            han: dict[str, set[int]] = defaultdict(set)
            for key in self.by_key:
                if key and _has_han(key[0]):
                    han[key[0]].add(len(key))
                else:
                    parts = key.split(" ")
                    words[parts[0]] = max(words.get(parts[0], 0), len(parts))
            self.__dict__["_shapes"] = (words, dict(han))
        return self.__dict__["_shapes"]

    def _candidate_spans(self, text: str) -> Iterable[tuple[int, int]]:
        """Word n-grams starting with a capital (as long as names with that first word go)
        and Han substrings starting with a character names start with (of their lengths)."""
        first_words, han_starts = self._name_shapes()
        words = [m.span() for m in WORD.finditer(text)]
        for i, (start, end) in enumerate(words):
            if not text[start].isupper():
                continue
            longest = first_words.get(name_key(text[start:end]), 0)
            for j in range(i, min(i + longest, len(words))):
                yield start, words[j][1]
        for run in HAN_RUN.finditer(text):
            begin, stop = run.span()
            simplified = name_key(run.group())
            aligned = len(simplified) == stop - begin
            for offset in range(stop - begin):
                first = simplified[offset] if aligned else name_key(text[begin + offset])
                for length in han_starts.get(first, ()):
                    if offset + length <= stop - begin:
                        yield begin + offset, begin + offset + length


WORD = re.compile(r"[^\W\d_][\w'’\-]*", re.UNICODE)
HAN_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def identify_cards(rulings: list[Ruling], index: CardIndex) -> list[Finding]:
    """Set ``card`` on every card-ruling document and report titles the card data contradicts.

    The card comes from the title (through the index, in any language), else, for a
    document of card size, from the card names the rulings mention (a name opening a ruling
    counts double, one in parentheses or after "such as" half), else stays null with a
    CARD002 finding.
    """
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    findings: list[Finding] = []
    for members in by_doc.values():
        first = members[0]
        if first.card or any(m.section or m.kind != "ruling" for m in members):
            continue
        if first.format == "scryfall":
            card, how = index.oracle.get(first.doc_title or ""), "oracle_id"
        else:
            card, how = _card_of(members, index)
        if card is None:
            findings.append(
                emit(
                    "CARD002",
                    f"No card could be identified for \u201c{first.doc_title}\u201d "
                    f"({first.file}).",
                    file=first.file,
                    line=_title_line(members),
                    lang=first.doc_lang,
                    evidence={"title": first.doc_title},
                )
            )
            continue
        _set_card(members, card, retitle=how == "oracle_id")
        findings.extend(_title_problems(members, card, how, index))
    return findings


def _set_card(members: list[Ruling], card: str, *, retitle: bool = False) -> None:
    for item in members:
        item.card = card
        if retitle:
            item.doc_title = card


def _card_of(members: list[Ruling], index: CardIndex) -> tuple[str | None, str]:
    title = members[0].doc_title
    if title:
        cards = {card for card, _ in index.lookup(title)}
        if len(cards) == 1:
            return cards.pop(), "title"
    if len(members) > MAX_CARD_RULINGS:
        return None, ""
    votes: Counter[str] = Counter()
    for item in members:
        for mention in index.mentions(item.text):
            votes[mention.card] += _mention_weight(item.text, mention)
    if not votes:
        return None, ""
    ranked = votes.most_common()
    if ranked[0][1] < 1.0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None, ""
    return ranked[0][0], "mentions"


EXAMPLE_CUE = re.compile(r"(such as|like|como|por ejemplo|例如|比如|(\(|（)[^)）]*)$", re.I)


def _mention_weight(text: str, mention: Mention) -> float:
    if not text[: mention.start].strip():
        return 2.0
    if EXAMPLE_CUE.search(text[: mention.start]):
        return 0.5
    return 1.0


def _title_problems(members: list[Ruling], card: str, how: str, index: CardIndex) -> list[Finding]:
    first = members[0]
    title, lang = first.doc_title, first.doc_lang
    if not title or not lang:
        return []
    expected = index.name_in(card, lang)
    if expected is None or name_key(expected) == name_key(title):
        return []
    known = sorted(index.lookup(title))
    return [
        emit(
            "CARD001",
            f"The title \u201c{title}\u201d of {first.file} is not the {lang} name of "
            f"{card}: the card data names it \u201c{expected}\u201d.",
            file=first.file,
            line=_title_line(members),
            lang=lang,
            card=card,
            evidence={
                "expected": expected,
                "found": title,
                "identified_by": how,
                "title_names": [f"{c} ({lg})" for c, lg in known],
            },
        )
    ]


def _title_line(members: list[Ruling]) -> int | None:
    carried = [line for item in members for line in item.carried_lines]
    return min(carried) if carried else members[0].line
