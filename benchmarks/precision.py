"""Judged precision: sample findings from real runs, have them judged, score the judgements.

    python benchmarks/precision.py sample RUN_DIR [RUN_DIR ...] --n 160 --seed 1 --out SHEET.jsonl
    python benchmarks/precision.py score SHEET.jsonl JUDGED.jsonl [--name NAME]
    python benchmarks/precision.py recount

``sample`` reads each run's ``findings.jsonl``, ``corpus.jsonl`` and ``alignment.jsonl`` and draws
a seeded sample stratified by finding code (every code; at least ``--floor`` per code, or all
of a rarer code, the rest proportional to the code's share) and, within a code, by language;
with ``--uniform``, a simple random sample of all the findings (whose precision estimates the
whole list's: a stratified one over-weights rare codes).
It writes one JSON object per finding (id, run, the finding, and the texts a judge needs: the
translation, its English source and the other English lines it says (``merged`` rows: a
printed paragraph that runs lines together), or the document it points at) to SHEET.jsonl,
and the same as a readable SHEET.md.

``score`` joins judgements (lines ``{"id", "verdict": "true"|"debatable"|"false",
"reason"}``) with the sheet, stores them as data in ``benchmarks/judgements/NAME.jsonl`` (the
sheet item and its verdict, one line per item) and writes
``benchmarks/results/precision_NAME.{json,md}``: precision per code, per language and overall
(true / judged, and with debatable counted as half), verdict counts, and every false or
debatable item with its reason. ``recount`` rebuilds those tables from every file in
``benchmarks/judgements/``, plus ``results/precision.{json,md}`` (all judgement sets).
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

from common import (
    RESULTS,
    ROOT,
    md_records,
    md_table,
    parser,
    pct,
    read_jsonl,
    record,
    write_jsonl,
)

JUDGEMENTS = ROOT / "benchmarks" / "judgements"
VERDICTS = ("true", "debatable", "false")
FLOOR = 4
DOCUMENT_CHARS = 1500


# --- sample -------------------------------------------------------------------------------


def allocate(counts: dict, n: int, floor: int = FLOOR) -> dict:
    """How many to draw per key: min(floor, count) each, the rest by largest remainder."""
    take = {key: min(floor, count) for key, count in counts.items()}
    left = n - sum(take.values())
    spare = {key: counts[key] - take[key] for key in counts}
    total = sum(spare.values())
    if left <= 0 or total == 0:
        return take
    if left >= total:
        return dict(counts)
    quotas = {key: left * spare[key] / total for key in counts}
    for key in counts:
        take[key] += int(quotas[key])
    order = sorted(counts, key=lambda k: (-(quotas[k] - int(quotas[k])), str(k)))
    for key in order[: left - sum(int(q) for q in quotas.values())]:
        take[key] += 1
    return take


def _document(rows: list[dict]) -> str:
    text = "\n".join([rows[0].get("doc_title") or "", *(r["text"] for r in rows)])
    return text if len(text) <= DOCUMENT_CHARS else text[:DOCUMENT_CHARS] + "…"


def load_run(run_dir: Path, name: str) -> list[dict]:
    """The run's findings, each with the texts a judge needs."""
    corpus = read_jsonl(run_dir / "corpus.jsonl")
    by_id = {row["id"]: row for row in corpus}
    by_file, by_card = defaultdict(list), defaultdict(list)
    for row in corpus:
        by_file[row["file"]].append(row)
        if row.get("card") or row.get("section"):
            by_card[row.get("card") or row.get("section"), row.get("doc_lang")].append(row)
    aligned, also = {}, defaultdict(list)
    for row in read_jsonl(run_dir / "alignment.jsonl"):
        if row.get("target_id") and row.get("source_id"):
            if row.get("method") == "merged":
                also[row["target_id"]].append(row["source_id"])
            else:
                aligned[row["target_id"]] = row["source_id"]
    items = []
    for finding in read_jsonl(run_dir / "findings.jsonl"):
        ruling = by_id.get(finding.get("ruling_id"))
        merged = also.get(finding.get("ruling_id"), [])
        source_id = finding.get("source_id") or aligned.get(finding.get("ruling_id"))
        source_id = source_id or (merged[0] if merged else None)
        is_source = ruling is not None and ruling["id"] == source_id
        translation = None if ruling is None or is_source else ruling["text"]
        source = by_id.get(source_id)
        rows = by_file.get(finding.get("file"), [])
        if translation is None and rows and rows[0].get("doc_lang") != finding.get("lang"):
            # e.g. a missing translation: show the documents in the finding's language
            key = (finding.get("card") or finding.get("section"), finding.get("lang"))
            rows = by_card.get(key, rows)[:40]
        items.append(
            {
                "run": name,
                **{
                    key: finding.get(key)
                    for key in ("code", "severity", "category", "lang", "message", "evidence")
                },
                **{key: finding.get(key) for key in ("card", "section", "file", "line")},
                "ruling_id": finding.get("ruling_id"),
                "source_id": source_id,
                "doc_title": rows[0].get("doc_title") if rows else None,
                "translation": translation,
                "source": source["text"] if source else None,
                "also_says": [by_id[i]["text"] for i in merged if i != source_id and i in by_id],
                "document": _document(rows) if rows and (translation is None) else None,
                "fingerprint": finding.get("fingerprint"),
            }
        )
    return items


