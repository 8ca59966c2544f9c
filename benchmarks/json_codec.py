"""JSON for the stage tables and the cache: the standard library against orjson and msgspec,
on a real run's tables.

    python benchmarks/json_codec.py [--run OUT] [--rulings 100000] [--repeat 3]

Reads the corpus, alignment and findings of the run in OUT (by default a ``rulings run`` of
``--rulings`` generated rulings, ``testkit.corpus``), then, best of ``--repeat`` with the
cyclic collector paused as ``tables`` pauses it: each record written as its table line (the
standard library as ``tables`` used it before: ``as_dict`` and a compact
``json.JSONEncoder``; ``tables`` today: ``fastjson.dumps`` of the record; orjson and msgspec
alone, from ``as_dict``) and each line read back (the standard library's scanner, as
``tables`` read before; ``json.loads``; ``fastjson.loads``; orjson and msgspec alone); how
many lines each writes as the standard library does, and how many ``fastjson`` hands to the
standard library. Results go to ``benchmarks/results/json_codec.{json,md}``.
"""

from __future__ import annotations

import json
import json.scanner
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import orjson
from common import ROOT, md_table, page, parser, record

from pipelines import fastjson, tables
from pipelines.model import Alignment, Finding, Ruling, as_dict

TABLES = ((tables.CORPUS, Ruling), (tables.ALIGNMENT, Alignment), (tables.FINDINGS, Finding))
STANDARD = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False
)
SCAN = json.scanner.make_scanner(json.JSONDecoder())


def best(repeat: int, work) -> tuple[float, object]:
    """The shortest of ``repeat`` runs, with the cyclic collector paused as the tables'
    readers and writers pause it (else its passes over the values kept decide the times)."""
    times, result = [], None
    for _ in range(repeat):
        result = None
        with tables.paused_gc():
            begin = time.perf_counter()
            result = work()
            times.append(time.perf_counter() - begin)
    return min(times), result


def writers() -> dict:
    encoder = msgspec.json.Encoder()
    return {
        "json (before)": lambda r: STANDARD.encode(as_dict(r)).encode("utf-8"),
        "tables (fastjson)": tables._line,
        "orjson alone": lambda r: orjson.dumps(as_dict(r)),
        "msgspec alone": lambda r: encoder.encode(as_dict(r)),
    }


def readers() -> dict:
    return {
        "json scanner (before)": lambda line: SCAN(line.decode("utf-8"), 0)[0],
        "json.loads": json.loads,
        "fastjson": fastjson.loads,
        "orjson alone": orjson.loads,
        "msgspec alone": msgspec.json.Decoder().decode,
    }


def measure(run: Path, repeat: int) -> dict:
    records = [r for name, kind in TABLES for r in tables.read_records(run / name, kind)]
    lines = [line for name, _ in TABLES for line in (run / name).read_bytes().splitlines()]
    expected = [STANDARD.encode(as_dict(r)).encode("utf-8") for r in records]
    written = {}
    for name, write in writers().items():
        seconds, out = best(repeat, lambda write=write: [write(r) for r in records])
        same = sum(a == b for a, b in zip(out, expected, strict=True))
        written[name] = {"seconds": round(seconds, 3), "lines_as_json_writes": same}
    read = {}
    values = [json.loads(line) for line in lines]
    for name, load in readers().items():
        seconds, out = best(repeat, lambda load=load: [load(line) for line in lines])
        read[name] = {"seconds": round(seconds, 3), "values_as_json_reads": out == values}
    guarded = sum(fastjson.dumps(r) != orjson.dumps(r) for r in records)
    return {
        "records": len(records),
        "bytes": sum(map(len, lines)),
        "write": written,
        "read": read,
        "lines_fastjson_hands_to_json": guarded,
    }


def generated_run(folder: Path, rulings: int) -> Path:
    corpus, out = folder / "input", folder / "out"
    subprocess.run(
        [sys.executable, "-m", "testkit.corpus", str(corpus), "--rulings", str(rulings)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    command = [sys.executable, "-m", "pipelines", "run", str(corpus), "--out", str(out)]
    command += ["--fail-on", "never", "--cache-dir", str(folder / "cache")]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return out


def markdown(results: dict) -> str:
    def rows(part: str, same: str) -> list[list]:
        return [[name, f"{r['seconds']:.2f}", r[same]] for name, r in results[part].items()]

    return page(
        "JSON for the tables and the cache",
        f"{results['records']:,} records ({results['bytes']:,} bytes of JSON Lines: the corpus, "
        f"alignment and findings of {results['source']}), best of {results['repeat']}.",
        results["machine"],
        "## Written (each record as its table line)",
        md_table(
            ["writer", "seconds", "lines as json writes them"],
            rows("write", "lines_as_json_writes"),
        ),
        "## Read (each line's value)",
        md_table(
            ["reader", "seconds", "values as json reads them"], rows("read", "values_as_json_reads")
        ),
        f"`fastjson` handed {results['lines_fastjson_hands_to_json']:,} lines to the standard "
        "library (a float under 1e-4, a number beyond 64 bits, a value orjson refuses).",
    )


def main() -> int:
    cli = parser(__doc__, {"json_codec": markdown})
    cli.add_argument("--run", type=Path, help="the output folder of a finished rulings run")
    cli.add_argument("--rulings", type=int, default=100_000)
    cli.add_argument("--repeat", type=int, default=3)
    args = cli.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-json-") as folder:
        run = args.run or generated_run(Path(folder), args.rulings)
        results = measure(run, args.repeat)
        results["source"] = str(args.run) if args.run else f"{args.rulings:,} generated rulings"
        results["repeat"] = args.repeat
    record("json_codec", results, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
