"""Scale: wall time and peak memory on inputs far larger than the everyday benchmarks.

    python benchmarks/scale.py                              # every part (an hour or more)
    python benchmarks/scale.py --parts check                # the quick part
    python benchmarks/scale.py --parts long --copies 1 2    # a quick look at the long document

Parts (each writes its section of ``results/scale.{json,md}``; parts not run keep their
last recorded result, and so does the retired ``matching`` part, see README.md):

- ``check``: the check stage alone (``rulings check`` in a fresh process pinned to one core,
  ``--repeats`` times) on the generated 100,000-ruling corpus, after ``ingest`` and
  ``align`` ran once; the findings must be byte-identical every time.
- ``long``: a long rules document pair: ``--copies`` copies (default 1, 3, 10) of the
  Comprehensive Rules 2023 in English and Chinese one after the other, each copy's rule
  numbers shifted (copy k: 702.62a -> 702.<62 + 1000k>a, references in the text too) and a
  few Chinese lines dropped or with a digit changed; the first copy is the real pair.
- ``million``: ``generate_corpus.py --rulings 1000000`` (en/es/zh), then the stages.
- ``allprintings``: an AllPrintings-sized MTGJSON file (400 MB, ~27,000 card names, made by
  ``allprintings_memory.generate``), then the stages.

The stages run one by one (``rulings ingest``, ``align``, ``check``, ``report``), each in
its own process on the local engine with an empty cache per input; per stage: wall and CPU
seconds and peak RSS (``wait4``), and the highest RSS of the process tree sampled every
0.2 s. A stage whose tree goes above ``--limit-gb`` (default 16) is stopped and recorded as
over the limit; the later stages are not run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from random import Random

from common import (
    CR,
    CR_EN,
    CR_ZH,
    RESULTS,
    ROOT,
    RULINGS,
    machine,
    machine_line,
    md_records,
    md_table,
    parser,
    read_lines,
    shared_or_exit,
    write_results,
)

STAGES = ("ingest", "align", "check", "report")
PARTS = ("check", "long", "million", "allprintings")
GIB = 1024**3
PAGE = os.sysconf("SC_PAGE_SIZE")
RULE_NUMBER = re.compile(r"(?<![\d.])(\d{3})\.(\d+)([a-z]?)(?!\d)")
EDITS = {"dropped": 0.002, "digit changed": 0.002}
"""Chances per Chinese line of a copy after the first."""
SEED = 14
GENERATE = [sys.executable, str(ROOT / "benchmarks" / "generate_corpus.py")]


# --- running a stage under a memory limit ------------------------------------------------


def run_limited(command: list[str], env: dict, limit_bytes: int, cpu: int | None = None) -> dict:
    """Run ``command``; wall/CPU seconds, ``ru_maxrss`` and the sampled peak RSS of its
    process tree; stop it when the tree's RSS goes above ``limit_bytes``."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=pin
        )
        watch, done = {"peak": 0, "over_at": None}, threading.Event()

        def watchdog() -> None:
            while not done.wait(0.2):
                tree = _process_tree(process.pid)
                rss = sum(map(_rss_bytes, tree))
                watch["peak"] = max(watch["peak"], rss)
                if rss > limit_bytes and watch["over_at"] is None:
                    watch["over_at"] = time.perf_counter() - start
                    for member in reversed(tree):
                        with contextlib.suppress(OSError):
                            os.kill(member, signal.SIGKILL)

        thread = threading.Thread(target=watchdog, daemon=True)
        thread.start()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        thread.join()
        code = os.waitstatus_to_exitcode(status)
        log.seek(0)
        tail = log.read().decode("utf-8", "replace")[-1500:]
    over = watch["over_at"]
    return {
        "command": " ".join([Path(command[0]).name, *command[1:]]),
        "exit_code": code,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "sampled_peak_mb": round(watch["peak"] / 2**20),
        "over_limit": over is not None,
        "stopped_after_seconds": round(over, 1) if over else None,
        "output_tail": tail if code else None,
    }


