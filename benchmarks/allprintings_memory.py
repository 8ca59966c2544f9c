"""Memory and speed of the MTGJSON reader on AllPrintings-sized input.

Run from the repository root::

    python benchmarks/allprintings_memory.py                 # 100 MB and 400 MB, ~2 minutes
    python benchmarks/allprintings_memory.py --sizes 20 50   # a quick look

For each run it generates (seeded, in a temporary folder, deleted afterwards) an
AllPrintings-shaped file ``{"meta", "data": {code: set}}`` by repeating the real TSP, PLC
and FUT set files of ../shared/data/mtgjson under fake set codes, renaming each printing
to one of ``variants`` names per card ("Epochrasite", "Epochrasite 2", ...) so that the
reader's per-name de-duplication has real work to do. Then, in a fresh interpreter, it runs
the ``mtgjson`` reader over the file, counting and discarding what it yields (keeping the
records is the ingest stage's business), and records the peak RSS (``ru_maxrss``) against
the RSS after the imports, and the throughput. A bare ``ijson.parse`` pass over the same
file shows what streaming alone costs.

Writes ``benchmarks/results/allprintings_memory.json`` (every number) and ``.md`` (the
summary). When ../shared is absent it says so and exits 0 without writing anything.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MTGJSON = (ROOT / ".." / "shared" / "data" / "mtgjson").resolve()
RESULTS = ROOT / "benchmarks" / "results"
BASE_SETS = ("TSP", "PLC", "FUT")
SEED = 20240501
MB = 1_000_000
DEFAULT_RUNS = ((100, 3), (400, 3), (400, 50))
"""(size in MB, name variants per card). 50 variants give about as many distinct card names
(~27,000) as the real AllPrintings."""


def generate(path: Path, size_mb: int, variants: int, seed: int = SEED) -> dict:
    """Write an AllPrintings-shaped file of at least ``size_mb`` MB; return what it holds."""
    rng = random.Random(seed)
    sets = [
        json.loads((MTGJSON / f"{code}.json").read_text(encoding="utf-8"))["data"]
        for code in BASE_SETS
    ]
    meta = {"date": "2022-04-25", "version": "5.2.0+benchmark"}
    target = size_mb * MB
    written = printings = set_count = 0
    names: set[str] = set()
    with open(path, "wb") as out:
        written += out.write(('{"meta": ' + json.dumps(meta) + ', "data": {').encode())
        while written < target:
            base = sets[set_count % len(sets)]
            code = f"X{set_count:04d}"
            cards = []
            for card in base["cards"]:
                variant = rng.randrange(variants)
                name = card["name"] if variant == 0 else f"{card['name']} {variant + 1}"
                names.add(name)
                cards.append({**card, "name": name, "setCode": code})
            printings += len(cards)
            body = json.dumps({**base, "code": code, "cards": cards}, ensure_ascii=False)
            separator = ", " if set_count else ""
            written += out.write(f'{separator}"{code}": {body}'.encode())
            set_count += 1
        out.write(b"}}")
    return {
        "bytes": path.stat().st_size,
        "sets": set_count,
        "printings": printings,
        "distinct_names": len(names),
        "variants": variants,
        "seed": seed,
    }


def measure(path: Path, mode: str) -> dict:
    """Run in the child interpreter: read the file and report RSS and timings."""
    sys.path.insert(0, str(ROOT))
    import ijson

    from pipelines.ingest.readers import READERS, CardName
    from pipelines.ingest.source import SourceFile
    from pipelines.model import Finding, Ruling

    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    counts = {"rulings": 0, "card_names": 0, "findings": 0, "events": 0}
    start = time.perf_counter()
    if mode == "parse":
        with open(path, "rb") as handle:
            for _ in ijson.parse(handle):
                counts["events"] += 1
    else:
        doc = SourceFile(path, path.name)
        for item in READERS["mtgjson"].target(doc):
            if isinstance(item, Ruling):
                counts["rulings"] += 1
            elif isinstance(item, Finding):
                counts["findings"] += 1
            elif isinstance(item, CardName):
                counts["card_names"] += 1
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    size = path.stat().st_size
    return {
        "mode": mode,
        "ijson_backend": ijson.backend,
        "baseline_rss_mb": round(baseline / 1024, 1),
        "peak_rss_mb": round(peak / 1024, 1),
        "growth_mb": round((peak - baseline) / 1024, 1),
        "seconds": round(seconds, 2),
        "mb_per_s": round(size / MB / seconds, 1),
        "rulings_per_s": round(counts["rulings"] / seconds) if counts["rulings"] else None,
        **counts,
    }


def run_child(path: Path, mode: str) -> dict:
    command = [sys.executable, __file__, "--measure", str(path), "--mode", mode]
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(done.stdout)


def machine() -> dict:
    memory = None
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "nproc": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "load_average_before": [round(load, 2) for load in os.getloadavg()],
        "cpu": cpu,
        "memory": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "ijson": metadata.version("ijson"),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def report(results: dict) -> str:
    m = results["machine"]
    lines = [
        "# MTGJSON reader: memory and speed on AllPrintings-sized input",
        "",
        "Produced by `python benchmarks/allprintings_memory.py` (all numbers in "
        "`allprintings_memory.json`). Each file is generated from the real TSP, PLC and FUT "
        "set files repeated under fake set codes, every printing renamed to one of *variants* "
        "names per card; the reader runs in a fresh interpreter and its output is counted and "
        "discarded. *Baseline* is the RSS after importing the package (pandas included); "
        "*growth* is peak RSS minus baseline.",
        "",
        f"Machine: nproc {m['nproc']}, {m['cpu']}, memory {m['memory']}, Python {m['python']} "
        f"({m['platform']}), ijson {m['ijson']} (backend "
        f"`{results['runs'][0]['reader']['ijson_backend']}`), {m['date']}. Load average "
        f"before the runs {m['load_average_before']} (a shared machine: the timings are noisy, "
        "the memory figures are not).",
        "",
        "| file | variants | distinct names | printings | rulings out | card names out "
        "| baseline RSS | peak RSS | growth | reader MB/s | printings/s | rulings/s "
        "| bare ijson.parse MB/s | parse growth |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in results["runs"]:
        f, r, p = run["file"], run["reader"], run["parse"]
        lines.append(
            f"| {f['bytes'] / MB:,.0f} MB | {f['variants']} | {f['distinct_names']:,} "
            f"| {f['printings']:,} | {r['rulings']:,} | {r['card_names']:,} "
            f"| {r['baseline_rss_mb']} MB | {r['peak_rss_mb']} MB | {r['growth_mb']} MB "
            f"| {r['mb_per_s']} | {r['printings_per_s']:,} | {r['rulings_per_s']:,} "
            f"| {p['mb_per_s']} | {p['growth_mb']} MB |"
        )
    lines += ["", "## Reading", "", *results["conclusions"], ""]
    return "\n".join(lines)


def conclusions(runs: list[dict]) -> list[str]:
    """What the numbers say, worded from the numbers."""
    out = []
    first_variants = runs[0]["file"]["variants"]
    same_names = [run for run in runs if run["file"]["variants"] == first_variants]
    if len(same_names) >= 2:
        small, large = same_names[0], same_names[-1]
        ratio = large["file"]["bytes"] / small["file"]["bytes"]
        grew = large["reader"]["growth_mb"] - small["reader"]["growth_mb"]
        verdict = (
            "memory does not depend on the file size"
            if grew <= 5 + 0.25 * small["reader"]["growth_mb"]
            else "memory GROWS with the file size"
        )
        out.append(
            f"- Same card names, {ratio:.1f}x the bytes ({small['file']['bytes'] / MB:,.0f} -> "
            f"{large['file']['bytes'] / MB:,.0f} MB): growth above the baseline "
            f"{small['reader']['growth_mb']} -> {large['reader']['growth_mb']} MB, so {verdict}."
        )
    for run in runs:
        if run["file"]["variants"] != first_variants:
            out.append(
                f"- {run['file']['distinct_names']:,} distinct card names (about as many as the "
                f"real AllPrintings): growth {run['reader']['growth_mb']} MB. The part that grows "
                "is the per-file de-duplication state (the names whose rulings were read and "
                f"the {run['reader']['card_names']:,} card-name entries given), which follows "
                "the size of the output, not of the file."
            )
    reader_speed = [run["reader"]["mb_per_s"] for run in runs]
    parse_speed = [run["parse"]["mb_per_s"] for run in runs]
    share = sum(r / p for r, p in zip(reader_speed, parse_speed, strict=True)) / len(runs)
    out.append(
        f"- The reader streams {min(reader_speed)}-{max(reader_speed)} MB/s; a bare "
        f"`ijson.parse` pass {min(parse_speed)}-{max(parse_speed)} MB/s, so the reader runs at "
        f"{share:.0%} of the tokenizer's speed."
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", help="file sizes in MB (3 variants)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="reader", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.measure:
        print(json.dumps(measure(options.measure, options.mode)))
        return 0
    if not MTGJSON.is_dir():
        print(f"{MTGJSON} is absent: nothing measured, nothing written.")
        return 0
    plan = [(size, 3) for size in options.sizes] if options.sizes else list(DEFAULT_RUNS)
    described = machine()
    runs = []
    with tempfile.TemporaryDirectory(prefix="allprintings-") as folder:
        for size, variants in plan:
            path = Path(folder) / "AllPrintings.json"
            started = time.perf_counter()
            made = generate(path, size, variants)
            print(f"generated {made['bytes'] / MB:,.0f} MB in {time.perf_counter() - started:.0f}s")
            run = {
                "file": made,
                "reader": run_child(path, "reader"),
                "parse": run_child(path, "parse"),
            }
            run["reader"]["printings_per_s"] = round(made["printings"] / run["reader"]["seconds"])
            print(json.dumps(run))
            runs.append(run)
            path.unlink()
    results = {"machine": described, "runs": runs, "conclusions": conclusions(runs)}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "allprintings_memory.json").write_text(
        json.dumps(results, indent=2) + "\n", encoding="utf-8"
    )
    (RESULTS / "allprintings_memory.md").write_text(report(results), encoding="utf-8")
    print(report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
