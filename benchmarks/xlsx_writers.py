"""XlsxWriter against openpyxl for findings.xlsx: speed, memory and reproducible bytes.

Run from the repository root::

    python benchmarks/xlsx_writers.py              # 20,000 findings
    python benchmarks/xlsx_writers.py --rows 5000

The findings of ``rulings run`` on the seed corpus are repeated (each copy on other lines,
with its own fingerprint) up to ``--rows``; both writers then build the same workbook as
``pipelines/report/writers/xlsx.py`` (a sheet per language, bold frozen header, autofilter,
wrapped text, a severity colour on the first cell), each with a fixed creation date. Each
writer runs ``--repeat`` times; the median wall time, the peak of Python allocations
(tracemalloc) and whether two workbooks written more than a second apart are byte-identical
are recorded (the memory in one more run, apart from the timed ones), and each workbook is
read back with openpyxl to check it opens with every row.

Writes ``benchmarks/results/xlsx_writers.json`` and ``xlsx_writers.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pipelines.report.rows import COLUMNS, finding_rows  # noqa: E402
from pipelines.report.writers.xlsx import (  # noqa: E402
    FIXED_DATE,
    SEVERITY_COLOURS,
    WIDTHS,
    _sheet_name,
    write_xlsx,
)
from pipelines.tables import RunTables  # noqa: E402

TIMESTAMP_GAP_SECONDS = 1.1
"""Two writes this far apart show whether a writer stamps the time into the file."""


def seed_run(work: Path) -> RunTables:
    out = work / "seed-run"
    command = [sys.executable, "-m", "pipelines", "run", str(ROOT / "corpus"), "--out", str(out)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"rulings run failed: {done.stderr[-2000:]}")
    return RunTables.load(out)


def grown(run: RunTables, rows: int) -> RunTables:
    """The run with its findings repeated up to ``rows`` (shifted lines, own fingerprints)."""
    findings = []
    copy = 0
    while len(findings) < rows:
        for finding in run.findings:
            if len(findings) == rows:
                break
            findings.append(
                dataclasses.replace(
                    finding,
                    line=(finding.line or 0) + 1000 * copy,
                    fingerprint=f"{finding.fingerprint}-{copy}",
                )
            )
        copy += 1
    return dataclasses.replace(run, findings=findings)


def write_openpyxl(run: RunTables, out: Path) -> Path:
    """The same workbook as write_xlsx, with openpyxl."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
    from openpyxl.utils import get_column_letter

    path = out / "findings.xlsx"
    rows = finding_rows(run)
    workbook = Workbook()
    workbook.remove(workbook.active)
    workbook.properties.title = "rulings findings"
    workbook.properties.created = FIXED_DATE
    workbook.properties.modified = FIXED_DATE
    thin = Side(style="thin")
    header_font, header_fill = Font(bold=True), PatternFill("solid", fgColor="E7E6E6")
    header_border = Border(left=thin, right=thin, top=thin, bottom=thin)
    wrap = Alignment(wrap_text=True, vertical="top")
    fills = {
        severity: PatternFill("solid", fgColor=colour.lstrip("#"))
        for severity, colour in SEVERITY_COLOURS.items()
    }
    for lang in sorted({row["lang"] for row in rows}) or [""]:
        sheet = workbook.create_sheet(_sheet_name(lang))
        sheet.append(COLUMNS)
        for cell in sheet[1]:
            cell.font, cell.fill, cell.border = header_font, header_fill, header_border
        for number, name in enumerate(COLUMNS, 1):
            sheet.column_dimensions[get_column_letter(number)].width = WIDTHS.get(name, 14)
        selected = [row for row in rows if row["lang"] == lang]
        for index, row in enumerate(selected, 2):
            for column, name in enumerate(COLUMNS, 1):
                sheet.cell(row=index, column=column, value=row[name]).alignment = wrap
            sheet.cell(row=index, column=1).fill = fills[row["severity"]]
        sheet.freeze_panes = "A2"
        last = get_column_letter(len(COLUMNS))
        sheet.auto_filter.ref = f"A1:{last}{max(len(selected), 1) + 1}"
    workbook.save(path)
    return path