def _process_tree(root: int) -> list[int]:
    """``root`` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        tree.append(todo.pop())
        todo += children.get(tree[-1], [])
    return tree


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def run_stages(inputs: list[Path], out: Path, limit_bytes: int) -> dict:
    """Every stage in turn, each a fresh ``rulings`` process, an empty cache in ``out``."""
    cache, run = out / "cache", out / "run"
    for folder in (cache, run):
        shutil.rmtree(folder, ignore_errors=True)
    cache.mkdir(parents=True)
    env = {**os.environ, "RULINGS_CACHE_DIR": str(cache)}
    stages: dict[str, dict] = {}
    for stage in STAGES:
        command = [str(RULINGS), stage, *(map(str, inputs) if stage == "ingest" else ())]
        command += ["--out", str(run)] + (["--engine", "local"] if stage != "report" else [])
        command += ["--fail-on", "never"] if stage in ("check", "report") else []
        print(f"  {stage} ...", flush=True)
        stages[stage] = result = run_limited(command, env, limit_bytes)
        over = " (over the limit: stopped)" if result["over_limit"] else ""
        print(f"  {stage}: {result['wall_seconds']} s, peak {result['peak_rss_mb']:,} MB{over}")
        if result["exit_code"] != 0:
            break
    return {
        "stages": stages,
        "completed": all(s["exit_code"] == 0 for s in stages.values()) and len(stages) == 4,
        "wall_seconds": round(sum(s["wall_seconds"] for s in stages.values()), 2),
        "cpu_seconds": round(sum(s["cpu_seconds"] for s in stages.values()), 2),
        "peak_rss_mb": max(s["peak_rss_mb"] for s in stages.values()),
        "units": _count_lines(run / "corpus.jsonl"),
        "units_by_lang": _langs(run / "corpus.jsonl"),
        "aligned_rows": _count_lines(run / "alignment.jsonl"),
        "findings": _count_lines(run / "findings.jsonl"),
    }


def _count_lines(path: Path) -> int | None:
    if path.exists():
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    return None


def _langs(path: Path) -> dict[str, int] | None:
    if path.exists():
        with path.open(encoding="utf-8") as handle:
            return dict(Counter(json.loads(line).get("lang") or "-" for line in handle))
    return None


# --- parts --------------------------------------------------------------------------------


def long_rules(folder: Path, copies: int, seed: int = SEED) -> dict:
    """The English and Chinese CR ``copies`` times over, as one file per language."""
    english, chinese = read_lines(CR / CR_EN), read_lines(CR / CR_ZH)
    rng, edits = Random(seed), Counter()
    out_en: list[str] = []
    out_zh: list[str] = []
    for copy in range(copies):
        for line_en, line_zh in zip(english, chinese, strict=True):
            out_en.append(_shifted(line_en, copy))
            line_zh = _shifted(line_zh, copy)
            if copy and line_zh.strip():
                roll = rng.random()
                if roll < EDITS["dropped"]:
                    edits["dropped"] += 1
                    continue
                digits = [m.start() for m in re.finditer(r"\d", line_zh)]
                if roll < sum(EDITS.values()) and digits:
                    at = rng.choice(digits)
                    line_zh = f"{line_zh[:at]}{(int(line_zh[at]) + 1) % 10}{line_zh[at + 1 :]}"
                    edits["digit changed"] += 1
            out_zh.append(line_zh)
    folder.mkdir(parents=True, exist_ok=True)
    for lang, lines in (("en", out_en), ("zh", out_zh)):
        (folder / f"long_{copies}_{lang}.txt").write_text("\n".join(lines) + "\n", "utf-8")
    return {"copies": copies, "lines": {"en": len(out_en), "zh": len(out_zh)}, "edits": edits}


def _shifted(line: str, copy: int) -> str:
    if not copy:
        return line
    return RULE_NUMBER.sub(lambda m: f"{m[1]}.{int(m[2]) + 1000 * copy}{m[3]}", line)


def part_long(work: Path, copies: list[int], limit: int) -> dict:
    runs = {}
    for count in copies:
        print(f"long document, {count} cop{'y' if count == 1 else 'ies'}", flush=True)
        folder = work / f"long-{count}"
        made = long_rules(folder / "input", count)
        runs[str(count)] = {"input": made, **run_stages([folder / "input"], folder, limit)}
        shutil.rmtree(folder / "cache", ignore_errors=True)
    return {"runs": runs}


def per_unit_ratios(runs: dict) -> dict[str, dict[str, float]]:
    """Wall and CPU seconds per unit of each completed run over those of one copy."""
    base = runs.get("1")
    return {
        copies: {
            kind: round(
                (run[f"{kind}_seconds"] / run["units"]) / (base[f"{kind}_seconds"] / base["units"]),
                2,
            )
            for kind in ("wall", "cpu")
        }
        for copies, run in runs.items()
        if base and base["completed"] and run["completed"]
    }


def part_million(work: Path, rulings: int, limit: int) -> dict:
    folder = work / "million"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    print(f"generating {rulings:,} rulings", flush=True)
    generated = run_limited(
        [*GENERATE, str(folder / "input"), "--rulings", str(rulings)], dict(os.environ), limit
    )
    result = {"rulings_asked": rulings, "generate": generated | {"output_tail": None}}
    if generated["exit_code"] == 0:
        files = [p for p in (folder / "input").rglob("*") if p.is_file()]
        mb = round(sum(p.stat().st_size for p in files) / 1e6)
        result["input"] = {"files": len(files), "mb": mb}
        result.update(run_stages([folder / "input"], folder, limit))
    shutil.rmtree(folder, ignore_errors=True)
    return result


def part_allprintings(work: Path, size_mb: int, variants: int, limit: int) -> dict:
    from allprintings_memory import generate

    folder = work / "allprintings"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "input").mkdir(parents=True)
    print(f"generating an AllPrintings-sized file ({size_mb} MB)", flush=True)
    made = generate(folder / "input" / "AllPrintings.json", size_mb, variants)
    result = {"input": made, **run_stages([folder / "input"], folder, limit)}
    shutil.rmtree(folder, ignore_errors=True)
    return result


def part_check(work: Path, repeats: int, limit: int) -> dict:
    """The check stage alone on the generated 100k corpus, pinned to one core."""
    folder = work / "check100k"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    cache, run = folder / "cache", folder / "run"
    env = {**os.environ, "RULINGS_CACHE_DIR": str(cache)}
    steps = [[*GENERATE, str(folder / "input"), "--rulings", "100000", "--seed", "7"]]
    steps += [[str(RULINGS), "ingest", str(folder / "input"), "--out", str(run)]]
    steps += [[str(RULINGS), "align", "--out", str(run)]]
    for command in steps:
        done = run_limited(command, env, limit)
        if done["exit_code"]:
            return {"error": done["output_tail"]}
    units, runs, digests = _count_lines(run / "corpus.jsonl"), [], set()
    command = [str(RULINGS), "check", "--out", str(run), "--fail-on", "never", "--engine", "local"]
    for _ in range(repeats):
        done = run_limited(command, env, limit, cpu=0)
        if done["exit_code"]:
            return {"error": done["output_tail"]}
        runs.append(done)
        digests.add(hashlib.sha256((run / "findings.jsonl").read_bytes()).hexdigest()[:16])
    shutil.rmtree(folder, ignore_errors=True)
    best = min(runs, key=lambda r: r["cpu_seconds"])
    return {
        "units": units,
        "repeats": repeats,
        "wall_seconds": [r["wall_seconds"] for r in runs],
        "cpu_seconds": [r["cpu_seconds"] for r in runs],
        "best_cpu_seconds": best["cpu_seconds"],
        "units_per_cpu_second": round(units / best["cpu_seconds"]),
        "units_per_wall_second": round(units / min(r["wall_seconds"] for r in runs)),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
        "findings_digests": sorted(digests),
        "same_findings": len(digests) == 1,
    }


# --- report -------------------------------------------------------------------------------


def markdown(results: dict) -> str:
    lines = [
        "# Scale: time and memory on large inputs",
        "",
        "Produced by `python benchmarks/scale.py` (every number in `scale.json`; see the "
        "script's docstring for the inputs). Stages run one by one, each a fresh `rulings` "
        "process on the local engine with an empty cache; peak RSS is `ru_maxrss` of the "
        "stage's process (MB of 2^20 bytes), *sampled* the highest RSS of its process tree "
        "seen every 0.2 s. A stage whose process tree goes above the part's limit (16 GB "
        "unless said otherwise) is stopped.",
        "",
    ]
    parts = results.get("parts", {})
    for part in [p for p in PARTS if p in parts] + sorted(set(parts) - set(PARTS)):
        record = parts[part]
        tree = record["machine"].get("code_tree")
        lines += [f"## {part}", "", machine_line(record["machine"])]
        lines += [
            f"Code measured: the source tree at `{tree}`; limit {record.get('limit_gb', 16)} GB."
        ]
        lines += ["", *MARKDOWN.get(part, _md_retired)(record), ""]
    return "\n".join(lines)


STAGE_HEADER = ["stage", "wall s", "CPU s", "peak RSS MB", "sampled peak MB", "status"]


def _run_lines(run: dict, head: str, per_unit: str = "") -> list[str]:
    """A sentence on a run of the stages, and its table of stages."""
    units = ", ".join(f"{k} {v:,}" for k, v in (run.get("units_by_lang") or {}).items())
    rows = [
        [
            stage,
            f"{d['wall_seconds']:,.1f}",
            f"{d['cpu_seconds']:,.1f}",
            f"{d['peak_rss_mb']:,}",
            f"{d['sampled_peak_mb']:,}",
            "stopped over the limit" if d["over_limit"] else f"exit {d['exit_code']}",
        ]
        for stage in STAGES
        if (d := run.get("stages", {}).get(stage))
    ]
    return [
        f"{head}Units {run.get('units') or '–'} ({units}); aligned rows "
        f"{run.get('aligned_rows') or '–'}; findings {run.get('findings') or '–'}; wall "
        f"{run.get('wall_seconds', 0):,.1f} s, CPU {run.get('cpu_seconds', 0):,.1f} s, peak "
        f"{run.get('peak_rss_mb', 0):,} MB{per_unit}"
        + ("" if run.get("completed") else "; **not completed**")
        + ".",
        "",
        md_table(STAGE_HEADER, rows),
    ]


def _md_long(record: dict) -> list[str]:
    out, ratios = [], per_unit_ratios(record["runs"])
    for copies, run in sorted(record["runs"].items(), key=lambda item: int(item[0])):
        lines, ratio = run["input"]["lines"], ratios.get(copies)
        out += [
            f"### {copies} cop{'y' if copies == '1' else 'ies'}: lines en {lines['en']:,}, "
            f"zh {lines['zh']:,}; edits {dict(run['input']['edits']) or 'none'}",
            "",
        ]
        per_unit = (
            f"; per unit {ratio['wall']}x the wall and {ratio['cpu']}x the CPU seconds of one copy"
            if ratio and copies != "1"
            else ""
        )
        out += _run_lines(run, "", per_unit)
    return out


def _md_run(record: dict) -> list[str]:
    made = record.get("generate")
    head = (
        f"Generated {record['rulings_asked']:,} rulings asked: {made['wall_seconds']:,.1f} s, "
        f"peak {made['peak_rss_mb']:,} MB; input {record.get('input', {})}.\n\n"
        if made
        else f"Input: {record.get('input')}.\n\n"
    )
    return _run_lines(record, head)


def _md_check(record: dict) -> list[str]:
    if "error" in record:
        return [f"Failed: {record['error']}"]
    return [
        f"`rulings check` on the generated corpus ({record['units']:,} rulings), one core, "
        f"{record['repeats']} runs; findings identical: {record['same_findings']}.",
        "",
        md_records({"check": record}, CHECK_COLUMNS, "stage"),
    ]


CHECK_COLUMNS = ["wall_seconds", "cpu_seconds", "units_per_cpu_second", "units_per_wall_second"]
CHECK_COLUMNS += ["peak_rss_mb"]
MATCHING_COLUMNS = ["texts", "terms.hits", "terms.same_hits", "terms.speed_up"]
MATCHING_COLUMNS += ["card_names.mentions", "card_names.same_mentions", "card_names.speed_up"]


def _md_retired(record: dict) -> list[str]:
    """A part no longer measured (README.md says why): its last record."""
    table = md_records(record["sets"], MATCHING_COLUMNS, "text set") if "sets" in record else ""
    return ["Retired (see benchmarks/README.md); its last record, from `scale.json`:", "", table]


MARKDOWN = {"check": _md_check, "long": _md_long, "million": _md_run, "allprintings": _md_run}


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__)
    cli.add_argument(
        "--parts", nargs="*", choices=PARTS, default=list(PARTS), help="none: redo the markdown"
    )
    cli.add_argument("--copies", type=int, nargs="*", default=[1, 3, 10])
    cli.add_argument("--rulings", type=int, default=1_000_000)
    cli.add_argument("--allprintings-mb", type=int, default=400)
    cli.add_argument("--variants", type=int, default=50)
    cli.add_argument("--limit-gb", type=float, default=16)
    cli.add_argument("--repeats", type=int, default=3, help="check-stage runs")
    cli.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    args = cli.parse_args(argv)
    shared_or_exit()
    limit = int(args.limit_gb * GIB)
    work = args.work or Path(tempfile.mkdtemp(prefix="rulings-scale-"))
    measure = {
        "check": lambda: part_check(work, args.repeats, limit),
        "long": lambda: part_long(work, args.copies, limit),
        "million": lambda: part_million(work, args.rulings, limit),
        "allprintings": lambda: part_allprintings(work, args.allprintings_mb, args.variants, limit),
    }
    try:
        for part in args.parts:
            described = machine() | {"code_tree": os.environ.get("PYTHONPATH") or str(ROOT)}
            record_part(part, {"machine": described, "limit_gb": args.limit_gb, **measure[part]()})
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if not args.parts:
        record_part(None, {})
    print(f"wrote {RESULTS / 'scale.md'}")
    return 0


def record_part(part: str | None, record: dict) -> None:
    """Write one part's record into the results, keeping the other parts' (read again just
    before writing, so that runs of different parts may overlap)."""
    recorded = RESULTS / "scale.json"
    results = json.loads(recorded.read_text("utf-8")) if recorded.exists() else {}
    results.setdefault("parts", {})
    results.pop("limit_gb", None)
    if part:
        results["parts"][part] = record
    write_results("scale", results, markdown(results))


if __name__ == "__main__":
    sys.exit(main())
