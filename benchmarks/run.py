"""Stage-by-stage speed and memory of the whole pipeline; ``--all`` runs every benchmark.

    python benchmarks/run.py                          # seeds, CR and 100k generated (~25 min)
    python benchmarks/run.py --corpora seeds,cr       # the quick ones
    python benchmarks/run.py --all                    # and every other benchmark (see README)

Corpora: ``seeds`` (corpus/), ``cr`` (the English and Chinese Comprehensive Rules) and
``generated`` (``testkit.corpus.generate``). Each corpus gets a fresh cache; three scenarios
run in fresh interpreters so that each peak RSS is its own: *cold* (empty cache), *warm*
(same inputs and cache), *edit* (two rulings of one translated document changed: only those
two texts may be embedded). Each runs ingest, embed, align, check and report as ``rulings
run`` does, the embedding timed apart (``embed_texts`` on every text, then ``align_stage``
finds every vector cached). Units: rulings (ingest, check, report), distinct texts (embed),
aligned rows (align). Also: ``rulings run`` twice (the unchanged rerun reuses the outputs);
the nightly edit through ``rulings run`` (a run, one document edited, a run with that cache
for the per-unit work cache, a cold run on the edited input to compare time and bytes); the
local and dask engines compared (times, identical bytes), and cProfile hotspots of the
stages below target. Targets (``judge``): every stage but embedding at 50,000 units/s;
embedding work = distinct texts; warm rerun >= 10x faster; the edit re-embeds only its
texts; the edited run at most 10% of the cold run's wall time with the same bytes; 100,000
rulings within 2 GB. Writes ``results/benchmarks.{json,md}``.
"""

from __future__ import annotations

import cProfile
import hashlib
import json
import os
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import (
    CR,
    CR_EN,
    CR_ZH,
    HIDDEN,
    RESULTS,
    ROOT,
    SEEDS,
    SHARED,
    TreeMemory,
    child_json,
    digest,
    machine,
    md_table,
    page,
    parser,
    pick,
    read_jsonl,
    record,
    usage,
)

STAGES = ("ingest", "embed", "align", "check", "report")
UNITS = {"ingest": "rulings", "embed": "distinct texts", "align": "aligned rows"}
SCENARIOS = ("cold", "warm", "edit")
STATS = ("texts", "distinct", "cached", "computed", "seconds")
TARGET_UNITS_PER_S, TARGET_WARM_SPEEDUP, TARGET_EDIT_SHARE = 50_000, 10.0, 0.10
TARGET_PEAK_MB, TARGET_PEAK_RULINGS = 2048, 100_000
NEAR_TARGET_SIZE = 0.95
"""A corpus of at least 95% of the target size is judged on it (drift drops a few rulings)."""
EDITED, EDIT_MIN_CHARS = 2, 40
EDIT_KINDS = ("ruling", "rule", "example", "text")
"""Rulings of running text (not headings or contents lines) stay what they are when edited."""
EDIT_MARK = {"zh": "（修订）", "es": " (revisado)"}
HOTSPOTS = 15
WRAPPERS = ("pipelines/stages.py", "pipelines/engine/")
"""Frames that only pass the work on: left out of the cumulative hotspot lists."""
OUTPUTS = ("corpus.jsonl", "alignment.jsonl", "findings.jsonl")
OTHERS = {
    "inject_defects": [], "align_cr": [], "tools/calibrate_alignment": ["--dry-run"],
    "langid": [], "card_documents": ["--out", "{work}/card_documents"],
    "releases": ["--work", "{work}/releases"], "precision": ["recount"], "faults": [],
    "report_load": [], "json_codec": [], "scale": [],
}  # fmt: skip
"""The other benchmarks ``--all`` runs, with their arguments (``{work}``: a temporary folder);
each writes its own results. The calibration tool reports without shipping (``--dry-run``)."""


# --- one scenario, in a fresh interpreter -------------------------------------------------


