"""XlsxWriter against openpyxl for findings.xlsx: speed, memory and reproducible bytes.

    python benchmarks/xlsx_writers.py              # 20,000 findings
    python benchmarks/xlsx_writers.py --rows 5000

The findings of ``rulings run`` on the seed corpus are repeated (each copy on other lines,
with its own fingerprint) up to ``--rows``; both libraries build the workbook of
``pipelines/report/writers/xlsx.py`` (a sheet per language, bold frozen header, autofilter,
wrapped text, a severity colour on the first cell, a fixed creation date), ``--repeat``
times each: the median wall time, whether two writes more than a second apart are
byte-identical, the peak of Python allocations (tracemalloc, in one more run apart from the
timed ones), and the rows openpyxl reads back. Writes ``results/xlsx_writers.{json,md}``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SEEDS, machine, machine_line, md_records, run_rulings, write_results

TIMESTAMP_GAP_SECONDS = 1.1
"""Two writes this far apart show whether a writer stamps the time into the file."""


def grown(run, rows: int):
    """The run with its findings repeated up to ``rows`` (shifted lines, own fingerprints)."""
    copies = range(rows // max(len(run.findings), 1) + 1)
    findings = [
        dataclasses.replace(f, line=(f.line or 0) + 1000 * n, fingerprint=f"{f.fingerprint}-{n}")
        for n in copies
        for f in run.findings
    ]
    findings = findings[:rows]
    return dataclasses.replace(run, findings=findings)


def write_openpyxl(run, out: Path) -> Path:
    """The same workbook as ``write_xlsx``, with openpyxl."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
    from openpyxl.utils import get_column_letter

    from pipelines.report.rows import COLUMNS, finding_rows
    from pipelines.report.writers.xlsx import FIXED_DATE, NO_LANGUAGE, SEVERITY_COLOURS, WIDTHS

    path, rows = out / "findings.xlsx", finding_rows(run)
    workbook = Workbook()
    workbook.remove(workbook.active)
    workbook.properties.title = "rulings findings"
    workbook.properties.created = workbook.properties.modified = FIXED_DATE
    thin = Side(style="thin")
    header = {
        "font": Font(bold=True),
        "fill": PatternFill("solid", fgColor="E7E6E6"),
        "border": Border(left=thin, right=thin, top=thin, bottom=thin),
    }
    wrap = Alignment(wrap_text=True, vertical="top")
    fills = {s: PatternFill("solid", fgColor=c.lstrip("#")) for s, c in SEVERITY_COLOURS.items()}
    counts = {lang: sum(row["lang"] == lang for row in rows) for lang in {r["lang"] for r in rows}}
    for lang in sorted(counts, key=lambda lang: (lang == "", -counts[lang], lang)) or [""]:
        sheet = workbook.create_sheet((lang or NO_LANGUAGE)[:31])
        sheet.append(COLUMNS)
        for cell in sheet[1]:
            cell.font, cell.fill, cell.border = header["font"], header["fill"], header["border"]
        for number, name in enumerate(COLUMNS, 1):
            sheet.column_dimensions[get_column_letter(number)].width = WIDTHS.get(name, 14)
        selected = [row for row in rows if row["lang"] == lang]
        for index, row in enumerate(selected, 2):
            for column, name in enumerate(COLUMNS, 1):
                sheet.cell(row=index, column=column, value=row[name]).alignment = wrap
            sheet.cell(row=index, column=1).fill = fills[row["severity"]]
        sheet.freeze_panes = "A2"
        sheet.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{max(len(selected), 1) + 1}"
    workbook.save(path)
    return path


def measure(write, run, work: Path, repeat: int) -> dict:
    """Timed runs without tracing, then one under tracemalloc for the memory peak (tracing
    slows allocation-heavy code several times over)."""
    from openpyxl import load_workbook

    seconds, digests = [], []
    for attempt in range(repeat + 1):
        out = work / f"{write.__name__}-{attempt}"
        out.mkdir()
        if attempt == repeat:
            tracemalloc.start()
            write(run, out)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            break
        time.sleep(TIMESTAMP_GAP_SECONDS if attempt else 0)
        begin = time.perf_counter()
        path = write(run, out)
        seconds.append(time.perf_counter() - begin)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    workbook = load_workbook(path, read_only=True)
    read_back = sum(max(sheet.max_row - 1, 0) for sheet in workbook.worksheets)
    workbook.close()
    return {
        "median_seconds": round(statistics.median(seconds), 3),
        "seconds": [round(s, 3) for s in seconds],
        "peak_python_mb": round(peak / 2**20, 1),
        "bytes": path.stat().st_size,
        "byte_identical_across_runs": len(set(digests)) == 1,
        "rows_read_back": read_back,
    }


def main(argv: list[str] | None = None) -> int:
    from pipelines.report.writers.xlsx import write_xlsx
    from pipelines.tables import RunTables

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    writers = {"xlsxwriter": write_xlsx, "openpyxl": write_openpyxl}
    with tempfile.TemporaryDirectory(prefix="xlsx-writers-") as folder:
        work = Path(folder)
        if run_rulings([SEEDS], work / "seed-run")["exit_code"] not in (0, 1):
            raise SystemExit("rulings run failed on the seed corpus")
        run = grown(RunTables.load(work / "seed-run"), args.rows)
        measured = {name: measure(write, run, work, args.repeat) for name, write in writers.items()}
    for data in measured.values():
        data["rows_per_second"] = round(args.rows / data["median_seconds"])
    results = {"rows": args.rows, "repeat": args.repeat, "machine": machine(), "writers": measured}
    speedup = measured["openpyxl"]["median_seconds"] / measured["xlsxwriter"]["median_seconds"]
    text = [
        "# findings.xlsx: XlsxWriter against openpyxl",
        "",
        f"`python benchmarks/xlsx_writers.py --rows {args.rows}` (numbers in `xlsx_writers.json`;"
        f" method in the script's docstring): the seed run's findings repeated to {args.rows:,} "
        f"rows, written {args.repeat} times by each library.",
        "",
        machine_line(results["machine"]),
        "",
        md_records(measured, COLUMNS, "writer"),
        f"XlsxWriter is {speedup:.1f}x as fast here; byte for byte reproducible: "
        f"{measured['xlsxwriter']['byte_identical_across_runs']} (openpyxl: "
        f"{measured['openpyxl']['byte_identical_across_runs']}, it stamps the time of saving).",
    ]
    paths = write_results("xlsx_writers", results, "\n".join(text))
    print(f"wrote {paths[0]} and {paths[1].name}")
    return 0


COLUMNS = ["median_seconds", "rows_per_second", "peak_python_mb", "bytes"]
COLUMNS += ["byte_identical_across_runs", "rows_read_back"]


if __name__ == "__main__":
    sys.exit(main())
