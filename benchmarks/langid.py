"""Language-identification benchmark: which backend should ``pipelines.ingest.langid`` use?

Run from the repository root::

    python benchmarks/langid.py            # full run, a few minutes on 2 cores
    python benchmarks/langid.py --limit 200  # a quick look (at most 200 texts per corpus/language)

It reads ../shared (the comprehensive rules in English and Chinese, MTGJSON sets with their
Spanish and Chinese printings, the seed ruling files) and writes
``benchmarks/results/langid.json`` (every number) and ``benchmarks/results/langid.md``
(the summary). When ../shared is absent it says so and exits 0 without writing anything.

Backends compared (see ``BACKENDS``):

- ``langdetect-raw``: langdetect's own top guess over all of its 55 languages (zh-cn/zh-tw
  -> zh), no project logic: what you get from ``langdetect.detect``.
- ``langdetect``: the project's backend, ``build("langdetect")`` (candidates en/es/zh).
- ``lingua``: the project's default, ``build("lingua")`` (candidates en/es/zh).
- ``lingua-mtg10``: ``build("lingua", MTG10)``, the ten languages Magic is printed in, to
  show what a broader candidate set costs.
- ``langdetect-candidates`` (a proposal, not project code): the project's langdetect backend
  with only the candidate languages' profiles loaded, so that probabilities are shared out
  among the candidates instead of being cut at 0.1 over 55 languages.

Gold: every non-blank line of the English CR is ``en`` and of the (line-aligned) Chinese CR
``zh``; MTGJSON card text lines are gold by their printing's language; the seed rulings are
hand-labelled below (``SEED_GOLD``). Inputs are de-duplicated and sorted per corpus and
language; langdetect is seeded, so every number except timings is reproducible.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MTG10 = ("en", "es", "fr", "de", "it", "pt", "ja", "ko", "ru", "zh")
CANDIDATES = ("en", "es", "zh")
SHORT = 40
"""Texts shorter than this many characters are reported separately: the hard case."""

EXAMPLES = 12
"""How many misclassified examples to keep per backend, corpus and gold language."""

# --------------------------------------------------------------------------------------
# Gold labels of the seed documents (../shared/seeds), by 1-based line number.
# "zh+en" marks a Chinese ruling that leaves part of its English source untranslated: it is
# scored by the spans it gets (both languages expected), not by its single label.
# --------------------------------------------------------------------------------------

# fmt: off
SEED_GOLD: dict[str, dict[int, str]] = {
    # Hipergénesis: 20 dated Spanish rulings, one per odd line.
    "000_40e512ac1ae253c1.txt": {
        3: "es", 5: "es", 7: "es", 9: "es", 11: "es", 13: "es", 15: "es", 17: "es",
        19: "es", 21: "es", 23: "es", 25: "es", 27: "es", 29: "es", 31: "es", 33: "es",
        35: "es", 37: "es", 39: "es", 41: "es",
    },
    # Dicotomancia: 13 Spanish rulings (line 49 names "Meddling Mage" in English), one
    # English ruling left untranslated at the end.
    "001_09da9df6e0e3ee52.txt": {
        5: "es", 9: "es", 13: "es", 17: "es", 21: "es", 25: "es", 29: "es", 33: "es",
        37: "es", 41: "es", 45: "es", 49: "es", 53: "es", 57: "en",
    },
    # 古辉石 (Epochrasite): 12 English rulings, 3 Chinese ones, two of them half-translated.
    "002_f829283b2bc10ea3.txt": {
        5: "en", 9: "en", 13: "en", 17: "en", 21: "en", 25: "en", 29: "en", 33: "en",
        37: "en", 41: "en", 45: "en", 49: "zh+en", 53: "zh+en", 57: "zh", 61: "en",
    },
    # Spanish CR summary of section 708.
    "003_4f023c532c7afcc4.txt": {
        3: "es", 4: "es", 5: "es", 6: "es", 7: "es", 8: "es", 9: "es", 10: "es", 11: "es",
        12: "es", 13: "es", 14: "es",
    },
    # Retrace (English rule and notes) then Desandar (its Spanish translation).
    "004_a602d6d99571243f.txt": {
        5: "en", 7: "en", 9: "en", 11: "en", 13: "en", 15: "en",
        20: "es", 22: "es", 24: "es", 26: "es", 28: "es", 30: "es",
    },
}

SEED_TITLES: dict[str, dict[int, str]] = {
    # Titles and headings: one or a few words, the hardest texts there are.
    # (004:33 "Chroma", an English mechanic name heading a Spanish part, is left out: ambiguous.)
    "000_40e512ac1ae253c1.txt": {1: "es"},
    "001_09da9df6e0e3ee52.txt": {1: "es"},
    "002_f829283b2bc10ea3.txt": {1: "zh"},
    "003_4f023c532c7afcc4.txt": {1: "es", 2: "es"},
    "004_a602d6d99571243f.txt": {1: "es", 3: "en", 18: "es", 37: "es"},
}

# fmt: on

SPAN_CASES = {
    "002:49 zh+en": ("002_f829283b2bc10ea3.txt", 49),
    "002:53 zh+en": ("002_f829283b2bc10ea3.txt", 53),
    "001:49 es + 'Meddling Mage'": ("001_09da9df6e0e3ee52.txt", 49),
    "000:15 es, control (name translated)": ("000_40e512ac1ae253c1.txt", 15),
}
"""Rulings whose spans are listed for every backend."""

LEADER = re.compile(
    r"^(?:[-*•]\s+)?"  # list bullet
    r"(?:\d{1,2}/\d{1,2}/\d{4}\s+)?"  # dd/mm/yyyy date of plain-dated rulings
    r"(?:\d{1,3}\.(?:\d+[a-z]*\.?)?\s+)?"  # rule or section number: 100. / 100.1. / 100.1a
)


def strip_leader(line: str) -> str:
    """The text a reader hands to the identifier: no bullet, date or rule number."""
    return LEADER.sub("", line.strip(), count=1).strip()


def letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")

# --------------------------------------------------------------------------------------
# Corpora
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    text: str
    gold: str
    where: str
    """Where the text comes from (first occurrence): file:line or set/card."""


@dataclass
class Corpus:
    name: str
    description: str
    items: list[Item] = field(default_factory=list)
    excluded: dict[str, list[str]] = field(default_factory=dict)

    def finish(self, limit: int | None) -> Corpus:
        """De-duplicate by (text, gold), sort, and optionally thin out evenly."""
        seen: dict[tuple[str, str], Item] = {}
        for item in self.items:
            seen.setdefault((item.text, item.gold), item)
        by_gold: dict[str, list[Item]] = defaultdict(list)
        for key in sorted(seen):
            by_gold[key[1]].append(seen[key])
        items: list[Item] = []
        for gold in sorted(by_gold):
            group = by_gold[gold]
            if limit and len(group) > limit:
                step = len(group) / limit
                group = [group[int(i * step)] for i in range(limit)]
            items.extend(group)
        self.items = items
        return self


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8-sig").splitlines()


def load_cr(limit: int | None) -> list[Corpus]:
    """Rule lines (headings, rules, examples) and glossary lines of both CR files."""
    folder = SHARED / "data" / "cr"
    en = read_lines(folder / "MagicCompRules_20231013_en.txt")
    zh = read_lines(folder / "MagicCompRules_20231013_zh.txt")
    if len(en) != len(zh):
        raise SystemExit(f"CR files are not line-aligned: {len(en)} vs {len(zh)} lines")
    glossary = [i for i, line in enumerate(en) if line.strip() == "Glossary"]
    credits_ = [i for i, line in enumerate(en) if line.strip() == "Credits"]
    # The first "Glossary"/"Credits" are the table of contents; the body starts after it.
    body_start, glossary_start, glossary_end = credits_[0] + 1, glossary[-1], credits_[-1]
    parts = {
        "cr-rules": (
            "CR rule lines: section headings, rules, examples",
            body_start,
            glossary_start,
        ),
        "cr-glossary": (
            "CR glossary lines: terms and definitions",
            glossary_start + 1,
            glossary_end,
        ),
    }
    corpora = []
    for name, (description, start, end) in parts.items():
        corpus = Corpus(name, description, excluded={"no letters": [], "zh line without Han": []})
        for index in range(start, end):
            for gold, line in (("en", en[index]), ("zh", zh[index])):
                text = strip_leader(line)
                if not text:
                    continue
                where = f"cr_{gold}:{index + 1}"
                if letters(text) == 0:
                    corpus.excluded["no letters"].append(f"{where} {text!r}")
                elif gold == "zh" and not HAN.search(text):
                    corpus.excluded["zh line without Han"].append(f"{where} {text!r}")
                else:
                    corpus.items.append(Item(text, gold, where))
        corpora.append(corpus.finish(limit))
    return corpora


MTGJSON_LANGS = {"Spanish": "es", "Chinese Simplified": "zh"}


def load_cards(limit: int | None) -> list[Corpus]:
    """Card rules text lines (English text and originalText, Spanish, Chinese) and Spanish names."""
    text = Corpus("cards-text", "MTGJSON TSP/PLC/FUT rules text, one line per text line")
    names = Corpus("cards-names-es", "Spanish card names (names spelled as in English left out)")
    names.excluded = {"same as the English name": []}
    for code in ("FUT", "PLC", "TSP"):
        cards = json.loads((SHARED / "data" / "mtgjson" / f"{code}.json").read_text("utf-8"))
        for number, card in enumerate(cards["data"]["cards"]):
            where = f"{code}/{card.get('number', number)}"
            for key in ("text", "originalText"):
                for line in (card.get(key) or "").splitlines():
                    if letters(line):
                        text.items.append(Item(line.strip(), "en", f"{where} {key}"))
            for foreign in card.get("foreignData", []):
                gold = MTGJSON_LANGS.get(foreign["language"])
                if gold is None:
                    continue
                for line in (foreign.get("text") or "").splitlines():  # also splits U+2028
                    if letters(line):
                        text.items.append(Item(line.strip(), gold, f"{where} {gold}"))
                if gold == "es":
                    if foreign["name"] == card["name"]:
                        names.excluded["same as the English name"].append(foreign["name"])
                    else:
                        names.items.append(Item(foreign["name"], "es", where))
    names.excluded["same as the English name"] = sorted(
        set(names.excluded["same as the English name"])
    )
    return [text.finish(limit), names.finish(limit)]


def load_seeds() -> list[Corpus]:
    rulings = Corpus("seeds", "the seed ruling files, hand-labelled (SEED_GOLD)")
    titles = Corpus("seed-titles", "the seed files' titles and headings, hand-labelled")
    for corpus, labels in ((rulings, SEED_GOLD), (titles, SEED_TITLES)):
        for name, gold in labels.items():
            lines = read_lines(SHARED / "seeds" / name)
            for number, lang in gold.items():
                text = strip_leader(lines[number - 1])
                corpus.items.append(Item(text, lang, f"{name[:3]}:{number}"))
        corpus.items.sort(key=lambda item: (item.where, item.text))
    return [rulings, titles]


def seed_text(name: str, number: int) -> str:
    return strip_leader(read_lines(SHARED / "seeds" / name)[number - 1])


# --------------------------------------------------------------------------------------
# Backends
# --------------------------------------------------------------------------------------


class RawLangdetect:
    """langdetect as it comes: top guess over all of its languages, seeded; no spans."""

    name = "langdetect-raw"

    def __init__(self) -> None:
        from langdetect import DetectorFactory

        from pipelines.ingest.langid import _langdetect_profiles

        self._factory = DetectorFactory()
        self._factory.load_profile(_langdetect_profiles())
        self._factory.set_seed(0)

    def prefetch(self, texts: Iterable[str]) -> None:
        pass

    def identify(self, text: str):
        from langdetect.lang_detect_exception import LangDetectException

        from pipelines.ingest.langid import Identification

        detector = self._factory.create()
        detector.append(text)
        try:
            lang = detector.detect()
        except LangDetectException:
            return Identification(None, ())
        return Identification({"zh-cn": "zh", "zh-tw": "zh"}.get(lang, lang), ())


def candidate_langdetect(languages: Iterable[str] = CANDIDATES):
    """Proposal: the project's langdetect backend, loading only the candidates' profiles."""
    from langdetect import DetectorFactory

    from pipelines.ingest.langid import LangdetectIdentifier, _langdetect_profiles

    identifier = LangdetectIdentifier(languages)
    profiles = []
    for code in identifier.languages:
        for file in {"zh": ["zh-cn", "zh-tw"]}.get(code, [code]):
            profiles.append(Path(_langdetect_profiles(), file).read_text("utf-8"))
    factory = DetectorFactory()
    factory.load_json_profile(profiles)
    factory.set_seed(0)
    identifier._factory = factory
    identifier.name = "langdetect-candidates"
    return identifier


def _build(*args):
    from pipelines.ingest.langid import build

    return lambda: build(*args)


BACKENDS: dict[str, tuple[str, Callable[[], object]]] = {
    "langdetect-raw": ("langdetect, unrestricted top guess (55 languages)", RawLangdetect),
    "langdetect": (
        'project backend build("langdetect"), candidates en/es/zh',
        _build("langdetect"),
    ),
    "lingua": ('project default build("lingua"), candidates en/es/zh', _build("lingua")),
    "lingua-mtg10": (
        'build("lingua", MTG10): the 10 print languages ' + "/".join(MTG10),
        _build("lingua", MTG10),
    ),
    "langdetect-candidates": (
        "proposal: project langdetect backend with only the en/es/zh-cn/zh-tw profiles loaded",
        candidate_langdetect,
    ),
}
SPAN_BACKENDS = ("langdetect", "lingua", "lingua-mtg10", "langdetect-candidates")
LINGUA_BACKENDS = ("lingua", "lingua-mtg10")


# --------------------------------------------------------------------------------------
# Measurement
# --------------------------------------------------------------------------------------


@dataclass
class Run:
    """One backend over every corpus, pooled as the pipeline does it: build, prefetch, identify."""

    backend: str
    prefetch: bool
    langs: list[str | None]
    spans: list[list[list]]
    build_s: float
    prefetch_s: float
    identify_s: float
    identify_s_by_corpus: dict[str, float]
    load_before: float | None = None
    """The machine's 1-minute load average when the run started (other work slows runs)."""

    @property
    def seconds(self) -> float:
        return self.build_s + self.prefetch_s + self.identify_s