def worker(spec: dict) -> dict:
    """The stages as ``rulings run`` runs them, each timed (and profiled when asked)."""
    started, (cpu_start, _) = time.perf_counter(), usage()
    from pipelines import stages, tables
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts, last_stats
    from pipelines.cachedir import cache_root
    from pipelines.model import Ruling
    from pipelines.settings import Settings

    cpu, rss = usage()
    result: dict = {"import_seconds": time.perf_counter() - started, "stages": {}}
    result |= {"import_cpu_seconds": cpu - cpu_start, "rss_after_imports_mb": rss}
    out = Path(spec["out"])
    out.mkdir(parents=True, exist_ok=True)
    settings, state = Settings(cache_dir=Path(spec["cache"])), {}

    def ingest() -> int:
        result["rulings"] = len(stages.ingest_stage([Path(spec["input"])], out, settings).rulings)
        return result["rulings"]

    def embed() -> int:
        texts = [r.text for r in tables.read_records(out / tables.CORPUS, Ruling)]
        cache = EmbeddingCache(cache_root(settings.cache_dir))
        embed_texts(texts, build_embedder(settings.embedder), cache)
        result["embed_stats"] = {k: getattr(last_stats(), k) for k in STATS}
        return last_stats().distinct

    def align() -> int:
        rows = stages.align_stage(out, settings)
        result["align_embed_stats"] = {k: getattr(last_stats(), k) for k in STATS}
        return len(rows)

    def check() -> int:  # loading the termbase is part of checking
        state["resources"] = stages.Resources.load(settings)
        result["findings"] = len(stages.check_stage(out, settings, state["resources"]).findings)
        return result["rulings"]

    def report() -> int:
        with TreeMemory() as memory:
            written = stages.report_stage(out, settings, state["resources"])
        result["report_tree_peak_mb"] = memory.peak_mb
        result["reports"] = sorted(p.name for p in written)
        return result["rulings"]

    for name, step in zip(STAGES, (ingest, embed, align, check, report), strict=True):
        (cpu, _), begin = usage(), time.perf_counter()
        profiler = cProfile.Profile() if name in spec.get("profile_stages", ()) else None
        if profiler:
            profiler.enable()
        units = step()
        if profiler:
            profiler.disable()
            profiler.dump_stats(Path(spec["profile"]) / f"{name}.prof")
        wall, (cpu_after, rss) = time.perf_counter() - begin, usage()
        result["stages"][name] = {
            "units": units,
            "unit": UNITS.get(name, "rulings"),
            "wall_seconds": wall,
            "cpu_seconds": cpu_after - cpu,
            "units_per_second": units / wall if wall > 0 else None,
            "rss_high_water_mb": rss,
        }
    result["output_digests"] = {name: digest(out / name)[:16] for name in OUTPUTS}
    for key in ("wall_seconds", "cpu_seconds"):
        result[f"stages_{key}"] = sum(s[key] for s in result["stages"].values())
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["process_cpu_seconds"], own_peak = usage()
    # the report writers' forked process: its pages not shared with this one count too
    result["peak_rss_mb"] = max(own_peak, result.get("report_tree_peak_mb", 0))
    result["children_cpu_seconds"] = children.ru_utime + children.ru_stime
    result["children_peak_rss_mb"] = children.ru_maxrss / 1024
    result["worker_wall_seconds"] = time.perf_counter() - started
    return result


def run_scenario(spec: dict) -> dict:
    """One scenario in a fresh interpreter, with a digest of pipelines/ (shows when the code
    changed while the benchmark ran)."""
    code = hashlib.sha256()
    for path in sorted((ROOT / "pipelines").rglob("*.py")):
        code.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    env = dict(os.environ, RULINGS_CACHE_DIR=spec["cache"])
    load, begin = os.getloadavg(), time.perf_counter()
    try:
        result = child_json(__file__, "--worker", json.dumps(spec), env=env)
    except RuntimeError as error:
        return {"error": str(error)}
    return result | {
        "process_wall_seconds": time.perf_counter() - begin,
        "pipelines_digest": code.hexdigest()[:16],
        "load_before": [round(x, 2) for x in load],
    }


# --- corpora, the edit, the command-line runs ---------------------------------------------


