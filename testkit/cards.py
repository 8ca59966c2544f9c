"""Card-size documents from the MTGJSON set files (English Oracle text and its printed
translations), and defects injected into them. ``benchmarks/card_documents.py`` measures how
the tool pairs their lines and what the checks catch of the defects.

- **Documents** (``load_cards``, ``write_documents``): for every card of the sets with a
  printed localized text in a language, ``OUT/en/<SET>/<slug>.txt`` (the English name, a
  blank line, then each line of the current Oracle text as a paragraph) and
  ``OUT/<lang>/<SET>/<slug>.txt`` (the localized name, then each line of the printed 2006-07
  text, the same way), and ``OUT/manifest.json``. Cards whose two texts have a different
  number of lines are skipped and counted.
- **Defects** (``select``, ``apply``): a seeded round-robin over the defect kinds (``KINDS``,
  rarest first, in ``data/cards.json``) picks, per language, up to ``per_kind`` documents per
  kind (one defect per document, on one line) among the lines where the kind applies
  (``LINE_KINDS``: one function per kind, (English line, translated line, language) -> the
  line with the defect, or None; and two swaps of lines), and gives every translated
  document's text with its defect. The gold list (``Defect``) records file, line, kind,
  before and after. The number words are the injectors' own (``data/number_words.json``).

The same seed and data give the same documents and defects.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from testkit.paths import SHARED, data, mtgjson

LANGUAGES = {"es": "Spanish", "zh": "Chinese Simplified"}
"""Language code -> MTGJSON foreignData language."""
EVALUATION_SETS = ("M10", "RTR", "BFZ", "WAR", "THB", "IKO")
TUNING_SETS = ("TSP", "PLC", "FUT", "RAV", "ISD", "KTK", "AKH", "DOM", "ELD")
"""The split of benchmarks/README.md: checks are fixed on the tuning sets only."""
DEFAULT_SETS = EVALUATION_SETS
SEED, PER_KIND = 20070504, 25
"""``select``'s defaults, those of ``benchmarks/card_documents.py``."""
DATA, NUMBERS = data("cards"), data("number_words")
KINDS = {kind: tuple(caught) for kind, caught in DATA["kinds"].items()}
"""Defect kinds, rarest first (the order of the round-robin), and the categories that catch them."""
COST = r"(?:\{[^{}]+\})+"
KEYWORD_PART = re.compile(
    rf"(?:{'|'.join(DATA['keywords'])})(?:\s+(?:X|\d+)(?:—{COST})?|\s*{COST}(?: and/or {COST})?)?",
    re.IGNORECASE,
)
REMINDER = re.compile(r"\s*[(（][^()（）]*[)）]")
SYMBOL = re.compile(r"\{[^{}]+\}")
DROPPABLE = re.compile(r"\{[TXWUBRG]\}")
DIGITS = re.compile(r"(?<![\d/+\-−{])\d+(?![\d/}])")
EN_WORDS, ES_OF = NUMBERS["en"], {value: word for word, value in NUMBERS["es"].items()}
ES_WORDS = {word: value for word, value in NUMBERS["es"].items() if word != "once"}
ZH_NUMERALS = NUMBERS["zh"]
ZH_OF = {value: word for word, value in ZH_NUMERALS.items()} | {10: NUMBERS["zh_ten"]}
ZH_NUMBER = re.compile(f"([{''.join(ZH_NUMERALS)}])(?=[{NUMBERS['zh_classifiers']}])")
OBSOLETE: dict[str, list[list[str]]] = DATA["obsolete"]
"""Current term -> an older official one, only where the result stays grammatical."""
CLAUSE = {lang: re.compile(pattern) for lang, pattern in DATA["clause"].items()}
WHOLE_LINE_ENGLISH = {"english-sentence", "english-keyword"}
"""Kinds that replace a whole line by English: in a one-line document (a split card's face)
nothing translated would be left, and the file would be an English document."""
SYMBOLS_AND_DIGITS = re.compile(r"\{[^{}]*\}|\d+")


# --- documents ----------------------------------------------------------------------------


@dataclass
class CardDoc:
    """A card's (English line, translated line) pairs, in order; ``path``: the translation
    file, relative to OUT/<lang> (and the English one to OUT/en)."""

    set: str
    slug: str
    name: str
    local_name: str
    lang: str
    lines: list[tuple[str, str]]

    @property
    def path(self) -> str:
        return f"{self.set}/{self.slug}.txt"


