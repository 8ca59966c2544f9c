"""Real card-size documents from the MTGJSON set files (English Oracle text and its printed
translations): how the tool pairs their lines, and defects injected into them.

    python benchmarks/card_documents.py          # the evaluation sets in es,zh; a few min
    python benchmarks/card_documents.py --out /tmp/cd --per-kind 10 --seed 7

1. **Documents** (``testkit.cards``): for every card of ``--sets`` with a printed localized
   text in a language, ``OUT/en/<SET>/<slug>.txt`` and ``OUT/<lang>/<SET>/<slug>.txt`` (the
   name, then one card line per paragraph: the current Oracle text, the printed 2006-07
   translation), and ``OUT/manifest.json``; cards whose two texts have a different number of
   lines are skipped and counted. The default sets are the evaluation sets of
   benchmarks/README.md, run with a card index of the tuning sets only (``--index-sets``): a
   new set is in no shipped list.
2. **Inject** (``testkit.cards``): per language, up to ``--per-kind`` documents per defect
   kind get one defect each, on one line; every translated document is written into
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

import shutil
from collections import Counter, defaultdict
from dataclasses import asdict
from pathlib import Path

from common import (
    card_names_of,
    page,
    parser,
    per_100,
    read_jsonl,
    record,
    run_rulings,
    shared_or_exit,
)

from testkit.cards import (
    DEFAULT_SETS,
    KINDS,
    LANGUAGES,
    PER_KIND,
    SEED,
    TUNING_SETS,
    CardDoc,
    Defect,
    apply,
    load_cards,
    paragraph_line,
    select,
    write_documents,
)

EXAMPLES = 8


# --- line pairing -------------------------------------------------------------------------


def unit_key(row: dict) -> tuple[str, int]:
    """(``<SET>/<slug>.txt``, line) of a corpus row or finding, whichever input root it is in."""
    return "/".join(row["file"].replace("\\", "/").split("/")[-2:]), int(row["line"])


def is_source_file(file: str) -> bool:
    """A file of the English root: the tool prefixes clashing paths with their roots' names
    (docs/contract-ids.md)."""
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
        f"--seed {r['seed']} --per-kind {r['per_kind']}"
        + (f" --select {r['select']}" if r.get("select") else "")
        + "` (gold list, missed defects and examples in `inject_cards.json`). One defect per "
        "document, on one card line; English documents untouched. A defect is caught when its "
        "line gets a finding of the expected category"
        + (
            f"; only the codes `--select {r['select']}` names ran."
            if r.get("select")
            else "; the checks that run by default ran."
        ),
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
    cli.add_argument(
        "--index-sets",
        default=",".join(TUNING_SETS),
        help="run with a card index of these sets only (--card-names) instead of the shipped "
        "one, which holds every set of ../shared: the measured sets must not be among them "
        "('shipped' for the shipped one)",
    )
    cli.add_argument("--name", help="results/{card_documents,inject_cards}-NAME")
    cli.add_argument(
        "--select",
        help="rulings run --select: the codes, prefixes or categories to run (default: the "
        "default ones; e.g. 'meaning' to measure a check that is off by default)",
    )
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
    extra: list = []
    if args.index_sets != "shipped":
        index_sets = args.index_sets.split(",")
        if overlap := sorted(set(index_sets) & set(args.sets.split(","))):
            cli.error(f"the index must not hold the measured sets: {', '.join(overlap)}")
        extra = ["--card-names", card_names_of(index_sets, out / "card-names.tsv")]
    if args.select:
        extra += ["--select", args.select]
    both = {"sets": args.sets, "skipped": skipped, "index_sets": args.index_sets}
    both |= {"select": args.select} if args.select else {}
    documents = both | {"langs": args.langs, "pairing": {}}
    injected = both | {"seed": args.seed, "per_kind": args.per_kind, "languages": {}}
    for lang in langs:
        clean, defective = out / "runs" / f"clean-{lang}", out / "runs" / f"defective-{lang}"
        runs = {
            "clean": run_rulings([out / "en", out / lang], clean, *extra),
            "defective": run_rulings([out / "en", out / "defective" / lang], defective, *extra),
        }
        formats = Counter(row.get("format") for row in read_jsonl(clean / "corpus.jsonl"))
        paired = pairing(clean, docs, lang)
        documents["pairing"][lang] = paired | {"run": runs["clean"], "formats": dict(formats)}
        result = injected["languages"][lang] = score(lang, defects, clean, defective)
        result |= {"runs": runs, "pairing": paired}
        caught = f"{sum(g['caught'] for g in result['gold'])}/{len(result['gold'])}"
        paired_share = f"{paired['with_source']}/{paired['lines']} lines with a source"
        print(f"{lang}: {paired_share}, {paired['right_source']} right; {caught} defects caught")
    suffix = f"-{args.name}" if args.name else ""
    record(f"card_documents{suffix}", documents, pairing_markdown)
    record(f"inject_cards{suffix}", injected, injection_markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