def prepare(corpus: str, target: Path, rulings: int, seed: int) -> dict:
    """Copy (or generate) the corpus into ``target``; a note when its material is absent."""
    if corpus == "seeds":
        shutil.copytree(SEEDS, target)
    elif corpus == "cr":
        if not (CR / CR_ZH).is_file():
            return {"skipped": f"{CR} is absent"}
        target.mkdir()
        for name in (CR_EN, CR_ZH):
            shutil.copy2(CR / name, target / name)
    elif corpus == "generated":
        from testkit import corpus as generator  # not in the workers' interpreters

        if not generator.available(SHARED):
            return {"skipped": f"the parallel material under {SHARED} is absent"}
        begin = time.perf_counter()
        summary = generator.generate(target, rulings=rulings, seed=seed)
        command = f"python -m testkit.corpus OUT --rulings {rulings} --seed {seed}"
        seconds = time.perf_counter() - begin
        return {"generator": summary.as_dict(), "generate_seconds": seconds, "command": command}
    else:
        raise SystemExit(f"unknown corpus {corpus!r} (known: seeds, cr, generated)")
    return {}


def edit_one_document(input_dir: Path, out: Path) -> dict:
    """Append a revision mark to two rulings of running text of the first translated text
    document (on the line where each starts); what was changed."""
    by_file: dict[str, list[dict]] = defaultdict(list)
    for row in read_jsonl(out / "corpus.jsonl"):
        translated = row.get("doc_lang") not in (None, "en")
        if row.get("line") and translated and row.get("lang") == row["doc_lang"]:
            by_file[row["file"]].append(row)
    for name in sorted(by_file):
        chosen: dict[int, dict] = {}
        for row in sorted(by_file[name], key=lambda r: r["line"]):
            plain = row.get("kind", "ruling") in EDIT_KINDS and len(row["text"]) >= EDIT_MIN_CHARS
            fresh = row["text"] not in {r["text"] for r in chosen.values()}
            if plain and fresh and row["line"] not in chosen and len(chosen) < EDITED:
                chosen[row["line"]] = row
        if len(chosen) < EDITED:
            continue
        path = input_dir / name
        bom = path.read_bytes()[:3] == b"\xef\xbb\xbf"
        rows = path.read_text("utf-8-sig").split("\n")
        for line, row in chosen.items():
            stripped = rows[line - 1].rstrip("\r")
            mark = EDIT_MARK.get(row["doc_lang"], " (rev.)")
            rows[line - 1] = stripped + mark + rows[line - 1][len(stripped) :]
        path.write_text(("\ufeff" if bom else "") + "\n".join(rows), encoding="utf-8")
        return {
            "file": name,
            "lang": next(iter(chosen.values()))["doc_lang"],
            "lines": list(chosen),
            "expected_computed": EDITED,
            "rulings_in_document": len(by_file[name]),
        }
    return {"error": "no translated text document with two rulings"}


def rulings_run(input_dir: Path, out: Path, cache: Path, *extra: str) -> tuple[float, str]:
    """``rulings run`` (wall seconds, stdout), or RuntimeError when it fails."""
    command = [sys.executable, "-m", "pipelines", "run", str(input_dir), "--out", str(out), *extra]
    env = dict(os.environ, RULINGS_CACHE_DIR=str(cache))
    begin = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"rulings run exit {done.returncode}: {done.stderr[-2000:]}")
    return time.perf_counter() - begin, done.stdout


def cli_rerun(input_dir: Path, workdir: Path, cache: Path) -> dict:
    """``rulings run`` twice into the same folder (warm cache): the second is the unchanged
    nightly rerun, which reuses the outputs."""
    first, _ = rulings_run(input_dir, workdir / "out-cli", cache)
    rerun, said = rulings_run(input_dir, workdir / "out-cli", cache)
    reused = "Nothing changed since the last run" in said
    return {"first_seconds": first, "rerun_seconds": rerun, "reused": reused}


KEPT_RUNS = ("first", "edit", "cold")
CPU = ("ru_utime", "ru_stime")
EDIT_PAIRS = 3
"""Edited and cold runs are measured in pairs, each pair on a new edit: on this shared
machine the cold run's time varies most (205 to 261 s on the 100k corpus, in its
embedding), so the share reported is the median pair's, and every pair is listed."""


