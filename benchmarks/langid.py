"""Language identification: which backend should ``pipelines.ingest.langid`` use?

    python benchmarks/langid.py              # full run, a few minutes on 2 cores
    python benchmarks/langid.py --limit 200  # a quick look (at most 200 texts per corpus/language)

Backends (``BACKENDS``): ``langdetect-raw`` (langdetect's own top guess over its 55
languages, no project logic), the project's ``langdetect`` and ``lingua`` (candidates
en/es/zh), ``lingua-mtg10`` (the ten languages Magic is printed in: what a broader candidate
set costs). (``langdetect-candidates``, a proposal to load only the candidates' profiles, is
now what the project's langdetect backend does: measured identical, dropped.)

Gold: every non-blank line of the English CR is ``en`` and of the line-aligned Chinese CR
``zh``; MTGJSON card text lines by their printing's language; the seed rulings, titles and
span cases are hand-labelled in ``langid_gold.json``. Texts are de-duplicated and sorted per
corpus and language; langdetect is seeded, so every number but the timings is reproducible.
Each timed run is a fresh interpreter making the pipeline's calls (``prefetch`` of all texts,
then ``identify`` each); lingua runs are repeated and the median kept. Also: false spans on
pure-language lines, spans on the mixed seed rulings, what ``prefetch`` buys, lingua's
parallel API against a loop, lingua's confidence on short lines. Writes ``results/langid.*``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    CR,
    CR_EN,
    CR_ZH,
    MTGJSON,
    ROOT,
    SHARED,
    child_json,
    machine,
    machine_line,
    md_records,
    md_table,
    read_lines,
    shared_or_exit,
    write_results,
)

GOLD = json.loads(Path(__file__).with_name("langid_gold.json").read_text(encoding="utf-8"))
MTG10 = ("en", "es", "fr", "de", "it", "pt", "ja", "ko", "ru", "zh")
SHORT = 40
"""Texts shorter than this many characters are reported separately: the hard case."""
EXAMPLES = 12
"""Misclassified examples kept per backend, corpus and gold language."""
LEADER = re.compile(
    r"^(?:[-*•]\s+)?"  # list bullet
    r"(?:\d{1,2}/\d{1,2}/\d{4}\s+)?"  # dd/mm/yyyy date of plain-dated rulings
    r"(?:\d{1,3}\.(?:\d+[a-z]*\.?)?\s+)?"  # rule or section number: 100. / 100.1. / 100.1a
)
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")
MTGJSON_LANGS = {"Spanish": "es", "Chinese Simplified": "zh"}
SPAN_BACKENDS = ("langdetect", "lingua", "lingua-mtg10")
LINGUA_BACKENDS = ("lingua", "lingua-mtg10")
MARGINS = (0.0, 0.2, 0.5, 0.7)
CORPUS_ROWS = [
    ("cr-rules", "en"), ("cr-rules", "zh"), ("cr-glossary", "en"), ("cr-glossary", "zh"),
    ("cards-text", "en"), ("cards-text", "es"), ("cards-text", "zh"), ("cards-names-es", "es"),
    ("seeds", "en"), ("seeds", "es"), ("seeds", "zh"), ("seed-titles", "en"),
    ("seed-titles", "es"), ("seed-titles", "zh"),
]  # fmt: skip


def strip_leader(line: str) -> str:
    """The text a reader hands to the identifier: no bullet, date or rule number."""
    return LEADER.sub("", line.strip(), count=1).strip()


def letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def pct(correct: int, total: int) -> float | None:
    return round(100 * correct / total, 2) if total else None


# --------------------------------------------------------------------------------------
# Corpora


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
        self.items = []
        for gold in sorted(by_gold):
            group = by_gold[gold]
            if limit and len(group) > limit:
                group = [group[int(i * len(group) / limit)] for i in range(limit)]
            self.items.extend(group)
        return self


def load_cr(limit: int | None) -> list[Corpus]:
    """Rule lines (headings, rules, examples) and glossary lines of both CR files."""
    en, zh = read_lines(CR / CR_EN), read_lines(CR / CR_ZH)
    glossary = [i for i, line in enumerate(en) if line.strip() == "Glossary"]
    credits_ = [i for i, line in enumerate(en) if line.strip() == "Credits"]
    # The first "Glossary"/"Credits" are the table of contents; the body starts after it.
    parts = {
        "cr-rules": (
            "CR rule lines: section headings, rules, examples",
            credits_[0] + 1,
            glossary[-1],
        ),
        "cr-glossary": ("CR glossary lines: terms and definitions", glossary[-1] + 1, credits_[-1]),
    }
    corpora = []
    for name, (description, start, end) in parts.items():
        corpus = Corpus(name, description, excluded={"no letters": [], "zh line without Han": []})
        for index in range(start, end):
            for gold, line in (("en", en[index]), ("zh", zh[index])):
                text, where = strip_leader(line), f"cr_{gold}:{index + 1}"
                if not text:
                    continue
                if letters(text) == 0:
                    corpus.excluded["no letters"].append(f"{where} {text!r}")
                elif gold == "zh" and not HAN.search(text):
                    corpus.excluded["zh line without Han"].append(f"{where} {text!r}")
                else:
                    corpus.items.append(Item(text, gold, where))
        corpora.append(corpus.finish(limit))
    return corpora


def load_cards(limit: int | None) -> list[Corpus]:
    """Card text lines (English text and originalText, Spanish, Chinese), Spanish names."""
    text = Corpus("cards-text", "MTGJSON TSP/PLC/FUT rules text, one line per text line")
    names = Corpus("cards-names-es", "Spanish card names (names spelled as in English left out)")
    same: set[str] = set()
    for code in ("FUT", "PLC", "TSP"):
        cards = json.loads((MTGJSON / f"{code}.json").read_text("utf-8"))["data"]["cards"]
        for number, card in enumerate(cards):
            where = f"{code}/{card.get('number', number)}"
            for key in ("text", "originalText"):
                lines = (card.get(key) or "").splitlines()
                text.items += [Item(x.strip(), "en", f"{where} {key}") for x in lines if letters(x)]
            for foreign in card.get("foreignData", []):
                gold = MTGJSON_LANGS.get(foreign["language"])
                if gold is None:
                    continue
                lines = (foreign.get("text") or "").splitlines()  # also splits U+2028
                text.items += [
                    Item(x.strip(), gold, f"{where} {gold}") for x in lines if letters(x)
                ]
                if gold == "es" and foreign["name"] == card["name"]:
                    same.add(foreign["name"])
                elif gold == "es":
                    names.items.append(Item(foreign["name"], "es", where))
    names.excluded = {"same as the English name": sorted(same)}
    return [text.finish(limit), names.finish(limit)]


def seed_text(name: str, number: int) -> str:
    return strip_leader(read_lines(SHARED / "seeds" / name)[number - 1])


def load_seeds() -> list[Corpus]:
    corpora = []
    for name, labels in (("seeds", "rulings"), ("seed-titles", "titles")):
        corpus = Corpus(name, f"the seed files' {labels}, hand-labelled (langid_gold.json)")
        for file, gold in GOLD[labels].items():
            corpus.items += [
                Item(seed_text(file, int(n)), lang, f"{file[:3]}:{n}") for n, lang in gold.items()
            ]
        corpus.items.sort(key=lambda item: (item.where, item.text))
        corpora.append(corpus)
    return corpora


def load_all(limit: int | None) -> dict[str, Corpus]:
    return {c.name: c for c in [*load_cr(limit), *load_cards(limit), *load_seeds()]}


# --------------------------------------------------------------------------------------
# Backends and runs


class RawLangdetect:
    """langdetect as it comes: top guess over all of its languages, seeded; no spans."""

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


def build(backend: str):
    from pipelines.ingest import langid

    makers = {
        "langdetect-raw": RawLangdetect,
        "langdetect": lambda: langid.build("langdetect"),
        "lingua": lambda: langid.build("lingua"),
        "lingua-mtg10": lambda: langid.build("lingua", MTG10),
    }
    return makers[backend]()


BACKENDS = {
    "langdetect-raw": "langdetect, unrestricted top guess (55 languages)",
    "langdetect": 'project backend build("langdetect"), candidates en/es/zh',
    "lingua": 'project default build("lingua"), candidates en/es/zh',
    "lingua-mtg10": 'build("lingua", MTG10): the 10 print languages ' + "/".join(MTG10),
}


def measure(backend: str, corpora: dict[str, Corpus], prefetch: bool = True) -> dict:
    """A fresh identifier: ``prefetch`` of all texts, then ``identify`` each; the answers."""
    texts = [item.text for corpus in corpora.values() for item in corpus.items]
    load = round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    identifier = build(backend)
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
    return {
        "backend": backend,
        "prefetch": prefetch,
        "langs": langs,
        "spans": spans,
        "build_s": t1 - t0,
        "prefetch_s": t2 - t1,
        "identify_s": t3 - t2,
        "identify_s_by_corpus": by_corpus,
        "load_before": load,
        "seconds": t3 - t0,
    }


def split(run: dict, corpora: dict[str, Corpus]) -> dict[str, dict]:
    """One run's answers, per corpus."""
    out, start = {}, 0
    for name, corpus in corpora.items():
        end = start + len(corpus.items)
        spans = [tuple(tuple(span) for span in found) for found in run["spans"][start:end]]
        out[name] = {"langs": run["langs"][start:end], "spans": spans}
        start = end
    return out