@dataclass(frozen=True)
class Result:
    """One backend's answers on one corpus."""

    langs: list[str | None]
    spans: list[tuple[tuple[str, int, int], ...]]


def measure(backend: str, corpora: dict[str, Corpus], prefetch: bool = True) -> Run:
    """A fresh identifier (empty caches); ``prefetch`` of all texts, then ``identify`` each."""
    texts = [item.text for corpus in corpora.values() for item in corpus.items]
    load = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    t0 = time.perf_counter()
    identifier = BACKENDS[backend][1]()
    t1 = time.perf_counter()
    if prefetch:
        identifier.prefetch(texts)
    t2 = time.perf_counter()
    langs, spans, by_corpus = [], [], {}
    for name, corpus in corpora.items():
        started = time.perf_counter()
        for item in corpus.items:
            found = identifier.identify(item.text)
            langs.append(found.lang)
            spans.append([list(span) for span in found.spans])
        by_corpus[name] = round(time.perf_counter() - started, 4)
    t3 = time.perf_counter()
    return Run(backend, prefetch, langs, spans, t1 - t0, t2 - t1, t3 - t2, by_corpus, load)


def measure_cold(backend: str, limit: int | None, prefetch: bool = True) -> Run:
    """``measure`` in a fresh interpreter: lingua keeps loaded models for the process's life."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", backend]
    if limit:
        command += ["--limit", str(limit)]
    if not prefetch:
        command.append("--no-prefetch")
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return Run(**json.loads(out.strip().splitlines()[-1]))


def split(run_: Run, corpora: dict[str, Corpus]) -> dict[str, Result]:
    out, start = {}, 0
    for name, corpus in corpora.items():
        end = start + len(corpus.items)
        out[name] = Result(
            run_.langs[start:end],
            [tuple(tuple(span) for span in spans) for spans in run_.spans[start:end]],
        )
        start = end
    return out


def startup(backend: str) -> dict:
    """Cold start in a fresh interpreter: import, build, first identification of a ruling."""
    code = (
        "import sys, time, json; t = time.perf_counter(); "
        f"sys.path.insert(0, {str(ROOT)!r}); sys.argv = ['x']; "
        "import benchmarks.langid as b; "
        f"i = b.BACKENDS[{backend!r}][1](); t1 = time.perf_counter(); "
        "i.identify('If the card has {X} in its mana cost, you must choose 0 as the value of X.'); "
        "i.identify('Si la carta tiene {X} en su coste de maná, debes elegir 0 como valor de X.'); "
        "t2 = time.perf_counter(); print(json.dumps([t1 - t, t2 - t1]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    build_s, first_s = json.loads(out.strip().splitlines()[-1])
    return {"import_and_build_s": round(build_s, 3), "first_two_texts_s": round(first_s, 3)}


def pct(correct: int, total: int) -> float | None:
    return round(100 * correct / total, 2) if total else None


def score(corpus: Corpus, result: Result) -> dict:
    """Accuracy per gold language (all / short / long), confusion, examples of errors."""
    out: dict[str, dict] = {}
    by_gold: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(corpus.items):
        by_gold[item.gold].append(index)
    for gold, indexes in sorted(by_gold.items()):
        if "+" in gold:
            continue
        entry: dict = {}
        for bucket, keep in (
            ("all", lambda t: True),
            ("short", lambda t: len(t) < SHORT),
            ("long", lambda t: len(t) >= SHORT),
        ):
            chosen = [i for i in indexes if keep(corpus.items[i].text)]
            correct = sum(result.langs[i] == gold for i in chosen)
            entry[bucket] = {
                "n": len(chosen),
                "correct": correct,
                "accuracy": pct(correct, len(chosen)),
            }
        entry["confusion"] = dict(
            sorted(Counter(str(result.langs[i]) for i in indexes).items(), key=lambda kv: -kv[1])
        )
        entry["confusion_short"] = dict(
            sorted(
                Counter(
                    str(result.langs[i]) for i in indexes if len(corpus.items[i].text) < SHORT
                ).items(),
                key=lambda kv: -kv[1],
            )
        )
        wrong = [i for i in indexes if result.langs[i] != gold]
        # Long errors first (the surprising ones), then short ones; each group in text order.
        wrong.sort(key=lambda i: (len(corpus.items[i].text) < SHORT, corpus.items[i].text))
        entry["errors"] = [
            {
                "where": corpus.items[i].where,
                "got": result.langs[i],
                "text": corpus.items[i].text[:160],
            }
            for i in wrong[:EXAMPLES]
        ]
        out[gold] = entry
    return out


def false_spans(
    corpora: dict[str, Corpus], runs: dict[tuple[str, str], Result], backend: str
) -> dict:
    """Share of pure-language lines that get spans: CR en/zh (rules + glossary), Spanish cards."""
    groups: dict[str, list[tuple[Item, tuple]]] = defaultdict(list)
    for corpus_name in ("cr-rules", "cr-glossary", "cards-text"):
        result = runs[(backend, corpus_name)]
        for item, spans in zip(corpora[corpus_name].items, result.spans, strict=True):
            if corpus_name == "cards-text" and item.gold != "es":
                continue
            source = "cards" if corpus_name == "cards-text" else "cr"
            groups[f"{source}-{item.gold}"].append((item, spans))
            if item.gold == "zh":
                latin = "zh with Latin words" if LATIN_WORD.search(item.text) else "zh, Han only"
                groups[f"cr-{latin}"].append((item, spans))
    out = {}
    total_n = total_spans = 0
    for group, members in sorted(groups.items()):
        with_spans = [(item, spans) for item, spans in members if spans]
        out[group] = {
            "n": len(members),
            "with_spans": len(with_spans),
            "rate": pct(len(with_spans), len(members)),
            "examples": [
                {
                    "where": item.where,
                    "text": item.text[:200],
                    "spans": [[lang, s, e, item.text[s:e]] for lang, s, e in spans],
                }
                for item, spans in with_spans[:8]
            ],
        }
        if group in ("cr-en", "cr-zh", "cards-es"):
            total_n += len(members)
            total_spans += len(with_spans)
    out["overall"] = {"n": total_n, "with_spans": total_spans, "rate": pct(total_spans, total_n)}
    return out


def span_cases() -> dict:
    out = {}
    for label, (name, number) in SPAN_CASES.items():
        text = seed_text(name, number)
        case = {"where": f"{name}:{number}", "text": text, "backends": {}}
        for backend in SPAN_BACKENDS:
            found = BACKENDS[backend][1]().identify(text)
            case["backends"][backend] = {
                "lang": found.lang,
                "spans": [[lang, s, e, text[s:e]] for lang, s, e in found.spans],
            }
        out[label] = case
    return out


def seed_listing(corpus: Corpus, runs: dict[tuple[str, str], Result]) -> list[dict]:
    rows = []
    for index, item in enumerate(corpus.items):
        row = {"where": item.where, "gold": item.gold, "text": item.text[:80]}
        for backend in BACKENDS:
            result = runs[(backend, corpus.name)]
            row[backend] = result.langs[index]
            if result.spans[index]:
                row[backend + "_spans"] = sorted({lang for lang, _, _ in result.spans[index]})
        rows.append(row)
    return rows


def mixed_seed_scores(corpus: Corpus, runs: dict[tuple[str, str], Result]) -> dict:
    """For the half-translated Chinese rulings: do the spans name both languages?"""
    out = {}
    for backend in SPAN_BACKENDS:
        result = runs[(backend, corpus.name)]
        rows = []
        for index, item in enumerate(corpus.items):
            if "+" in item.gold:
                langs = sorted({lang for lang, _, _ in result.spans[index]})
                rows.append(
                    {
                        "where": item.where,
                        "lang": result.langs[index],
                        "span_langs": langs,
                        "both_found": set(langs) == set(item.gold.split("+")),
                    }
                )
        out[backend] = rows
    return out


def short_zh_confusion(corpora: dict[str, Corpus], runs: dict[tuple[str, str], Result]) -> dict:
    """Where short Chinese lines go, per backend (all corpora pooled)."""
    out = {}
    for backend in BACKENDS:
        counts: Counter[str] = Counter()
        for name, corpus in corpora.items():
            for item, lang in zip(corpus.items, runs[(backend, name)].langs, strict=True):
                if item.gold == "zh" and len(item.text) < SHORT:
                    counts[str(lang)] += 1
        n = sum(counts.values())
        out[backend] = {
            "n": n,
            "predicted": dict(counts.most_common()),
            "ko_or_ja_rate": pct(counts["ko"] + counts["ja"], n),
        }
    return out


def zh_latin_census(corpora: dict[str, Corpus]) -> dict:
    out = {}
    for name in ("cr-rules", "cr-glossary", "cards-text"):
        zh = [item for item in corpora[name].items if item.gold == "zh"]
        out[name] = {
            "zh_lines": len(zh),
            "with_any_latin_letter": sum(bool(re.search(r"[A-Za-z]", item.text)) for item in zh),
            "with_latin_words": sum(bool(LATIN_WORD.search(item.text)) for item in zh),
            "examples": [item.text[:100] for item in zh if LATIN_WORD.search(item.text)][:5],
        }
    return out


def parallel_vs_sequential(corpora: dict[str, Corpus]) -> dict:
    """lingua's parallel API against a plain loop, warm models, on the texts that need it."""
    from pipelines.ingest import langid

    blank = getattr(langid, "blank_symbols", lambda text: text)
    identifier = langid.build("lingua")
    texts = set()
    for corpus in corpora.values():
        for item in corpus.items:
            scripts = langid.script_profile(blank(item.text))
            if scripts and (scripts.get("latin") or not scripts.get("han")):
                texts.add(blank(item.text))
    todo = sorted(texts)
    detector = identifier._detector
    detector.detect_languages_in_parallel_of(todo[:50])  # load the models
    t0 = time.perf_counter()
    parallel = detector.detect_languages_in_parallel_of(todo)
    t1 = time.perf_counter()
    sequential = [detector.detect_language_of(text) for text in todo]
    t2 = time.perf_counter()
    return {
        "texts": len(todo),
        "parallel_s": round(t1 - t0, 3),
        "sequential_s": round(t2 - t1, 3),
        "same_answers": parallel == sequential,
    }


