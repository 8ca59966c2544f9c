"""INCON002 (one translation used for English that says different things) on real data: how
many findings per 100 translated units, on the tuning data and on the evaluation data, and
a seeded sample of the evaluation findings for a reviewer who has not seen them.

    python benchmarks/incon002.py                                   # both splits, ~25 min
    python benchmarks/incon002.py --split tuning --out /tmp/incon   # the tuning data only
    python benchmarks/incon002.py --sample /work/briefs/incon002_sample.jsonl

The split is benchmarks/README.md's, fixed before any tuning: card documents
(``testkit.cards``: every card of the sets with a printed text in the language, the Oracle
English beside it) of the tuning sets TSP PLC FUT RAV ISD KTK AKH DOM ELD and the 2023
Comprehensive Rules (en/zh), against the evaluation sets M10 RTR BFZ WAR THB IKO and the
2022 rules. Each split is one ``rulings run`` of its card documents (en, es, zh) and one of
its rules pair. The evaluation findings are counted and sampled, never read to change the
check: the sample (up to ``--sample-size``, seeded) holds each finding with both English
texts, the shared translation and the file and line, for an independent judge.
When ../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from common import page, parser, per_100, read_jsonl, record, run_rulings, shared_or_exit

from testkit.cards import EVALUATION_SETS, TUNING_SETS, load_cards, write_documents

SPLITS = {
    "tuning": {"sets": TUNING_SETS, "rules": "20231013"},
    "evaluation": {"sets": EVALUATION_SETS, "rules": "20220610"},
}
SEED = 37
SAMPLE_SIZE = 60


def run_split(name: str, out: Path, shared: Path) -> dict:
    """The split's two runs; per run the translated units and the INCON002 findings."""
    split = SPLITS[name]
    folder = out / name
    shutil.rmtree(folder, ignore_errors=True)
    docs, skipped = load_cards(split["sets"], ("es", "zh"), shared)
    write_documents(folder / "cards", docs, skipped)
    rules = folder / "rules"
    rules.mkdir(parents=True)
    for lang in ("en", "zh"):
        name_of = f"MagicCompRules_{split['rules']}_{lang}.txt"
        shutil.copy(shared / "data" / "cr" / name_of, rules / name_of)
    runs = {}
    inputs = {
        "cards": [folder / "cards" / lang for lang in ("en", "es", "zh")],
        "rules": [rules],
    }
    for kind, paths in inputs.items():
        run = folder / f"run-{kind}"
        done = run_rulings(paths, run)
        corpus = {row["id"]: row for row in read_jsonl(run / "corpus.jsonl")}
        units = sum(1 for row in corpus.values() if row.get("doc_kind") == "translation")
        found = [f for f in read_jsonl(run / "findings.jsonl") if f["code"] == "INCON002"]
        runs[kind] = {
            "run": done,
            "translated_units": units,
            "findings": len(found),
            "per_100_units": per_100(len(found), units),
            "by_lang": _count(f["lang"] for f in found),
            "_findings": [_shown(f, corpus, kind) for f in found],
        }
    return {"sets": list(split["sets"]), "rules": split["rules"], "runs": runs}


def _count(values) -> dict:
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def _shown(finding: dict, corpus: dict, kind: str) -> dict:
    """A finding as the reviewer reads it: the shared translation, this unit's English and
    the other English it was used for, where it is."""
    other = corpus.get(finding["evidence"].get("other_source"), {})
    own = corpus.get(finding["source_id"], {})
    return {
        "run": kind,
        "lang": finding["lang"],
        "file": finding["file"],
        "line": finding["line"],
        "ruling_id": finding["ruling_id"],
        "translation": finding["evidence"]["translation"],
        "english": own.get("text"),
        "other_english": other.get("text"),
        "other_english_id": other.get("id"),
        "other_translations": next(
            (
                v["rulings"]
                for v in finding["evidence"]["variants"]
                if v["source_id"] == other.get("id")
            ),
            [],
        ),
        "says_not_in_english": finding["evidence"]["says_not_in_source"],
        "message": finding["message"],
        "fingerprint": finding["fingerprint"],
    }