def startup(backend: str) -> dict:
    """Cold start in a fresh interpreter: import, build, first identification of a ruling."""
    code = (
        "import sys, time, json; t = time.perf_counter(); "
        f"sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); sys.argv = ['x']; import langid; "
        f"i = langid.build({backend!r}); t1 = time.perf_counter(); "
        "i.identify('If the card has {X} in its mana cost, you must choose 0 as the value of X.'); "
        "i.identify('Si la carta tiene {X} en su coste de maná, debes elegir 0 como valor de X.'); "
        "print(json.dumps([t1 - t, time.perf_counter() - t1]))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    build_s, first_s = json.loads(done.stdout.strip().splitlines()[-1])
    return {"import_and_build_s": round(build_s, 3), "first_two_texts_s": round(first_s, 3)}


# --------------------------------------------------------------------------------------
# Scores


def score(corpus: Corpus, result: dict) -> dict:
    """Accuracy per gold language (all / short / long), confusion, examples of errors."""
    langs, out = result["langs"], {}
    by_gold: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(corpus.items):
        by_gold[item.gold].append(index)
    for gold, indexes in sorted(by_gold.items()):
        if "+" in gold:
            continue
        short = [i for i in indexes if len(corpus.items[i].text) < SHORT]
        buckets = {"all": indexes, "short": short, "long": sorted(set(indexes) - set(short))}
        entry = {}
        for bucket, chosen in buckets.items():
            correct = sum(langs[i] == gold for i in chosen)
            entry[bucket] = {
                "n": len(chosen),
                "correct": correct,
                "accuracy": pct(correct, len(chosen)),
            }
        for key, chosen in (("confusion", indexes), ("confusion_short", short)):
            counts = Counter(str(langs[i]) for i in chosen)
            entry[key] = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
        wrong = [i for i in indexes if langs[i] != gold]
        # Long errors first (the surprising ones), then short ones; each group in text order.
        wrong.sort(key=lambda i: (len(corpus.items[i].text) < SHORT, corpus.items[i].text))
        entry["errors"] = [
            {"where": corpus.items[i].where, "got": langs[i], "text": corpus.items[i].text[:160]}
            for i in wrong[:EXAMPLES]
        ]
        out[gold] = entry
    return out


def pooled(corpora: dict[str, Corpus], runs: dict, backend: str) -> dict:
    out = {}
    for bucket in ("all", "short"):
        pairs = [
            (item, lang)
            for name, corpus in corpora.items()
            for item, lang in zip(corpus.items, runs[(backend, name)]["langs"], strict=True)
            if "+" not in item.gold and (bucket == "all" or len(item.text) < SHORT)
        ]
        correct = sum(lang == item.gold for item, lang in pairs)
        out[bucket] = {"n": len(pairs), "correct": correct, "accuracy": pct(correct, len(pairs))}
    return out


def false_spans(corpora: dict[str, Corpus], runs: dict, backend: str) -> dict:
    """Share of pure-language lines that get spans: CR en/zh (rules + glossary), Spanish cards."""
    groups: dict[str, list] = defaultdict(list)
    for corpus_name in ("cr-rules", "cr-glossary", "cards-text"):
        result = runs[(backend, corpus_name)]
        for item, spans in zip(corpora[corpus_name].items, result["spans"], strict=True):
            if corpus_name == "cards-text" and item.gold != "es":
                continue
            source = "cards" if corpus_name == "cards-text" else "cr"
            groups[f"{source}-{item.gold}"].append((item, spans))
            if item.gold == "zh":
                latin = "zh with Latin words" if LATIN_WORD.search(item.text) else "zh, Han only"
                groups[f"cr-{latin}"].append((item, spans))
    out = {}
    for group, members in sorted(groups.items()):
        flagged = [(item, spans) for item, spans in members if spans]
        out[group] = {
            "n": len(members),
            "with_spans": len(flagged),
            "rate": pct(len(flagged), len(members)),
            "examples": [
                {
                    "where": item.where,
                    "text": item.text[:200],
                    "spans": [[lang, s, e, item.text[s:e]] for lang, s, e in spans],
                }
                for item, spans in flagged[:8]
            ],
        }
    overall = [out[g] for g in ("cr-en", "cr-zh", "cards-es") if g in out]
    n, flagged = sum(g["n"] for g in overall), sum(g["with_spans"] for g in overall)
    out["overall"] = {"n": n, "with_spans": flagged, "rate": pct(flagged, n)}
    return out


def span_cases() -> dict:
    out = {}
    for label, (name, number) in GOLD["span_cases"].items():
        text = seed_text(name, number)
        case = {"where": f"{name}:{number}", "text": text, "backends": {}}
        for backend in SPAN_BACKENDS:
            found = build(backend).identify(text)
            spans = [[lang, s, e, text[s:e]] for lang, s, e in found.spans]
            case["backends"][backend] = {"lang": found.lang, "spans": spans}
        out[label] = case
    return out


def seed_listing(corpus: Corpus, runs: dict) -> list[dict]:
    rows = []
    for index, item in enumerate(corpus.items):
        row = {"where": item.where, "gold": item.gold, "text": item.text[:80]}
        for backend in BACKENDS:
            result = runs[(backend, corpus.name)]
            row[backend] = result["langs"][index]
            if result["spans"][index]:
                row[backend + "_spans"] = sorted({lang for lang, _, _ in result["spans"][index]})
        rows.append(row)
    return rows


def mixed_seed_scores(corpus: Corpus, runs: dict) -> dict:
    """For the half-translated Chinese rulings: do the spans name both languages?"""
    out = {}
    for backend in SPAN_BACKENDS:
        result, rows = runs[(backend, corpus.name)], []
        for index, item in enumerate(corpus.items):
            if "+" in item.gold:
                langs = sorted({lang for lang, _, _ in result["spans"][index]})
                rows.append(
                    {
                        "where": item.where,
                        "lang": result["langs"][index],
                        "span_langs": langs,
                        "both_found": set(langs) == set(item.gold.split("+")),
                    }
                )
        out[backend] = rows
    return out


def short_zh_confusion(corpora: dict[str, Corpus], runs: dict) -> dict:
    """Where short Chinese lines go, per backend (all corpora pooled)."""
    out = {}
    for backend in BACKENDS:
        counts = Counter(
            str(lang)
            for name, corpus in corpora.items()
            for item, lang in zip(corpus.items, runs[(backend, name)]["langs"], strict=True)
            if item.gold == "zh" and len(item.text) < SHORT
        )
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
        zh = [item.text for item in corpora[name].items if item.gold == "zh"]
        latin = [text for text in zh if LATIN_WORD.search(text)]
        out[name] = {
            "zh_lines": len(zh),
            "with_latin_words": len(latin),
            "with_any_latin_letter": sum(bool(re.search(r"[A-Za-z]", t)) for t in zh),
            "examples": [text[:100] for text in latin[:5]],
        }
    return out


def parallel_vs_sequential(corpora: dict[str, Corpus]) -> dict:
    """lingua's parallel API against a plain loop, warm models, on the texts that need it."""
    from pipelines.ingest import langid

    texts = set()
    for item in (item for corpus in corpora.values() for item in corpus.items):
        scripts = langid.script_profile(langid.blank_symbols(item.text))
        if scripts and (scripts.get("latin") or not scripts.get("han")):
            texts.add(langid.blank_symbols(item.text))
    todo = sorted(texts)
    detector = langid.build("lingua")._detector
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

    blank = langid.blank_symbols
    texts = [item.text for corpus in corpora.values() for item in corpus.items]
    identifier = langid.build("lingua")
    identifier.prefetch(texts)
    prefetched, asked, detect = set(identifier._detected), set(), identifier._detect

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


def short_text_confidence(corpora: dict[str, Corpus]) -> dict:
    """lingua on short en/es lines by the margin between its two most confident languages:
    could its confidence mark the short texts worth deferring to the document's language?"""
    from pipelines.ingest import langid

    identifier = langid.build("lingua")
    buckets: dict[float, list[int]] = {low: [0, 0] for low in MARGINS}
    for item in (item for corpus in corpora.values() for item in corpus.items):
        if item.gold not in ("en", "es") or len(item.text) >= SHORT:
            continue
        values = identifier._detector.compute_language_confidence_values(
            langid.blank_symbols(item.text)
        )
        if len(values) < 2:
            continue
        low = max(m for m in MARGINS if values[0].value - values[1].value >= m)
        buckets[low][0] += 1
        buckets[low][1] += identifier.identify(item.text).lang == item.gold
    edges = [*MARGINS[1:], 1.0]
    return {
        f"{low:.1f}-{high:.1f}": {"n": n, "correct": ok, "accuracy": pct(ok, n)}
        for (low, (n, ok)), high in zip(buckets.items(), edges, strict=True)
    }


# --------------------------------------------------------------------------------------


def markdown(r: dict) -> str:
    backends, acc, totals = list(r["backends"]), r["accuracy"], r["micro_average"]

    def cell(entry: dict) -> str:
        return f"{entry['all']['accuracy']} ({entry['short']['accuracy']})"

    rows = [
        [corpus, gold, f"{acc[backends[0]][corpus][gold]['all']['n']}"]
        + [cell(acc[b][corpus][gold]) for b in backends]
        for corpus, gold in CORPUS_ROWS
        if gold in acc[backends[0]].get(corpus, {})
    ]
    rows.append(
        [
            "**all pooled**",
            "",
            totals[backends[0]]["all"]["n"],
            *(cell(totals[b]) for b in backends),
        ]
    )
    nones = {
        b: sum(e["confusion"].get("None", 0) for c in acc[b].values() for e in c.values())
        for b in backends
    }
    spans = {
        b: {
            g: f"{v['with_spans']}/{v['n']} ({v['rate']} %)" for g, v in r["false_spans"][b].items()
        }
        for b in SPAN_BACKENDS
    }
    cases = [
        f"- **{label}** (`{case['where']}`): "
        + "; ".join(
            f"{b} `{found['lang']}` {[(s[0], s[3]) for s in found['spans']] or 'no spans'}"
            for b, found in case["backends"].items()
        )
        for label, case in r["span_cases"].items()
    ]
    p, e = r["parallel_vs_sequential"], r["prefetch_effect"]
    out = [
        "# Language identification benchmark",
        "",
        "`python benchmarks/langid.py` (all numbers in `langid.json`; gold and method in the "
        f"script's docstring). Short = under {SHORT} characters."
        + (f" LIMIT {r['limit']} texts per corpus/language." if r["limit"] else ""),
        "",
        machine_line(r["machine"])
        + f" `pipelines/ingest/langid.py` sha256 {r['source']['langid_py_sha256'][:12]}.",
        "",
        "Backends: " + "; ".join(f"**{b}** = {d}" for b, d in r["backends"].items()) + ".",
        "",
        "## Accuracy (%), all lines (short lines in brackets)",
        "",
        md_table(["corpus", "gold", "n", *backends], rows),
        f"Texts left without a language (`None`): {nones}.",
        "",
        "## Throughput",
        "",
        "Each run a fresh interpreter: build, `prefetch(all)`, `identify` each; the median "
        "run of the lingua backends. Startup: import + build, then the first two texts.",
        "",
        md_records(
            {k: v | r["startup"][v["backend"]] for k, v in r["throughput"].items()},
            THROUGHPUT,
            "backend",
        ),
        f"- lingua's parallel API against a plain loop, warm models: {p}",
        f"- what `prefetch` buys: {e}",
        "",
        "Short Chinese lines: "
        + ", ".join(f"{b} ko/ja {v['ko_or_ja_rate']} %" for b, v in r["short_zh_confusion"].items())
        + ".",
        "",
        "## Spans",
        "",
        "False spans: pure-language lines (CR en, CR zh, Spanish card lines) given spans.",
        "",
        md_records(
            spans,
            ["overall", "cr-en", "cr-zh", "cr-zh, Han only", "cr-zh with Latin words", "cards-es"],
            "backend",
        ),
        "Spans on the mixed seed rulings:",
        "",
        *cases,
        "",
        "## lingua's confidence on short en/es lines",
        "",
        md_records(r["lingua_short_confidence"], ["n", "accuracy"], "margin of the top two"),
        "Chinese gold lines with Latin words: "
        + ", ".join(
            f"{n} {c['with_latin_words']}/{c['zh_lines']}" for n, c in r["zh_latin_census"].items()
        )
        + ".",
    ]
    return "\n".join(out)


THROUGHPUT = ["prefetch", "texts", "seconds_of_each_run", "median_run.prefetch_s"]
THROUGHPUT += ["median_run.identify_s", "seconds", "texts_per_s", "import_and_build_s"]
THROUGHPUT += ["first_two_texts_s", "load_average_1min_before_each_run"]


def run_all(limit: int | None, repeat: int) -> dict:
    started = time.perf_counter()
    corpora = load_all(limit)
    for corpus in corpora.values():
        print(f"{corpus.name}: {dict(sorted(Counter(i.gold for i in corpus.items).items()))}")
    runs, throughput, texts = {}, {}, sum(len(c.items) for c in corpora.values())
    modes = [(b, True) for b in BACKENDS] + [(b, False) for b in LINGUA_BACKENDS]
    for backend, prefetch in modes:
        key = backend if prefetch else f"{backend} without prefetch"
        args = ["--child", backend, *(["--limit", limit] if limit else [])]
        args += [] if prefetch else ["--no-prefetch"]
        times = repeat if backend in LINGUA_BACKENDS else 1
        measured = [child_json(__file__, *args) for _ in range(times)]
        first = measured[0]
        if any((m["langs"], m["spans"]) != (first["langs"], first["spans"]) for m in measured):
            raise SystemExit(f"{key}: answers differ between two runs")
        if prefetch:
            runs |= {(backend, name): result for name, result in split(first, corpora).items()}
        median = sorted(measured, key=lambda m: m["seconds"])[len(measured) // 2]
        throughput[key] = {
            "backend": backend,
            "prefetch": prefetch,
            "texts": texts,
            "runs": len(measured),
            "seconds_of_each_run": sorted(round(m["seconds"], 3) for m in measured),
            "load_average_1min_before_each_run": [m["load_before"] for m in measured],
            "median_run": {
                k: round(median[k], 4 if k == "build_s" else 3)
                for k in ("build_s", "prefetch_s", "identify_s")
            }
            | {"identify_s_by_corpus": median["identify_s_by_corpus"]},
            "seconds": round(median["seconds"], 3),
            "texts_per_s": round(texts / median["seconds"], 1),
        }
        if not prefetch:
            answers = split(first, corpora)
            same = all(answers[n] == runs[(backend, n)] for n in corpora)
            throughput[key]["same_answers_as_with_prefetch"] = same
        print(f"{key}: {throughput[key]['seconds_of_each_run']} s", flush=True)
    langid_py = ROOT / "pipelines" / "ingest" / "langid.py"
    return {
        "limit": limit,
        "short_chars": SHORT,
        "backends": BACKENDS,
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
        "excluded": {name: c.excluded for name, c in corpora.items() if c.excluded},
        "accuracy": {b: {n: score(c, runs[(b, n)]) for n, c in corpora.items()} for b in BACKENDS},
        "micro_average": {b: pooled(corpora, runs, b) for b in BACKENDS},
        "throughput": throughput,
        "startup": {backend: startup(backend) for backend in BACKENDS},
        "short_zh_confusion": short_zh_confusion(corpora, runs),
        "false_spans": {b: false_spans(corpora, runs, b) for b in SPAN_BACKENDS},
        "span_cases": span_cases(),
        "mixed_seed_rulings": mixed_seed_scores(corpora["seeds"], runs),
        "seed_listing": seed_listing(corpora["seeds"], runs)
        + seed_listing(corpora["seed-titles"], runs),
        "zh_latin_census": zh_latin_census(corpora),
        "parallel_vs_sequential": parallel_vs_sequential(corpora),
        "prefetch_effect": prefetch_effect(corpora),
        "lingua_short_confidence": short_text_confidence(corpora),
        "source": {"langid_py_sha256": hashlib.sha256(langid_py.read_bytes()).hexdigest()},
        "wall_time_s": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="texts per corpus and language")
    parser.add_argument("--repeat", type=int, default=3, help="cold runs of each lingua backend")
    parser.add_argument("--child", choices=BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--no-prefetch", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:  # one cold measurement, for the parent process
        result = measure(args.child, load_all(args.limit), prefetch=not args.no_prefetch)
        print(json.dumps(result, ensure_ascii=False))
        return 0
    shared_or_exit()
    results = {"machine": machine(), **run_all(args.limit, args.repeat)}
    paths = write_results("langid", results, markdown(results))
    print(f"wrote {paths[0]} and {paths[1].name} ({results['wall_time_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
