"""Scale: wall time and peak memory on inputs far larger than the everyday benchmarks.

    python benchmarks/scale.py                              # every part (an hour or more)
    python benchmarks/scale.py --parts check                # the quick part
    python benchmarks/scale.py --parts long --copies 1 2    # a quick look at the long document
    python benchmarks/scale.py --parts reader --sizes 20 50 # a quick look at the reader

Parts (each writes its section of ``results/scale.{json,md}``; parts not run keep their
last recorded result, and so does the retired ``matching`` part, see README.md):

- ``check``: the check stage alone (``rulings check`` in a fresh process pinned to one core,
  ``--repeats`` times) on the generated 100,000-ruling corpus, after ``ingest`` and
  ``align`` ran once; the findings must be byte-identical every time. Then once more with
  the work cache of the last run kept: the stage's floor, every finding read from the cache.
- ``long``: a long rules document pair: ``--copies`` copies (default 1, 3, 10) of the
  Comprehensive Rules 2023 in English and Chinese one after the other, each copy's rule
  numbers shifted (copy k: 702.62a -> 702.<62 + 1000k>a, references in the text too) and a
  few Chinese lines dropped or with a digit changed; the first copy is the real pair.
- ``million``: ``python -m testkit.corpus --rulings 1000000`` (en/es/zh), then the stages.
- ``dask``: ``rulings run`` on a generated corpus (``--dask-rulings``, default 100,000) with
  ``--engine dask --workers 2 --worker-memory 2GB`` and an empty cache (the embedding model
  loads in every worker): the peak RSS of each worker process, sampled every 0.2 s, against
  the limit, and Dask's memory warnings (pausing, spilling, restarting a worker) counted
  in the run's log.
- ``allprintings``: an AllPrintings-sized MTGJSON file (400 MB, ~27,000 card names, made by
  ``allprintings``), then the stages.
- ``reader`` (its own ``results/allprintings_memory.{json,md}``): the MTGJSON reader alone
  on AllPrintings-sized files (100 and 400 MB with 3 name variants per card, 400 MB with 50:
  about as many distinct card names as the real AllPrintings). In a fresh interpreter the
  ``mtgjson`` reader runs over the file, its output counted and discarded (keeping records
  is the ingest stage's business): peak RSS against the RSS after the imports, and
  throughput; a bare ``ijson.parse`` pass shows what streaming alone costs.

The files of ``allprintings`` and ``reader`` (seeded) are AllPrintings-shaped ``{"meta",
"data": {code: set}}``, the real TSP, PLC and FUT set files repeated under fake set codes,
every printing renamed to one of ``variants`` names per card ("Epochrasite", "Epochrasite
2", ...) so that the reader's per-name de-duplication has work to do.

The stages run one by one (``rulings ingest``, ``align``, ``check``, ``report``), each in
its own process on the local engine with an empty cache per input; per stage: wall and CPU
seconds and peak RSS (``wait4``), and the highest RSS of the process tree sampled every
0.2 s. A stage whose tree goes above ``--limit-gb`` (default 16) is stopped and recorded as
over the limit; the later stages are not run.

In ``long`` (every number of copies) and ``allprintings``, one document is then edited (a
revision mark on the Chinese line in the middle of the long document; on the first ruling of
the AllPrintings-shaped file, whose units are English rulings) and the stages run again with
the cache into the same output folder, the nightly case, then with an empty cache on the
edited input: the edited run's time against that cold run's, and its files against the
cold run's. In ``million``, two rulings of the first Spanish card file get a revision mark
and the stages run again with the cache, compared with the first cold run in time only (a
cold run on the edited input would take another hour; the other parts compare the bytes).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
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

from common import (
    CR,
    CR_EN,
    CR_ZH,
    HIDDEN,
    RESULTS,
    ROOT,
    RULINGS,
    child_json,
    digest,
    machine,
    machine_line,
    md_records,
    md_table,
    mtgjson,
    page,
    parser,
    process_tree,
    read_lines,
    record,
    shared_or_exit,
    usage,
    write_results,
)

STAGES = ("ingest", "align", "check", "report")
ONE_PROCESS = ("run",)
"""``rulings run``: every stage in one process, as the nightly job runs them."""
PARTS = ("check", "long", "million", "dask", "allprintings", "reader")
DASK_WARNINGS = {
    "high memory use": re.compile(r"memory use is high|% memory usage|exceeded \d+% memory"),
    "paused": re.compile(r"[Pp]ausing worker"),
    "restarted": re.compile(r"[Rr]estarting worker|[Nn]anny.*terminat"),
}
GIB, MB = 1024**3, 1_000_000
PAGE = os.sysconf("SC_PAGE_SIZE")
RULE_NUMBER = re.compile(r"(?<![\d.])(\d{3})\.(\d+)([a-z]?)(?!\d)")
EDITS = {"dropped": 0.002, "digit changed": 0.002}
"""Chances per Chinese line of a copy after the first."""
SEED, PRINTINGS_SEED = 14, 20240501
GENERATE = [sys.executable, "-m", "testkit.corpus"]
"""The corpus generator, run from the repository root (``run_limited``'s folder)."""
BASE_SETS = ("TSP", "PLC", "FUT")
READER_RUNS = ((100, 3), (400, 3), (400, 50))
"""(size in MB, name variants per card) of the ``reader`` part's files."""


# --- running a stage under a memory limit ------------------------------------------------


AS_INSTALLED = {"PYTHONDONTWRITEBYTECODE": ""}
"""The commands measured run as an installed package runs: from its compiled bytecode (pip
compiles it at install, an editable install writes it on first import; ``main`` compiles
the tree measured first). This workplace's shells set PYTHONDONTWRITEBYTECODE, with which
every ``rulings`` process compiled the package from source again: 0.3-0.4 s a process,
most of a stage command's start (records before 2026-12-04 21:00 were made so)."""


def compile_tree(tree: Path) -> bool:
    """The package's bytecode, written once before anything is measured, by the interpreter
    that runs ``rulings`` (its bytecode is the one read); whether every module compiled."""
    python = RULINGS.parent / "python"
    command = [str(python if python.exists() else sys.executable), "-m", "compileall", "-q"]
    done = subprocess.run([*command, str(tree / "pipelines")], env={**os.environ, **AS_INSTALLED})
    return done.returncode == 0


def run_limited(command: list[str], env: dict, limit_bytes: int, cpu: int | None = None) -> dict:
    """Run ``command`` (as installed: ``AS_INSTALLED``); wall/CPU seconds, ``ru_maxrss`` and
    the sampled peak RSS of its process tree; stop it when the tree's RSS goes above
    ``limit_bytes``."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        pin = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**env, **AS_INSTALLED},
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=pin,
        )
        watch, done = {"peak": 0, "over_at": None}, threading.Event()
        each: dict[int, int] = {}

        def watchdog() -> None:
            while not done.wait(0.2):
                tree = process_tree(process.pid)
                sizes = {pid: rss_bytes(pid) for pid in tree}
                for pid, size in sizes.items():
                    each[pid] = max(each.get(pid, 0), size)
                rss = sum(sizes.values())
                watch["peak"] = max(watch["peak"], rss)
                if rss > limit_bytes and watch["over_at"] is None:
                    watch["over_at"] = time.perf_counter() - start
                    for member in reversed(tree):
                        with contextlib.suppress(OSError):
                            os.kill(member, signal.SIGKILL)

        thread = threading.Thread(target=watchdog, daemon=True)
        thread.start()
        _, status, used = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        thread.join()
        code = os.waitstatus_to_exitcode(status)
        log.seek(0)
        output = log.read().decode("utf-8", "replace")
        tail = output[-1500:]
    over = watch["over_at"]
    children = sorted((size for pid, size in each.items() if pid != process.pid), reverse=True)
    return {
        "command": " ".join([Path(command[0]).name, *command[1:]]),
        "exit_code": code,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(used.ru_utime + used.ru_stime, 2),
        "peak_rss_mb": round(used.ru_maxrss / 1024),
        "sampled_peak_mb": round(watch["peak"] / 2**20),
        "over_limit": over is not None,
        "stopped_after_seconds": round(over, 1) if over else None,
        "output_tail": tail if code else None,
        "children_peak_mb": [round(size / 2**20) for size in children[:8]],
        "dask_warnings": {
            name: len(pattern.findall(output)) for name, pattern in DASK_WARNINGS.items()
        },
    }


def rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def run_stages(
    inputs: list[Path],
    out: Path,
    limit_bytes: int,
    *,
    fresh: bool = True,
    stages: tuple[str, ...] = STAGES,
) -> dict:
    """Every stage in turn, each a fresh ``rulings`` process, an empty cache in ``out`` (with
    ``fresh`` False, the cache and output folder an earlier run left there); ``stages``
    ``ONE_PROCESS`` runs them all in one."""
    cache, run = out / "cache", out / "run"
    if fresh:
        for folder in (cache, run):
            shutil.rmtree(folder, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "RULINGS_CACHE_DIR": str(cache)}
    results: dict[str, dict] = {}
    for stage in stages:
        command = [str(RULINGS), stage, *(map(str, inputs) if stage in ("ingest", "run") else ())]
        command += ["--out", str(run)] + (["--engine", "local"] if stage != "report" else [])
        command += ["--fail-on", "never"] if stage in ("check", "report", "run") else []
        print(f"  {stage} ...", flush=True)
        results[stage] = result = run_limited(command, env, limit_bytes)
        over = " (over the limit: stopped)" if result["over_limit"] else ""
        print(f"  {stage}: {result['wall_seconds']} s, peak {result['peak_rss_mb']:,} MB{over}")
        if result["exit_code"] != 0:
            break
    return {
        "stages": results,
        "completed": all(s["exit_code"] == 0 for s in results.values())
        and len(results) == len(stages),
        "wall_seconds": round(sum(s["wall_seconds"] for s in results.values()), 2),
        "cpu_seconds": round(sum(s["cpu_seconds"] for s in results.values()), 2),
        "peak_rss_mb": max(s["peak_rss_mb"] for s in results.values()),
        "units": count_lines(run / "corpus.jsonl"),
        "units_by_lang": count_lines(run / "corpus.jsonl", "lang"),
        "aligned_rows": count_lines(run / "alignment.jsonl"),
        "findings": count_lines(run / "findings.jsonl"),
    }


def edited_rerun(
    inputs: list[Path],
    folder: Path,
    limit_bytes: int,
    edit,
    first: dict | None = None,
    stages: tuple[str, ...] = STAGES,
) -> dict:
    """After ``run_stages`` into ``folder``: ``edit`` changes one document of the input, the
    stages run again with that run's cache into its output folder (the nightly case), then
    with an empty cache into another folder; the edited run's time against that cold run's,
    and its files against the cold run's. Given the ``first`` (cold) run's record, the
    edited run is compared with it instead, times only: no second cold run."""
    change = edit(inputs[0])
    print(f"  edited: {change}", flush=True)
    edited = run_stages(inputs, folder, limit_bytes, fresh=False, stages=stages)
    if first is not None:
        return {
            "change": change,
            "edited": edited,
            "compared_with": "the cold run on the input before the edit (times only)",
            "share_of_cold_wall": round(edited["wall_seconds"] / first["wall_seconds"], 4),
            "share_of_cold_cpu": round(edited["cpu_seconds"] / first["cpu_seconds"], 4),
        }
    cold = run_stages(inputs, folder / "cold-edited", limit_bytes, stages=stages)
    ours, theirs = folder / "run", folder / "cold-edited" / "run"
    files = sorted(path.name for path in theirs.iterdir() if path.is_file())
    differing = [name for name in files if digest(ours / name) != digest(theirs / name)]
    shutil.rmtree(folder / "cold-edited", ignore_errors=True)
    return {
        "change": change,
        "edited": edited,
        "cold": cold,
        "share_of_cold_wall": round(edited["wall_seconds"] / cold["wall_seconds"], 4),
        "share_of_cold_cpu": round(edited["cpu_seconds"] / cold["cpu_seconds"], 4),
        "files_compared": len(files),
        "files_differing": differing,
    }


def edit_long(folder: Path) -> dict:
    """A revision mark at the end of the Chinese line in the middle of the long document."""
    [path] = sorted(folder.glob("long_*_zh.txt"))
    lines = path.read_text("utf-8").split("\n")
    number = next(n for n in range(len(lines) // 2, len(lines)) if lines[n].strip())
    lines[number] += "（修订）"
    path.write_text("\n".join(lines), "utf-8")
    return {"file": path.name, "line": number + 1}


FIRST_RULING = re.compile(rb'"rulings": \[\{[^{}]*?"text": "')
"""The text of a card's first ruling in the AllPrintings-shaped file (json.dumps's
separators; MTGJSON's keys, ``date`` before ``text``)."""
SEARCHED = 64 * MB
"""How far into the file the first ruling is looked for (it comes in the first set)."""


def edit_printings(folder: Path) -> dict:
    """A revision mark at the start of the file's first English ruling (the file's units
    are the cards' English rulings); the bytes stay JSON. Streamed: the benchmark's own
    process must not hold the file, or its peak would be counted in the stages' (a child
    starts at its parent's size)."""
    path = folder / "AllPrintings.json"
    edited = path.with_name(path.name + ".edited")
    with path.open("rb") as source:
        head = source.read(SEARCHED)
        found = FIRST_RULING.search(head)
        if found is None:
            raise ValueError("no ruling in the first 64 MB of the AllPrintings-shaped file")
        with edited.open("wb") as out:
            out.write(head[: found.end()] + b"(rev.) " + head[found.end() :])
            shutil.copyfileobj(source, out, 1 << 20)
    edited.replace(path)
    card = head.rfind(b'"name": "', 0, found.start())
    name = head[card + 9 : head.index(b'"', card + 9)].decode() if card >= 0 else None
    return {"file": path.name, "byte": found.end(), "card": name}


DATED_LINE = re.compile(r"^\d{2}/\d{2}/\d{4} ")
"""A ruling's line in a generated Spanish card file (its date first)."""


def edit_generated(folder: Path) -> dict:
    """A revision mark at the end of the first two rulings of the first Spanish card file of
    a generated corpus (one small file read: the corpus is never loaded)."""
    path = sorted((folder / "es").glob("*.txt"))[0]
    lines = path.read_text("utf-8").split("\n")
    edited = [n for n, line in enumerate(lines) if DATED_LINE.match(line)][:2]
    for number in edited:
        lines[number] += " (revisado)"
    path.write_text("\n".join(lines), "utf-8")
    return {"file": f"es/{path.name}", "lines": [n + 1 for n in edited]}


def count_lines(path: Path, by: str | None = None):
    """The lines of a JSONL table, or the count of each value of the field ``by``; None when
    the table is absent (streamed: a table of a million rulings is large)."""
    if not path.exists():
        return None
    with path.open(encoding="utf-8") as handle:
        if by is None:
            return sum(1 for _ in handle)
        return dict(Counter(json.loads(line).get(by) or "-" for line in handle))


# --- parts --------------------------------------------------------------------------------


def long_rules(folder: Path, copies: int, seed: int = SEED) -> dict:
    """The English and Chinese CR ``copies`` times over, as one file per language."""
    english, chinese = read_lines(CR / CR_EN), read_lines(CR / CR_ZH)
    rng, edits = random.Random(seed), Counter()
    out_en: list[str] = []
    out_zh: list[str] = []
    for copy in range(copies):
        for line_en, line_zh in zip(english, chinese, strict=True):
            out_en.append(shifted(line_en, copy))
            line_zh = shifted(line_zh, copy)
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


def shifted(line: str, copy: int) -> str:
    if not copy:
        return line
    return RULE_NUMBER.sub(lambda m: f"{m[1]}.{int(m[2]) + 1000 * copy}{m[3]}", line)


def generate(folder: Path, rulings: int, limit: int) -> dict:
    """``python -m testkit.corpus FOLDER/input --rulings RULINGS`` (seed 7), under the limit."""
    command = [*GENERATE, str(folder / "input"), "--rulings", str(rulings)]
    return run_limited(command, dict(os.environ), limit)


def part_long(folder: Path, copies: list[int], limit: int) -> dict:
    runs = {}
    for count in copies:
        print(f"long document, {count} cop{'y' if count == 1 else 'ies'}", flush=True)
        here = folder / f"long-{count}"
        made = long_rules(here / "input", count)
        cold = run_stages([here / "input"], here, limit)
        edit = edited_rerun([here / "input"], here, limit, edit_long) if cold["completed"] else {}
        one = one_process([here / "input"], here, limit, edit_long)
        runs[str(count)] = {"input": made, **cold, "edit": edit, "one_process": one}
        for folder_used in (here, here / "one-process"):
            shutil.rmtree(folder_used / "cache", ignore_errors=True)
    return {"runs": runs}


def one_process(inputs: list[Path], folder: Path, limit: int, edit) -> dict:
    """After a part's stages: ``rulings run`` (every stage in one process, the nightly job)
    cold on the input as it is, then ``edit`` and the edited rerun against a cold run on the
    edited input (``edited_rerun``), in ``folder/one-process``."""
    print("  the same in one process (rulings run), on the input as edited", flush=True)
    whole = folder / "one-process"
    one = run_stages(inputs, whole, limit, stages=ONE_PROCESS)
    if one["completed"]:
        one["edit"] = edited_rerun(inputs, whole, limit, edit, stages=ONE_PROCESS)
    return one


def part_million(folder: Path, rulings: int, limit: int) -> dict:
    print(f"generating {rulings:,} rulings", flush=True)
    generated = generate(folder, rulings, limit)
    result = {"rulings_asked": rulings, "generate": generated | {"output_tail": None}}
    if generated["exit_code"] == 0:
        files = [p for p in (folder / "input").rglob("*") if p.is_file()]
        mb = round(sum(p.stat().st_size for p in files) / 1e6)
        result["input"] = {"files": len(files), "mb": mb}
        result.update(run_stages([folder / "input"], folder, limit))
        if result["completed"]:
            cold = {"wall_seconds": result["wall_seconds"], "cpu_seconds": result["cpu_seconds"]}
            result["edit"] = edited_rerun([folder / "input"], folder, limit, edit_generated, cold)
    return result


def part_dask(folder: Path, rulings: int, workers: int, memory: str, limit: int) -> dict:
    """One ``rulings run`` on a LocalCluster of ``workers`` processes held to ``memory``."""
    generate(folder, rulings, limit)
    env = {**os.environ, "RULINGS_CACHE_DIR": str(folder / "cache")}
    cluster = ["--engine", "dask", "--workers", str(workers), "--worker-memory", memory]
    command = [str(RULINGS), "run", str(folder / "input"), "--out", str(folder / "run")]
    print(f"dask: {rulings:,} rulings, {workers} workers of {memory}", flush=True)
    result = run_limited([*command, *cluster, "--fail-on", "never"], env, limit)
    from dask.utils import parse_bytes

    workers_peak = max(result["children_peak_mb"][:workers], default=0)
    return {
        "rulings_asked": rulings,
        "workers": workers,
        "worker_memory": memory,
        "run": result,
        "units": count_lines(folder / "run" / "corpus.jsonl"),
        "findings": count_lines(folder / "run" / "findings.jsonl"),
        "largest_worker_peak_mb": workers_peak,
        "within_limit": workers_peak * 2**20 <= parse_bytes(memory)
        and not result["dask_warnings"]["restarted"],
    }


def allprintings(path: Path, size_mb: int, variants: int, seed: int = PRINTINGS_SEED) -> dict:
    """Write an AllPrintings-shaped file of at least ``size_mb`` MB; what it holds."""
    rng = random.Random(seed)
    sets = [mtgjson(code)["data"] for code in BASE_SETS]
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


def part_allprintings(folder: Path, size_mb: int, variants: int, limit: int) -> dict:
    (folder / "input").mkdir()
    print(f"generating an AllPrintings-sized file ({size_mb} MB)", flush=True)
    made = allprintings(folder / "input" / "AllPrintings.json", size_mb, variants)
    cold = run_stages([folder / "input"], folder, limit)
    edit = (
        edited_rerun([folder / "input"], folder, limit, edit_printings) if cold["completed"] else {}
    )
    one = one_process([folder / "input"], folder, limit, edit_printings) if edit else {}
    return {"input": made, **cold, "edit": edit, "one_process": one}


def part_check(folder: Path, repeats: int, limit: int) -> dict:
    """The check stage alone on the generated 100k corpus, pinned to one core. Every run
    computes every check: the findings the check stage keeps per document and per group (the
    work cache) are removed before each; the rest of the cache (card index, language answers)
    is warm. One more run with the work cache of the last one kept (every finding read from
    it, no check computed) gives the stage's floor: reading the tables, keying the documents,
    writing the findings."""
    cache, run = folder / "cache", folder / "run"
    env = {**os.environ, "RULINGS_CACHE_DIR": str(cache)}
    steps = [[*GENERATE, str(folder / "input"), "--rulings", "100000", "--seed", "7"]]
    steps += [[str(RULINGS), "ingest", str(folder / "input"), "--out", str(run)]]
    steps += [[str(RULINGS), "align", "--out", str(run)]]
    for command in steps:
        done = run_limited(command, env, limit)
        if done["exit_code"]:
            return {"error": done["output_tail"]}
    units, runs, digests = count_lines(run / "corpus.jsonl"), [], set()
    command = [str(RULINGS), "check", "--out", str(run), "--fail-on", "never", "--engine", "local"]
    for _ in range(repeats):
        clear = [str(RULINGS), "cache", "clear", "--kind", "check", "--kind", "check-group"]
        subprocess.run(clear, env=env, capture_output=True, check=True)
        done = run_limited(command, env, limit, cpu=0)
        if done["exit_code"]:
            return {"error": done["output_tail"]}
        runs.append(done)
        digests.add(hashlib.sha256((run / "findings.jsonl").read_bytes()).hexdigest()[:16])
    best = min(runs, key=lambda r: r["cpu_seconds"])
    cached = run_limited(command, env, limit, cpu=0)  # the work cache of the last run kept
    if cached["exit_code"]:
        return {"error": cached["output_tail"]}
    digests.add(hashlib.sha256((run / "findings.jsonl").read_bytes()).hexdigest()[:16])
    return {
        "units": units,
        "repeats": repeats,
        "wall_seconds": [r["wall_seconds"] for r in runs],
        "cpu_seconds": [r["cpu_seconds"] for r in runs],
        "best_cpu_seconds": best["cpu_seconds"],
        "units_per_cpu_second": round(units / best["cpu_seconds"]),
        "units_per_wall_second": round(units / min(r["wall_seconds"] for r in runs)),
        "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
        "cached": {
            "wall_seconds": cached["wall_seconds"],
            "cpu_seconds": cached["cpu_seconds"],
            "units_per_cpu_second": round(units / cached["cpu_seconds"]),
            "units_per_wall_second": round(units / cached["wall_seconds"]),
            "peak_rss_mb": cached["peak_rss_mb"],
        },
        "findings_digests": sorted(digests),
        "same_findings": len(digests) == 1,
    }


def read_file(path: Path, mode: str) -> dict:
    """In a child interpreter: read the file (the reader, or a bare parse); RSS and timings."""
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


def part_reader(work: Path, plan) -> dict:
    """The MTGJSON reader on each (size, variants) file: ``results/allprintings_memory``."""
    runs, path = [], work / "AllPrintings.json"
    for size, variants in plan:
        made = allprintings(path, size, variants)
        run = {m: child_json(__file__, "--read", path, "--mode", m) for m in ("reader", "parse")}
        run["file"] = made
        run["reader"]["printings_per_s"] = round(made["printings"] / run["reader"]["seconds"])
        print(json.dumps(run), flush=True)
        runs.append(run)
    path.unlink(missing_ok=True)
    return {"runs": runs, "conclusions": conclusions(runs)}


def conclusions(runs: list[dict]) -> list[str]:
    """What the reader's numbers say, worded from the numbers."""
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


# --- report -------------------------------------------------------------------------------

READER_COLUMNS = ["file.distinct_names", "file.printings", "reader.rulings", "reader.card_names"]
READER_COLUMNS += ["reader.baseline_rss_mb", "reader.peak_rss_mb", "reader.growth_mb"]
READER_COLUMNS += ["reader.mb_per_s", "reader.printings_per_s", "reader.rulings_per_s"]
READER_COLUMNS += ["parse.mb_per_s", "parse.growth_mb"]


def reader_markdown(r: dict) -> str:
    rows = {
        f"{x['file']['bytes'] / MB:,.0f} MB, {x['file']['variants']} variants": x for x in r["runs"]
    }
    return page(
        "MTGJSON reader: memory and speed on AllPrintings-sized input",
        "`python benchmarks/scale.py --parts reader` (all numbers in `allprintings_memory.json`; "
        "method in the script's docstring). *Baseline*: RSS after importing the package; "
        "*growth*: peak RSS minus baseline (MB).",
        r["machine"],
        (rows, READER_COLUMNS, "file"),
        "## Reading",
        "\n".join(r["conclusions"]),
    )


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
        compiled = (
            ", run from its compiled bytecode as installed"
            if record["machine"].get("bytecode") == "compiled"
            else ""
        )
        lines += [
            f"Code measured: the source tree at `{tree}`{compiled}; "
            f"limit {record.get('limit_gb', 16)} GB."
        ]
        render = MARKDOWN.get(part) or MARKDOWN.get(part.split("-")[0], md_retired)
        lines += ["", *render(record), ""]
    return "\n".join(lines)


STAGE_HEADER = ["stage", "wall s", "CPU s", "peak RSS MB", "sampled peak MB", "status"]


def md_stages(run: dict, head: str, per_unit: str = "") -> list[str]:
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
        for stage in (*STAGES, *ONE_PROCESS)
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


def md_long(record: dict) -> list[str]:
    """Each number of copies; its time per unit against one copy's (completed runs)."""
    out, runs = [], record["runs"]
    base = runs.get("1") if runs.get("1", {}).get("completed") else None
    for copies, run in sorted(runs.items(), key=lambda item: int(item[0])):
        lines, edits = run["input"]["lines"], dict(run["input"]["edits"]) or "none"
        title = f"{copies} cop{'y' if copies == '1' else 'ies'}"
        out += [f"### {title}: lines en {lines['en']:,}, zh {lines['zh']:,}; edits {edits}", ""]
        per_unit = ""
        if base and run["completed"] and copies != "1":
            wall, cpu = (
                round(
                    run[f"{k}_seconds"] / run["units"] / (base[f"{k}_seconds"] / base["units"]), 2
                )
                for k in ("wall", "cpu")
            )
            per_unit = f"; per unit {wall}x the wall and {cpu}x the CPU seconds of one copy"
        out += md_stages(run, "", per_unit) + md_edit(run.get("edit")) + md_one_process(run)
    return out


def md_one_process(record: dict) -> list[str]:
    """The part's runs in one process (``one_process``), when they were measured."""
    one = record.get("one_process")
    if not one:
        return []
    head = (
        "The same in one process (`rulings run`, the nightly job: no stage reads the tables "
        "back), cold on the input as edited above: "
    )
    return ["", *md_stages(one, head), *md_edit(one.get("edit"))]


def _again(edit: dict) -> str:
    one = tuple(edit["edited"].get("stages", {})) == ONE_PROCESS
    return "`rulings run` again" if one else "the stages again"


def md_edit(edit: dict | None) -> list[str]:
    """The edited rerun of a part (``edited_rerun``), when it was measured."""
    if not edit:
        return []
    if "cold" not in edit:
        return [
            "",
            *md_stages(
                edit["edited"],
                f"One document edited ({edit['change']}), {_again(edit)} with the cache: "
                f"{edit['share_of_cold_wall']:.1%} of the wall and "
                f"{edit['share_of_cold_cpu']:.1%} of the CPU time of {edit['compared_with']}. ",
            ),
        ]
    same = edit["files_compared"] - len(edit["files_differing"])
    differing = f" (differing: {', '.join(edit['files_differing'])})" * bool(
        edit["files_differing"]
    )
    cold = edit["cold"]
    return [
        "",
        *md_stages(
            edit["edited"],
            f"One document edited ({edit['change']}), {_again(edit)} with the cache: "
            f"{edit['share_of_cold_wall']:.1%} of the wall and {edit['share_of_cold_cpu']:.1%} "
            f"of the CPU time of a cold run on the edited input ({cold['wall_seconds']:,.1f} s, "
            f"{cold['cpu_seconds']:,.1f} s CPU, peak {cold['peak_rss_mb']:,} MB); {same} of "
            f"{edit['files_compared']} files byte-identical to the cold run's{differing}. ",
        ),
    ]


def md_run(record: dict) -> list[str]:
    made = record.get("generate")
    head = (
        f"Generated {record['rulings_asked']:,} rulings asked: {made['wall_seconds']:,.1f} s, "
        f"peak {made['peak_rss_mb']:,} MB; input {record.get('input', {})}.\n\n"
        if made
        else f"Input: {record.get('input')}.\n\n"
    )
    note = f"{record['note']}\n\n" if record.get("note") else ""
    return md_stages(record, note + head) + md_edit(record.get("edit")) + md_one_process(record)


def md_dask(record: dict) -> list[str]:
    run = record["run"]
    return [
        f"`rulings run` on {record['rulings_asked']:,} generated rulings asked "
        f"({record['units'] or 0:,} in corpus.jsonl), `--engine dask --workers "
        f"{record['workers']} --worker-memory {record['worker_memory']}`, empty cache: "
        f"exit {run['exit_code']}, wall {run['wall_seconds']:,} s, {record['findings'] or 0:,} "
        f"findings.",
        "",
        md_table(
            ["largest worker peak MB", "limit", "within", "processes' peaks MB", "warnings"],
            [
                [
                    record["largest_worker_peak_mb"],
                    record["worker_memory"],
                    record["within_limit"],
                    ", ".join(map(str, run["children_peak_mb"])),
                    ", ".join(f"{k} {v}" for k, v in run["dask_warnings"].items()),
                ]
            ],
        ),
    ]


def md_check(record: dict) -> list[str]:
    if "error" in record:
        return [f"Failed: {record['error']}"]
    return [
        f"`rulings check` on the generated corpus ({record['units']:,} rulings), one core, "
        f"{record['repeats']} runs; findings identical: {record['same_findings']}.",
        "",
        md_records(
            {
                "check": record,
                **({"check, every finding cached": record["cached"]} if "cached" in record else {}),
            },
            CHECK_COLUMNS,
            "stage",
        ),
    ]


CHECK_COLUMNS = ["wall_seconds", "cpu_seconds", "units_per_cpu_second", "units_per_wall_second"]
CHECK_COLUMNS += ["peak_rss_mb"]
MATCHING_COLUMNS = ["texts", "terms.hits", "terms.same_hits", "terms.speed_up"]
MATCHING_COLUMNS += ["card_names.mentions", "card_names.same_mentions", "card_names.speed_up"]


def md_retired(record: dict) -> list[str]:
    """A part no longer measured (README.md says why): its last record."""
    table = md_records(record["sets"], MATCHING_COLUMNS, "text set") if "sets" in record else ""
    return ["Retired (see benchmarks/README.md); its last record, from `scale.json`:", "", table]


MARKDOWN = {
    "check": md_check,
    "long": md_long,
    "million": md_run,
    "dask": md_dask,
    "allprintings": md_run,
}


def record_part(part: str | None, record: dict) -> None:
    """Write one part's record into the results, keeping the other parts' (read again just
    before writing, so that runs of different parts may overlap)."""
    recorded = RESULTS / "scale.json"
    results = json.loads(recorded.read_text("utf-8")) if recorded.exists() else {}
    results.setdefault("parts", {})
    results.pop("limit_gb", None)
    if part:
        results["parts"][part] = record
    paths = write_results("scale", results, markdown(results))
    print(f"wrote {paths[0]} and {paths[1].name}", flush=True)


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"scale": markdown, "allprintings_memory": reader_markdown})
    cli.add_argument("--parts", nargs="*", choices=PARTS, default=PARTS, help="none: the markdown")
    cli.add_argument("--copies", type=int, nargs="*", default=[1, 3, 10])
    cli.add_argument("--rulings", type=int, default=1_000_000)
    cli.add_argument("--dask-rulings", type=int, default=100_000)
    cli.add_argument("--worker-memory", default="2GB")
    cli.add_argument("--sizes", type=int, nargs="*", help="reader file sizes in MB (3 variants)")
    cli.add_argument("--limit-gb", type=float, default=16)
    cli.add_argument("--repeats", type=int, default=3, help="check-stage runs")
    cli.add_argument("--read", type=Path, help=HIDDEN)
    cli.add_argument("--mode", default="reader", help=HIDDEN)
    args = cli.parse_args(argv)
    if args.read:
        print(json.dumps(read_file(args.read, args.mode)))
        return 0
    shared_or_exit()
    limit = int(args.limit_gb * GIB)
    work = Path(tempfile.mkdtemp(prefix="rulings-scale-"))
    measure = {  # each part in an empty folder of its own
        "check": lambda folder: part_check(folder, args.repeats, limit),
        "long": lambda folder: part_long(folder, args.copies, limit),
        "million": lambda folder: part_million(folder, args.rulings, limit),
        "dask": lambda folder: part_dask(folder, args.dask_rulings, 2, args.worker_memory, limit),
        "allprintings": lambda folder: part_allprintings(folder, 400, 50, limit),
    }
    try:
        for part in args.parts:
            if part == "reader":
                plan = [(size, 3) for size in args.sizes or ()] or READER_RUNS
                record("allprintings_memory", part_reader(work, plan), reader_markdown)
                continue
            tree = (os.environ.get("PYTHONPATH") or str(ROOT)).split(os.pathsep)[0]
            compiled = compile_tree(Path(tree))
            described = machine() | {
                "code_tree": tree,
                "bytecode": "compiled" if compiled else "not compiled",
            }
            (work / part).mkdir()
            measured = measure[part](work / part)
            shutil.rmtree(work / part, ignore_errors=True)
            record_part(part, {"machine": described, "limit_gb": args.limit_gb, **measured})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.parts:
        record_part(None, {})
    return 0


if __name__ == "__main__":
    sys.exit(main())
