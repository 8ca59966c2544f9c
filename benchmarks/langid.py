"""Language identification: how each backend of ``pipelines.ingest.langid`` does.

    python benchmarks/langid.py              # full run, a few minutes on 2 cores
    python benchmarks/langid.py --limit 200  # a quick look (at most 200 texts per corpus/language)

Backends (``BACKENDS``): ``langdetect-raw`` (langdetect's own top guess over its 55
languages, no project logic), the project's ``langdetect`` and ``lingua`` (candidates
en/es/zh), ``lingua-mtg10`` (the ten languages Magic is printed in: what a broader candidate
set costs).

Gold: every non-blank line of the English CR is ``en`` and of the line-aligned Chinese CR
``zh``; MTGJSON card text lines by their printing's language; the seed rulings, titles and
span cases are hand-labelled in ``data/langid_gold.json``. Texts are de-duplicated and sorted
per corpus and language; langdetect is seeded, so every number but the timings is reproducible.
Each timed run is a fresh interpreter making the pipeline's calls (``prefetch`` of all texts,
then ``identify`` each); lingua runs are repeated and the median kept. Also: false spans on
pure-language lines, and spans on the mixed seed rulings. Writes ``results/langid.*``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from common import (
    CR,
    CR_EN,
    CR_ZH,
    HIDDEN,
    ROOT,
    SHARED,
    child_json,
    data,
    md_table,
    mtgjson,
    page,
    parser,
    read_lines,
    record,
    shared_or_exit,
)

GOLD = data("langid_gold")
MTG10 = ("en", "es", "fr", "de", "it", "pt", "ja", "ko", "ru", "zh")
BACKENDS = {
    "langdetect-raw": "langdetect, unrestricted top guess (55 languages)",
    "langdetect": 'project backend build("langdetect"), candidates en/es/zh',
    "lingua": 'project default build("lingua"), candidates en/es/zh',
    "lingua-mtg10": 'build("lingua", MTG10): the 10 print languages ' + "/".join(MTG10),
}
SPAN_BACKENDS = ("langdetect", "lingua", "lingua-mtg10")
LINGUA_BACKENDS = ("lingua", "lingua-mtg10")
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


# --- corpora ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    text: str
    gold: str
    where: str  # where the text comes from (first occurrence): file:line or set/card


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
        for group in (by_gold[gold] for gold in sorted(by_gold)):
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
    rules = ("CR rule lines: section headings, rules, examples", credits_[0] + 1, glossary[-1])
    parts = {
        "cr-rules": rules,
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
        cards = mtgjson(code)["data"]["cards"]
        for number, card in enumerate(cards):
            where = f"{code}/{card.get('number', number)}"
            for key in ("text", "originalText"):
                lines = (card.get(key) or "").splitlines()
                text.items += [Item(x.strip(), "en", f"{where} {key}") for x in lines if letters(x)]
            for foreign in card.get("foreignData", []):
                if (gold := MTGJSON_LANGS.get(foreign["language"])) is None:
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


def load_all(limit: int | None) -> dict[str, Corpus]:
    corpora = [*load_cr(limit), *load_cards(limit)]
    for name, labels in (("seeds", "rulings"), ("seed-titles", "titles")):
        corpus = Corpus(name, f"the seed files' {labels}, hand-labelled (langid_gold.json)")
        for file, gold in GOLD[labels].items():
            corpus.items += [
                Item(seed_text(file, int(n)), lang, f"{file[:3]}:{n}") for n, lang in gold.items()
            ]
        corpus.items.sort(key=lambda item: (item.where, item.text))
        corpora.append(corpus)
    return {c.name: c for c in corpora}


# --- backends and runs --------------------------------------------------------------------


class RawLangdetect:
    """langdetect as it comes: top guess over all of its languages, seeded; no spans."""

    def __init__(self) -> None:
        from langdetect import DetectorFactory
        from langdetect.detector_factory import PROFILES_DIRECTORY

        self._factory = DetectorFactory()
        self._factory.load_profile(PROFILES_DIRECTORY)
        self._factory.set_seed(0)

    def prefetch(self, texts) -> None:
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

    if backend == "langdetect-raw":
        return RawLangdetect()
    return langid.build("lingua", MTG10) if backend == "lingua-mtg10" else langid.build(backend)


def measure(backend: str, corpora: dict[str, Corpus]) -> dict:
    """In a fresh interpreter: ``prefetch`` of all texts, then ``identify`` each; the answers."""
    texts = [item.text for corpus in corpora.values() for item in corpus.items]
    load, t0 = round(os.getloadavg()[0], 2), time.perf_counter()
    identifier = build(backend)
    t1 = time.perf_counter()
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
        out[name] = {"langs": run["langs"][start:end], "spans": run["spans"][start:end]}
        start = end
    return out


# --- scores -------------------------------------------------------------------------------


def _bucket(chosen: list[int], langs: list, gold: str) -> dict:
    correct = sum(langs[i] == gold for i in chosen)
    return {"n": len(chosen), "correct": correct, "accuracy": pct(correct, len(chosen))}


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
        entry = {
            "all": _bucket(indexes, langs, gold),
            "short": _bucket(short, langs, gold),
            "long": _bucket(sorted(set(indexes) - set(short)), langs, gold),
        }
        for key, chosen in (("confusion", indexes), ("confusion_short", short)):
            counts = Counter(str(langs[i]) for i in chosen)
            entry[key] = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
        # Long errors first (the surprising ones), then short ones; each group in text order.
        wrong = sorted(
            (i for i in indexes if langs[i] != gold),
            key=lambda i: (len(corpus.items[i].text) < SHORT, corpus.items[i].text),
        )
        entry["errors"] = [
            {"where": corpus.items[i].where, "got": langs[i], "text": corpus.items[i].text[:160]}
            for i in wrong[:EXAMPLES]
        ]
        out[gold] = entry
    return out


def answers(corpora: dict[str, Corpus], runs: dict, backend: str):
    """(item, language, spans) of every text, all corpora."""
    for name, corpus in corpora.items():
        result = runs[(backend, name)]
        yield from (
            (name, item, *a)
            for item, *a in zip(corpus.items, result["langs"], result["spans"], strict=True)
        )


def pooled(corpora: dict[str, Corpus], runs: dict, backend: str) -> dict:
    out = {}
    for bucket in ("all", "short"):
        pairs = [
            (item, lang)
            for _, item, lang, _ in answers(corpora, runs, backend)
            if "+" not in item.gold and (bucket == "all" or len(item.text) < SHORT)
        ]
        correct = sum(lang == item.gold for item, lang in pairs)
        out[bucket] = {"n": len(pairs), "correct": correct, "accuracy": pct(correct, len(pairs))}
    return out


def false_spans(corpora: dict[str, Corpus], runs: dict, backend: str) -> dict:
    """Share of pure-language lines that get spans: CR en/zh (rules + glossary), Spanish cards."""
    groups: dict[str, list] = defaultdict(list)
    for name, item, _, spans in answers(corpora, runs, backend):
        if name not in ("cr-rules", "cr-glossary", "cards-text") or (
            name == "cards-text" and item.gold != "es"
        ):
            continue
        groups[f"{'cards' if name == 'cards-text' else 'cr'}-{item.gold}"].append((item, spans))
        if item.gold == "zh":
            latin = "zh with Latin words" if LATIN_WORD.search(item.text) else "zh, Han only"
            groups[f"cr-{latin}"].append((item, spans))
    out = {}
    for group, members in sorted(groups.items()):
        flagged = [(item, spans) for item, spans in members if spans]
        examples = [
            {
                "where": item.where,
                "text": item.text[:200],
                "spans": [[lang, s, e, item.text[s:e]] for lang, s, e in spans],
            }
            for item, spans in flagged[:8]
        ]
        n = len(members)
        out[group] = {"n": n, "with_spans": len(flagged), "rate": pct(len(flagged), n)}
        out[group]["examples"] = examples
    overall = [out[g] for g in ("cr-en", "cr-zh", "cards-es") if g in out]
    n, flagged = sum(g["n"] for g in overall), sum(g["with_spans"] for g in overall)
    out["overall"] = {"n": n, "with_spans": flagged, "rate": pct(flagged, n)}
    return out


def span_cases() -> dict:
    out = {}
    for label, (name, number) in GOLD["span_cases"].items():
        text = seed_text(name, number)
        case = out[label] = {"where": f"{name}:{number}", "text": text, "backends": {}}
        for backend in SPAN_BACKENDS:
            found = build(backend).identify(text)
            spans = [[lang, s, e, text[s:e]] for lang, s, e in found.spans]
            case["backends"][backend] = {"lang": found.lang, "spans": spans}
    return out


def mixed_seed_scores(corpus: Corpus, runs: dict) -> dict:
    """For the half-translated Chinese rulings: do the spans name both languages?"""
    out = {}
    for backend in SPAN_BACKENDS:
        result, out[backend] = runs[(backend, corpus.name)], []
        for index, item in enumerate(corpus.items):
            if "+" in item.gold:
                langs = sorted({lang for lang, _, _ in result["spans"][index]})
                out[backend].append(
                    {
                        "where": item.where,
                        "lang": result["langs"][index],
                        "span_langs": langs,
                        "both_found": set(langs) == set(item.gold.split("+")),
                    }
                )
    return out


def short_zh_confusion(corpora: dict[str, Corpus], runs: dict) -> dict:
    """Where short Chinese lines go, per backend (all corpora pooled)."""
    out = {}
    for backend in BACKENDS:
        counts = Counter(
            str(lang)
            for _, item, lang, _ in answers(corpora, runs, backend)
            if item.gold == "zh" and len(item.text) < SHORT
        )
        n = sum(counts.values())
        out[backend] = {
            "n": n,
            "predicted": dict(counts.most_common()),
            "ko_or_ja_rate": pct(counts["ko"] + counts["ja"], n),
        }
    return out


# ------------------------------------------------------------------------------------------

THROUGHPUT = ["texts", "seconds_of_each_run", "median_run.prefetch_s", "median_run.identify_s"]
THROUGHPUT += ["seconds", "texts_per_s", "load_average_1min_before_each_run"]
SPAN_COLUMNS = ["overall", "cr-en", "cr-zh", "cr-zh, Han only", "cr-zh with Latin words"]
SPAN_COLUMNS += ["cards-es"]


def markdown(r: dict) -> str:
    backends, acc, totals = list(r["backends"]), r["accuracy"], r["micro_average"]

    def cell(entry: dict) -> str:
        return f"{entry['all']['accuracy']} ({entry['short']['accuracy']})"

    rows = [
        [
            corpus,
            gold,
            acc[backends[0]][corpus][gold]["all"]["n"],
            *(cell(acc[b][corpus][gold]) for b in backends),
        ]
        for corpus, gold in CORPUS_ROWS
        if gold in acc[backends[0]].get(corpus, {})
    ]
    pooled_n = totals[backends[0]]["all"]["n"]
    rows.append(["**all pooled**", "", pooled_n, *(cell(totals[b]) for b in backends)])
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
    short_zh = ", ".join(
        f"{b} ko/ja {v['ko_or_ja_rate']} %" for b, v in r["short_zh_confusion"].items()
    )
    limit = f" LIMIT {r['limit']} texts per corpus/language." if r["limit"] else ""
    return page(
        "Language identification benchmark",
        "`python benchmarks/langid.py` (all numbers in `langid.json`; gold and method in the "
        f"script's docstring). Short = under {SHORT} characters.{limit} "
        f"`pipelines/ingest/langid.py` sha256 {r['source']['langid_py_sha256'][:12]}.",
        r["machine"],
        "Backends: " + "; ".join(f"**{b}** = {d}" for b, d in r["backends"].items()) + ".",
        "## Accuracy (%), all lines (short lines in brackets)",
        md_table(["corpus", "gold", "n", *backends], rows),
        f"Texts left without a language (`None`): {nones}. Short Chinese lines: {short_zh}.",
        "## Throughput",
        "Each run a fresh interpreter: build, `prefetch(all)`, `identify` each; the median run of "
        "the lingua backends.",
        (r["throughput"], THROUGHPUT, "backend"),
        "## Spans",
        "False spans: pure-language lines (CR en, CR zh, Spanish card lines) given spans.",
        (spans, SPAN_COLUMNS, "backend"),
        "Spans on the mixed seed rulings:",
        "\n".join(cases),
    )


def run_all(limit: int | None, repeat: int) -> dict:
    started = time.perf_counter()
    corpora = load_all(limit)
    for corpus in corpora.values():
        print(f"{corpus.name}: {dict(sorted(Counter(i.gold for i in corpus.items).items()))}")
    runs, throughput, texts = {}, {}, sum(len(c.items) for c in corpora.values())
    for backend in BACKENDS:
        args = ["--child", backend, *(["--limit", limit] if limit else [])]
        measured = [
            child_json(__file__, *args) for _ in range(repeat if backend in LINGUA_BACKENDS else 1)
        ]
        first = measured[0]
        if any((m["langs"], m["spans"]) != (first["langs"], first["spans"]) for m in measured):
            raise SystemExit(f"{backend}: answers differ between two runs")
        runs |= {(backend, name): result for name, result in split(first, corpora).items()}
        median = sorted(measured, key=lambda m: m["seconds"])[len(measured) // 2]
        throughput[backend] = {
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
        print(f"{backend}: {throughput[backend]['seconds_of_each_run']} s", flush=True)
    counts = {
        name: {
            "description": c.description,
            "n": dict(sorted(Counter(i.gold for i in c.items).items())),
            "short": dict(sorted(Counter(i.gold for i in c.items if len(i.text) < SHORT).items())),
        }
        for name, c in corpora.items()
    }
    langid_py = (ROOT / "pipelines" / "ingest" / "langid.py").read_bytes()
    return {
        "limit": limit,
        "short_chars": SHORT,
        "backends": BACKENDS,
        "corpora": counts,
        "excluded": {name: c.excluded for name, c in corpora.items() if c.excluded},
        "accuracy": {b: {n: score(c, runs[(b, n)]) for n, c in corpora.items()} for b in BACKENDS},
        "micro_average": {b: pooled(corpora, runs, b) for b in BACKENDS},
        "throughput": throughput,
        "short_zh_confusion": short_zh_confusion(corpora, runs),
        "false_spans": {b: false_spans(corpora, runs, b) for b in SPAN_BACKENDS},
        "span_cases": span_cases(),
        "mixed_seed_rulings": mixed_seed_scores(corpora["seeds"], runs),
        "source": {"langid_py_sha256": hashlib.sha256(langid_py).hexdigest()},
        "wall_time_s": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"langid": markdown})
    cli.add_argument("--limit", type=int, default=None, help="texts per corpus and language")
    cli.add_argument("--repeat", type=int, default=3, help="cold runs of each lingua backend")
    cli.add_argument("--child", choices=BACKENDS, help=HIDDEN)
    args = cli.parse_args(argv)
    if args.child:  # one cold measurement, for the parent process
        print(json.dumps(measure(args.child, load_all(args.limit)), ensure_ascii=False))
        return 0
    shared_or_exit()
    record("langid", run_all(args.limit, args.repeat), markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