def prefetch_effect(corpora: dict[str, Corpus]) -> dict:
    """Does ``prefetch`` detect the texts ``identify`` later asks the detector about?"""
    from pipelines.ingest import langid

    blank = getattr(langid, "blank_symbols", lambda text: text)
    texts = [item.text for corpus in corpora.values() for item in corpus.items]
    identifier = langid.build("lingua")
    identifier.prefetch(texts)
    prefetched = set(identifier._detected)
    asked: set[str] = set()
    detect = identifier._detect

    def spy(text: str) -> str | None:
        asked.add(text)
        return detect(text)

    identifier._detect = spy
    for text in texts:
        identifier.identify(text)
    unread = prefetched - asked
    han_only = {t for t in unread if HAN.search(t) and not re.search(r"[A-Za-z]", blank(t))}
    return {
        "prefetched": len(prefetched),
        "read_by_identify": len(prefetched & asked),
        "never_read": len(unread),
        "never_read_han_only": len(han_only),
        "never_read_because_identify_blanks_symbols": len(
            {t for t in unread - han_only if blank(t) != t}
        ),
        "detected_again_one_by_one": len(asked - prefetched),
        "examples_detected_again": sorted(asked - prefetched)[:5],
    }


MARGINS = (0.0, 0.2, 0.5, 0.7)