def slugify(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")


def paragraph_line(index: int) -> int:
    """The 1-based file line of paragraph ``index`` (0-based): title, blank, p0, blank, p1…"""
    return 3 + 2 * index


def document_text(title: str, paragraphs: list[str]) -> str:
    return "\n\n".join([title, *paragraphs]) + "\n"


def split_lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def load_cards(
    sets=DEFAULT_SETS, langs=tuple(LANGUAGES), shared: Path = SHARED
) -> tuple[list[CardDoc], dict]:
    """Card documents per language (sorted by language, set, slug) and the skipped counts."""
    docs, skipped = [], {}
    for set_code in sorted(sets):
        cards = mtgjson(set_code, shared)["data"]["cards"]
        for lang in sorted(langs):
            counts = skipped.setdefault(f"{lang}/{set_code}", {"kept": 0, "line_count": 0})
            for card in cards:
                name = card.get("faceName") or card["name"]
                local = [f for f in card.get("foreignData", []) if f["language"] == LANGUAGES[lang]]
                if not card.get("text") or not local or not local[0].get("text"):
                    continue
                en, tr = split_lines(card["text"]), split_lines(local[0]["text"])
                if len(en) != len(tr):
                    counts["line_count"] += 1
                    continue
                counts["kept"] += 1
                local_name = local[0].get("faceName") or local[0].get("name") or name
                lines = list(zip(en, tr, strict=True))
                docs.append(CardDoc(set_code, slugify(name), name, local_name, lang, lines))
    return sorted(docs, key=lambda d: (d.lang, d.set, d.slug)), skipped


def write_documents(out: Path, docs: list[CardDoc], skipped: dict | None = None) -> dict:
    """Write the English and translated files and manifest.json; return the manifest."""
    for doc in docs:
        for lang, title, index in ((doc.lang, doc.local_name, 1), ("en", doc.name, 0)):
            path = out / lang / doc.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(document_text(title, [p[index] for p in doc.lines]), "utf-8")
    manifest = {
        "skipped": skipped or {},
        "cards": [asdict(doc) | {"path": doc.path} for doc in docs],
    }
    text = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True)
    (out / "manifest.json").write_text(text + "\n", "utf-8")
    return manifest


# --- line-local injections: (English line, translated line, language) -> new line or None --


def is_keyword_line(english: str) -> bool:
    """An English card line that only lists keywords (reminder text aside)."""
    bare = REMINDER.sub("", english).strip().rstrip(".")
    return bool(bare) and all(KEYWORD_PART.fullmatch(p.strip()) for p in re.split(r"[,;]", bare))


def english_keyword(en: str, tr: str, lang: str) -> str | None:
    return en if is_keyword_line(en) and en != tr else None


def english_sentence(en: str, tr: str, lang: str) -> str | None:
    return en if not is_keyword_line(en) and len(en.split()) >= 4 and en != tr else None


def _cut(text: str, pattern: re.Pattern) -> int | None:
    """The clause boundary nearest the middle (25-75% of the length): index after it."""
    ends = [m.end() for m in pattern.finditer(text) if 0.25 <= m.end() / len(text) <= 0.75]
    return min(ends, key=lambda end: abs(end - len(text) / 2)) if ends else None


def english_half(en: str, tr: str, lang: str) -> str | None:
    cut_tr, cut_en = _cut(tr, CLAUSE[lang]), _cut(en, CLAUSE["en"])
    if is_keyword_line(en) or cut_tr is None or cut_en is None:
        return None
    return tr[:cut_tr] + en[cut_en:]


def obsolete_term(en: str, tr: str, lang: str) -> str | None:
    for pattern, old in OBSOLETE[lang]:
        if (new := re.sub(pattern, old, tr, count=1)) != tr:
            return new
    return None


def _english_numbers(en: str) -> set[int]:
    bare = SYMBOL.sub(" ", en)
    words = {EN_WORDS[w] for w in re.findall(r"[a-z]+", bare.lower()) if w in EN_WORDS}
    return words | {int(d) for d in DIGITS.findall(bare)}


