"""Real card-size documents from the MTGJSON set files (English Oracle text and its printed
translations): how the tool pairs their lines, and defects injected into them.

    python benchmarks/card_documents.py                          # PLC,FUT in es,zh; a few min
    python benchmarks/card_documents.py --out /tmp/cd --per-kind 10 --seed 7

1. **Documents.** For every card of ``--sets`` with a printed localized text in a language,
   ``OUT/en/<SET>/<slug>.txt`` (the English name, a blank line, then each line of the current
   Oracle text as a paragraph) and ``OUT/<lang>/<SET>/<slug>.txt`` (the localized name, then
   each line of the printed 2006-07 text, the same way), and ``OUT/manifest.json``. Cards
   whose two texts have a different number of lines are skipped and counted. TSP is the set
   the checks were tuned on; PLC and FUT (the default) are for evaluation.
2. **Inject.** A seeded round-robin over the defect kinds (``KINDS``, rarest first) picks,
   per language, up to ``--per-kind`` documents per kind (one defect per document, on one
   line) among the lines where the kind applies, and writes every translated document into
   ``OUT/defective/<lang>/``. The gold list records file, line, kind, before and after.
3. **Run** ``rulings run OUT/en OUT/<lang>`` (clean) and ``rulings run OUT/en
   OUT/defective/<lang>`` per language.
4. **Score.** ``results/card_documents``: how many translated lines of the clean run the tool
   pairs with an English line, and with the right one (same card, same line, or an English
   line with the same text). ``results/inject_cards``: a defect is caught when its line gets
   a finding of an expected category; findings on translated lines no defect touched, per
   100 such lines, by code, with examples.

Deterministic for a seed. When ../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import unicodedata
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from common import (
    SHARED,
    data,
    mtgjson,
    page,
    parser,
    per_100,
    read_jsonl,
    record,
    run_rulings,
    shared_or_exit,
)

LANGUAGES = {"es": "Spanish", "zh": "Chinese Simplified"}
"""Language code -> MTGJSON foreignData language."""
DEFAULT_SETS = ("PLC", "FUT")
"""TSP is the tuning set: the default leaves it out."""
SEED, PER_KIND, EXAMPLES = 20070504, 25, 8
DATA, NUMBERS = data("card_documents"), data("number_words")
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


def unit_key(row: dict) -> tuple[str, int]:
    """(``<SET>/<slug>.txt``, line) of a corpus row or finding, whichever input root it is in."""
    return "/".join(row["file"].replace("\\", "/").split("/")[-2:]), int(row["line"])


def is_source_file(file: str) -> bool:
    """A file of the English root: the tool prefixes a clashing path with its root's name."""
    prefix = file.replace("\\", "/").split("/")[:-2]
    return not prefix or prefix[-1] == "en"


def pairing(run_dir: Path, docs: list[CardDoc], lang: str) -> dict:
    """Share of translated lines the tool pairs with an English line, and with the right one:
    the same card's line at the same position, or any English unit with that line's text (a
    template from another card with identical text is right too)."""
    corpus = {row["id"]: row for row in read_jsonl(run_dir / "corpus.jsonl")}
    english = {
        (d.path, paragraph_line(i)): en
        for d in docs
        if d.lang == lang
        for i, (en, _) in enumerate(d.lines)
    }
    targets = {
        rid: unit_key(row)
        for rid, row in corpus.items()
        if not is_source_file(row["file"]) and unit_key(row) in english
    }
    sources: dict[tuple, dict | None] = dict.fromkeys(targets.values())
    methods: Counter[str] = Counter()
    for row in read_jsonl(run_dir / "alignment.jsonl"):
        key = targets.get(row.get("target_id"))
        if key is not None and row.get("source_id"):
            sources[key] = corpus.get(row["source_id"], {"file": "?/?", "line": 0, "text": None})
            methods[row["method"]] += 1
    paired = {key: source for key, source in sources.items() if source}
    right = [k for k, s in paired.items() if unit_key(s) == k or s["text"] == english[k]]
    return {
        "lines": len(english),
        "lines_read_as_units": len(targets),
        "with_source": len(paired),
        "right_source": len(right),
        "share_with_source": round(len(paired) / len(english), 4),
        "share_right_source": round(len(right) / len(english), 4),
        "methods": dict(sorted(methods.items())),
        "unpaired": sorted(
            f"{p}:{n} {english[p, n]!r}" for p, n in english if (p, n) not in paired
        ),
        "wrong_source": sorted(
            f"{k[0]}:{k[1]} <- {s['file']}:{s['line']} {s['text']!r}"
            for k, s in paired.items()
            if k not in right
        ),
    }


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


