"""Memory and speed of the MTGJSON reader on AllPrintings-sized input.

    python benchmarks/allprintings_memory.py                 # 100 MB and 400 MB, ~2 minutes
    python benchmarks/allprintings_memory.py --sizes 20 50   # a quick look

Each file (seeded, in a temporary folder) is an AllPrintings-shaped ``{"meta", "data":
{code: set}}`` made of the real TSP, PLC and FUT set files repeated under fake set codes,
every printing renamed to one of ``variants`` names per card ("Epochrasite", "Epochrasite
2", ...) so that the reader's per-name de-duplication has work to do. In a fresh interpreter
the ``mtgjson`` reader runs over it, its output counted and discarded (keeping records is
the ingest stage's business): peak RSS against the RSS after the imports, and throughput.
A bare ``ijson.parse`` pass shows what streaming alone costs. Writes
``results/allprintings_memory.{json,md}``.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import HIDDEN, MTGJSON, child_json, page, parser, record, shared_or_exit, usage

BASE_SETS = ("TSP", "PLC", "FUT")
SEED = 20240501
MB = 1_000_000
DEFAULT_RUNS = ((100, 3), (400, 3), (400, 50))
"""(size in MB, name variants per card). 50 variants give about as many distinct card names
(~27,000) as the real AllPrintings."""
COLUMNS = ["file.distinct_names", "file.printings", "reader.rulings", "reader.card_names"]
COLUMNS += ["reader.baseline_rss_mb", "reader.peak_rss_mb", "reader.growth_mb", "reader.mb_per_s"]
COLUMNS += ["reader.printings_per_s", "reader.rulings_per_s", "parse.mb_per_s", "parse.growth_mb"]


def generate(path: Path, size_mb: int, variants: int, seed: int = SEED) -> dict:
    """Write an AllPrintings-shaped file of at least ``size_mb`` MB; what it holds."""
    rng = random.Random(seed)
    sets = [json.loads((MTGJSON / f"{code}.json").read_text("utf-8"))["data"] for code in BASE_SETS]
    written = printings = count = 0
    names: set[str] = set()
    with open(path, "wb") as out:
        meta = {"date": "2022-04-25", "version": "5.2.0+benchmark"}
        written += out.write(('{"meta": ' + json.dumps(meta) + ', "data": {').encode())
        while written < size_mb * MB:
            base, code = sets[count % len(sets)], f"X{count:04d}"
            cards = []
            for card in base["cards"]:
                variant = rng.randrange(variants)
                name = card["name"] if variant == 0 else f"{card['name']} {variant + 1}"
                names.add(name)
                cards.append({**card, "name": name, "setCode": code})
            printings += len(cards)
            body = json.dumps({**base, "code": code, "cards": cards}, ensure_ascii=False)
            written += out.write(f'{", " if count else ""}"{code}": {body}'.encode())
            count += 1
        out.write(b"}}")
    return {
        "bytes": path.stat().st_size,
        "sets": count,
        "printings": printings,
        "distinct_names": len(names),
        "variants": variants,
        "seed": seed,
    }


def measure(path: Path, mode: str) -> dict:
    """In the child interpreter: read the file (reader or bare parse); RSS and timings."""
    import ijson

    from pipelines.ingest.readers import READERS
    from pipelines.ingest.source import SourceFile

    _, baseline = usage()
    counts = {"rulings": 0, "card_names": 0, "findings": 0, "events": 0}
    start = time.perf_counter()
    if mode == "parse":
        with open(path, "rb") as handle:
            counts["events"] = sum(1 for _ in ijson.parse(handle))
    else:
        kinds = {"Ruling": "rulings", "Finding": "findings", "CardName": "card_names"}
        for item in READERS["mtgjson"].target(SourceFile(path, path.name)):
            counts[kinds[type(item).__name__]] += 1
    seconds, (_, peak) = time.perf_counter() - start, usage()
    return {
        "mode": mode,
        "ijson_backend": ijson.backend,
        "baseline_rss_mb": round(baseline, 1),
        "peak_rss_mb": round(peak, 1),
        "growth_mb": round(peak - baseline, 1),
        "seconds": round(seconds, 2),
        "mb_per_s": round(path.stat().st_size / MB / seconds, 1),
        "rulings_per_s": round(counts["rulings"] / seconds) if counts["rulings"] else None,
        **counts,
    }


def conclusions(runs: list[dict]) -> list[str]:
    """What the numbers say, worded from the numbers."""
    out = []
    first = runs[0]["file"]["variants"]
    same_names = [run for run in runs if run["file"]["variants"] == first]
    if len(same_names) >= 2:
        small, large = same_names[0]["reader"], same_names[-1]["reader"]
        steady = large["growth_mb"] - small["growth_mb"] <= 5 + 0.25 * small["growth_mb"]
        out.append(
            f"- Same card names, "
            f"{same_names[-1]['file']['bytes'] / same_names[0]['file']['bytes']:.1f}x the bytes: "
            f"growth {small['growth_mb']} -> {large['growth_mb']} MB, so "
            + ("memory does not depend on the file size." if steady else "memory GROWS with it.")
        )
    out += [
        f"- {run['file']['distinct_names']:,} distinct card names: growth "
        f"{run['reader']['growth_mb']} MB, the per-file de-duplication state ("
        f"{run['reader']['card_names']:,} card-name entries): it follows the output, not the file."
        for run in runs
        if run["file"]["variants"] != first
    ]
    share = sum(r["reader"]["mb_per_s"] / r["parse"]["mb_per_s"] for r in runs) / len(runs)
    return [*out, f"- The reader runs at {share:.0%} of the bare tokenizer's speed."]


def markdown(r: dict) -> str:
    rows = {
        f"{x['file']['bytes'] / MB:,.0f} MB, {x['file']['variants']} variants": x for x in r["runs"]
    }
    return page(
        "MTGJSON reader: memory and speed on AllPrintings-sized input",
        "`python benchmarks/allprintings_memory.py` (all numbers in `allprintings_memory.json`; "
        "method in the script's docstring). *Baseline*: RSS after importing the package; "
        "*growth*: peak RSS minus baseline (MB).",
        r["machine"],
        (rows, COLUMNS, "file"),
        "## Reading",
        "\n".join(r["conclusions"]),
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__)
    cli.add_argument("--sizes", type=int, nargs="*", help="file sizes in MB (3 variants)")
    cli.add_argument("--measure", type=Path, help=HIDDEN)
    cli.add_argument("--mode", default="reader", help=HIDDEN)
    args = cli.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.measure, args.mode)))
        return 0
    shared_or_exit()
    runs = []
    with tempfile.TemporaryDirectory(prefix="allprintings-") as folder:
        path = Path(folder) / "AllPrintings.json"
        for size, variants in [(size, 3) for size in args.sizes or ()] or DEFAULT_RUNS:
            made = generate(path, size, variants)
            run = {
                m: child_json(__file__, "--measure", path, "--mode", m) for m in ("reader", "parse")
            }
            run["file"] = made
            run["reader"]["printings_per_s"] = round(made["printings"] / run["reader"]["seconds"])
            print(json.dumps(run), flush=True)
            runs.append(run)
    record("allprintings_memory", {"runs": runs, "conclusions": conclusions(runs)}, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