def cli_edit(input_dir: Path, workdir: Path) -> dict:
    """The nightly case through ``rulings run``: a run with an empty cache, then
    ``EDIT_PAIRS`` times one document edited, a run with that cache and a cold run (empty
    cache) on the edited input; the edited runs' time against the cold runs', and their
    files against the cold runs'."""
    edited, outs = workdir / "input-edit", {k: workdir / f"out-edit-{k}" for k in KEPT_RUNS}
    shutil.copytree(input_dir, edited)
    first, _, _ = timed_run(edited, outs["first"], workdir / "cache-edit")
    pairs, files, said, change = [], [], "", {}
    for _ in range(EDIT_PAIRS):
        change = edit_one_document(edited, outs["first"])
        if "error" in change:
            return change
        edit, edit_cpu, said = timed_run(edited, outs["edit"], workdir / "cache-edit")
        shutil.rmtree(workdir / "cache-edit-cold", ignore_errors=True)
        cold, cold_cpu, _ = timed_run(edited, outs["cold"], workdir / "cache-edit-cold")
        files = sorted(path.name for path in outs["cold"].iterdir())
        pairs.append(
            {
                "edit": round(edit, 2),
                "edit_cpu": round(edit_cpu, 2),
                "cold": round(cold, 2),
                "cold_cpu": round(cold_cpu, 2),
                "share_of_cold_wall": round(edit / cold, 4),
                "share_of_cold_cpu": round(edit_cpu / cold_cpu, 4),
                "files_differing": [
                    n for n in files if digest(outs["edit"] / n) != digest(outs["cold"] / n)
                ],
            }
        )
    median = sorted(pairs, key=lambda pair: pair["share_of_cold_wall"])[len(pairs) // 2]
    reused = [line for line in said.splitlines() if line.startswith("Unchanged since")]
    return {
        "first": round(first, 2),
        **{key: value for key, value in median.items() if key != "files_differing"},
        "files_compared": len(files),
        "files_differing": sorted({n for pair in pairs for n in pair["files_differing"]}),
        "pairs": pairs,
        "reused": reused[0] if reused else None,
        "document": change["file"],
    }


def timed_run(input_dir: Path, out: Path, cache: Path) -> tuple[float, float, str]:
    """``rulings run``: wall seconds, CPU seconds (its process and theirs), stdout. The
    disk's write-back of what came before is finished first (``os.sync``): a cold run leaves
    gigabytes of written pages behind it, and the edited run that followed it at once shared
    the disk and the two cores with their write-back (an edited run took 26.7 s instead of
    19.5 s behind 2.4 GB of pages waiting to be written). A nightly run starts long after the
    last one ended."""
    os.sync()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, said = rulings_run(input_dir, out, cache)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, sum(getattr(after, f) - getattr(before, f) for f in CPU), said


def engine_comparison(input_dir: Path, workdir: Path) -> dict:
    """``rulings run --force`` on each engine, cold then warm, each with its own cache."""
    seconds: dict = defaultdict(dict)
    digests: dict = {}
    for engine in ("local", "dask"):
        out, cache = workdir / f"out-{engine}", workdir / f"cache-{engine}"
        for scenario in ("cold", "warm"):
            taken, _ = rulings_run(input_dir, out, cache, "--engine", engine, "--force")
            seconds[engine][scenario] = round(taken, 2)
        digests[engine] = {p.name: digest(p) for p in sorted(out.iterdir()) if p.is_file()}
    names = sorted(digests["local"].keys() | digests["dask"].keys())
    return {
        "seconds": dict(seconds),
        "speedup": {s: round(seconds["local"][s] / seconds["dask"][s], 2) for s in seconds["dask"]},
        "files_compared": names,
        "files_differing": [n for n in names if digests["local"].get(n) != digests["dask"].get(n)],
    }


def hotspots(path: Path) -> dict:
    """Top functions by own time, and the project's functions by cumulative time."""
    stats = pstats.Stats(str(path))
    total = stats.total_tt or 1e-9

    def short(filename: str) -> str:
        path = filename.replace("\\", "/")
        if path.startswith(str(ROOT) + "/"):
            return path[len(str(ROOT)) + 1 :]
        if "site-packages/" in path:
            return path.split("site-packages/", 1)[1]
        if "/lib/python3" in path:
            return "stdlib/" + path.split("/lib/python3", 1)[1].split("/", 1)[1]
        return path

    def hot(row: tuple) -> dict:
        own, cumulative, calls, filename, line, function = row
        return {
            "where": f"{filename}:{function}" + (f" (line {line})" if line else ""),
            "calls": calls,
            "own_seconds": round(own, 3),
            "own_share": round(own / total, 3),
            "cumulative_seconds": round(cumulative, 3),
            "cumulative_share": round(cumulative / total, 3),
        }

    rows = [
        (own, cumulative, calls, short(filename), line, function)
        for (filename, line, function), (_, calls, own, cumulative, _) in stats.stats.items()
    ]
    project = [
        r
        for r in rows
        if r[3].startswith("pipelines/")
        and not r[3].startswith(WRAPPERS)
        and r[5] not in ("<listcomp>", "<dictcomp>", "<setcomp>")
    ]
    return {
        "total_seconds": total,
        "own_time": [hot(r) for r in sorted(rows, key=lambda r: -r[0])[:HOTSPOTS]],
        "project_cumulative": [hot(r) for r in sorted(project, key=lambda r: -r[1])[:18]],
    }


# --- targets and the report ---------------------------------------------------------------


def evaluate(corpora: dict) -> dict:
    """The targets of each corpus whose three scenarios ran; the largest is judged on."""
    done = {n: c for n, c in corpora.items() if "rulings" in (pick(c, "scenarios.cold") or {})}
    largest = max(done, key=lambda n: done[n]["scenarios"]["cold"]["rulings"], default=None)
    targets: dict = {"judged_on": largest}
    for name, corpus in done.items():
        scenarios = corpus["scenarios"]
        if len(scenarios) == len(SCENARIOS) and not any("error" in s for s in scenarios.values()):
            targets[name] = judge(corpus)
    return targets


def judge(corpus: dict) -> dict:
    """Each target, met or not, with the numbers it is judged on."""
    scenarios = corpus["scenarios"]
    cold, warm, edit = (scenarios[s] for s in SCENARIOS)
    speeds = {
        f"{s}/{stage}": round(data["stages"][stage]["units_per_second"] or 0)
        for s, data in scenarios.items()
        for stage in STAGES
        if stage != "embed"
    }
    slow = {key: speed for key, speed in speeds.items() if speed < TARGET_UNITS_PER_S}
    speedup = cold["process_wall_seconds"] / warm["process_wall_seconds"]
    rerun = corpus.get("cli_rerun", {})
    reused = rerun.get("reused")
    cli_speedup = cold["process_wall_seconds"] / rerun["rerun_seconds"] if reused else None
    embed_cold, embed_warm = cold["embed_stats"], warm["embed_stats"]
    in_align = [s["align_embed_stats"]["computed"] for s in scenarios.values()]
    differ = [n for n in OUTPUTS if cold["output_digests"][n] != warm["output_digests"][n]]
    peak, rulings = max(s["peak_rss_mb"] for s in scenarios.values()), cold["rulings"]
    big = rulings >= NEAR_TARGET_SIZE * TARGET_PEAK_RULINGS
    distinct_only = embed_cold["computed"] == embed_cold["distinct"] and not embed_warm["computed"]
    stages_speedup = cold["stages_wall_seconds"] / warm["stages_wall_seconds"]
    return {
        "stage_speed": {"met": not slow, "below_target_units_per_s": slow},
        "embed_distinct_only": {
            "met": distinct_only and not any(in_align),
            "texts": embed_cold["texts"],
            "distinct": embed_cold["distinct"],
            "computed_cold": embed_cold["computed"],
            "computed_warm": embed_warm["computed"],
            "computed_in_align": in_align,
            "cold_seconds_per_1000_computed": round(
                1000 * embed_cold["seconds"] / max(embed_cold["computed"], 1), 2
            ),
        },
        "warm_10x": {
            "met": (cli_speedup or speedup) >= TARGET_WARM_SPEEDUP,
            "speedup_process_wall": round(speedup, 2),
            "speedup_stages_wall": round(stages_speedup, 2),
            "speedup_unchanged_rerun": round(cli_speedup, 2) if cli_speedup else None,
            "rerun_seconds": round(rerun["rerun_seconds"], 2) if reused else None,
        },
        "edit_reembeds_only_document": {
            "met": edit["embed_stats"]["computed"] == corpus["edit"]["expected_computed"],
            "computed": edit["embed_stats"]["computed"],
            "expected": corpus["edit"]["expected_computed"],
            "document": corpus["edit"]["file"],
        },
        "same_output_cold_warm": {"met": not differ, "tables_differing": differ},
        "edit_10pct_of_cold": {
            "met": edited["share_of_cold_wall"] <= TARGET_EDIT_SHARE
            and not edited["files_differing"],
            "share_of_cold_wall": edited["share_of_cold_wall"],
            "share_of_cold_cpu": edited["share_of_cold_cpu"],
            "files_differing": edited["files_differing"],
        }
        if "share_of_cold_wall" in (edited := corpus.get("cli_edit", {}))
        else {"met": None, "note": edited.get("error", "not measured")},
        "memory": {
            "peak_rss_mb": round(peak, 1),
            "rulings": rulings,
            "met": peak <= TARGET_PEAK_MB if big else None,
            "note": None if big else f"{rulings} rulings: below the 100,000 of the 2 GB target",
        },
    }


SCENARIO_COLUMNS = ["process_wall_seconds", "import_seconds", "peak_rss_mb", "findings"]
SCENARIO_COLUMNS += ["embed_stats.computed", "embed_stats.cached", "align_embed_stats.computed"]
SCENARIO_COLUMNS += ["load_before"]
TARGET_COLUMNS = [f"{t}.met" for t in ("stage_speed", "embed_distinct_only", "warm_10x")]
TARGET_COLUMNS += ["warm_10x.speedup_unchanged_rerun", "warm_10x.speedup_process_wall"]
TARGET_COLUMNS += ["edit_reembeds_only_document.met", "edit_reembeds_only_document.computed"]
TARGET_COLUMNS += ["memory.met", "memory.peak_rss_mb", "same_output_cold_warm.met"]
TARGET_COLUMNS += ["edit_10pct_of_cold.met", "edit_10pct_of_cold.share_of_cold_wall"]
ENGINE_COLUMNS = ["seconds.local", "seconds.dask", "speedup", "files_differing", "error"]


def corpus_markdown(name: str, corpus: dict) -> list[str]:
    if "skipped" in corpus:
        return [f"## {name}", f"Skipped: {corpus['skipped']}."]
    out, g = [f"## {name}"], corpus.get("generator")
    if g:
        out.append(
            f"Generated by `{corpus['command']}` in {corpus['generate_seconds']:.1f} s: "
            f"{g['total_rulings']:,} rulings {g['rulings']}, {g['distinct_all']:,} distinct texts, "
            f"{g['cards']:,} cards, {g['bytes'] / 1e6:.1f} MB; drift {g['drift']}."
        )
    scenarios = corpus.get("scenarios", {})
    out += [f"{s} failed: `{v['error'][-300:]}`" for s, v in scenarios.items() if "error" in v]
    if ok := {s: v for s, v in scenarios.items() if "error" not in v}:
        header = ["stage", "unit", *(f"{s}: units / wall s / CPU s / units/s" for s in ok)]
        rows = [
            [stage, UNITS.get(stage, "rulings")]
            + [
                f"{v['units']:,} / {v['wall_seconds']:.2f} / {v['cpu_seconds']:.2f} / "
                f"{v['units_per_second'] or 0:,.0f}"
                for v in (data["stages"][stage] for data in ok.values())
            ]
            for stage in STAGES
        ]
        out += [md_table(header, rows).rstrip(), (ok, SCENARIO_COLUMNS, "scenario")]
    if "file" in (e := corpus.get("edit", {})):
        rulings = e["rulings_in_document"]
        out.append(f"Edit: `{e['file']}` ({e['lang']}, {rulings} rulings), lines {e['lines']}.")
    if "share_of_cold_wall" in (c := corpus.get("cli_edit", {})):
        pairs = c.get("pairs", [])
        each = "; ".join(
            f"{p['edit']:.1f} s against {p['cold']:.1f} s, {p['share_of_cold_wall']:.1%}"
            for p in pairs
        )
        out.append(
            f"Through `rulings run`, `{c['document']}` edited after a run with an empty cache "
            f"({c['first']:.1f} s): {c['edit']:.1f} s wall, {c['edit_cpu']:.1f} s CPU against "
            f"{c['cold']:.1f} s and {c['cold_cpu']:.1f} s for a cold run on the edited input "
            f"({c['share_of_cold_wall']:.1%} of its wall time, {c['share_of_cold_cpu']:.1%} of "
            f"its CPU; the median of {len(pairs)} pairs, each on a new edit: {each}); "
            f"{c['files_compared'] - len(c['files_differing'])} of {c['files_compared']} files "
            f"byte-identical to the cold runs. {c['reused'] or ''}"
        )
    return out


def edit_remeasured(results: dict) -> str | None:
    """A note when the edit through ``rulings run`` was measured after the rest
    (``--edit-only``)."""
    described = results.get("edit_machine")
    if not described:
        return None
    return (
        f"The edit through `rulings run` was measured again on its own (`--edit-only`, each "
        f"run after the disk's write-back of the one before: `os.sync`), on git "
        f"{str(described['git_head'])[:7]}, {described['date']}, load average "
        f"{described['load_average']}."
    )


def markdown(results: dict) -> str:
    scenarios = [s for c in results["corpora"].values() for s in c.get("scenarios", {}).values()]
    codes = {s["pipelines_digest"] for s in scenarios if "pipelines_digest" in s}
    targets = dict(results["targets"])
    judged = targets.pop("judged_on")
    engines = {n: c["engines"] for n, c in results["corpora"].items() if "engines" in c}
    hot = []
    for corpus, profiled in results.get("profiles", {}).items():
        for stage, data in profiled.items():
            if stage == "error":
                hot.append(f"Profiling {corpus} failed: `{data[-300:]}`")
                continue
            hot += [
                f"## Hotspots: {corpus} / {stage} ({data['total_seconds']:.1f} s profiled)",
                ({h["where"]: h for h in data["own_time"][:10]}, HOT_OWN, "own time"),
                ({h["where"]: h for h in data["project_cumulative"][:12]}, HOT_CUMULATIVE,
                 "project function, cumulative"),
            ]  # fmt: skip
    return page(
        "Pipeline benchmarks: speed and memory per stage",
        f"`python benchmarks/run.py {' '.join(results['argv'])}` (every number in "
        "`benchmarks.json`; method in the script's docstring). Wall and CPU seconds (user + "
        "system, all threads); memory is the scenario's peak RSS in MB (2^20 bytes).",
        results["machine"],
        f"**pipelines/ changed while the benchmark ran** ({len(codes)} versions)."
        if len(codes) > 1
        else None,
        *(part for name, c in results["corpora"].items() for part in corpus_markdown(name, c)),
        edit_remeasured(results),
        "## Targets",
        f"Judged on the largest corpus, **{judged}**.",
        (targets, TARGET_COLUMNS, "corpus"),
        *(
            [
                "## Local and Dask engines",
                "`rulings run --force`, each engine with its own cache (cold, then warm); wall "
                "seconds, cluster start-up included; every output file compared byte for byte.",
                (engines, ENGINE_COLUMNS, "corpus"),
            ]
            if engines
            else []
        ),
        *hot,
    )


HOT_OWN = ["calls", "own_seconds", "own_share"]
HOT_CUMULATIVE = ["calls", "cumulative_seconds", "cumulative_share"]


# ------------------------------------------------------------------------------------------


def measure_corpus(name: str, base: Path, args, results: dict) -> None:
    workdir, cache = base / name, base / name / "cache"
    cache.mkdir(parents=True)
    input_dir = workdir / "input"
    info = results["corpora"][name] = prepare(name, input_dir, args.rulings, args.seed)
    if "skipped" in info:
        print(f"{name}: skipped ({info['skipped']})", flush=True)
        return
    scenarios = info["scenarios"] = {}

    def spec(scenario: str, **more) -> dict:
        out = str(workdir / f"out-{scenario}")
        return dict(input=str(input_dir), out=out, cache=str(cache), **more)

    for scenario in SCENARIOS:
        if scenario == "edit":
            if "error" in scenarios["cold"]:
                break
            info["edit"] = edit_one_document(input_dir, workdir / "out-cold")
            if "error" in info["edit"]:
                scenarios[scenario] = {"error": f"no edit made: {info['edit']['error']}"}
                continue
        print(f"{name}: {scenario} ...", end=" ", flush=True)
        data = scenarios[scenario] = run_scenario(spec(scenario))
        wall, peak = data.get("process_wall_seconds", 0), data.get("peak_rss_mb", 0)
        print(data.get("error") or f"{wall:.1f} s, peak {peak:.0f} MB", flush=True)
    if "error" in scenarios["cold"]:
        return
    try:
        info["cli_rerun"] = cli_rerun(input_dir, workdir, cache)
        print(f"{name}: one document edited, through rulings run ...", flush=True)
        info["cli_edit"] = cli_edit(input_dir, workdir)
        if name in args.engine_corpora.split(","):
            print(f"{name}: local and dask engines ...", flush=True)
            info["engines"] = engine_comparison(input_dir, workdir)
    except RuntimeError as error:
        info.setdefault("engines", {"error": str(error)})
    warm = scenarios.get("warm", {}).get("stages")
    slow = [
        s
        for s in STAGES
        if s != "embed" and warm and (warm[s]["units_per_second"] or 0) < TARGET_UNITS_PER_S
    ]
    if name in args.profile.split(",") and slow:
        print(f"{name}: profiling {', '.join(slow)} ...", flush=True)
        folder = workdir / "profile"
        folder.mkdir()
        profiled = run_scenario(spec("profile", profile=str(folder), profile_stages=slow))
        results["profiles"][name] = (
            {"error": profiled["error"]}
            if "error" in profiled
            else {stage: hotspots(folder / f"{stage}.prof") for stage in slow}
        )


def run_others(names: list[str]) -> dict:
    """Run the other benchmarks one after another; each writes its own results."""
    done = {}
    for name in names:
        script = ROOT / (name if "/" in name else f"benchmarks/{name}")
        print(f"{name} ...", flush=True)
        begin = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"bench-{script.name}-") as work:
            args = [arg.format(work=work) for arg in OTHERS.get(name, [])]
            code = subprocess.run([sys.executable, f"{script}.py", *args], cwd=ROOT).returncode
        done[name] = {"exit_code": code, "seconds": round(time.perf_counter() - begin, 1)}
        print(f"{name}: exit {code} in {done[name]['seconds']} s", flush=True)
    return done