WRITERS: dict[str, Callable[[RunTables, Path], Path]] = {
    "xlsxwriter": write_xlsx,
    "openpyxl": write_openpyxl,
}


def measure(name: str, run: RunTables, work: Path, repeat: int) -> dict:
    """Timed runs without tracing, then one run under tracemalloc for the memory peak
    (tracing slows allocation-heavy code several times over, so it is kept out of the
    timings)."""
    write = WRITERS[name]
    seconds, digests = [], []
    for attempt in range(repeat):
        out = work / f"{name}-{attempt}"
        out.mkdir()
        if attempt:
            time.sleep(TIMESTAMP_GAP_SECONDS)
        begin = time.perf_counter()
        path = write(run, out)
        seconds.append(time.perf_counter() - begin)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    traced = work / f"{name}-traced"
    traced.mkdir()
    tracemalloc.start()
    write(run, traced)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "median_seconds": round(statistics.median(seconds), 3),
        "seconds": [round(s, 3) for s in seconds],
        "peak_python_mb": round(peak / 2**20, 1),
        "bytes": path.stat().st_size,
        "byte_identical_across_runs": len(set(digests)) == 1,
        "rows_read_back": read_back(path),
    }


def read_back(path: Path) -> int:
    """Data rows openpyxl reads from the workbook (all sheets, headers excluded)."""
    from openpyxl import load_workbook

    workbook = load_workbook(path, read_only=True)
    rows = sum(max(sheet.max_row - 1, 0) for sheet in workbook.worksheets)
    workbook.close()
    return rows


def machine() -> dict:
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return {
        "cpu": cpu,
        "nproc": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "xlsxwriter": metadata.version("xlsxwriter"),
        "openpyxl": metadata.version("openpyxl"),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def markdown(results: dict) -> str:
    m = results["machine"]
    lines = [
        "# findings.xlsx: XlsxWriter against openpyxl",
        "",
        f"Produced by `python benchmarks/xlsx_writers.py --rows {results['rows']}` (numbers in "
        "`xlsx_writers.json`). The seed run's findings repeated to "
        f"{results['rows']:,} rows; the same workbook (sheet per language, frozen header, "
        "autofilter, wrapped text, severity colours, fixed creation date) written "
        f"{results['repeat']} times by each library; two writes more than a second apart are "
        "compared byte for byte; each workbook is read back with openpyxl.",
        "",
        f"Machine: {m['cpu']}, nproc {m['nproc']}, Python {m['python']}, XlsxWriter "
        f"{m['xlsxwriter']}, openpyxl {m['openpyxl']}; {m['date']}, load average "
        f"{m['load_average']}.",
        "",
        "| writer | median s | rows/s | peak Python MB | file bytes | byte-identical | rows read "
        "back |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for name, data in results["writers"].items():
        lines.append(
            f"| {name} | {data['median_seconds']} | "
            f"{results['rows'] / data['median_seconds']:,.0f} | {data['peak_python_mb']} | "
            f"{data['bytes']:,} | {'yes' if data['byte_identical_across_runs'] else 'no'} | "
            f"{data['rows_read_back']:,} |"
        )
    xw, op = results["writers"]["xlsxwriter"], results["writers"]["openpyxl"]
    lines += [
        "",
        f"Chosen: XlsxWriter, {op['median_seconds'] / xw['median_seconds']:.1f}x faster here"
        + (
            "; and its output is reproducible byte for byte, which the contract asks of every "
            "report, while openpyxl stamps the time of saving into docProps/core.xml "
            "(modified) and into the zip entries."
            if xw["byte_identical_across_runs"] and not op["byte_identical_across_runs"]
            else "."
        ),
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="xlsx-writers-") as folder:
        work = Path(folder)
        run = grown(seed_run(work), args.rows)
        results = {
            "rows": args.rows,
            "repeat": args.repeat,
            "machine": machine(),
            "writers": {name: measure(name, run, work, args.repeat) for name in WRITERS},
        }
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "xlsx_writers.json").write_text(
        json.dumps(results, indent=1) + "\n", encoding="utf-8"
    )
    (args.results / "xlsx_writers.md").write_text(markdown(results), encoding="utf-8")
    print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