def short_text_confidence(corpora: dict[str, Corpus]) -> dict:
    """lingua on short en/es lines, by the margin between its two most confident languages.

    Tells whether lingua's own confidence could mark the short texts worth deferring to the
    document's language (instead of deferring every short text).
    """
    from pipelines.ingest import langid

    blank = getattr(langid, "blank_symbols", lambda text: text)
    identifier = langid.build("lingua")
    buckets: dict[float, list[int]] = {low: [0, 0] for low in MARGINS}
    for corpus in corpora.values():
        for item in corpus.items:
            if item.gold not in ("en", "es") or len(item.text) >= SHORT:
                continue
            values = identifier._detector.compute_language_confidence_values(blank(item.text))
            if len(values) < 2:
                continue
            margin = values[0].value - values[1].value
            low = max(m for m in MARGINS if margin >= m)
            buckets[low][0] += 1
            buckets[low][1] += identifier.identify(item.text).lang == item.gold
    edges = [*MARGINS[1:], 1.0]
    return {
        f"{low:.1f}-{high:.1f}": {"n": n, "correct": ok, "accuracy": pct(ok, n)}
        for (low, (n, ok)), high in zip(buckets.items(), edges, strict=True)
    }


def source_version() -> dict:
    """Which langid.py was measured: the benchmark runs against the working tree."""
    path = ROOT / "pipelines" / "ingest" / "langid.py"

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        except OSError:
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    return {
        "langid_py_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "git_head": git("rev-parse", "--short", "HEAD"),
        "langid_py_modified_since_head": bool(git("status", "--porcelain", "--", str(path))),
    }


