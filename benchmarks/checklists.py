"""What a team's checklist costs: the check stage on the generated 100k corpus with and
without 50 team rules (``data/checklist_50.toml``).

    python benchmarks/checklists.py                    # ~10 min on 2 cores
    python benchmarks/checklists.py --run DIR          # a folder holding input/, run/, cache/

1. **Tables.** ``testkit.corpus`` (100,000 rulings, seed 7) read and aligned once
   (``rulings ingest``, ``rulings align``) into ``run/``, with the cache in ``cache/``.
2. **Check stage**, pinned to one core, the work cache of the check stage (``work/check``,
   ``work/check-group``) removed before each run so that every check is computed, each
   configuration ``--repeats`` times, interleaved: every built-in check without a project
   file; the same with the 50 rules (a project file naming the checklist); the 50 rules
   alone (``--select X-``); and one cheap built-in check alone (``--select DATE001``: the
   stage's floor, reading the tables, keying the documents, writing the findings).
3. **Record.** CPU and wall seconds (best run), peak RSS of the stage, the team rules'
   findings per rule kind, and what the 50 rules add per 100,000 units: the CPU seconds of
   all checks with the rules minus without, and of the rules alone minus the floor.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import ROOT, RULINGS, machine, md_table, page, parser, read_jsonl, record

CHECKLIST = ROOT / "benchmarks" / "data" / "checklist_50.toml"
RULINGS_COUNT = 100_000
SEED = 7
CONFIGURATIONS = {
    "built-in checks": [],
    "built-in checks + 50 rules": ["--config", "{team}"],
    "50 rules alone": ["--config", "{team}", "--select", "X-"],
    "DATE001 alone (floor)": ["--select", "DATE001"],
}


def prepare(folder: Path) -> dict:
    """The corpus read and aligned into ``folder/run`` (kept when it is already there)."""
    env = {**os.environ, "RULINGS_CACHE_DIR": str(folder / "cache")}
    steps = []
    if not (folder / "input").exists():
        steps.append(
            [
                sys.executable,
                "-m",
                "testkit.corpus",
                str(folder / "input"),
                "--rulings",
                str(RULINGS_COUNT),
                "--seed",
                str(SEED),
            ]
        )
    if not (folder / "run" / "alignment.jsonl").exists():
        steps.append([str(RULINGS), "ingest", str(folder / "input"), "--out", str(folder / "run")])
        steps.append([str(RULINGS), "align", "--out", str(folder / "run")])
    for command in steps:
        subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    with (folder / "run" / "corpus.jsonl").open(encoding="utf-8") as handle:
        return {"units": sum(1 for _ in handle), "env": env}


def timed(command: list[str], env: dict) -> dict:
    """One run on core 0: wall and CPU seconds, peak RSS, exit code."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.sched_setaffinity(0, {0}),
    )
    _, status, used = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    error = process.stderr.read().decode("utf-8", "replace")[-1500:]
    process.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise RuntimeError(f"{' '.join(command)}: exit {code}: {error}")
    return {
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(used.ru_utime + used.ru_stime, 2),
        "peak_rss_mb": round(used.ru_maxrss / 1024),
    }


def measure(folder: Path, repeats: int) -> dict:
    prepared = prepare(folder)
    env, units = prepared["env"], prepared["units"]
    team = folder / "team.toml"
    team.write_text(f'checklists = ["{CHECKLIST}"]\n', encoding="utf-8")
    empty = folder / "none.toml"
    empty.write_text("# no team rules\n", encoding="utf-8")
    runs: dict[str, list[dict]] = {name: [] for name in CONFIGURATIONS}
    team_findings: Counter = Counter()
    for _ in range(repeats):
        for name, extra in CONFIGURATIONS.items():
            clear = [str(RULINGS), "cache", "clear", "--kind", "check", "--kind", "check-group"]
            subprocess.run(clear, env=env, capture_output=True, check=True)
            args = [a.replace("{team}", str(team)) for a in extra] or ["--config", str(empty)]
            command = [str(RULINGS), "check", "--out", str(folder / "run"), "--fail-on", "never"]
            runs[name].append(timed([*command, *args], env))
            if name == "built-in checks + 50 rules":
                found = read_jsonl(folder / "run" / "findings.jsonl")
                team_findings = Counter(f["code"] for f in found if f["code"].startswith("X-"))
    best = {name: min(found, key=lambda r: r["cpu_seconds"]) for name, found in runs.items()}
    added = (
        best["built-in checks + 50 rules"]["cpu_seconds"] - best["built-in checks"]["cpu_seconds"]
    )
    alone = best["50 rules alone"]["cpu_seconds"] - best["DATE001 alone (floor)"]["cpu_seconds"]
    return {
        "units": units,
        "rules": 50,
        "repeats": repeats,
        "runs": runs,
        "best": best,
        "rules_added_cpu_seconds": round(added, 2),
        "rules_alone_cpu_seconds": round(alone, 2),
        "rules_share_of_check_stage": round(added / best["built-in checks"]["cpu_seconds"], 4),
        "team_findings": dict(sorted(team_findings.items())),
        "team_findings_total": sum(team_findings.values()),
    }


def markdown(results: dict) -> str:
    best = results["best"]
    rows = [
        [
            name,
            f"{r['cpu_seconds']}",
            f"{r['wall_seconds']}",
            f"{r['peak_rss_mb']:,}",
            f"{round(results['units'] / r['cpu_seconds']):,}",
        ]
        for name, r in best.items()
    ]
    table = md_table(
        ["check stage", "CPU s (best)", "wall s", "peak RSS MB", "units / CPU s"], rows
    )
    share = results["rules_share_of_check_stage"]
    return page(
        "Checklists: 50 team rules on the 100k corpus",
        f"`rulings check` on {results['units']:,} generated units, one core, the check stage's "
        f"work cache removed before each run, {results['repeats']} runs of each configuration "
        "interleaved (best CPU time shown). The 50 rules: `benchmarks/data/checklist_50.toml` "
        "(16 source/target patterns with back-references, 12 forbidden patterns, 10 required "
        "terms, 10 word lists, 2 more style patterns).",
        results["machine"],
        table,
        f"The 50 rules add {results['rules_added_cpu_seconds']} s of CPU to the check stage "
        f"({share:.1%} of its {best['built-in checks']['cpu_seconds']} s); alone, above the "
        f"stage's floor, they take {results['rules_alone_cpu_seconds']} s "
        f"({round(results['units'] / max(results['rules_alone_cpu_seconds'], 0.01)):,} units "
        f"per CPU second). They reported {results['team_findings_total']:,} findings.",
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"checklists": markdown})
    cli.add_argument("--run", type=Path, help="a folder to keep (or reuse) the tables in")
    cli.add_argument("--repeats", type=int, default=3)
    args = cli.parse_args(argv)
    folder = args.run or Path(tempfile.mkdtemp(prefix="rulings-checklists-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        results = {"machine": machine(), **measure(folder, args.repeats)}
    finally:
        if args.run is None:
            shutil.rmtree(folder, ignore_errors=True)
    record("checklists", results, markdown)
    print(markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