# --- scoring ------------------------------------------------------------------------------


def translation_side(run_dir: Path) -> tuple[set[tuple[str, int]], dict[tuple, list[dict]]]:
    """The translated units (file, line) of a run, and the findings on each."""
    rows = read_jsonl(run_dir / "corpus.jsonl")
    units = {unit_key(row) for row in rows if not is_source_file(row["file"])}
    found = defaultdict(list)
    for finding in read_jsonl(run_dir / "findings.jsonl"):
        if finding.get("file") and not is_source_file(finding["file"]):
            found[unit_key(finding)].append(finding)
    return units, found


def score(lang: str, defects: list[Defect], clean: Path, defective: Path) -> dict:
    """Recall per kind, and findings on the translated lines the benchmark did not touch."""
    texts = {row["id"]: row["text"] for row in read_jsonl(defective / "corpus.jsonl")}
    (units, found), (clean_units, clean_found) = (
        translation_side(defective),
        translation_side(clean),
    )
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
    units -= touched
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
    n, m = len(units), len(clean_units)
    return {
        "gold": gold,
        "recall": recall,
        "untouched_units": n,
        "untouched_findings": untouched.total(),
        "per_100_untouched": per_100(untouched.total(), max(n, 1)),
        "clean_units": m,
        "clean_findings": clean_counts.total(),
        "clean_per_100": per_100(clean_counts.total(), max(m, 1)),
        "by_code": {
            code: {
                "category": category[code],
                "untouched": untouched[code],
                "per_100": per_100(untouched[code], max(n, 1)),
                "clean": clean_counts[code],
                "clean_per_100": per_100(clean_counts[code], max(m, 1)),
            }
            for code in codes
        },
        "not_on_a_line": dict(elsewhere.most_common()),
        "examples": dict(examples),
    }


# --- results ------------------------------------------------------------------------------

PAIRING = ["lines", "lines_read_as_units", "with_source", "share_with_source", "right_source"]
PAIRING += ["share_right_source", "methods"]


def pairing_markdown(r: dict) -> str:
    lists = [
        f"## {lang}: {title} ({len(p[key])})\n\n" + "\n".join(f"- `{line}`" for line in p[key])
        for lang, p in r["pairing"].items()
        for key, title in (
            ("unpaired", "lines without a source"),
            ("wrong_source", "lines paired with another line"),
        )
    ]
    return page(
        "Card documents: line pairing",
        "Produced by `python benchmarks/card_documents.py "
        f"--sets {r['sets']} --langs {r['langs']}`: `rulings run OUT/en OUT/<lang>`, one card "
        "line = one paragraph. Right source: the same card's line, or an English line with the "
        "same text.",
        r["machine"],
        (r["pairing"], PAIRING, "lang"),
        "Cards kept, and skipped for a different number of lines:",
        (r["skipped"], ["kept", "line_count"], "lang/set"),
        *lists,
    )


