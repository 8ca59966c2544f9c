"""A seeded, realistic corpus of card rulings in English, Spanish and Chinese.

    python -m testkit.corpus OUT_DIR --rulings 100000 --seed 7 [--manifest FILE]

Importable: ``available(shared)`` and ``generate(out, rulings, seed, ...) -> Summary``.
Every text is real parallel material read at run time from ../shared (nothing is copied into
the repository): MTGJSON TSP/PLC/FUT card text lines with their Spanish and Chinese printings
(the printed English of 2006-2007, which the printings translate, not today's Oracle text),
the line-aligned Comprehensive Rules pair, and the seed documents' Spanish rulings paired
with English ones. A synthetic card takes a real card's names in every language and 1-3 units
per ruling from a pool covering its languages; generic rulings are shared in Zipf-like groups
so that about 42% of the texts are distinct, as in the real TSP/PLC/FUT rulings (41%).
Layout: ``OUT/en/G01.json`` MTGJSON set files, ``OUT/{es,zh}/NNNNN_<hash>.txt`` one document
per card (title, then dated rulings in the ``plain-dated`` or ``plain-block`` layout).
Drift (``drift``) is injected into the translations at low seeded rates; ``--manifest`` lists
it. The parameters are in ``data/corpus.json``. The same seed, data, seeds and shipped
termbase give the same bytes.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import re
import sys
import unicodedata
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
from random import Random

from testkit.paths import CR_EN, CR_ZH, SEEDS, SHARED, data, mtgjson

MTGJSON_SETS = ("TSP", "PLC", "FUT")
LANGS = ("en", "es", "zh")
FOREIGN = {"Spanish": "es", "Chinese Simplified": "zh"}
P = data("corpus")
"""The generator's parameters and word lists (``_comment`` in the file says what each is)."""
CJK = re.compile(r"[\u3400-\u9fff]")
WORD = re.compile(r"[A-Za-zÀ-ÿ]+")
SYMBOL = re.compile(r"\{[^{}]{1,6}\}")
REMINDER = re.compile(r"\s*\([^()]*\)")
NUMBER = re.compile(r"(?<![{\w])\d+(?![}\w])")
RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?\.?)\s+(\S.*)$")
EXAMPLE_EN, EXAMPLE_ZH = "Example:", ("例如：", "例如:")
SEED_DATE = re.compile(r"^(\d{2})/(\d{2})/(\d{4})\s*(.*)$")
EN_WORDS, ES_WORDS = frozenset(P["en_words"].split()), frozenset(P["es_words"].split())
SENTENCE_END = tuple('.!?)”"»。！？）')


@dataclass(frozen=True, slots=True)
class Unit:
    """An English text and its real translations (None where there is none)."""

    en: str
    es: str | None
    zh: str | None
    origin: str


@dataclass(frozen=True, slots=True)
class BaseCard:
    name: str
    names: dict[str, str]
    foreign_text: dict[str, str]
    text: str
    type: str
    mana_cost: str
    rarity: str


@dataclass(frozen=True, slots=True)
class Text:
    """One ruling in the three languages (None where the card has no such translation)."""

    date: str
    en: str
    es: str | None
    zh: str | None
    units: tuple[Unit, ...] = ()


@dataclass
class Card:
    number: int
    base: BaseCard
    variant: int
    plan: str
    rulings: list[Text]

    def name(self, language: str = "English") -> str:
        name = self.base.name if language == "English" else self.base.names[language]
        if not self.variant:
            return name
        suffix = roman(self.variant + 1)
        return f"{name}{suffix}" if CJK.search(name[-1]) else f"{name} {suffix}"

    def langs(self) -> tuple[str, ...]:
        return ("es", "zh") if self.plan == "es+zh" else (self.plan,)