def machine() -> dict:
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    versions = {}
    for package in ("lingua-language-detector", "langdetect", "pandas", "numpy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "nproc": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "cpu_count": os.cpu_count(),
        "memory": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


# --------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------

# fmt: off
CORPUS_ROWS = [
    ("cr-rules", "en"), ("cr-rules", "zh"), ("cr-glossary", "en"), ("cr-glossary", "zh"),
    ("cards-text", "en"), ("cards-text", "es"), ("cards-text", "zh"), ("cards-names-es", "es"),
    ("seeds", "en"), ("seeds", "es"), ("seeds", "zh"), ("seed-titles", "en"),
    ("seed-titles", "es"), ("seed-titles", "zh"),
]
# fmt: on


def summary(results: dict) -> list[str]:
    """A few computed sentences: the ranking and the failure modes worth knowing."""
    pooled_ = results["micro_average"]
    ranking = sorted(pooled_, key=lambda b: -pooled_[b]["all"]["accuracy"])
    nones = {
        backend: sum(
            entry["confusion"].get("None", 0)
            for corpus in results["accuracy"][backend].values()
            for entry in corpus.values()
        )
        for backend in results["backends"]
    }
    spans = results["false_spans"]
    return [
        "- Pooled accuracy, all (short): "
        + ", ".join(
            f"{b} {_cell(pooled_[b]['all']['accuracy'])} ({_cell(pooled_[b]['short']['accuracy'])})"
            for b in ranking
        )
        + ".",
        "- Texts left without a language (`None`): "
        + ", ".join(f"{b} {n}" for b, n in nones.items())
        + ".",
        "- False spans on pure-language lines: "
        + ", ".join(f"{b} {_cell(spans[b]['overall']['rate'])} %" for b in spans)
        + "; with Han-only CR zh lines instead of all CR zh lines (the Latin in CR zh lines "
        "is mostly real English: card names, web addresses): "
        + ", ".join(
            f"{b} {_cell(pct(_strict(spans[b])[0], _strict(spans[b])[1]))} %" for b in spans
        )
        + ".",
    ]


def _strict(spans: dict) -> tuple[int, int]:
    groups = ("cr-en", "cr-zh, Han only", "cards-es")
    return (
        sum(spans[g]["with_spans"] for g in groups if g in spans),
        sum(spans[g]["n"] for g in groups if g in spans),
    )


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def markdown(results: dict) -> str:
    backends = list(results["backends"])
    acc = results["accuracy"]
    lines = [
        "# Language identification benchmark",
        "",
        "Produced by `python benchmarks/langid.py` (all numbers in `langid.json`). "
        "Gold: CR lines by file (en / line-aligned zh), MTGJSON card lines by printing "
        "language, seed rulings hand-labelled in the script. Texts de-duplicated per corpus, "
        f"short = under {SHORT} characters.",
        "",
        "Backends: " + "; ".join(f"**{b}** = {results['backends'][b]}" for b in backends) + ".",
        "",
        "## Summary",
        "",
        *summary(results),
        "",
        "## Accuracy (%), all lines (short lines in brackets)",
        "",
        "| corpus | gold | n (short) | " + " | ".join(backends) + " |",
        "|---|---|---|" + "---|" * len(backends),
    ]
    for corpus, gold in CORPUS_ROWS:
        entry = acc[backends[0]].get(corpus, {}).get(gold)
        if not entry:
            continue
        cells = []
        for backend in backends:
            e = acc[backend][corpus][gold]
            cells.append(f"{_cell(e['all']['accuracy'])} ({_cell(e['short']['accuracy'])})")
        lines.append(
            f"| {corpus} | {gold} | {entry['all']['n']} ({entry['short']['n']}) | "
            + " | ".join(cells)
            + " |"
        )
    totals = results["micro_average"]
    lines.append(
        "| **all pooled** | | "
        f"{totals[backends[0]]['all']['n']} ({totals[backends[0]]['short']['n']}) | "
        + " | ".join(
            f"**{_cell(totals[b]['all']['accuracy'])}** ({_cell(totals[b]['short']['accuracy'])})"
            for b in backends
        )
        + " |"
    )
    lines += [
        "",
        "## Throughput",
        "",
        "Cold: each run is a fresh interpreter that builds one identifier and makes the "
        "pipeline's calls over all texts pooled: `prefetch(all)`, then `identify` each; "
        "lingua runs are repeated and the median run shown. "
        "Startup: another fresh interpreter, import + `build`, then the first two texts "
        "(lingua loads its models lazily there).",
        "",
        "| backend | prefetch | texts | runs (s each) | median: prefetch s | identify s | total s "
        "| texts/s | startup: import + build s | first 2 texts s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in results["throughput"].values():
        s = results["startup"][t["backend"]]
        startup_cells = (
            f"{s['import_and_build_s']:.2f} | {s['first_two_texts_s']:.2f}"
            if t["prefetch"]
            else " | "
        )
        median = t["median_run"]
        each = ", ".join(f"{x:.1f}" for x in t["seconds_of_each_run"])
        lines.append(
            f"| {t['backend']} | {'yes' if t['prefetch'] else 'no'} | {t['texts']} | {each} | "
            f"{median['prefetch_s']:.2f} | {median['identify_s']:.2f} | "
            f"{t['seconds']:.1f} | {t['texts_per_s']:.0f} | {startup_cells} |"
        )
    loads = [
        x for t in results["throughput"].values() for x in t["load_average_1min_before_each_run"]
    ]
    lines += [
        "",
        f"1-minute load average when the runs started: {min(loads):.1f} to {max(loads):.1f} "
        f"on {results['machine']['nproc']} cores (other work on the machine slows the runs).",
    ]
    p = results["parallel_vs_sequential"]
    lines += [
        "",
        f"lingua's `detect_languages_in_parallel_of` (what `prefetch` uses) against a plain "
        f"`detect_language_of` loop, warm models, on the {p['texts']} distinct texts that "
        f"need a detector: {p['parallel_s']:.2f} s vs {p['sequential_s']:.2f} s.",
    ]
    e = results["prefetch_effect"]
    lines += [
        "",
        f"What `LinguaIdentifier.prefetch` buys: it detects {e['prefetched']} distinct texts, "
        f"of which `identify` reads {e['read_by_identify']}; {e['never_read']} are never read "
        f"({e['never_read_han_only']} Han-only once symbols are blanked: the shortcut answers "
        "them; "
        f"{e['never_read_because_identify_blanks_symbols']} other texts with symbols, which "
        f"`identify` looks up blanked), and {e['detected_again_one_by_one']} blanked texts "
        "are then detected again one by one.",
    ]
    zh = results["short_zh_confusion"]
    lines += [
        "",
        f"Short Chinese lines (n = {zh['langdetect-raw']['n']}) with unrestricted langdetect: "
        + ", ".join(f"{k} {v}" for k, v in list(zh["langdetect-raw"]["predicted"].items())[:6])
        + f" (ko or ja: {_cell(zh['langdetect-raw']['ko_or_ja_rate'])} %).",
        "",
        "## Spans",
        "",
        "False-span rate: share of pure-language lines (CR en + CR zh, rules and glossary; "
        "Spanish card lines) given spans.",
        "",
        "| backend | overall | CR en | CR zh | of which: Han only | of which: with Latin words "
        "| Spanish card lines |",
        "|---|---|---|---|---|---|---|",
    ]
    for backend in SPAN_BACKENDS:
        f = results["false_spans"][backend]

        def show(group, f=f):
            g = f.get(group)
            return f"{g['with_spans']}/{g['n']} ({_cell(g['rate'])} %)" if g else "–"

        lines.append(
            f"| {backend} | {show('overall')} | {show('cr-en')} | {show('cr-zh')} | "
            f"{show('cr-zh, Han only')} | {show('cr-zh with Latin words')} | {show('cards-es')} |"
        )
    lines += ["", "Spans reported on the mixed seed rulings (`lang` then `[span lang] text`):", ""]
    for label, case in results["span_cases"].items():
        lines.append(f"- **{label}** (`{case['where']}`)")
        for backend, found in case["backends"].items():
            spans = "; ".join(f"[{lang}] {_shorten(text)!r}" for lang, _, _, text in found["spans"])
            lines.append(f"  - {backend}: `{found['lang']}` — {spans or 'no spans'}")
    confidence = results["lingua_short_confidence"]
    lines += [
        "",
        "## lingua's confidence on short en/es lines",
        "",
        "Margin between lingua's two most confident languages, and the `lingua` backend's "
        "accuracy on the short (< 40 characters) English and Spanish lines in each band:",
        "",
        "| margin | n | accuracy % |",
        "|---|---|---|",
        *(f"| {band} | {c['n']} | {_cell(c['accuracy'])} |" for band, c in confidence.items()),
    ]
    census = results["zh_latin_census"]
    lines += [
        "",
        "Chinese gold lines containing Latin words (card names, URLs, rule letters): "
        + ", ".join(f"{name} {c['with_latin_words']}/{c['zh_lines']}" for name, c in census.items())
        + "; left out of zh gold because untranslated (no Han at all): "
        + ", ".join(
            f"{len(results['excluded'][name]['zh line without Han'])} in {name}"
            for name in ("cr-rules", "cr-glossary")
        )
        + ".",
        "",
        "## Machine",
        "",
    ]
    m = results["machine"]
    src = results["source"]
    lines += [
        f"- measured `pipelines/ingest/langid.py` sha256 {src['langid_py_sha256'][:12]} "
        f"(git HEAD {src['git_head']}"
        + (", modified in the working tree" if src["langid_py_modified_since_head"] else "")
        + ")",
        f"- nproc {m['nproc']}, memory {m['memory']}, Python {m['python']} ({m['platform']})",
        "- " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()),
        f"- run {m['date']}, wall time {results['wall_time_s']:.0f} s"
        + (f", LIMIT {results['limit']} texts per corpus/language" if results["limit"] else ""),
        "",
    ]
    return "\n".join(lines)


def _shorten(text: str, width: int = 50) -> str:
    half = (width - 1) // 2
    return text if len(text) <= width else text[:half] + "…" + text[-half:]


# --------------------------------------------------------------------------------------


def pooled(corpora: dict[str, Corpus], runs: dict[tuple[str, str], Result], backend: str) -> dict:
    out = {}
    for bucket, keep in (("all", lambda t: True), ("short", lambda t: len(t) < SHORT)):
        n = correct = 0
        for name, corpus in corpora.items():
            for item, lang in zip(corpus.items, runs[(backend, name)].langs, strict=True):
                if "+" in item.gold or not keep(item.text):
                    continue
                n += 1
                correct += lang == item.gold
        out[bucket] = {"n": n, "correct": correct, "accuracy": pct(correct, n)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="texts per corpus and language")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--repeat", type=int, default=3, help="cold runs of each lingua backend (median kept)"
    )
    parser.add_argument("--child", choices=BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--no-prefetch", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:  # one cold measurement, for the parent process
        corpora = {
            c.name: c for c in [*load_cr(args.limit), *load_cards(args.limit), *load_seeds()]
        }
        result = measure(args.child, corpora, prefetch=not args.no_prefetch)
        print(json.dumps(result.__dict__, ensure_ascii=False))
        return 0
    if not (SHARED / "data").is_dir() or not (SHARED / "seeds").is_dir():
        print(f"langid benchmark skipped: {SHARED} (data/ and seeds/) is not available.")
        return 0
    started = time.perf_counter()
    corpora = {c.name: c for c in [*load_cr(args.limit), *load_cards(args.limit), *load_seeds()]}
    for corpus in corpora.values():
        counts = Counter(item.gold for item in corpus.items)
        print(f"{corpus.name}: {dict(sorted(counts.items()))}", flush=True)

    # Every measurement is a fresh interpreter. lingua runs take seconds, so they are
    # repeated (--repeat) and the median kept: the machine may be shared.
    pooled_runs: dict[str, Run] = {}
    repeats: dict[str, list[Run]] = {}
    runs: dict[tuple[str, str], Result] = {}
    modes = [(b, True) for b in BACKENDS] + [(b, False) for b in LINGUA_BACKENDS]
    for backend, prefetch in modes:
        key = backend if prefetch else f"{backend} without prefetch"
        times = args.repeat if backend in LINGUA_BACKENDS else 1
        repeats[key] = [measure_cold(backend, args.limit, prefetch) for _ in range(times)]
        for other in repeats[key][1:]:
            if (other.langs, other.spans) != (repeats[key][0].langs, repeats[key][0].spans):
                raise SystemExit(f"{key}: answers differ between two runs")
        if prefetch:
            pooled_runs[backend] = repeats[key][0]
            for name, result in split(pooled_runs[backend], corpora).items():
                runs[(backend, name)] = result
        seconds = sorted(r.seconds for r in repeats[key])
        print(f"{key}: {' / '.join(f'{x:.1f}' for x in seconds)} s", flush=True)

    results: dict = {
        "limit": args.limit,
        "short_chars": SHORT,
        "backends": {name: description for name, (description, _) in BACKENDS.items()},
        "corpora": {
            name: {
                "description": c.description,
                "n": dict(sorted(Counter(i.gold for i in c.items).items())),
                "short": dict(
                    sorted(Counter(i.gold for i in c.items if len(i.text) < SHORT).items())
                ),
            }
            for name, c in corpora.items()
        },
        "excluded": {
            name: {reason: entries for reason, entries in c.excluded.items()}
            for name, c in corpora.items()
            if c.excluded
        },
        "accuracy": {
            backend: {
                name: score(corpus, runs[(backend, name)]) for name, corpus in corpora.items()
            }
            for backend in BACKENDS
        },
        "micro_average": {backend: pooled(corpora, runs, backend) for backend in BACKENDS},
        "throughput": {},
        "startup": {backend: startup(backend) for backend in BACKENDS},
        "short_zh_confusion": short_zh_confusion(corpora, runs),
        "false_spans": {backend: false_spans(corpora, runs, backend) for backend in SPAN_BACKENDS},
        "span_cases": span_cases(),
        "mixed_seed_rulings": mixed_seed_scores(corpora["seeds"], runs),
        "seed_listing": seed_listing(corpora["seeds"], runs)
        + seed_listing(corpora["seed-titles"], runs),
        "zh_latin_census": zh_latin_census(corpora),
        "parallel_vs_sequential": parallel_vs_sequential(corpora),
        "prefetch_effect": prefetch_effect(corpora),
        "lingua_short_confidence": short_text_confidence(corpora),
        "source": source_version(),
        "machine": machine(),
    }
    texts = sum(len(corpus.items) for corpus in corpora.values())
    for key, measured in repeats.items():
        run_ = sorted(measured, key=lambda r: r.seconds)[len(measured) // 2]  # the median
        results["throughput"][key] = {
            "backend": run_.backend,
            "prefetch": run_.prefetch,
            "texts": texts,
            "runs": len(measured),
            "seconds_of_each_run": sorted(round(r.seconds, 3) for r in measured),
            "load_average_1min_before_each_run": [r.load_before for r in measured],
            "median_run": {
                "build_s": round(run_.build_s, 4),
                "prefetch_s": round(run_.prefetch_s, 3),
                "identify_s": round(run_.identify_s, 3),
                "identify_s_by_corpus": run_.identify_s_by_corpus,
            },
            "seconds": round(run_.seconds, 3),
            "texts_per_s": round(texts / run_.seconds, 1),
        }
        if not run_.prefetch:
            same = run_.langs == pooled_runs[run_.backend].langs
            same = same and run_.spans == pooled_runs[run_.backend].spans
            results["throughput"][key]["same_answers_as_with_prefetch"] = same
    results["wall_time_s"] = round(time.perf_counter() - started, 1)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "langid.json").write_text(
        json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    (args.out / "langid.md").write_text(markdown(results), encoding="utf-8")
    print(
        f"wrote {args.out / 'langid.json'} and {args.out / 'langid.md'} "
        f"({results['wall_time_s']:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
