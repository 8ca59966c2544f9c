"""Scale: wall time and peak memory on inputs far larger than the everyday benchmarks.

    python benchmarks/scale.py                              # every part (an hour or more)
    python benchmarks/scale.py --parts matching check       # the quick parts
    python benchmarks/scale.py --parts long --copies 1 2    # a quick look at the long document

Parts (each writes its section of ``results/scale.{json,md}``; parts not run keep their
last recorded result):

- ``matching``: the term finder (``Termbase.find``, Aho-Corasick automata) and the card-name
  search (``CardIndex`` mentions) against the implementations they replaced (one regular-
  expression trie per layer; a dictionary look-up per candidate n-gram), on real text: the
  Comprehensive Rules 2023 in English and Chinese, the TSP/PLC/FUT card text and rulings in
  English, Spanish and Chinese. Same hits required; best of nine passes, taking turns.
- ``check``: the check stage alone (``rulings check`` in a fresh process pinned to one core)
  on the generated 100,000-ruling corpus, after ``ingest`` and ``align`` ran once; with
  ``--baseline-tree DIR`` (a source tree, e.g. ``git archive HEAD | tar -x -C DIR``) the
  same runs alternate with that code, and the findings must be byte-identical.
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

import argparse
import contextlib
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
    MTGJSON,
    RESULTS,
    ROOT,
    RULINGS,
    machine,
    machine_line,
    md_table,
    read_lines,
    shared_or_exit,
    write_results,
)

STAGES = ("ingest", "align", "check", "report")
PARTS = ("matching", "check", "long", "million", "allprintings")
GIB = 1024**3
RULE_NUMBER = re.compile(r"(?<![\d.])(\d{3})\.(\d+)([a-z]?)(?!\d)")
EDITS = {"dropped": 0.002, "digit changed": 0.002}
"""Chances per Chinese line of a copy after the first."""
SEED = 14


# --------------------------------------------------------------------------------------
# Running a stage under a memory limit


def run_limited(command: list[str], env: dict, limit_bytes: int, cpu: int | None = None) -> dict:
    """Run ``command``; wall/CPU seconds, ``ru_maxrss`` and the sampled peak RSS of its
    process tree; stop it when the tree's RSS goes above ``limit_bytes``."""
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=(lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None,
        )
        watch = {"peak": 0, "over_at": None}
        done = threading.Event()

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
        process.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        tail = log.read().decode("utf-8", "replace")[-1500:]
    return {
        "command": " ".join([Path(command[0]).name, *command[1:]]),
        "exit_code": process.returncode,
        "wall_seconds": round(wall, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "sampled_peak_mb": round(watch["peak"] / 2**20),
        "over_limit": watch["over_at"] is not None,
        "stopped_after_seconds": round(watch["over_at"], 1) if watch["over_at"] else None,
        "output_tail": tail if process.returncode else None,
    }


def _process_tree(root: int) -> list[int]:
    """``root`` and its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def run_stages(inputs: list[Path], out: Path, limit_bytes: int) -> dict:
    """Every stage in turn, each a fresh ``rulings`` process, an empty cache in ``out``."""
    cache = out / "cache"
    for folder in (cache, out / "run"):
        shutil.rmtree(folder, ignore_errors=True)
    cache.mkdir(parents=True)
    env = {**os.environ, "RULINGS_CACHE_DIR": str(cache)}
    stages: dict[str, dict] = {}
    for stage in STAGES:
        command = [str(RULINGS), stage, *(map(str, inputs) if stage == "ingest" else ())]
        command += ["--out", str(out / "run")]
        command += ["--engine", "local"] if stage != "report" else []
        command += ["--fail-on", "never"] if stage in ("check", "report") else []
        print(f"  {stage} ...", flush=True)
        stages[stage] = result = run_limited(command, env, limit_bytes)
        print(
            f"  {stage}: {result['wall_seconds']} s, peak {result['peak_rss_mb']:,} MB"
            + (" (over the limit: stopped)" if result["over_limit"] else ""),
            flush=True,
        )
        if result["exit_code"] != 0:
            break
    run = out / "run"
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
    if not path.exists():
        return None
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def _langs(path: Path) -> dict[str, int] | None:
    if not path.exists():
        return None
    with path.open(encoding="utf-8") as handle:
        return dict(Counter(json.loads(line).get("lang") or "-" for line in handle))


# --------------------------------------------------------------------------------------
# Inputs


def long_rules(folder: Path, copies: int, seed: int = SEED) -> dict:
    """The English and Chinese CR ``copies`` times over, as one file per language."""
    english, chinese = read_lines(CR / CR_EN), read_lines(CR / CR_ZH)
    rng = Random(seed)
    edits: Counter[str] = Counter()
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
    (folder / f"long_{copies}_en.txt").write_text("\n".join(out_en) + "\n", encoding="utf-8")
    (folder / f"long_{copies}_zh.txt").write_text("\n".join(out_zh) + "\n", encoding="utf-8")
    return {"copies": copies, "lines": {"en": len(out_en), "zh": len(out_zh)}, "edits": edits}


def _shifted(line: str, copy: int) -> str:
    if not copy:
        return line
    return RULE_NUMBER.sub(lambda m: f"{m[1]}.{int(m[2]) + 1000 * copy}{m[3]}", line)


# --------------------------------------------------------------------------------------
# Parts


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
    ratios = {}
    for copies, run in runs.items():
        if base and base["completed"] and run["completed"]:
            ratios[copies] = {
                kind: round(
                    (run[f"{kind}_seconds"] / run["units"])
                    / (base[f"{kind}_seconds"] / base["units"]),
                    2,
                )
                for kind in ("wall", "cpu")
            }
    return ratios


def part_million(work: Path, rulings: int, limit: int) -> dict:
    folder = work / "million"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    script = ROOT / "benchmarks" / "generate_corpus.py"
    print(f"generating {rulings:,} rulings", flush=True)
    command = [sys.executable, str(script), str(folder / "input"), "--rulings", str(rulings)]
    generated = run_limited(command, dict(os.environ), limit)
    generated["output_tail"] = None
    result = {"rulings_asked": rulings, "generate": generated}
    if generated["exit_code"] == 0:
        files = [p for p in (folder / "input").rglob("*") if p.is_file()]
        result["input"] = {
            "files": len(files),
            "mb": round(sum(p.stat().st_size for p in files) / 1e6),
        }
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


def part_check(
    work: Path, tree: Path | None, baseline_tree: Path | None, repeats: int, limit: int
) -> dict:
    """The check stage alone on the generated 100k corpus, pinned to one core; ingest and
    align run once with ``tree`` (both trees must read the tables it writes)."""
    folder = work / "check100k"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    script = ROOT / "benchmarks" / "generate_corpus.py"
    made = run_limited(
        [sys.executable, str(script), str(folder / "input"), "--rulings", "100000", "--seed", "7"],
        dict(os.environ),
        limit,
    )
    if made["exit_code"]:
        return {"error": made["output_tail"]}
    cache, run = folder / "cache", folder / "run"
    env = {**os.environ, "RULINGS_CACHE_DIR": str(cache)}
    trees = {"current": tree, **({"baseline": baseline_tree} if baseline_tree else {})}
    for stage, extra in (("ingest", [str(folder / "input")]), ("align", [])):
        tree_env = {**env, **({"PYTHONPATH": str(tree)} if tree else {})}
        done = run_limited([str(RULINGS), stage, *extra, "--out", str(run)], tree_env, limit)
        if done["exit_code"]:
            return {"error": done["output_tail"]}
    units = _count_lines(run / "corpus.jsonl")
    timings: dict[str, list[dict]] = {name: [] for name in trees}
    digests: dict[str, set[str]] = {name: set() for name in trees}
    for _ in range(repeats):
        for name, tree in trees.items():
            tree_env = {**env, **({"PYTHONPATH": str(tree)} if tree else {})}
            command = [str(RULINGS), "check", "--out", str(run), "--fail-on", "never"]
            done = run_limited([*command, "--engine", "local"], tree_env, limit, cpu=0)
            if done["exit_code"]:
                return {"error": done["output_tail"]}
            timings[name].append(done)
            digests[name].add(_digest(run / "findings.jsonl"))
    result = {"units": units, "repeats": repeats, "trees": {}}
    for name, runs in timings.items():
        best = min(runs, key=lambda r: r["cpu_seconds"])
        result["trees"][name] = {
            "tree": str(trees[name] or ROOT),
            "wall_seconds": [r["wall_seconds"] for r in runs],
            "cpu_seconds": [r["cpu_seconds"] for r in runs],
            "best_cpu_seconds": best["cpu_seconds"],
            "units_per_cpu_second": round(units / best["cpu_seconds"]),
            "units_per_wall_second": round(units / min(r["wall_seconds"] for r in runs)),
            "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
            "findings_digests": sorted(digests[name]),
        }
    result["same_findings"] = len(set().union(*digests.values())) == 1
    shutil.rmtree(folder, ignore_errors=True)
    return result


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


# --- matching: the automata against the implementations they replaced -----------------


def real_texts() -> dict[str, tuple[str, list[str]]]:
    """(language, texts) of each real text set."""
    cards: dict[str, list[str]] = {"English": [], "Spanish": [], "Chinese Simplified": []}
    for code in ("TSP", "PLC", "FUT"):
        data = json.loads((MTGJSON / f"{code}.json").read_text(encoding="utf-8"))["data"]
        for card in data["cards"]:
            cards["English"] += (card.get("originalText") or card.get("text") or "").splitlines()
            cards["English"] += [ruling["text"] for ruling in card.get("rulings", [])]
            for foreign in card.get("foreignData", []):
                if foreign.get("language") in cards and foreign.get("text"):
                    cards[foreign["language"]] += foreign["text"].splitlines()
    return {
        "CR 2023 en": ("en", [line for line in read_lines(CR / CR_EN) if line.strip()]),
        "CR 2023 zh": ("zh", [line for line in read_lines(CR / CR_ZH) if line.strip()]),
        "MTGJSON en (card text, rulings)": ("en", [t for t in cards["English"] if t.strip()]),
        "MTGJSON es (card text)": ("es", [t for t in cards["Spanish"] if t.strip()]),
        "MTGJSON zh (card text)": ("zh", [t for t in cards["Chinese Simplified"] if t.strip()]),
    }


def _best_of_each(functions: dict, rounds: int = 9) -> dict[str, tuple[float, object]]:
    """Best time and result of each function over ``rounds`` rounds, the functions taking
    turns (first one, then the other) so that a change in the machine's load hits both."""
    best = {name: (float("inf"), None) for name in functions}
    for round_number in range(rounds):
        order = list(functions) if round_number % 2 == 0 else list(functions)[::-1]
        for name in order:
            start = time.perf_counter()
            result = functions[name]()
            seconds = time.perf_counter() - start
            best[name] = (min(best[name][0], seconds), result)
    return best


def part_matching() -> dict:
    from pipelines.cards import CardIndex, name_key
    from pipelines.model import CardName
    from pipelines.termbase import Termbase

    termbase = Termbase.load()
    names = []
    for code in ("TSP", "PLC", "FUT"):
        data = json.loads((MTGJSON / f"{code}.json").read_text(encoding="utf-8"))["data"]
        for card in data["cards"]:
            names.append(CardName(card["name"], "en", card["name"], code))
            for foreign in card.get("foreignData", []):
                lang = {"Spanish": "es", "Chinese Simplified": "zh"}.get(foreign["language"])
                if lang:
                    names.append(CardName(foreign["name"], lang, card["name"], code))
    index = CardIndex.build(names)
    result: dict[str, dict] = {}
    for label, (lang, texts) in real_texts().items():
        previous = PreviousTermFinder(termbase, lang)
        built = time.perf_counter()
        termbase._matchers.pop(lang, None)
        termbase.find("", lang)
        automaton_build = time.perf_counter() - built
        timed = _best_of_each(
            {
                "automaton": lambda: [termbase.find(t, lang) for t in texts],  # noqa: B023
                "regex": lambda: [previous.find(t) for t in texts],  # noqa: B023
            }
        )
        (new_seconds, new_hits), (old_seconds, old_hits) = timed["automaton"], timed["regex"]
        name_key.cache_clear()
        timed = _best_of_each(
            {
                "automaton": lambda: [index._find_mentions(t) for t in texts],  # noqa: B023
                "lookup": lambda: [previous_mentions(index, t) for t in texts],  # noqa: B023
            }
        )
        (new_m_seconds, new_mentions), (old_m_seconds, old_mentions) = (
            timed["automaton"],
            timed["lookup"],
        )
        result[label] = {
            "texts": len(texts),
            "characters": sum(map(len, texts)),
            "terms": {
                "hits": sum(map(len, new_hits)),
                "same_hits": new_hits == old_hits,
                "automaton_texts_per_s": round(len(texts) / new_seconds),
                "regex_texts_per_s": round(len(texts) / old_seconds),
                "speed_up": round(old_seconds / new_seconds, 2),
                "automaton_build_seconds": round(automaton_build, 3),
                "regex_build_seconds": round(previous.build_seconds, 3),
            },
            "card_names": {
                "mentions": sum(map(len, new_mentions)),
                "same_mentions": new_mentions == old_mentions,
                "automaton_texts_per_s": round(len(texts) / new_m_seconds),
                "lookup_texts_per_s": round(len(texts) / old_m_seconds),
                "speed_up": round(old_m_seconds / new_m_seconds, 2),
            },
        }
        print(label, json.dumps(result[label]), flush=True)
    return {"index_keys": len(index.by_key), "sets": result}


class PreviousTermFinder:
    """The term finder before the automata: one regular-expression trie per layer that
    prefers the longest form, whole words by look-around in spaced languages."""

    def __init__(self, termbase, lang: str) -> None:
        from pipelines.termbase.model import form_key, languages_related, normalize_lang
        from pipelines.vocabulary import is_unspaced

        start = time.perf_counter()
        query = normalize_lang(lang)
        spaced = not is_unspaced(query)
        related = [t for t in termbase if languages_related(t.lang, query)]
        related.sort(key=lambda t: t.lang != query)
        self.layers = []
        for layer in ([t for t in related if t.enforce], [t for t in related if not t.enforce]):
            entries: dict[str, list] = {}
            for term in layer:
                for form in term.forms:
                    owners = entries.setdefault(form_key(form), [])
                    if (term.concept, term.status, term.lang) not in owners:
                        owners.append((term.concept, term.status, term.lang))
            if entries:
                body = _trie_pattern(sorted(entries))
                pattern = re.compile(rf"(?<!\w)(?:{body})(?!\w)" if spaced else body)
                self.layers.append((pattern, {k: tuple(sorted(v)) for k, v in entries.items()}))
        self.build_seconds = time.perf_counter() - start

    def find(self, text: str) -> list:
        from pipelines.termbase.model import TermHit, fold, form_key

        folded = fold(text)
        hits: list = []
        for number, (pattern, entries) in enumerate(self.layers):
            core = len(hits)
            for match in pattern.finditer(folded):
                owners = entries.get(match.group()) or entries.get(form_key(match.group()), ())
                start, end = match.span()
                for concept, status, lang in owners:
                    hits.append(TermHit(concept, lang, text[start:end], status, start, end))
            if number == 1 and 0 < core < len(hits):
                hits.sort(key=lambda h: (h.start, h.end, h.concept, h.status))
        return hits


def _trie_pattern(keys: list[str]) -> str:
    trie: dict = {}
    for key in keys:
        node = trie
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node_pattern(trie)


def _node_pattern(node: dict) -> str:
    special = {" ": r"\s+", "'": "['’]"}
    branches = [
        special.get(char, re.escape(char)) + _node_pattern(child)
        for char, child in sorted(node.items())
        if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body


def previous_mentions(index, text: str) -> tuple:
    """The card-name search before the automata: every candidate n-gram looked up."""
    from pipelines.cards import HAN_RUN, WORD, Mention, name_key

    first_words, han_starts = index._name_shapes()
    spans = []
    words = [m.span() for m in WORD.finditer(text)]
    for i, (start, end) in enumerate(words):
        if text[start].isupper():
            longest = first_words.get(name_key(text[start:end]), 0)
            spans += [(start, words[j][1]) for j in range(i, min(i + longest, len(words)))]
    for run in HAN_RUN.finditer(text):
        begin, stop = run.span()
        simplified = name_key(run.group())
        aligned = len(simplified) == stop - begin
        for offset in range(stop - begin):
            first = simplified[offset] if aligned else name_key(text[begin + offset])
            spans += [
                (begin + offset, begin + offset + length)
                for length in han_starts.get(first, ())
                if offset + length <= stop - begin
            ]
    found = [
        Mention(card, lang, text[start:end], start, end)
        for start, end in spans
        for card, lang in sorted(index.by_key.get(name_key(text[start:end]), ()))
    ]
    found.sort(key=lambda m: (-(m.end - m.start), m.start))
    taken: list = []
    for mention in found:
        if all(mention.end <= t.start or mention.start >= t.end for t in taken):
            taken.append(mention)
    return tuple(sorted(taken, key=lambda m: m.start))


# --------------------------------------------------------------------------------------
# Report


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
    for part in PARTS:
        if part in results.get("parts", {}):
            record = results["parts"][part]
            tree = record["machine"].get("code_tree")
            lines += [f"## {part}", "", machine_line(record["machine"])]
            limit = record.get("limit_gb", 16)
            lines += [f"Code measured: the source tree at `{tree}`; limit {limit} GB.", ""]
            lines += MARKDOWN[part](record)
            lines.append("")
    return "\n".join(lines)


def _stage_rows(run: dict) -> list[list]:
    rows = []
    for stage, data in run.get("stages", {}).items():
        status = "stopped over the limit" if data["over_limit"] else f"exit {data['exit_code']}"
        rows.append(
            [
                stage,
                f"{data['wall_seconds']:,.1f}",
                f"{data['cpu_seconds']:,.1f}",
                f"{data['peak_rss_mb']:,}",
                f"{data['sampled_peak_mb']:,}",
                status,
            ]
        )
    return rows


STAGE_HEADER = ["stage", "wall s", "CPU s", "peak RSS MB", "sampled peak MB", "status"]


def _md_long(record: dict) -> list[str]:
    out = []
    ratios = per_unit_ratios(record["runs"])
    for copies, run in sorted(record["runs"].items(), key=lambda item: int(item[0])):
        units = run.get("units_by_lang") or {}
        ratio = ratios.get(copies)
        lines = run["input"]["lines"]
        out += [
            f"### {copies} cop{'y' if copies == '1' else 'ies'}: lines en {lines['en']:,}, "
            f"zh {lines['zh']:,}; edits {dict(run['input']['edits']) or 'none'}",
            "",
            f"Units {run['units'] or '–'} ({', '.join(f'{k} {v:,}' for k, v in units.items())}); "
            f"wall {run['wall_seconds']:,.1f} s, CPU {run['cpu_seconds']:,.1f} s, peak "
            f"{run['peak_rss_mb']:,} MB"
            + (
                f"; per unit {ratio['wall']}x the wall and {ratio['cpu']}x the CPU seconds "
                "of one copy"
                if ratio and copies != "1"
                else ""
            )
            + ("" if run["completed"] else "; **not completed**")
            + ".",
            "",
            md_table(STAGE_HEADER, _stage_rows(run)),
        ]
    return out


def _md_run(record: dict) -> list[str]:
    units = record.get("units_by_lang") or {}
    out = []
    if "generate" in record:
        made = record["generate"]
        out.append(
            f"Generated {record['rulings_asked']:,} rulings asked: {made['wall_seconds']:,.1f} s, "
            f"peak {made['peak_rss_mb']:,} MB; input {record.get('input', {})}."
        )
    elif "input" in record:
        out.append(f"Input: {record['input']}.")
    out += [
        "",
        f"Units {record.get('units') or '–'} "
        f"({', '.join(f'{k} {v:,}' for k, v in units.items())}); aligned rows "
        f"{record.get('aligned_rows') or '–'}; findings {record.get('findings') or '–'}; "
        f"wall {record.get('wall_seconds', 0):,.1f} s, CPU {record.get('cpu_seconds', 0):,.1f} s, "
        f"peak {record.get('peak_rss_mb', 0):,} MB"
        + ("" if record.get("completed") else "; **not completed**")
        + ".",
        "",
        md_table(STAGE_HEADER, _stage_rows(record)),
    ]
    return out


def _md_check(record: dict) -> list[str]:
    if "error" in record:
        return [f"Failed: {record['error']}"]
    rows = [
        [
            name,
            data["tree"],
            ", ".join(f"{s:.1f}" for s in data["wall_seconds"]),
            ", ".join(f"{s:.1f}" for s in data["cpu_seconds"]),
            f"{data['units_per_cpu_second']:,}",
            f"{data['units_per_wall_second']:,}",
            f"{data['peak_rss_mb']:,}",
        ]
        for name, data in record["trees"].items()
    ]
    header = ["code", "tree", "wall s", "CPU s", "units/CPU s (best)", "units/wall s (best)"]
    return [
        f"`rulings check` on the generated corpus ({record['units']:,} rulings), one core, "
        f"{record['repeats']} runs per code, alternating; findings identical: "
        f"{record['same_findings']}.",
        "",
        md_table([*header, "peak RSS MB"], rows),
    ]


def _md_matching(record: dict) -> list[str]:
    rows = []
    for label, data in record["sets"].items():
        terms, names = data["terms"], data["card_names"]
        rows.append(
            [
                label,
                f"{data['texts']:,}",
                f"{terms['hits']:,}",
                terms["same_hits"],
                f"{terms['regex_texts_per_s']:,}",
                f"{terms['automaton_texts_per_s']:,}",
                f"{terms['speed_up']}x",
                f"{names['mentions']:,}",
                names["same_mentions"],
                f"{names['lookup_texts_per_s']:,}",
                f"{names['automaton_texts_per_s']:,}",
                f"{names['speed_up']}x",
            ]
        )
    header = [
        "texts",
        "n",
        "term hits",
        "same",
        "regex trie texts/s",
        "automaton texts/s",
        "speed-up",
        "card mentions",
        "same",
        "look-up texts/s",
        "automaton texts/s",
        "speed-up",
    ]
    return [
        "Best of nine passes each, the two implementations taking turns; the card-name "
        f"index holds {record['index_keys']:,} name keys "
        "(shipped names and the TSP/PLC/FUT names in en/es/zh).",
        "",
        md_table(header, rows),
    ]


MARKDOWN = {
    "matching": _md_matching,
    "check": _md_check,
    "long": _md_long,
    "million": _md_run,
    "allprintings": _md_run,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--parts", nargs="*", choices=PARTS, default=list(PARTS), help="none: redo the markdown"
    )
    parser.add_argument("--copies", type=int, nargs="*", default=[1, 3, 10])
    parser.add_argument("--rulings", type=int, default=1_000_000)
    parser.add_argument("--allprintings-mb", type=int, default=400)
    parser.add_argument("--variants", type=int, default=50)
    parser.add_argument("--limit-gb", type=float, default=16)
    parser.add_argument("--tree", type=Path, help="source tree measured (default: this one)")
    parser.add_argument("--baseline-tree", type=Path, help="another source tree to compare")
    parser.add_argument("--repeats", type=int, default=3, help="check-stage runs per tree")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    args = parser.parse_args(argv)
    shared_or_exit()
    limit = int(args.limit_gb * GIB)
    work = args.work or Path(tempfile.mkdtemp(prefix="rulings-scale-"))
    try:
        for part in args.parts:
            described = machine()
            if part == "matching":
                record = part_matching()
            elif part == "check":
                record = part_check(work, args.tree, args.baseline_tree, args.repeats, limit)
            elif part == "long":
                record = part_long(work, args.copies, limit)
            elif part == "million":
                record = part_million(work, args.rulings, limit)
            else:
                record = part_allprintings(work, args.allprintings_mb, args.variants, limit)
            code = str(args.tree) if part == "check" and args.tree else os.environ.get("PYTHONPATH")
            described["code_tree"] = code or str(ROOT)
            record_part(part, {"machine": described, "limit_gb": args.limit_gb, **record})
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