def markdown(results: dict) -> str:
    rows = []
    for split, measured in results["splits"].items():
        for kind, run in measured["runs"].items():
            langs = ", ".join(f"{k} {v}" for k, v in run["by_lang"].items()) or "–"
            rows.append(
                f"| {split} | {kind} | {run['translated_units']:,} | {run['findings']} | "
                f"{run['per_100_units']} | {langs} |"
            )
    table = "\n".join(
        [
            "| split | data | translated units | INCON002 | per 100 units | by language |",
            "|---|---|---:|---:|---:|---|",
            *rows,
        ]
    )
    sample = results.get("sample")
    if sample and sample["of"]:
        sampled = (
            f"A seeded sample (seed {results['seed']}) of {sample['size']} of the "
            f"{sample['of']} evaluation findings was written for an independent reviewer "
            f"(`{sample['path']}`): each with the shared translation, both English texts and "
            "the file and line. Its verdicts are not in yet: the precision is not recorded here."
        )
    elif sample:
        sampled = (
            "The evaluation data gave no finding, so there is nothing to sample: no false "
            f"alarm in {_evaluated(results):,} translated units, and no precision measured "
            "on unseen data (the defect is rare in printed card text)."
        )
    else:
        sampled = "No evaluation sample was written."
    tuning = [
        f"{f['file']}:{f['line']} ({f['lang']}): “{f['translation'][:90]}” for “"
        f"{(f['english'] or '')[:90]}”, the translation of “{(f['other_english'] or '')[:90]}”"
        for run in results["splits"].get("tuning", {}).get("runs", {}).values()
        for f in run.get("findings_shown", [])
    ]
    return page(
        "INCON002 on real data: one translation for different English",
        "Card documents of the MTGJSON sets (the printed Spanish and Chinese text of each "
        "card beside its Oracle English) and the Comprehensive Rules, split as "
        "benchmarks/README.md fixes it: the check was tuned on the tuning split only; the "
        "evaluation split was counted and sampled, not read.",
        results["machine"],
        table,
        sampled,
        "The tuning findings (read while tuning):" if tuning else None,
        tuning or None,
    )


def _evaluated(results: dict) -> int:
    runs = results["splits"].get("evaluation", {}).get("runs", {}).values()
    return sum(run["translated_units"] for run in runs)


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"incon002": markdown})
    cli.add_argument("--out", type=Path, default=Path("/tmp/incon002"), help="emptied")
    cli.add_argument("--split", choices=[*SPLITS, "both"], default="both")
    cli.add_argument("--sample", type=Path, help="write the evaluation sample here (JSONL)")
    cli.add_argument("--sample-size", type=int, default=SAMPLE_SIZE)
    cli.add_argument("--seed", type=int, default=SEED)
    args = cli.parse_args(argv)
    shared = shared_or_exit()
    names = list(SPLITS) if args.split == "both" else [args.split]
    splits = {name: run_split(name, args.out, shared) for name in names}
    results: dict = {"seed": args.seed, "splits": splits}
    if "evaluation" in splits and args.sample:
        found = [f for run in splits["evaluation"]["runs"].values() for f in run["_findings"]]
        chosen = random.Random(args.seed).sample(found, min(args.sample_size, len(found)))
        args.sample.parent.mkdir(parents=True, exist_ok=True)
        args.sample.write_text(
            "".join(json.dumps(f, ensure_ascii=False, sort_keys=True) + "\n" for f in chosen),
            encoding="utf-8",
        )
        results["sample"] = {"path": str(args.sample), "size": len(chosen), "of": len(found)}
        print(f"wrote {len(chosen)} of {len(found)} evaluation findings to {args.sample}")
    for measured in splits.values():
        for run in measured["runs"].values():
            if measured is splits.get("evaluation"):
                run.pop("_findings")  # counted, not kept: the reviewer reads the sample
            else:
                run["findings_shown"] = run.pop("_findings")
    record("incon002", results, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