def sample(
    runs: list[Path], n: int, seed: int, floor: int = FLOOR, uniform: bool = False
) -> list[dict]:
    names = [run.name for run in runs]
    names = [r.name if names.count(r.name) == 1 else f"{r.parent.name}/{r.name}" for r in runs]
    items = [item for run, name in zip(runs, names, strict=True) for item in load_run(run, name)]
    order = ("run", "code", "lang", "file", "line", "fingerprint")
    items.sort(key=lambda i: tuple(i[k] or ("" if k != "line" else 0) for k in order))
    rng = random.Random(seed)
    if uniform:
        chosen = rng.sample(items, min(n, len(items)))
        chosen.sort(
            key=lambda i: (i["code"], i["lang"] or "", i["run"], i["file"] or "", i["line"] or 0)
        )
        return [{"id": f"U{seed}-{k:03d}", **item} for k, item in enumerate(chosen, 1)]
    by_code = defaultdict(list)
    for item in items:
        by_code[item["code"]].append(item)
    chosen = []
    for code, take in sorted(allocate({c: len(v) for c, v in by_code.items()}, n, floor).items()):
        by_lang = defaultdict(list)
        for item in by_code[code]:
            by_lang[item["lang"] or "-"].append(item)
        share = allocate({lang: len(v) for lang, v in by_lang.items()}, take, 1)
        for lang, k in sorted(share.items()):
            chosen += rng.sample(by_lang[lang], k)
    chosen.sort(
        key=lambda i: (i["code"], i["lang"] or "", i["run"], i["file"] or "", i["line"] or 0)
    )
    return [{"id": f"S{seed}-{k:03d}", **item} for k, item in enumerate(chosen, 1)]


def sheet_markdown(items: list[dict]) -> str:
    out = [
        "# Findings to judge",
        "",
        'Verdict per id in a JSONL file: `{"id": …, "verdict": "true"|"debatable"|"false", '
        '"reason": "…"}`.',
        "",
    ]
    for item in items:
        where = item["card"] or item["section"] or item["doc_title"] or ""
        out += [
            f"## {item['id']} · {item['code']} ({item['severity']}, {item['category']}) · "
            f"{item['lang']} · {where}",
            "",
            f"- run `{item['run']}`, `{item['file']}:{item['line']}`",
            f"- message: {item['message']}",
        ]
        for label in ("translation", "source"):
            if item[label]:
                out.append(f"- {label}: {item[label]}")
        for text in item.get("also_says") or ():
            out.append(f"- the translation also says this English line: {text}")
        if item["document"]:
            out += ["- document:", "", "```text", item["document"], "```"]
        out += [f"- evidence: `{json.dumps(item['evidence'], ensure_ascii=False)}`", ""]
    return "\n".join(out)


# --- score --------------------------------------------------------------------------------


def precision(rows: list[dict]) -> dict:
    counts = Counter(row["verdict"] for row in rows)
    judged = sum(counts[v] for v in VERDICTS)
    strict = counts["true"] / judged if judged else None
    half = (counts["true"] + counts["debatable"] / 2) / judged if judged else None
    return {
        "judged": judged,
        **{v: counts[v] for v in VERDICTS},
        "precision": None if strict is None else round(strict, 4),
        "precision_debatable_half": None if half is None else round(half, 4),
    }


COLUMNS = ["judged", "true", "debatable", "false", "precision", "debatable = ½"]
PRECISION, HALF = "precision", "precision_debatable_half"
NOT_TRUE = ("id", "code", "lang", "verdict", "reason", "translation", "message")


def _shown(groups: dict) -> dict:
    """Precision records as percentages, the last column named as in the tables."""
    return {
        key: g | {"precision": pct(g[PRECISION], 1), "debatable = ½": pct(g[HALF], 1)}
        for key, g in groups.items()
    }


def summarise(name: str, rows: list[dict], sets: dict | None = None) -> dict:
    """Precision overall, per code and per language, and the items not judged true; ``sets``:
    the overall precision of each judgement set pooled in ``rows``."""
    rows = [row for row in rows if row.get("verdict") in VERDICTS]
    data = {
        "name": name,
        "overall": precision(rows),
        "by_code": {
            c: precision([r for r in rows if r["code"] == c])
            for c in sorted({r["code"] for r in rows})
        },
        "by_lang": {
            lang: precision([r for r in rows if (r["lang"] or "-") == lang])
            for lang in sorted({r["lang"] or "-" for r in rows})
        },
        "not_true": [{k: r.get(k) for k in NOT_TRUE} for r in rows if r["verdict"] != "true"],
    }
    return data | {"sets": sets} if sets else data


