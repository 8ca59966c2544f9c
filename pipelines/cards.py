"""The card-name index: every known card name, in every language, to its English name.

It is built from the names the package ships (``resources/card_names*.tsv``) plus those the
inputs carry (MTGJSON ``foreignData``, Scryfall cards); lookups ignore case, accents,
punctuation and the simplified/traditional Chinese distinction. Every stage may read it:
ingest identifies a document's card with it, the checks find card names in text.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import zhconv

from .files import read_checked, write_checked
from .model import CardName
from .resources import read_tsv, resource_path

ORACLE_ID = "oracle_id"
SHIPPED_NAMES = ("card_names.tsv", "card_names_manual.tsv")
INDEX_FORMAT = 2
"""Version of the cached index's layout: a new layout never reads an old file."""


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
        inputs: it is kept in the cache folder, keyed by a hash of all the names; a cache
        file that is damaged is rebuilt."""
        if cache_dir is None:
            return cls.build(entries)
        digest = hashlib.sha256(str(INDEX_FORMAT).encode())
        for resource in SHIPPED_NAMES:
            digest.update(resource_path(resource).read_bytes())
        for entry in sorted(entries, key=lambda e: (e.card, e.lang, e.name)):
            digest.update(f"{entry.card}\x1f{entry.lang}\x1f{entry.name}\x1e".encode())
        path = cache_dir / "cards" / f"{digest.hexdigest()[:32]}.json"
        stored = read_checked(path)
        if isinstance(stored, dict):
            try:
                return cls.from_json(stored)
            except (KeyError, TypeError, ValueError):
                pass
        index = cls.build(entries)
        write_checked(path, index.to_json())
        return index

    def to_json(self) -> dict:
        return {
            "by_key": {key: sorted(map(list, owners)) for key, owners in self.by_key.items()},
            "names": self.names,
            "oracle": self.oracle,
        }

    @classmethod
    def from_json(cls, data: dict) -> CardIndex:
        index = cls()
        for key, owners in data["by_key"].items():
            index.by_key[key] = {(card, lang) for card, lang in owners}
        for card, names in data["names"].items():
            index.names[card] = dict(names)
        index.oracle = dict(data["oracle"])
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