def injection_markdown(r: dict) -> str:
    recall = {
        kind: {"expected": " / ".join(expected)}
        | {
            f"{lang}: caught, any, codes": f"{x['caught']}/{x['injected']}, {x['any_finding']}, "
            + (", ".join(f"{c} {n}" for c, n in list(x["codes"].items())[:5]) or "–")
            for lang, data in r["languages"].items()
            for x in [data["recall"][kind]]
        }
        for kind, expected in KINDS.items()
    }
    parts = []
    for lang, x in r["languages"].items():
        parts += [
            f"### {lang}: defective run {x['untouched_findings']} findings on "
            f"{x['untouched_units']} untouched lines, **{x['per_100_untouched']} per 100**; clean "
            f"run {x['clean_findings']} on {x['clean_units']} lines, "
            f"**{x['clean_per_100']} per 100**",
            (x["by_code"], ["category", "untouched", "per_100", "clean", "clean_per_100"], "code"),
            "Translation-side findings not on a card line (titles, whole documents), defective "
            "run: " + (", ".join(f"{c} {n}" for c, n in x["not_on_a_line"].items()) or "none"),
        ]
    first = next(iter(r["languages"].values()), {})
    return page(
        "Defect injection into real card documents (MTGJSON PLC + FUT)",
        "Produced by `python benchmarks/card_documents.py "
        f"--seed {r['seed']} --per-kind {r['per_kind']}` (gold list, missed defects and examples "
        "in `inject_cards.json`). One defect per document, on one card line; English documents "
        "untouched. A defect is caught when its line gets a finding of the expected category.",
        r["machine"],
        "## Recall per kind",
        (recall, list(next(iter(recall.values()), {})), "defect"),
        "## Line pairing on the clean documents",
        ({lang: x["pairing"] for lang, x in r["languages"].items()}, PAIRING[:5], "lang")
        if first
        else None,
        "## Findings on lines the benchmark did not touch",
        *parts,
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"card_documents": pairing_markdown, "inject_cards": injection_markdown})
    cli.add_argument("--out", type=Path, default=Path("/tmp/card_documents"), help="emptied")
    cli.add_argument("--sets", default=",".join(DEFAULT_SETS))
    cli.add_argument("--langs", default=",".join(LANGUAGES))
    cli.add_argument("--seed", type=int, default=SEED)
    cli.add_argument("--per-kind", type=int, default=PER_KIND)
    args = cli.parse_args(argv)
    shared = shared_or_exit()
    out, langs = args.out, args.langs.split(",")
    shutil.rmtree(out, ignore_errors=True)
    docs, skipped = load_cards(args.sets.split(","), langs, shared)
    write_documents(out, docs, skipped)
    defects = select(docs, args.per_kind, args.seed)
    for (lang, file), text in apply(docs, defects).items():
        path = out / "defective" / lang / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    both = {"sets": args.sets, "skipped": skipped}
    documents = both | {"langs": args.langs, "pairing": {}}
    injected = both | {"seed": args.seed, "per_kind": args.per_kind, "languages": {}}
    for lang in langs:
        clean, defective = out / "runs" / f"clean-{lang}", out / "runs" / f"defective-{lang}"
        runs = {
            "clean": run_rulings([out / "en", out / lang], clean),
            "defective": run_rulings([out / "en", out / "defective" / lang], defective),
        }
        formats = Counter(row.get("format") for row in read_jsonl(clean / "corpus.jsonl"))
        paired = pairing(clean, docs, lang)
        documents["pairing"][lang] = paired | {"run": runs["clean"], "formats": dict(formats)}
        result = injected["languages"][lang] = score(lang, defects, clean, defective)
        result |= {"runs": runs, "pairing": paired}
        caught = f"{sum(g['caught'] for g in result['gold'])}/{len(result['gold'])}"
        paired_share = f"{paired['with_source']}/{paired['lines']} lines with a source"
        print(f"{lang}: {paired_share}, {paired['right_source']} right; {caught} defects caught")
    record("card_documents", documents, pairing_markdown)
    record("inject_cards", injected, injection_markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