@dataclass
class Summary:
    files: Counter[str] = field(default_factory=Counter)
    rulings: Counter[str] = field(default_factory=Counter)
    distinct: dict[str, int] = field(default_factory=dict)
    distinct_all: int = 0
    cards: int = 0
    ruled_cards: int = 0
    plans: Counter[str] = field(default_factory=Counter)
    units: Counter[str] = field(default_factory=Counter)
    drift: Counter[str] = field(default_factory=Counter)
    bytes: int = 0

    @property
    def total(self) -> int:
        return sum(self.rulings.values())

    def as_dict(self) -> dict:
        found = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        found = {k: dict(v) if isinstance(v, dict) else v for k, v in found.items()}
        return found | {"total_rulings": self.total}


def available(shared: Path = SHARED) -> bool:
    """Whether the real parallel material is there."""
    data = shared / "data"
    return all((data / "mtgjson" / f"{code}.json").is_file() for code in MTGJSON_SETS) and all(
        (data / "cr" / name).is_file() for name in (CR_EN, CR_ZH)
    )


def roman(number: int) -> str:
    parts = []
    for value, letters in P["roman"]:
        count, number = divmod(number, value)
        parts.append(letters * count)
    return "".join(parts)


def clean(text: str) -> str:
    return " ".join(text.split())


def text_lines(text: str | None) -> list[str]:
    return [clean(line) for line in re.split(r"[\n\u2028]", text or "") if line.strip()]


# ---------------------------------------------------------------------------------------
# Reading the real material


@dataclass
class Material:
    triples: list[Unit]
    es_pairs: list[Unit]
    zh_pairs: list[Unit]
    cr_units: list[Unit]
    cr_sections: dict[str, list[Unit]]
    seed_groups: dict[str, tuple[str, list[Unit]]]
    """Group name -> (ISO date, units) of generic rulings paired from the seeds."""
    seed_units: list[Unit]
    bases: list[BaseCard]
    dates: list[str]
    meta: dict


def load_material(shared: Path = SHARED, seeds: Path = SEEDS) -> Material:
    triples, es_pairs, zh_pairs, bases = [], [], [], []
    dates: set[str] = set()
    english_rulings: dict[str, list[tuple[str, str]]] = {}
    meta: dict = {}
    for code in MTGJSON_SETS:
        document = mtgjson(code, shared)
        meta = document.get("meta", meta)
        dates.add(document["data"].get("releaseDate", ""))
        for card in document["data"]["cards"]:
            name = card.get("name", "")
            foreign = {
                entry["language"]: entry
                for entry in card.get("foreignData", [])
                if isinstance(entry, dict) and entry.get("language") and entry.get("name")
            }
            dates.update(ruling.get("date", "") for ruling in card.get("rulings", []))
            if name in english_rulings:
                continue
            english_rulings[name] = [(r["date"], clean(r["text"])) for r in card.get("rulings", [])]
            en = text_lines(card.get("originalText") or card.get("text"))
            es = text_lines(foreign.get("Spanish", {}).get("text"))
            zh = text_lines(foreign.get("Chinese Simplified", {}).get("text"))
            for index, line in enumerate(en):
                es_line = es[index] if len(es) == len(en) else None
                zh_line = zh[index] if len(zh) == len(en) else None
                line = _without_reminder(line, [t for t in (es_line, zh_line) if t])
                if len(line.split()) < 3:
                    continue  # a bare keyword line ("Flying") is no ruling
                es_line = es_line if es_line and _parallel(line, es_line, P["es_ratio"]) else None
                zh_line = zh_line if zh_line and _parallel(line, zh_line, P["zh_ratio"]) else None
                unit = Unit(line, es_line, zh_line, f"mtgjson:{code}:{name}:{index}")
                if es_line and zh_line:
                    triples.append(unit)
                elif es_line or zh_line:
                    (es_pairs if es_line else zh_pairs).append(unit)
            if all(language in foreign for language in FOREIGN) and _title_like(name, foreign):
                names = {lang: clean(e["name"]) for lang, e in sorted(foreign.items())}
                texts = {lang: e.get("text", "") for lang, e in sorted(foreign.items())}
                printed = (card.get("text", ""), card.get("type", ""), card.get("manaCost", ""))
                bases.append(BaseCard(name, names, texts, *printed, card.get("rarity", "common")))
    cr_units, cr_sections = _cr_units(shared / "data" / "cr")
    seed_groups, seed_units = _seed_units(seeds, english_rulings, bases)
    return Material(
        triples,
        es_pairs,
        zh_pairs,
        cr_units,
        cr_sections,
        seed_groups,
        seed_units,
        bases=sorted(bases, key=lambda b: b.name),
        dates=sorted(d for d in dates if re.fullmatch(r"\d{4}-\d{2}-\d{2}", d)),
        meta=meta,
    )