def number_digit(en: str, tr: str, lang: str) -> str | None:
    masked, numbers = SYMBOL.sub(lambda m: "#" * len(m.group()), tr), _english_numbers(en)
    for match in DIGITS.finditer(masked):
        if int(match.group()) in numbers:
            return tr[: match.start()] + str(int(match.group()) + 1) + tr[match.end() :]
    return None


def number_in_symbol(en: str, tr: str, lang: str) -> str | None:
    for match in re.finditer(r"\{(\d+)\}", tr):
        if match.group() in en:
            return tr[: match.start()] + f"{{{int(match.group(1)) + 1}}}" + tr[match.end() :]
    return None


def number_word(en: str, tr: str, lang: str) -> str | None:
    numbers = _english_numbers(en)
    if lang == "zh":
        for match in ZH_NUMBER.finditer(tr):
            if (value := ZH_NUMERALS[match.group(1)]) in numbers:
                return tr[: match.start()] + ZH_OF[value + 1] + tr[match.end() :]
        return None
    for match in re.finditer(r"\b[A-Za-zá]+\b", tr):
        if (value := ES_WORDS.get(match.group().lower())) in numbers:
            word = ES_OF[value + 1]
            word = word.capitalize() if match.group()[0].isupper() else word
            return tr[: match.start()] + word + tr[match.end() :]
    return None


def drop_symbol(en: str, tr: str, lang: str) -> str | None:
    for match in DROPPABLE.finditer(tr):
        if match.group() in en:
            return re.sub(r" {2,}", " ", tr[: match.start()] + tr[match.end() :]).strip()
    return None


def truncate(en: str, tr: str, lang: str) -> str | None:
    if len(tr) < (12 if lang == "zh" else 24):
        return None
    head = tr[: len(tr) // 2]
    if lang != "zh" and " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:.，；：。") + "…"


LINE_KINDS = {
    "obsolete-term": obsolete_term, "number-in-symbol": number_in_symbol,
    "number-word": number_word, "number-digit": number_digit, "english-keyword": english_keyword,
    "drop-symbol": drop_symbol, "english-half": english_half, "english-sentence": english_sentence,
    "truncate": truncate,
}  # fmt: skip
"""Kind -> (English line, translated line, language) -> the line with one defect of the
kind, or None where the kind does not apply."""


# --- selection over documents -------------------------------------------------------------


@dataclass
class Defect:
    """One defect: in ``file`` (``<SET>/<slug>.txt``, under OUT/defective/<lang>), on
    ``line`` (1-based line of the file), paragraph ``index`` (0-based card line)."""

    lang: str
    set: str
    slug: str
    file: str
    line: int
    index: int
    kind: str
    before: str
    after: str
    english: str
    expected: tuple[str, ...]


def words(text: str) -> str:
    return " ".join(SYMBOLS_AND_DIGITS.sub(" ", text).split())


def candidates(kind: str, docs: list[CardDoc], rng: random.Random) -> list[tuple[int, int, str]]:
    """(document index, line index, new line) for every place the kind applies."""
    found = []
    if kind in LINE_KINDS:
        for d, doc in enumerate(docs):
            if kind in WHOLE_LINE_ENGLISH and len(doc.lines) < 2:
                continue  # the document would be all English: an English document
            for i, (en, tr) in enumerate(doc.lines):
                after = LINE_KINDS[kind](en, tr, doc.lang)
                if after is not None and after != tr:
                    found.append((d, i, after))
        return found
    plain = [
        (d, i, en, tr)
        for d, doc in enumerate(docs)
        for i, (en, tr) in enumerate(doc.lines)
        if not is_keyword_line(en)
    ]
    if kind == "swap-same-card":
        by_doc = defaultdict(list)
        for d, i, _en, tr in plain:
            by_doc[d].append((i, tr))
        for d, lines in by_doc.items():
            for i, tr in lines:
                if others := [other for j, other in lines if j != i and other != tr]:
                    found.append((d, i, others[0]))
    elif kind == "swap-other-card":
        for d, i, en, tr in plain:
            pool = [
                (abs(len(o) - len(tr)), o)
                for od, _oi, oen, o in plain
                if od != d
                and oen != en
                and words(o) != words(tr)  # not the same line with another symbol
                and 0.75 <= len(o) / len(tr) <= 1.33
            ]
            if pool:
                found.append((d, i, rng.choice([o for _, o in sorted(pool)[:5]])))
    return found


