"""New sets: the findings on whole sets of card documents the card index does not know, as a
localization team's folder holds them when a set comes out.

    python benchmarks/new_sets.py                    # the evaluation sets, es and zh (~10 min)
    python benchmarks/new_sets.py --sets DOM,ELD --index-sets TSP,PLC,FUT,RAV,ISD,KTK \\
        --name tuning-dom-eld                        # a tuning run (see benchmarks/README.md)

1. **Documents** (``testkit.cards.write_set_documents``): every card of ``--sets`` with a
   printed text in a language, ``OUT/docs/en/<SET>/<slug>.txt`` (the name, then the current
   Oracle text, a paragraph per line) and ``OUT/docs/<lang>/<SET>/<slug>.txt`` (the printed
   name and text), whatever their numbers of lines.
2. **Index** (``tools/build_card_names.py --out``): a card-name list of ``--index-sets`` only,
   given as ``--card-names``: a new set is in no shipped list, so the run must not use the
   shipped index, which holds every set of ``../shared``.
3. **Run** ``rulings run OUT/docs/en OUT/docs/<lang>`` per language in two modes:
   ``documents`` (the documents alone) and ``card-names`` (plus the sets' MTGJSON files
   reduced to their cards' names, ``testkit.cards.names_only``: card data that names the
   cards without adding English rulings).
4. **Count**: translated units (the language's rows of corpus.jsonl), findings per code and
   per 100 translated units, the run-level CARD002. ``precision.py sample --uniform`` draws
   the samples a reviewer judges from ``OUT/runs/<lang>-<mode>``.

Results: ``results/new_sets[-NAME].{json,md}``. Deterministic for the same data. When
../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
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
    EVALUATION_SETS,
    LANGUAGES,
    TUNING_SETS,
    names_only,
    write_set_documents,
)

MODES = ("documents", "card-names")


def write_card_data(out: Path, sets) -> Path:
    folder = out / "card-data"
    folder.mkdir(parents=True, exist_ok=True)
    for code in sets:
        text = json.dumps(names_only(code), ensure_ascii=False, sort_keys=True)
        (folder / f"{code}.json").write_text(text, "utf-8")
    return folder


def count(run_dir: Path, lang: str) -> dict:
    corpus = read_jsonl(run_dir / "corpus.jsonl")
    units = sum(1 for row in corpus if row.get("doc_lang") == lang)
    findings = read_jsonl(run_dir / "findings.jsonl")
    codes = Counter(f["code"] for f in findings)
    unit_findings = [f for f in findings if f.get("ruling_id") or f.get("file")]
    run_level = [f for f in findings if not (f.get("ruling_id") or f.get("file"))]
    langs = Counter(f.get("lang") or "-" for f in unit_findings)
    return {
        "translated_units": units,
        "findings": len(findings),
        "unit_findings": len(unit_findings),
        "per_100_units": per_100(len(unit_findings), units),
        "by_lang": dict(sorted(langs.items())),
        "by_code": {
            code: {"findings": n, "per_100_units": per_100(n, units)}
            for code, n in sorted(codes.items())
        },
        "run_level": [{"code": f["code"], "message": f["message"]} for f in run_level],
    }


def markdown(r: dict) -> str:
    rows = {}
    for key, result in sorted(r["runs"].items()):
        top = sorted(result["by_code"].items(), key=lambda kv: -kv[1]["findings"])[:8]
        rows[key] = {
            "translated units": result["translated_units"],
            "findings on units": result["unit_findings"],
            "per 100 units": result["per_100_units"],
            "run-level": ", ".join(f["code"] for f in result["run_level"]) or "–",
            "codes (most first)": ", ".join(f"{c} {v['findings']}" for c, v in top),
        }
    columns = list(next(iter(rows.values()))) if rows else []
    return page(
        f"New sets: {', '.join(r['sets'])}",
        "Card documents of whole sets whose cards the card index does not know "
        f"(index: {', '.join(r['index_sets'])}), per language and mode "
        "(`python benchmarks/new_sets.py`; method in its docstring). Judged samples are in "
        "`precision_*.md`.",
        r["machine"],
        (rows, columns, "run"),
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"new_sets": markdown})
    cli.add_argument("--out", type=Path, default=Path("/tmp/new_sets"), help="emptied")
    cli.add_argument("--sets", default=",".join(EVALUATION_SETS))
    cli.add_argument("--index-sets", default=",".join(TUNING_SETS))
    cli.add_argument("--langs", default=",".join(LANGUAGES))
    cli.add_argument("--modes", default=",".join(MODES))
    cli.add_argument("--name", help="results/new_sets-NAME instead of results/new_sets")
    args = cli.parse_args(argv)
    shared_or_exit()
    sets, index_sets = args.sets.split(","), args.index_sets.split(",")
    if overlap := sorted(set(sets) & set(index_sets)):
        cli.error(f"the index must not hold the measured sets: {', '.join(overlap)}")
    langs, modes = args.langs.split(","), args.modes.split(",")
    shutil.rmtree(args.out, ignore_errors=True)
    docs = args.out / "docs"
    written = write_set_documents(docs, sets, langs)
    index = card_names_of(index_sets, args.out / "card-names.tsv")
    card_data = write_card_data(args.out, sets) if "card-names" in modes else None
    runs = {}
    for lang in langs:
        for mode in modes:
            inputs = [docs / "en", docs / lang] + ([card_data] if mode == "card-names" else [])
            run_dir = args.out / "runs" / f"{lang}-{mode}"
            ran = run_rulings(inputs, run_dir, "--card-names", index)
            runs[f"{lang}-{mode}"] = count(run_dir, lang) | {"seconds": ran["seconds"]}
            print(f"{lang}-{mode}: {runs[f'{lang}-{mode}']['per_100_units']} per 100", flush=True)
    name = f"new_sets-{args.name}" if args.name else "new_sets"
    record(
        name,
        {"sets": sets, "index_sets": index_sets, "lines_written": written, "runs": runs},
        markdown,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