def _without_reminder(english: str, translations: list[str]) -> str:
    """The English line without its reminder text when the old printings have none."""
    if "(" not in english or any(re.search(r"[(（]", t) for t in translations):
        return english
    return clean(REMINDER.sub("", english))


def _parallel(english: str, translation: str, ratio: tuple[float, float]) -> bool:
    """Roughly the same content: a plausible length ratio, the same symbols and digits."""
    translation = unicodedata.normalize("NFKC", translation)
    return (
        ratio[0] <= len(translation) / max(len(english), 1) <= ratio[1]
        and sorted(SYMBOL.findall(english)) == sorted(SYMBOL.findall(translation))
        and sorted(re.findall(r"\d", english)) == sorted(re.findall(r"\d", translation))
    )


def _title_like(name: str, foreign: dict) -> bool:
    names = [name] + [foreign[lang]["name"] for lang in FOREIGN]
    return all(0 < len(n) <= 60 and n.strip()[-1] not in ".。!?:;," for n in names)


def _cr_units(folder: Path) -> tuple[list[Unit], dict[str, list[Unit]]]:
    """Rule lines with the same rule number on both sides, and examples next to them."""
    en_lines = (folder / CR_EN).read_text("utf-8-sig").splitlines()
    zh_lines = (folder / CR_ZH).read_text("utf-8-sig").splitlines()
    units: list[Unit] = []
    sections: dict[str, list[Unit]] = defaultdict(list)
    section = None
    for number, (en, zh) in enumerate(zip(en_lines, zh_lines, strict=False), 1):
        en, zh = clean(en), clean(zh)
        en_rule, zh_rule = RULE_LINE.match(en), RULE_LINE.match(zh)
        unit = None
        if en_rule and zh_rule and en_rule.group(1) == zh_rule.group(1):
            rule = en_rule.group(1).rstrip(".")
            section = rule.split(".")[0] + "." + re.sub(r"[a-z]$", "", rule.split(".")[1])
            unit = Unit(en_rule.group(2), None, zh_rule.group(2), f"cr:{rule}")
        elif en.startswith(EXAMPLE_EN) and zh.startswith(EXAMPLE_ZH) and section:
            zh_text = zh.split("：", 1)[-1] if "：" in zh[:4] else zh.split(":", 1)[-1]
            unit = Unit(en[len(EXAMPLE_EN) :].strip(), None, zh_text.strip(), f"cr:{number}")
        if unit and len(unit.en.split()) >= 4 and unit.zh and CJK.search(unit.zh):
            units.append(unit)
            if section and section.startswith("702."):
                sections[section].append(unit)
    return units, {k: v for k, v in sections.items() if len(v) >= 3}


def _seed_lang(text: str) -> str:
    cjk = len(CJK.findall(text))
    words = [w.casefold() for w in WORD.findall(text)]
    if cjk >= 5:
        return "zh" if len(words) < 3 else "mixed"
    return "en" if sum(w in EN_WORDS for w in words) > sum(w in ES_WORDS for w in words) else "es"