def markdown(data: dict) -> str:
    name, sets = data["name"], data.get("sets")
    command = "recount" if sets else f"score … --name {name}` (or recount"
    origin = f"`benchmarks/judgements/{name}.jsonl`"
    origin = "every file in `benchmarks/judgements/`" if sets else origin
    tables = [("Judgement sets", sets, "judgement set")] if sets else []
    tables += [("Per code", data["by_code"], "code"), ("Per language", data["by_lang"], "lang")]
    out = [
        f"# Judged precision: {name}",
        "",
        f"Produced by `python benchmarks/precision.py {command}` from {origin}. Precision = "
        "true / judged; the last column counts debatable as half.",
        "",
        md_records(_shown({"all": data["overall"]}), COLUMNS, "overall"),
    ]
    for heading, groups, first in tables:
        out += [f"## {heading}", "", md_records(_shown(groups), COLUMNS, first)]
    not_true = [[r[k] for k in NOT_TRUE] for r in data["not_true"]]
    header = ["id", "code", "lang", "verdict", "reason", "text", "message"]
    return "\n".join([*out, "## False and debatable", "", md_table(header, not_true)])


def score(sheet: Path, judged: Path, name: str) -> Path:
    verdicts = {row["id"]: row for row in read_jsonl(judged)}
    bad = sorted(i for i, r in verdicts.items() if r.get("verdict") not in VERDICTS)
    if bad:
        raise SystemExit(f"verdicts must be one of {VERDICTS}: {', '.join(bad[:10])}")
    rows = []
    for item in read_jsonl(sheet):
        verdict = verdicts.get(item["id"]) or {}
        rows.append(item | {"verdict": verdict.get("verdict"), "reason": verdict.get("reason")})
    unknown = set(verdicts) - {row["id"] for row in rows}
    if unknown:
        raise SystemExit(f"ids not in the sheet: {', '.join(sorted(unknown)[:10])}")
    JUDGEMENTS.mkdir(parents=True, exist_ok=True)
    path = JUDGEMENTS / f"{name}.jsonl"
    write_jsonl(path, rows)
    overall = record(f"precision_{name}", summarise(name, rows), markdown)["overall"]
    unjudged = sum(1 for row in rows if row["verdict"] is None)
    print(
        f"{name}: {overall['judged']} judged ({unjudged} unjudged), precision "
        f"{pct(overall[PRECISION], 1)}, debatable as half {pct(overall[HALF], 1)}"
    )
    return path


def recount() -> int:
    # Judged sheets only: other benchmarks keep their own judgements there too (releases).
    files = [p for p in sorted(JUDGEMENTS.glob("*.jsonl")) if "code" in (read_jsonl(p) or [{}])[0]]
    if not files:
        print(f"no judgements in {JUDGEMENTS}")
        return 0
    everything, summary = [], {}
    for path in files:
        rows = read_jsonl(path)
        data = record(f"precision_{path.stem}", summarise(path.stem, rows), markdown)
        summary[path.stem] = data["overall"]
        everything += [row | {"id": f"{path.stem}/{row['id']}"} for row in rows]
    overall = record("precision", summarise("all", everything, summary), markdown)["overall"]
    print(
        f"{len(files)} judgement sets, {overall['judged']} judged, "
        f"precision {pct(overall[PRECISION], 1)}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    recorded = {path.stem: markdown for path in sorted(RESULTS.glob("precision*.json"))}
    cli = parser(__doc__, recorded)
    commands = cli.add_subparsers(dest="command")
    p = commands.add_parser("sample", help="draw a stratified sample of findings to judge")
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--n", type=int, default=160)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--floor", type=int, default=FLOOR)
    p.add_argument(
        "--uniform",
        action="store_true",
        help="a simple random sample of all findings (its precision estimates the list's), "
        "instead of one stratified by code",
    )
    p.add_argument("--out", type=Path, required=True)
    p = commands.add_parser("score", help="score judgements of a sheet")
    p.add_argument("sheet", type=Path)
    p.add_argument("judged", type=Path)
    p.add_argument("--name")
    commands.add_parser("recount", help="rebuild every table from benchmarks/judgements/")
    args = cli.parse_args(argv)
    if args.command is None:
        cli.error("a command is needed: sample, score or recount")
    if args.command == "sample":
        missing = [str(run) for run in args.runs if not (run / "findings.jsonl").exists()]
        if missing:
            raise SystemExit(f"no findings.jsonl in {', '.join(missing)}")
        items = sample(args.runs, args.n, args.seed, args.floor, args.uniform)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        write_jsonl(args.out, items)
        args.out.with_suffix(".md").write_text(sheet_markdown(items) + "\n", "utf-8")
        codes = Counter(item["code"] for item in items)
        print(
            f"{len(items)} findings to judge in {args.out} and {args.out.with_suffix('.md')}: "
            + ", ".join(f"{c} {n}" for c, n in sorted(codes.items()))
        )
        return 0
    if args.command == "score":
        score(args.sheet, args.judged, args.name or args.judged.stem)
        return 0
    return recount()


if __name__ == "__main__":
    raise SystemExit(main())
