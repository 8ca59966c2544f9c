"""Defect injection into real card-size documents (MTGJSON PLC and FUT, Spanish and Chinese).

Run from the repository root::

    python benchmarks/inject_cards.py                      # work folder /tmp/inject_cards
    python benchmarks/inject_cards.py --out /tmp/ic --per-kind 10 --seed 7

1. **Documents.** ``card_documents.py`` writes one English and one translated document per card
   (``OUT/en``, ``OUT/<lang>``; one card line = one paragraph).
2. **Inject.** A seeded round-robin over the defect kinds (``KINDS``) picks, per language, up to
   ``--per-kind`` documents per kind (one defect per document, on one line) among the lines
   where the kind applies, and writes every translated document into
   ``OUT/defective/<lang>/`` (defective or not; the English files are not touched). The gold
   list records file, line, kind, before and after.
3. **Run** ``rulings run OUT/en OUT/<lang>`` (clean) and ``rulings run OUT/en
   OUT/defective/<lang>`` per language.
4. **Score.** A defect is caught when its line gets a finding of an expected category
   (``KINDS``). Findings on translated lines the benchmark did not touch are counted per 100
   such lines, by code, with examples for review. Results go to
   ``benchmarks/results/inject_cards.{json,md}``.

The injection functions (``inject``, ``select``, ``apply``) are importable and deterministic
for a seed. When ../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from card_documents import (  # noqa: E402
    CardDoc,
    document_text,
    is_source_file,
    load_cards,
    pairing,
    paragraph_line,
    unit_key,
    write_documents,
)
from common import (  # noqa: E402
    machine,
    md_table,
    read_jsonl,
    run_rulings,
    shared_or_exit,
    write_results,
)

SEED = 20070504
PER_KIND = 25
EXAMPLES = 8
ENGLISH = ("untranslated", "mixed-language")
KINDS: dict[str, tuple[str, ...]] = {
    "obsolete-term": ("terminology",),
    "number-in-symbol": ("number", "placeholder"),
    "number-word": ("number",),
    "number-digit": ("number",),
    "english-keyword": ENGLISH,
    "drop-symbol": ("placeholder",),
    "swap-same-card": ("meaning",),
    "english-half": ENGLISH,
    "swap-other-card": ("meaning",),
    "english-sentence": ENGLISH,
    "truncate": ("truncation",),
}
"""Defect kinds, rarest first (the order of the round-robin), and the categories that catch them."""

KEYWORD = (
    r"flying|first strike|double strike|trample|haste|vigilance|reach|defender|flash|fear|"
    r"shadow|flanking|shroud|deathtouch|lifelink|changeling|split second|convoke|delve|storm|"
    r"gravestorm|vanishing|fading|echo|kicker|morph|suspend|madness|flashback|buyback|dredge|"
    r"graft|bloodthirst|transfigure|transmute|fortify|equip|aura swap|\w*cycling|\w+walk|"
    r"protection from \w+|enchant [a-z ]+|poisonous|rampage|frenzy|absorb|amplify|bushido|"
    r"ninjutsu|horsemanship|phasing|wither|persist|evoke|recover|ripple|haunt|entwine|"
    r"replicate|affinity for \w+|sunburst|modular"
)
COST = r"(?:\{[^{}]+\})+"
KEYWORD_PART = re.compile(
    rf"(?:{KEYWORD})(?:\s+(?:X|\d+)(?:—{COST})?|\s*{COST}(?: and/or {COST})?)?", re.IGNORECASE
)
REMINDER = re.compile(r"\s*[(（][^()（）]*[)）]")
SYMBOL = re.compile(r"\{[^{}]+\}")
DROPPABLE = re.compile(r"\{[TXWUBRG]\}")
DIGITS = re.compile(r"(?<![\d/+\-−{])\d+(?![\d/}])")
EN_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
EN_WORDS |= {"eight": 8, "nine": 9, "ten": 10}
ES_WORDS = {"dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8}
ES_WORDS |= {"nueve": 9, "diez": 10}
ES_OF = {v: k for k, v in ES_WORDS.items()} | {11: "once"}
ZH_NUMERALS = {"两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_OF = {3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九", 10: "十"}
ZH_CLASSIFIERS = "个张点次位名只种项条回倍组份道枚堆"
OBSOLETE: dict[str, list[tuple[str, str]]] = {
    "es": [
        (r"\bal campo de batalla\b", "en juego"),
        (r"\ben el campo de batalla\b", "en juego"),
        (r"\bdel campo de batalla\b", "del juego"),
        (r"\blanzar (?=(?:un|el|ese|este|esa|esta) hechizo)", "jugar "),
        (r"\blanzas\b", "juegas"),
        (r"\blanza (?=(?:un|el|ese|este) hechizo)", "juega "),
        (r"\bvalor de maná\b", "coste de maná convertido"),
        (r"\bexiliar\b", "remover del juego"),
        (r"\b[Ee]xilia\b", "remueve del juego"),
        (r"\bexiliad([ao]s?)\b", r"removid\1 del juego"),
    ],
    "zh": [
        ("施放", "使用"),
        ("放逐", "移出对战"),
        ("堆叠", "栈"),
        ("战场上", "场上"),
        ("战场", "场上"),
    ],
}
"""Current term -> an older official one, only where the result stays grammatical."""
CLAUSE = {
    "es": re.compile(r"[,;:.] "),
    "zh": re.compile(r"[，；：。]"),
    "en": re.compile(r"[,;:.] "),
}


@dataclass
class Defect:
    lang: str
    set: str
    slug: str
    file: str
    """``<SET>/<slug>.txt``, under OUT/defective/<lang>."""
    line: int
    """1-based line of the translation file."""
    index: int
    """0-based paragraph (card line)."""
    kind: str
    before: str
    after: str
    english: str
    expected: tuple[str, ...]


# --------------------------------------------------------------------------------------
# Line-local injections: (English line, translated line, language) -> new line or None
# --------------------------------------------------------------------------------------


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
    if is_keyword_line(en):
        return None
    cut_tr, cut_en = _cut(tr, CLAUSE[lang]), _cut(en, CLAUSE["en"])
    if cut_tr is None or cut_en is None:
        return None
    return tr[:cut_tr] + en[cut_en:]


def obsolete_term(en: str, tr: str, lang: str) -> str | None:
    for pattern, old in OBSOLETE[lang]:
        new = re.sub(pattern, old, tr, count=1)
        if new != tr:
            return new
    return None


def _english_numbers(en: str) -> set[int]:
    bare = SYMBOL.sub(" ", en)
    words = {EN_WORDS[w] for w in re.findall(r"[a-z]+", bare.lower()) if w in EN_WORDS}
    return words | {int(d) for d in DIGITS.findall(bare)}


def number_digit(en: str, tr: str, lang: str) -> str | None:
    masked = SYMBOL.sub(lambda m: "#" * len(m.group()), tr)
    numbers = _english_numbers(en)
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
        pattern = re.compile(f"([{''.join(ZH_NUMERALS)}])(?=[{ZH_CLASSIFIERS}])")
        for match in pattern.finditer(tr):
            value = ZH_NUMERALS[match.group(1)]
            if value in numbers:
                return tr[: match.start()] + ZH_OF[value + 1] + tr[match.end() :]
        return None
    for match in re.finditer(r"\b[A-Za-zá]+\b", tr):
        value = ES_WORDS.get(match.group().lower())
        if value in numbers:
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
    "obsolete-term": obsolete_term,
    "number-in-symbol": number_in_symbol,
    "number-word": number_word,
    "number-digit": number_digit,
    "english-keyword": english_keyword,
    "drop-symbol": drop_symbol,
    "english-half": english_half,
    "english-sentence": english_sentence,
    "truncate": truncate,
}


def inject(kind: str, en: str, tr: str, lang: str) -> str | None:
    """The line with one defect of a line-local kind, or None where the kind does not apply."""
    return LINE_KINDS[kind](en, tr, lang)


# --------------------------------------------------------------------------------------
# Selection over documents
# --------------------------------------------------------------------------------------


WHOLE_LINE_ENGLISH = {"english-sentence", "english-keyword"}
"""Kinds that replace a whole line by English: in a one-line document (a split card's face)
nothing translated would be left, and the file would be an English document."""
SYMBOLS_AND_DIGITS = re.compile(r"\{[^{}]*\}|\d+")


def _words(text: str) -> str:
    return " ".join(SYMBOLS_AND_DIGITS.sub(" ", text).split())


def candidates(kind: str, docs: list[CardDoc], rng: random.Random) -> list[tuple[int, int, str]]:
    """(document index, line index, new line) for every place the kind applies."""
    found = []
    if kind in LINE_KINDS:
        for d, doc in enumerate(docs):
            if kind in WHOLE_LINE_ENGLISH and len(doc.lines) < 2:
                continue  # the document would be all English: an English document
            for i, (en, tr) in enumerate(doc.lines):
                after = inject(kind, en, tr, doc.lang)
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
                others = [other for j, other in lines if j != i and other != tr]
                if others:
                    found.append((d, i, others[0]))
    elif kind == "swap-other-card":
        for d, i, en, tr in plain:
            pool = [
                (abs(len(o) - len(tr)), o)
                for od, _oi, oen, o in plain
                if od != d
                and oen != en
                and _words(o) != _words(tr)  # not the same line with another symbol
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
            queue = candidates(kind, own, rng)
            rng.shuffle(queue)
            queues[kind] = queue
        used: set[int] = set()
        count = Counter()
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
                doc = own[d]
                used.add(d)
                count[kind] += 1
                progress = True
                en, tr = doc.lines[i]
                defects.append(
                    Defect(
                        lang,
                        doc.set,
                        doc.slug,
                        doc.path,
                        paragraph_line(i),
                        i,
                        kind,
                        tr,
                        after,
                        en,
                        KINDS[kind],
                    )
                )
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


# --------------------------------------------------------------------------------------
# Runs and scoring
# --------------------------------------------------------------------------------------


def translation_findings(run_dir: Path) -> dict[tuple[str, int], list[dict]]:
    found = defaultdict(list)
    for finding in read_jsonl(run_dir / "findings.jsonl"):
        if finding.get("file") and not is_source_file(finding["file"]):
            found[unit_key(finding)].append(finding)
    return found


def translation_units(run_dir: Path) -> dict[tuple[str, int], dict]:
    rows = read_jsonl(run_dir / "corpus.jsonl")
    return {unit_key(r): r for r in rows if not is_source_file(r["file"])}


def per_100(count: int, units: int) -> float:
    return round(100 * count / max(units, 1), 2)


def score(lang: str, defects: list[Defect], clean: Path, defective: Path) -> dict:
    """Recall per kind, and findings on the translated lines the benchmark did not touch."""
    texts = {row["id"]: row["text"] for row in read_jsonl(defective / "corpus.jsonl")}
    found, clean_found = translation_findings(defective), translation_findings(clean)
    category = {
        f["code"]: f["category"] for fs in [*found.values(), *clean_found.values()] for f in fs
    }
    gold = []
    for x in (d for d in defects if d.lang == lang):
        on_line = found.get((x.file, x.line), [])
        before = {f["code"] for f in clean_found.get((x.file, x.line), [])}
        hits = [f for f in on_line if f["category"] in x.expected]
        gold.append(
            asdict(x)
            | {
                "caught": bool(hits),
                "caught_new": any(f["code"] not in before for f in hits),
                "any_finding": bool(on_line),
                "codes": sorted({f["code"] for f in on_line}),
            }
        )
    recall = {}
    for kind in KINDS:
        rows = [g for g in gold if g["kind"] == kind]
        caught = sum(g["caught"] for g in rows)
        recall[kind] = {
            "injected": len(rows),
            "caught": caught,
            "caught_new": sum(g["caught_new"] for g in rows),
            "any_finding": sum(g["any_finding"] for g in rows),
            "recall": round(caught / len(rows), 4) if rows else None,
            "codes": dict(Counter(c for g in rows for c in g["codes"]).most_common()),
            "missed": [
                {"file": f"{g['file']}:{g['line']}", "after": g["after"], "codes": g["codes"]}
                for g in rows
                if not g["caught"]
            ],
        }
    touched = {(g["file"], g["line"]) for g in gold}
    units = set(translation_units(defective)) - touched
    clean_units = set(translation_units(clean))
    untouched, examples = Counter(), defaultdict(list)
    for key in sorted(units & set(found)):
        for f in found[key]:
            untouched[f["code"]] += 1
            if len(examples[f["code"]]) < EXAMPLES:
                examples[f["code"]].append(
                    {
                        "file": f"{key[0]}:{key[1]}",
                        "text": texts.get(f.get("ruling_id")),
                        "source": texts.get(f.get("source_id")),
                        "message": f["message"],
                    }
                )
    clean_counts = Counter(f["code"] for k in clean_units for f in clean_found.get(k, []))
    elsewhere = Counter(
        f["code"] for k, fs in found.items() if k not in units | touched for f in fs
    )
    codes = sorted(set(untouched) | set(clean_counts), key=lambda c: (-untouched[c], c))
    return {
        "gold": gold,
        "recall": recall,
        "untouched_units": len(units),
        "untouched_findings": sum(untouched.values()),
        "per_100_untouched": per_100(sum(untouched.values()), len(units)),
        "clean_units": len(clean_units),
        "clean_findings": sum(clean_counts.values()),
        "clean_per_100": per_100(sum(clean_counts.values()), len(clean_units)),
        "by_code": {
            code: {
                "category": category[code],
                "untouched": untouched[code],
                "per_100": per_100(untouched[code], len(units)),
                "clean": clean_counts[code],
                "clean_per_100": per_100(clean_counts[code], len(clean_units)),
            }
            for code in codes
        },
        "not_on_a_line": dict(elsewhere.most_common()),
        "examples": dict(examples),
    }


def markdown(data: dict) -> str:
    langs = sorted(data["languages"])
    header, rows = ["defect", "expected category"], []
    for lang in langs:
        header += [f"{lang}: caught", f"{lang}: any finding", f"{lang}: codes on the line"]
    for kind, expected in KINDS.items():
        row = [kind, " / ".join(expected)]
        for lang in langs:
            r = data["languages"][lang]["recall"][kind]
            share = "–" if r["recall"] is None else f"{100 * r['recall']:.0f}%"
            codes = ", ".join(f"{c} {n}" for c, n in list(r["codes"].items())[:5]) or "–"
            row += [f"{r['caught']}/{r['injected']} ({share})", r["any_finding"], codes]
        rows.append(row)
    out = [
        "# Defect injection into real card documents (MTGJSON PLC + FUT)",
        "",
        f"Produced by `python benchmarks/inject_cards.py --seed {data['seed']} --per-kind "
        f"{data['per_kind']}` (gold list, missed defects and examples in `inject_cards.json`). "
        "One defect per document, on one card line; English documents untouched. A defect is "
        "caught when its line gets a finding of the expected category.",
        "",
        "## Recall per kind",
        "",
        md_table(header, rows),
        "## Line pairing on the clean documents",
        "",
        md_table(
            ["lang", "translated lines", "with a source", "right source"],
            [
                [
                    lang,
                    p["lines"],
                    f"{p['with_source']} ({100 * p['share_with_source']:.1f}%)",
                    f"{p['right_source']} ({100 * p['share_right_source']:.1f}%)",
                ]
                for lang in langs
                for p in [data["languages"][lang]["pairing"]]
            ],
        ),
        "## Findings on lines the benchmark did not touch",
        "",
    ]
    for lang in langs:
        r = data["languages"][lang]
        out += [
            f"### {lang}: defective run {r['untouched_findings']} findings on "
            f"{r['untouched_units']} untouched lines, **{r['per_100_untouched']} per 100**; "
            f"clean run {r['clean_findings']} on {r['clean_units']} lines, "
            f"**{r['clean_per_100']} per 100**",
            "",
            md_table(
                ["code", "category", "untouched", "per 100", "clean run", "clean per 100"],
                [
                    [c, v["category"], v["untouched"], v["per_100"], v["clean"], v["clean_per_100"]]
                    for c, v in r["by_code"].items()
                ],
            ),
            "Translation-side findings not on a card line (titles, whole documents), defective "
            "run: " + (", ".join(f"{c} {n}" for c, n in r["not_on_a_line"].items()) or "none"),
            "",
        ]
        for code, items in r["examples"].items():
            out += [f"#### {lang} {code}", ""]
            out.append(
                md_table(
                    ["line", "text", "English", "message"],
                    [[e["file"], e["text"], e["source"], e["message"]] for e in items],
                )
            )
    out.append(f"Machine: `{json.dumps(data['machine'], sort_keys=True)}`")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/inject_cards"))
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--per-kind", type=int, default=PER_KIND)
    parser.add_argument("--sets", default="PLC,FUT")
    parser.add_argument("--langs", default="es,zh")
    args = parser.parse_args(argv)
    shared = shared_or_exit()
    out: Path = args.out
    shutil.rmtree(out, ignore_errors=True)
    langs = args.langs.split(",")
    docs, skipped = load_cards(args.sets.split(","), langs, shared)
    write_documents(out, docs, skipped)
    defects = select(docs, args.per_kind, args.seed)
    for (lang, file), text in apply(docs, defects).items():
        path = out / "defective" / lang / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    data = {"seed": args.seed, "per_kind": args.per_kind, "sets": args.sets, "skipped": skipped}
    data["languages"] = {}
    for lang in langs:
        clean, defective = out / "runs" / f"clean-{lang}", out / "runs" / f"defective-{lang}"
        runs = {
            "clean": run_rulings([out / "en", out / lang], clean),
            "defective": run_rulings([out / "en", out / "defective" / lang], defective),
        }
        result = score(lang, defects, clean, defective)
        result |= {"runs": runs, "pairing": pairing(clean, docs, lang)}
        data["languages"][lang] = result
        caught = sum(g["caught"] for g in result["gold"])
        print(
            f"{lang}: {caught}/{len(result['gold'])} defects caught; "
            f"{result['per_100_untouched']} findings per 100 untouched lines"
        )
    data["machine"] = machine()
    write_results("inject_cards", data, markdown(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