def _read_seed(path: Path) -> tuple[str, list[tuple[str, str, str]]]:
    """(title, [(ISO date, text, language)]) of a dated seed document (either layout)."""
    lines = [clean(line) for line in path.read_text("utf-8", errors="replace").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return "", []
    entries, date = [], None
    for line in lines[1:]:
        found = SEED_DATE.match(line)
        if found:
            day, month, year, rest = found.groups()
            date = f"{year}-{month}-{day}"
            if rest:
                entries.append((date, rest, _seed_lang(rest)))
        elif date is not None:
            entries.append((date, line, _seed_lang(line)))
    return lines[0], entries


def _looks_parallel(en: str, es: str) -> bool:
    return (
        0.9 <= len(es) / max(len(en), 1) <= 1.7
        and sorted(NUMBER.findall(en)) == sorted(NUMBER.findall(es))
        and sorted(SYMBOL.findall(en)) == sorted(SYMBOL.findall(es))
    )


def _pair_groups(translated: list[tuple[str, str]], english: list[tuple[str, str]]) -> list:
    """(date, en, es) for each date whose groups are the same size and look alike in order;
    a translation's date may be written with day and month swapped."""
    english_by_date: dict[str, list[str]] = defaultdict(list)
    for date, text in english:
        english_by_date[date].append(text)
    by_date: dict[str, list[str]] = defaultdict(list)
    for date, text in translated:
        by_date[date].append(text)
    pairs = []
    for date, texts in sorted(by_date.items()):
        year, month, day = date.split("-")
        for candidate in (date, f"{year}-{day}-{month}"):
            sources = english_by_date.get(candidate, [])
            if len(sources) == len(texts) and all(
                _looks_parallel(en, es) for en, es in zip(sources, texts, strict=True)
            ):
                pairs.extend((candidate, en, es) for en, es in zip(sources, texts, strict=True))
                break
    return pairs


def _seed_units(seeds: Path, english_rulings: dict, bases: list[BaseCard]) -> tuple[dict, list]:
    """Spanish seed rulings paired with English ones: groups of rulings shared by several
    cards, and card-specific units."""
    if not seeds.is_dir():
        return {}, []
    docs = {path.name: _read_seed(path) for path in sorted(seeds.glob("*.txt"))}
    card_of = {b.names["Spanish"]: b.name for b in bases}
    english_seeds = {
        name: [(d, t) for d, t, lang in entries if lang == "en"]
        for name, (_, entries) in docs.items()
    }
    shared_count = Counter(t for rulings in english_rulings.values() for _, t in set(rulings))
    found: dict[str, Unit] = {}
    date_of: dict[str, str] = {}
    for name, (title, entries) in docs.items():
        spanish = [(d, t) for d, t, lang in entries if lang == "es"]
        if not spanish:
            continue
        sources = [english_rulings.get(card_of.get(title, ""), [])]
        sources += [english_seeds[other] for other in sorted(docs) if other != name]
        for english in sources:
            for date, en, es in _pair_groups(spanish, english):
                if en not in found and es not in {u.es for u in found.values()}:
                    found[en] = Unit(en, es, None, f"seed:{name}")
                    date_of[en] = date
    groups: dict[str, tuple[str, list[Unit]]] = {}
    specific: list[Unit] = []
    in_seeds = {t for rulings in english_seeds.values() for _, t in rulings}
    by_date: dict[str, list[Unit]] = defaultdict(list)
    for en, unit in found.items():
        if shared_count[en] > 1 or en in in_seeds:  # the same ruling on several cards
            by_date[date_of[en]].append(unit)
        else:
            specific.append(unit)
    for date, units in sorted(by_date.items()):
        if len(units) >= 3:
            groups[f"seed-{date}"] = (date, units)
        else:
            specific.extend(units)
    retrace = _seed_sections(docs, seeds)
    if retrace:
        groups["seed-retrace"] = ("2007-02-01", retrace)
    return groups, specific


def _seed_sections(docs: dict, seeds: Path) -> list[Unit]:
    """Rules sections of the seeds ('-----'-separated) whose English section is followed by
    a Spanish one with as many items."""
    units: list[Unit] = []
    for name in sorted(docs):
        text = (seeds / name).read_text("utf-8", errors="replace")
        if "\n-----" not in text:
            continue
        sections = []
        for part in re.split(r"\n-{5,}\s*\n", text):
            items = []
            for line in map(clean, part.splitlines()):
                rule = RULE_LINE.match(line)
                if line.startswith("* "):
                    items.append(line[2:])
                elif rule and not rule.group(1).endswith("."):
                    items.append(rule.group(2))
            if items:
                sections.append(items)
        for first, second in itertools.pairwise(sections):
            langs = {_seed_lang(" ".join(first)), _seed_lang(" ".join(second))}
            if langs == {"en", "es"} and len(first) == len(second):
                en_items = first if _seed_lang(" ".join(first)) == "en" else second
                es_items = second if en_items is first else first
                pairs = list(zip(en_items, es_items, strict=True))
                if all(_looks_parallel(e, s) for e, s in pairs):
                    units.extend(Unit(e, s, None, f"seed:{name}:retrace") for e, s in pairs)
    return units


# ---------------------------------------------------------------------------------------
# Building cards


class Builder:
    def __init__(self, material: Material, rng: Random) -> None:
        self.m = material
        self.rng = rng
        self.pools = {
            "es+zh": material.triples,
            "es": material.triples + material.es_pairs + material.seed_units,
            "zh": material.triples + material.zh_pairs,
        }
        self.variants: Counter[str] = Counter()
        self.dates: dict[str, str] = {}
        """English text -> its date: a text on several cards is one ruling, with one date."""
        self.used: set[str] = set()
        """English units already on the card being built (a card does not repeat itself)."""
        self.groups = {plan: self._groups(plan) for plan, _ in P["plans"]}

    def _pool(self, plan: str) -> list[Unit]:
        if plan == "zh" and self.rng.random() < P["zh_cr_share"]:
            return self.m.cr_units
        return self.pools[plan]

    def _unit(self, pool: list[Unit]) -> Unit:
        for _ in range(20):
            unit = self.rng.choice(pool)
            if unit.en not in self.used:
                break
        self.used.add(unit.en)
        return unit

    def ruling(self, plan: str, date: str) -> Text:
        """1-3 units of a pool, joined (a unit without a sentence end stands alone)."""
        count = self._weighted(P["units_per_ruling"])
        pool = self._pool(plan)
        units = [self._unit(pool)]
        while len(units) < count:
            last = units[-1]
            if len(last.en) >= P["long_unit"] or not last.en.endswith(SENTENCE_END):
                break
            following = self._unit(pool)
            if len(following.en) >= P["long_unit"]:
                break
            units.append(following)
        english = " ".join(u.en for u in units)
        return Text(
            date=self.dates.setdefault(english, date),
            en=english,
            es=" ".join(u.es for u in units) if "es" in plan else None,
            zh="".join(u.zh for u in units) if "zh" in plan else None,
            units=tuple(units),
        )

    def _groups(self, plan: str) -> list[list[Text]]:
        groups: list[list[Text]] = []
        if plan == "es":
            for _, (date, units) in sorted(self.m.seed_groups.items()):
                groups.append([Text(date, u.en, u.es, None, (u,)) for u in units])
        if plan == "zh":
            sections = sorted(self.m.cr_sections)
            for section in self.rng.sample(sections, min(P["groups_per_plan"] // 2, len(sections))):
                date = self.rng.choice(self.m.dates)
                units = self.m.cr_sections[section][:12]
                groups.append([Text(date, u.en, None, u.zh, (u,)) for u in units])
        while len(groups) < P["groups_per_plan"]:
            date = self.rng.choice(self.m.dates)
            size = min(3 + int(self.rng.expovariate(1 / 3)), 14)
            self.used = set()
            groups.append([self.ruling(plan, date) for _ in range(size)])
        return groups

    def card(self, number: int) -> Card:
        base = self.rng.choice(self.m.bases)
        variant = self.variants[base.name]
        self.variants[base.name] += 1
        plan = self._weighted(P["plans"])
        if self.rng.random() < P["no_rulings"]:
            return Card(number, base, variant, plan, [])
        rulings: list[Text] = []
        self.used = set()
        if self.rng.random() < P["group_share"]:
            groups = self.groups[plan]
            group = self.rng.choices(groups, [1 / (rank + 1) for rank in range(len(groups))])[0]
            rulings.extend(group)
            self.used.update(unit.en for ruling in group for unit in ruling.units)
        specific = min(
            self.rng.choices(range(1, len(P["specific_weights"]) + 1), P["specific_weights"])[0],
            P["max_rulings"] - len(rulings),
        )
        first = self.rng.choice(self.m.dates)
        later = [d for d in self.m.dates if d >= first]
        for _ in range(max(specific, 0)):
            date = first if self.rng.random() < 0.6 else self.rng.choice(later)
            rulings.append(self.ruling(plan, date))
        rulings.sort(key=lambda r: r.date)
        return Card(number, base, variant, plan, rulings)

    def _weighted(self, choices):
        values, weights = zip(*choices, strict=True)
        return self.rng.choices(values, weights)[0]


# ---------------------------------------------------------------------------------------
# Drift


class Drift:
    def __init__(self, rng: Random) -> None:
        from pipelines.termbase import Termbase

        self.rng = rng
        self.termbase = Termbase.load()
        self.counts: Counter[str] = Counter()
        self.log: list[dict] = []

    def apply(self, lang: str, text: str, english: str, date: str, where: str):
        """(text, date) as the translation writes them, or None when the ruling is missing."""
        roll, edge, chosen = self.rng.random(), 0.0, None
        for kind in [k for k in P["drift"] if k != "date-swapped"]:
            edge += P["drift"][kind]
            if roll < edge:
                chosen = kind
                break
        new = text
        if chosen == "missing":
            self._note(chosen, lang, where, text, None)
            return None
        if chosen == "english-left":
            new = english
        elif chosen is not None:
            new = getattr(self, "_" + chosen.replace("-", "_"))(lang, text)
        if chosen is not None and new != text:
            self._note(chosen, lang, where, text, new)
        day, month = date[8:10], date[5:7]
        if self.rng.random() < P["drift"]["date-swapped"] and day != month and int(day) <= 12:
            swapped = f"{date[:4]}-{day}-{month}"
            self._note("date-swapped", lang, where, date, swapped)
            date = swapped
        return new, date

    def _note(self, kind, lang, where, before, after) -> None:
        self.counts[kind] += 1
        self.log.append({"kind": kind, "lang": lang, "where": where, "before": before,
                         "after": after})  # fmt: skip

    def _term_swap(self, lang: str, text: str) -> str:
        hits = []
        for hit in self.termbase.find(text, lang):
            if hit.status not in ("approved", "admitted") or not self.termbase.is_enforced(
                hit.concept
            ):
                continue
            forbidden = self.termbase.terms(hit.concept, lang, "forbidden")
            if forbidden:
                hits.append((hit, forbidden))
        if not hits:
            return text
        hit, forbidden = self.rng.choice(hits)
        form = self.rng.choice(forbidden).canonical
        if hit.form[:1].isupper():
            form = form[:1].upper() + form[1:]
        return text[: hit.start] + form + text[hit.end :]

    def _symbol_dropped(self, lang: str, text: str) -> str:
        symbols = list(SYMBOL.finditer(text))
        preferred = [s for s in symbols if s.group(0) in ("{X}", "{T}")] or symbols
        if not preferred:
            return text
        found = self.rng.choice(preferred)
        return clean(text[: found.start()] + text[found.end() :])

    def _number_changed(self, lang: str, text: str) -> str:
        numbers = list(NUMBER.finditer(text))
        if not numbers:
            return text
        found = self.rng.choice(numbers)
        value = int(found.group(0))
        value = value + 1 if value < 2 or self.rng.random() < 0.5 else value - 1
        return text[: found.start()] + str(value) + text[found.end() :]

    def _truncated(self, lang: str, text: str) -> str:
        if len(text) < 40:
            return text
        cut = int(len(text) * self.rng.uniform(0.55, 0.85))
        if lang != "zh":
            space = text.rfind(" ", 0, cut)
            cut = space if space > len(text) // 3 else cut
        return text[:cut].rstrip(" ,;:，；：") + "…"

    def _quotes_mixed(self, lang: str, text: str) -> str:
        styles = {"es": [("«", "»"), ('"', '"')], "zh": [("「", "」"), ('"', '"')]}
        for opening, closing in (("“", "”"), ("«", "»"), ('"', '"')):
            start = text.find(opening)
            end = text.find(closing, start + 1) if start >= 0 else -1
            if start >= 0 and end > start:
                new_open, new_close = self.rng.choice(
                    [s for s in styles[lang] if s != (opening, closing)]
                )
                return text[:start] + new_open + text[start + 1 : end] + new_close + text[end + 1 :]
        return text


# ---------------------------------------------------------------------------------------
# Writing


def generate(
    out: Path,
    rulings: int = 100_000,
    seed: int = 7,
    shared: Path = SHARED,
    seeds: Path = SEEDS,
    manifest: Path | None = None,
) -> Summary:
    """Write the corpus into ``out`` (created; it must be empty) and return its summary."""
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"{out} is not empty (the corpus must be alone in its folder)")
    material = load_material(shared, seeds)
    rng = Random(seed)
    builder = Builder(material, rng)
    drift = Drift(Random(seed + 1))
    summary = Summary()
    summary.units.update(
        {
            "en/es/zh card text": len(material.triples),
            "en/es card text": len(material.es_pairs),
            "en/zh card text": len(material.zh_pairs),
            "en/zh CR": len(material.cr_units),
            "en/es seeds": len(material.seed_units)
            + sum(len(u) for _, u in material.seed_groups.values()),
        }
    )
    cards: list[Card] = []
    planned = 0
    while planned < rulings:
        card = builder.card(len(cards))
        cards.append(card)
        planned += len(card.rulings) * (1 + len(card.langs()))
    texts: dict[str, set[str]] = defaultdict(set)
    for lang in LANGS:
        (out / lang).mkdir(parents=True, exist_ok=True)
    _write_sets(out / "en", cards, material, rng, summary, texts)
    for card in cards:
        for lang in card.langs() if card.rulings else ():
            _write_translation(out / lang, card, lang, rng, drift, summary, texts)
    summary.cards = len(cards)
    summary.ruled_cards = sum(1 for c in cards if c.rulings)
    summary.plans.update(c.plan for c in cards if c.rulings)
    summary.distinct = {lang: len(texts[lang]) for lang in LANGS}
    summary.distinct_all = len(set().union(*texts.values()))
    summary.drift = drift.counts
    summary.bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    if manifest is not None:
        record = {"summary": summary.as_dict(), "drift": drift.log}
        manifest.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", "utf-8")
    return summary


def _write_sets(folder, cards, material, rng, summary, texts) -> None:
    start = set_number = 0
    while start < len(cards):
        size = rng.randint(*P["set_size"])
        members = cards[start : start + size]
        start += size
        set_number += 1
        code = f"G{set_number:02d}"
        release = rng.choice(material.dates)
        data = {
            "baseSetSize": len(members),
            "block": "Benchmark",
            "cards": [_card_json(card, code, index, rng) for index, card in enumerate(members, 1)],
            "code": code,
            "isFoilOnly": False,
            "isOnlineOnly": False,
            "keyruneCode": code,
            "name": f"Benchmark Set {set_number}",
            "releaseDate": release,
            "totalSetSize": len(members),
            "type": "expansion",
        }
        document = {"meta": material.meta or {"date": "2022-04-25"}, "data": data}
        text = json.dumps(document, ensure_ascii=False) + "\n"
        (folder / f"{code}.json").write_text(text, encoding="utf-8")
        summary.files["en"] += 1
        for card in members:
            summary.rulings["en"] += len(card.rulings)
            texts["en"].update(r.en for r in card.rulings)


def _card_json(card: Card, code: str, number: int, rng: Random) -> dict:
    base = card.base
    foreign = [
        {
            "language": language,
            "multiverseId": rng.randint(100_000, 999_999),
            "name": card.name(language),
            "text": base.foreign_text.get(language, ""),
            "type": base.type,
        }
        for language in base.names
    ]
    return {
        "foreignData": foreign,
        "identifiers": {
            "multiverseId": str(rng.randint(100_000, 999_999)),
            "scryfallId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "scryfallOracleId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        },
        "manaCost": base.mana_cost,
        "name": card.name(),
        "number": str(number),
        "rarity": base.rarity,
        "rulings": [{"date": r.date, "text": r.en} for r in card.rulings],
        "setCode": code,
        "text": base.text,
        "type": base.type,
        "uuid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    }


def _write_translation(folder, card, lang, rng, drift, summary, texts) -> None:
    title = card.name("Spanish" if lang == "es" else "Chinese Simplified")
    digest = blake2b(f"{lang}\n{title}".encode(), digest_size=8).hexdigest()
    path = folder / f"{card.number:05d}_{digest}.txt"
    layout = rng.choice(P["layouts"])
    entries = []
    for position, ruling in enumerate(card.rulings):
        text = ruling.es if lang == "es" else ruling.zh
        kept = drift.apply(lang, text, ruling.en, ruling.date, f"{path.name}#{position}")
        if kept is not None:
            entries.append(kept)
    if not entries:  # a document keeps at least one ruling
        ruling = card.rulings[0]
        entries.append((ruling.es if lang == "es" else ruling.zh, ruling.date))
    lines = [title, ""]
    for text, date in entries:
        written = f"{date[8:10]}/{date[5:7]}/{date[:4]}"
        lines += [f"{written} {text}", ""] if layout == "plain-dated" else [written, "", text, ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    summary.files[lang] += 1
    summary.rulings[lang] += len(entries)
    texts[lang].update(text for text, _ in entries)


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser("python -m testkit.corpus", description=__doc__.split("\n\n")[0])
    cli.add_argument("out", type=Path, help="folder to write (created; must be empty)")
    cli.add_argument("--rulings", type=int, default=100_000, help="rulings, all languages")
    cli.add_argument("--seed", type=int, default=7)
    cli.add_argument("--shared", type=Path, default=SHARED, help="the ../shared folder")
    cli.add_argument("--seeds", type=Path, default=SEEDS, help="the seed documents folder")
    cli.add_argument("--manifest", type=Path, help="write the injected drift here (JSON)")
    args = cli.parse_args(argv)
    if not available(args.shared):
        print(f"skipped: the real parallel material under {args.shared} is absent")
        return 0
    if args.manifest is not None and args.manifest.resolve().is_relative_to(args.out.resolve()):
        cli.error("--manifest must be outside OUT_DIR (every file in it is read as input)")
    options = (args.rulings, args.seed, args.shared, args.seeds, args.manifest)
    try:
        summary = generate(args.out, *options)
    except ValueError as error:
        cli.error(str(error))
    print(json.dumps(summary.as_dict(), indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