def select(docs: list[CardDoc], per_kind: int = PER_KIND, seed: int = SEED) -> list[Defect]:
    """One defect per chosen document; per language a round-robin over KINDS, rarest first."""
    defects = []
    for lang in sorted({doc.lang for doc in docs}):
        own = [doc for doc in docs if doc.lang == lang]
        queues = {}
        for kind in KINDS:
            rng = random.Random(f"{seed}:{lang}:{kind}")
            queues[kind] = candidates(kind, own, rng)
            rng.shuffle(queues[kind])
        used: set[int] = set()
        count: Counter[str] = Counter()
        progress = True
        while progress:
            progress = False
            for kind, queue in queues.items():
                if count[kind] >= per_kind:
                    continue
                while queue and queue[0][0] in used:
                    queue.pop(0)
                if not queue:
                    continue
                d, i, after = queue.pop(0)
                doc, (en, tr) = own[d], own[d].lines[i]
                used.add(d)
                count[kind] += 1
                progress = True
                where = (doc.set, doc.slug, doc.path, paragraph_line(i), i)
                defects.append(Defect(lang, *where, kind, tr, after, en, KINDS[kind]))
    return sorted(defects, key=lambda x: (x.lang, x.file, x.line))


def apply(docs: list[CardDoc], defects: list[Defect]) -> dict[tuple[str, str], str]:
    """(language, file) -> text of every translated document, the defects applied."""
    changed = {(x.lang, x.file, x.index): x.after for x in defects}
    return {
        (doc.lang, doc.path): document_text(
            doc.local_name,
            [changed.get((doc.lang, doc.path, i), tr) for i, (_en, tr) in enumerate(doc.lines)],
        )
        for doc in docs
    }


# --- whole sets, as a team's folder holds them ----------------------------------------------

NAME_FIELDS = ("name", "faceName", "identifiers", "layout", "setCode", "uuid")
FOREIGN_NAME_FIELDS = ("name", "faceName", "language")


def write_set_documents(
    out: Path, sets, langs=tuple(LANGUAGES), shared: Path = SHARED
) -> dict[str, dict[str, int]]:
    """Every card of the sets with a printed text in a language, as a team's folder holds it:
    ``OUT/en/<SET>/<slug>.txt`` (the name, then each line of the current Oracle text as a
    paragraph) and ``OUT/<lang>/<SET>/<slug>.txt`` (the printed name and text), whatever
    their numbers of lines (``load_cards`` keeps only cards whose two texts have as many).
    A card printed twice in a set (faces, variants) is written once. Returns, per language
    and set, the documents and lines written."""
    counts: dict[str, dict[str, int]] = {}
    for set_code in sorted(sets):
        seen: set[str] = set()
        for card in mtgjson(set_code, shared)["data"]["cards"]:
            name = card.get("faceName") or card["name"]
            if not card.get("text") or name in seen:
                continue
            seen.add(name)
            written = False
            for lang in sorted(langs):
                local = [f for f in card.get("foreignData", []) if f["language"] == LANGUAGES[lang]]
                if not local or not local[0].get("text"):
                    continue
                lines = split_lines(local[0]["text"])
                title = local[0].get("faceName") or local[0].get("name") or name
                _write(out / lang / set_code / f"{slugify(name)}.txt", document_text(title, lines))
                tally = counts.setdefault(lang, {}).setdefault(set_code, 0)
                counts[lang][set_code] = tally + len(lines)
                written = True
            if written:
                english = document_text(name, split_lines(card["text"]))
                _write(out / "en" / set_code / f"{slugify(name)}.txt", english)
    return counts


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def names_only(set_code: str, shared: Path = SHARED) -> dict:
    """The set's MTGJSON file with only its cards' names (English, faces, printed names) and
    identifiers: card data that names the cards without adding English rulings."""
    data = mtgjson(set_code, shared)
    cards = [
        {key: card[key] for key in NAME_FIELDS if key in card}
        | {
            "foreignData": [
                {key: f[key] for key in FOREIGN_NAME_FIELDS if key in f}
                for f in card.get("foreignData", [])
            ]
        }
        for card in data["data"]["cards"]
    ]
    keep = {k: v for k, v in data["data"].items() if k not in ("cards", "tokens", "booster")}
    return {"meta": data["meta"], "data": keep | {"cards": cards}}