def edit_only(args) -> int:
    """``cli_edit`` again on the generated corpus, recorded into the existing results (the
    other measurements are kept; the machine's description says when this one ran)."""
    results = json.loads((RESULTS / "benchmarks.json").read_text(encoding="utf-8"))
    base = Path(tempfile.mkdtemp(prefix="rulings-bench-"))
    try:
        input_dir = base / "input"
        prepare("generated", input_dir, args.rulings, args.seed)
        print("generated: one document edited, through rulings run ...", flush=True)
        edited = cli_edit(input_dir, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    results["corpora"]["generated"]["cli_edit"] = edited
    results["edit_machine"] = machine()
    results["targets"] = evaluate(results["corpora"])
    record("benchmarks", results, markdown)
    return 0


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"benchmarks": markdown})
    cli.add_argument("--corpora", default="seeds,cr,generated")
    cli.add_argument("--rulings", type=int, default=100_000)
    cli.add_argument("--seed", type=int, default=7)
    cli.add_argument("--profile", default="generated", help="corpora to profile (comma list)")
    cli.add_argument("--engine-corpora", default="seeds,cr", help="corpora run on both engines")
    cli.add_argument("--all", action="store_true", help="then run every other benchmark")
    cli.add_argument("--only", help="run only these other benchmarks (comma list)")
    cli.add_argument("--keep", action="store_true", help="keep the temporary folders")
    cli.add_argument("--worker", help=HIDDEN)
    cli.add_argument(
        "--edit-only",
        action="store_true",
        help="only the one-document edit through rulings run, on the generated corpus, into "
        "the recorded results (the rest of them kept)",
    )
    args = cli.parse_args(argv)
    if args.edit_only:
        return edit_only(args)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    if args.only:
        failed = {k: v for k, v in run_others(args.only.split(",")).items() if v["exit_code"]}
        return 1 if failed else 0
    argv_shown = list(argv if argv is not None else sys.argv[1:])
    results: dict = {"argv": argv_shown, "machine": machine(), "corpora": {}, "profiles": {}}
    base = Path(tempfile.mkdtemp(prefix="rulings-bench-"))
    try:
        for corpus in filter(None, args.corpora.split(",")):
            measure_corpus(corpus, base, args, results)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    results["targets"] = evaluate(results["corpora"])
    record("benchmarks", results, markdown)
    if args.all:
        failed = {k: v for k, v in run_others(list(OTHERS)).items() if v["exit_code"]}
        print(f"failed: {failed}" if failed else "every benchmark ran", flush=True)
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
