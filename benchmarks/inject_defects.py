"""Defect-injection benchmark of the checks on the Comprehensive Rules, and pofilter beside them.

Run from the repository root::

    python benchmarks/inject_defects.py                 # full run (about a minute once cached)
    python benchmarks/inject_defects.py --per-type 5    # a quick look
    python benchmarks/inject_defects.py --keep /tmp/x   # keep the work folder for inspection

It reads the line-aligned English and Chinese Comprehensive Rules in
``../shared/data/cr`` (line N of the Chinese file translates line N of the English one) and
writes ``benchmarks/results/inject_defects.json`` (every number, the gold list, examples) and
``benchmarks/results/inject_defects.md`` (the summary). When ../shared is absent it says so
and exits 0 without writing anything. Nothing is written into the repository but the two
result files: the defective copy of the Chinese rules and the runs live in a temporary folder.

What it does:

1. **Inject.** Among the numbered rules whose English and Chinese lines carry the same rule
   number, a seeded choice (``--seed``) of ``--per-type`` rules per defect kind gets one
   defect each (a rule gets at most one); every change is recorded in the gold list:

   - ``term-swap``: an approved Chinese term of a concept the English line names is replaced
     by a form the termbase forbids for that concept (触发式异能 -> 起动式异能); the pairs
     come from ``Termbase.load()``.
   - ``english-full``: the Chinese line is replaced by the English line.
   - ``english-half``: the second half of the Chinese text is replaced by the second half of
     the English text (cut at the comma nearest the middle, else at the middle).
   - ``drop-symbol``, ``drop-pt``, ``drop-ref``: one ``{T}``/``{X}``/``{1}``-style symbol, one
     ``+1/+1``-style modifier, or one rule reference (``702.62a``) is removed.
   - ``number-digit``: a number written in digits that the English also states is changed
     (n -> n+1); ``number-word``: a Chinese number word before a classifier is changed
     (三张 -> 四张), again only where the English states that number.
   - ``truncate``: the Chinese text is cut to half its length and ends with "…".
   - ``delete``: the line (a rule with no examples under it) and the blank line after it
     are removed.

2. **Run the pipeline** (``pipelines.stages``: ingest -> align -> check, default settings,
   the bundled embedder) on the English rules + the unmodified Chinese rules (the *clean*
   run) and on the English rules + the defective copy (the *defective* run).

3. **Score.** A defect is *caught* when its rule (the Chinese ruling on its line; for a
   deleted rule, the English rule) gets a finding of the expected category (terminology;
   untranslated or mixed-language; placeholder; number; truncation; missing-translation).
   False positives are findings on rules the benchmark did not touch, per 100 untouched
   units (a unit is one Chinese ruling of the clean run: a rule, an example, a glossary
   entry, a heading or a contents line), by code, with examples; the clean run gives the
   rate on unmodified text.

4. **pofilter.** The defective run's aligned pairs (alignment rows with a translation method,
   plus the rows the aligner marks ``untranslated``, which a PO file would hold with the
   English as msgstr) are written as a PO file with translate-toolkit (msgid English, msgstr
   Chinese, msgctxt the Chinese ruling id) and checked with the venv's ``pofilter
   --language=zh`` (every test but spellcheck). Its failures are mapped back to rules through
   msgctxt and scored like the findings; the clean run's pairs give pofilter's own rate on
   unmodified text. Its wall time is set beside the check stage's.

Everything but the timings is deterministic for a given seed and data.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
CR_DIR = SHARED / "data" / "cr"
EN_NAME = "MagicCompRules_20231013_en.txt"
ZH_NAME = "MagicCompRules_20231013_zh.txt"
RESULTS = ROOT / "benchmarks" / "results"
BEFORE = RESULTS / "inject_defects_before_tuning.json"
"""The same benchmark run with the checks as they were before the precision work: this
script, run on a copy of the tree whose pipelines/check/lexicon.py, pipelines/check/checks/
(card_names, language, numbers, placeholders, terminology) and pipelines/resources/
number_words.tsv and termbase.tsv are those of commit 65a0cdb, with ``--compare /nonexistent``."""
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_SEED = 20231013
DEFAULT_PER_TYPE = 20
EXAMPLES = 10
"""Examples kept per frequent false-positive code (and per missed defect kind: half that)."""
FREQUENT = 5
"""A false-positive code with at least this many findings gets examples."""

EXPECTED: dict[str, tuple[str, ...]] = {
    "term-swap": ("terminology",),
    "english-full": ("untranslated", "mixed-language"),
    "english-half": ("untranslated", "mixed-language"),
    "drop-symbol": ("placeholder",),
    "drop-pt": ("placeholder",),
    "drop-ref": ("placeholder",),
    "number-digit": ("number",),
    "number-word": ("number",),
    "truncate": ("truncation",),
    "delete": ("missing-translation",),
}
"""Defect kinds, in injection order, and the finding categories that count as catching them."""

FAMILIES = {
    "term-swap": "wrong term",
    "english-full": "English left in",
    "english-half": "English left in",
    "drop-symbol": "dropped symbol",
    "drop-pt": "dropped symbol",
    "drop-ref": "dropped symbol",
    "number-digit": "changed number",
    "number-word": "changed number",
    "truncate": "cut text",
    "delete": "deleted rule",
}

POFILTER_EXCLUDED = ("spellcheck",)
"""pofilter tests left out: spellcheck needs a dictionary for the language (and would flag
every game word), and is not what the comparison is about."""

RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)(\.?)(\s+)(.*)$")
SYMBOL = re.compile(r"\{[^{}\s]{1,8}\}")
PT_MODIFIER = re.compile(r"[+\-−]\d+/[+\-−]\d+")
RULE_REFERENCE = re.compile(r"(?<![\d.])\d{3}\.\d+[a-z]?(?:[-–][a-z])?(?![\d])")
PT_VALUE = re.compile(r"(?<![\d/+\-−.])\d+/\d+(?![\d/])")
DIGITS = re.compile(r"(?<![\d.,/{}+\-−])\d+(?![\d.,/{}])")
ZH_NUMERAL = {"两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_NUMERAL_OF = {3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九", 10: "十"}
ZH_CLASSIFIERS = "个张点次位名只种项条回倍组份道枚堆"
"""Measure words a changed Chinese number stands before (三张 -> 四张). The benchmark's own
list, so that tuning the checks' number words does not change the gold list."""
ZH_COMMAS = "，；"
EN_COMMAS = ",;"


# --------------------------------------------------------------------------------------
# Injection
# --------------------------------------------------------------------------------------


@dataclass
class Candidate:
    line: int
    """1-based line number, the same in both files."""
    section: str
    prefix: str
    """The rule number with its dot and space, as written on the Chinese line."""
    en_body: str
    zh_body: str
    standalone: bool
    """A blank line (or the file's end) before and after: the rule has no example lines."""


@dataclass
class Defect:
    line: int
    section: str
    kind: str
    change: dict
    before: str
    after: str | None
    expected: tuple[str, ...] = ()


@dataclass
class Injection:
    lines: list[str]
    """The defective Chinese file, as lines (without line ends)."""
    original_line: dict[int, int]
    """Line of the defective file -> line of the original file."""
    defects: list[Defect] = field(default_factory=list)


def read_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8-sig")
    return [line.rstrip("\r") for line in text.split("\n")]


def candidates(en_lines: list[str], zh_lines: list[str]) -> list[Candidate]:
    """Numbered rules whose two lines carry the same rule number."""
    found = []
    for index, (en, zh) in enumerate(zip(en_lines, zh_lines, strict=False)):
        en_match, zh_match = RULE_LINE.match(en), RULE_LINE.match(zh)
        if not en_match or not zh_match or en_match.group(1) != zh_match.group(1):
            continue
        before = index == 0 or not zh_lines[index - 1].strip()
        after = index + 1 >= len(zh_lines) or not zh_lines[index + 1].strip()
        found.append(
            Candidate(
                line=index + 1,
                section=zh_match.group(1),
                prefix=zh_match.group(1) + zh_match.group(2) + zh_match.group(3),
                en_body=en_match.group(4),
                zh_body=zh_match.group(4),
                standalone=before and after,
            )
        )
    return found


class Injector:
    """Each method says whether a candidate can take the defect, and returns the change."""

    def __init__(self, termbase, rng: random.Random) -> None:
        self.termbase = termbase
        self.rng = rng
        self.swaps = self._term_swaps()
        self.english = {
            concept: re.compile(
                r"(?<!\w)(?:"
                + "|".join(
                    re.escape(form)
                    for t in termbase.terms(concept, "en")
                    if t.status in ("approved", "admitted")
                    for form in sorted(t.forms, key=len, reverse=True)
                )
                + r")(?!\w)",
                re.IGNORECASE,
            )
            for concept in self.swaps
        }
        """Each swappable concept's English forms. Whether the English names a concept is
        decided by this plain search, not by the checks' term finder, so that tuning the
        checks does not change which rules get a defect."""
        self.classifiers = ZH_CLASSIFIERS

    def _term_swaps(self) -> dict[str, list[str]]:
        """Concept -> the forbidden Chinese forms that are its confusables."""
        swaps: dict[str, list[str]] = {}
        for concept in self.termbase.concepts:
            forbidden = [
                form for t in self.termbase.terms(concept, "zh", "forbidden") for form in t.forms
            ]
            if forbidden and self.termbase.terms(concept, "zh", "approved"):
                swaps[concept] = forbidden
        return swaps

    # Each returns (new zh body, change record) or None when the rule cannot take it.

    def named(self, english: str) -> set[str]:
        """Swappable concepts one of whose English forms is in the text (whole words)."""
        return {concept for concept, pattern in self.english.items() if pattern.search(english)}

    def swap_concepts(self, c: Candidate) -> set[str]:
        """Concepts that the English line names and whose Chinese term can be swapped."""
        named = self.named(c.en_body)
        return {
            h.concept
            for h in self.termbase.find(c.zh_body, "zh")
            if h.status == "approved"
            and h.concept in self.swaps
            and h.concept in named
            and len(h.form) >= 2
        }

    def term_swap(self, c: Candidate, concept: str | None = None):
        named = self.named(c.en_body)
        options = []
        for hit in self.termbase.find(c.zh_body, "zh"):
            if hit.status != "approved" or hit.concept not in self.swaps:
                continue
            if hit.concept not in named or len(hit.form) < 2:
                continue  # a one-character form (抓) is part of a longer word: left alone
            for wrong in self.swaps[hit.concept]:
                options.append((hit, wrong))
        if not options:
            return None
        if concept:
            options = [o for o in options if o[0].concept == concept]
        hit, wrong = self.rng.choice(options)
        body = c.zh_body[: hit.start] + wrong + c.zh_body[hit.end :]
        return body, {"concept": hit.concept, "from": hit.form, "to": wrong, "at": hit.start}

    def english_full(self, c: Candidate):
        if len(c.en_body.split()) < 4:
            return None
        return c.en_body, {"from": c.zh_body, "to": c.en_body, "prefix": "english"}

    def english_half(self, c: Candidate):
        words = c.en_body.split()
        if len(words) < 12 or len(c.zh_body) < 16:
            return None
        zh_cut = _cut_near_middle(c.zh_body, ZH_COMMAS)
        en_cut = _cut_near_middle(c.en_body, EN_COMMAS, words=True)
        head, tail = c.zh_body[:zh_cut], c.en_body[en_cut:].lstrip()
        return head + tail, {"kept": head, "english": tail}

    def _drop(self, c: Candidate, pattern: re.Pattern[str], kind: str):
        en_tokens = Counter(m.group() for m in pattern.finditer(c.en_body))
        matches = [m for m in pattern.finditer(c.zh_body) if en_tokens[m.group()]]
        if kind == "symbol":  # a symbol inside a pt value or reference is not a symbol
            matches = [m for m in matches if m.group()]
        if not matches:
            return None
        match = self.rng.choice(matches)
        body = c.zh_body[: match.start()] + c.zh_body[match.end() :]
        return body, {"removed": match.group(), "kind": kind, "at": match.start()}

    def drop_symbol(self, c: Candidate):
        return self._drop(c, SYMBOL, "symbol")

    def drop_pt(self, c: Candidate):
        return self._drop(c, PT_MODIFIER, "pt-modifier")

    def drop_ref(self, c: Candidate):
        return self._drop(c, RULE_REFERENCE, "rule-reference")

    def number_digit(self, c: Candidate):
        stated = stated_numbers(c.en_body)
        masked = _mask(c.zh_body, (SYMBOL, PT_MODIFIER, PT_VALUE, RULE_REFERENCE))
        options = [
            m for m in DIGITS.finditer(masked) if int(m.group()) < 100 and int(m.group()) in stated
        ]
        if not options:
            return None
        match = self.rng.choice(options)
        new = str(int(match.group()) + 1)
        body = c.zh_body[: match.start()] + new + c.zh_body[match.end() :]
        return body, {"from": match.group(), "to": new, "at": match.start()}

    def number_word(self, c: Candidate):
        if not self.classifiers:
            return None
        stated = stated_numbers(c.en_body)
        pattern = re.compile(
            rf"(?<![第零一二两三四五六七八九十百千万\d])([{''.join(ZH_NUMERAL)}])"
            rf"(?=[{re.escape(self.classifiers)}])"
        )
        options = [m for m in pattern.finditer(c.zh_body) if ZH_NUMERAL[m.group(1)] in stated]
        if not options:
            return None
        match = self.rng.choice(options)
        new = ZH_NUMERAL_OF[ZH_NUMERAL[match.group(1)] + 1]
        body = c.zh_body[: match.start()] + new + c.zh_body[match.end() :]
        return body, {"from": match.group(1), "to": new, "at": match.start()}

    def truncate(self, c: Candidate):
        if len(c.zh_body) < 20:
            return None
        cut = len(c.zh_body) // 2
        while cut > 1 and not _is_word_char(c.zh_body[cut - 1]):
            cut -= 1
        return c.zh_body[:cut] + "…", {"kept_chars": cut, "of_chars": len(c.zh_body)}

    def delete(self, c: Candidate):
        if not c.standalone:
            return None
        return None, {"removed": c.zh_body}


EN_NUMBER_WORDS = {
    "zero": 0, "two": 2, "twice": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fifteen": 15, "twenty": 20,
}  # fmt: skip


def stated_numbers(english: str) -> set[int]:
    """Numbers an English text states in digits or words (not inside a symbol, a
    power/toughness or a rule reference). The benchmark's own reading, independent of the
    checks' number finder, so that tuning the checks does not change the gold list."""
    masked = _mask(english, (SYMBOL, PT_MODIFIER, PT_VALUE, RULE_REFERENCE))
    found = {int(m.group()) for m in re.finditer(r"(?<![\w.])\d+(?![\w])", masked)}
    for word in re.findall(r"[a-z]+", masked.lower()):
        if word in EN_NUMBER_WORDS:
            found.add(EN_NUMBER_WORDS[word])
    return found


def _is_word_char(char: str) -> bool:
    return char.isalnum()


def _cut_near_middle(text: str, commas: str, words: bool = False) -> int:
    """Offset just after the comma nearest the middle (within the middle half), else the
    middle itself (at a word start when ``words``)."""
    middle = len(text) // 2
    best = None
    for index, char in enumerate(text):
        inside = len(text) // 4 <= index <= 3 * len(text) // 4
        if char in commas and inside and (best is None or abs(index - middle) < abs(best - middle)):
            best = index
    if best is not None:
        return best + 1
    if words:
        space = text.find(" ", middle)
        return space + 1 if space > 0 else middle
    return middle


def _mask(text: str, patterns) -> str:
    """The text with the matches of the patterns blanked (same length)."""
    for pattern in patterns:
        text = pattern.sub(lambda m: "#" * len(m.group()), text)
    return text


def _round_robin(order: list[Candidate], injector: Injector, count: int, rng: random.Random):
    """Rules for term swaps, taking the concepts in turn (in a seeded order), so that the
    frequent 牌手 (player) does not take them all."""
    by_concept: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in order:
        for concept in sorted(injector.swap_concepts(candidate)):
            by_concept[concept].append(candidate)
    concepts = sorted(by_concept)
    rng.shuffle(concepts)
    taken: set[int] = set()
    chosen = []
    while len(chosen) < count and any(by_concept.values()):
        for concept in concepts:
            queue = by_concept[concept]
            while queue and queue[0].line in taken:
                queue.pop(0)
            if queue and len(chosen) < count:
                candidate = queue.pop(0)
                taken.add(candidate.line)
                chosen.append((candidate, concept))
    return chosen


def inject(
    en_lines: list[str], zh_lines: list[str], termbase, seed: int, per_type: int
) -> Injection:
    rng = random.Random(seed)
    injector = Injector(termbase, rng)
    pool = candidates(en_lines, zh_lines)
    used: set[int] = set()
    changes: dict[int, tuple[str, str | None, dict]] = {}
    for kind in EXPECTED:
        method = getattr(injector, kind.replace("-", "_"))
        order = list(pool)
        rng.shuffle(order)
        if kind == "term-swap":
            for candidate, concept in _round_robin(order, injector, per_type, rng):
                body, change = injector.term_swap(candidate, concept)
                used.add(candidate.line)
                changes[candidate.line] = (kind, body, change)
            continue
        taken = 0
        for candidate in order:
            if taken >= per_type:
                break
            if candidate.line in used:
                continue
            result = method(candidate)
            if result is None:
                continue
            body, change = result
            used.add(candidate.line)
            changes[candidate.line] = (kind, body, change)
            taken += 1
    by_line = {c.line: c for c in pool}
    lines: list[str] = []
    original_line: dict[int, int] = {}
    defects = []
    skip_next_blank = False
    for number, line in enumerate(zh_lines, start=1):
        if skip_next_blank:
            skip_next_blank = False
            if not line.strip():
                continue
        if number in changes:
            kind, body, change = changes[number]
            candidate = by_line[number]
            if kind == "delete":
                after = None
                skip_next_blank = True
            elif kind == "english-full":
                after = en_lines[number - 1]
            else:
                after = candidate.prefix + body
            defects.append(
                Defect(number, candidate.section, kind, change, line, after, EXPECTED[kind])
            )
            if after is None:
                continue
            line = after
        lines.append(line)
        original_line[len(lines)] = number
    return Injection(lines, original_line, defects)


# --------------------------------------------------------------------------------------
# Running the pipeline
# --------------------------------------------------------------------------------------


@dataclass
class Run:
    name: str
    out: Path
    times: dict[str, float]
    rulings: dict[str, dict]
    alignment: list[dict]
    findings: list[dict]
    original_line: dict[int, int]

    def unit_of(self, ruling_id: str | None) -> int | None:
        """The original line number a ruling stands for (Chinese line, or English line)."""
        if not ruling_id or ruling_id not in self.rulings:
            return None
        ruling = self.rulings[ruling_id]
        if ruling["file"] == ZH_NAME:
            return self.original_line.get(ruling["line"])
        return ruling["line"]

    def zh_units(self) -> set[int]:
        return {
            self.original_line[r["line"]]
            for r in self.rulings.values()
            if r["file"] == ZH_NAME and r["line"] in self.original_line
        }


def run_pipeline(name: str, folder: Path, original_line: dict[int, int]) -> Run:
    from pipelines import stages
    from pipelines.settings import Settings

    settings = Settings(progress=False)
    out = folder / "out"
    out.mkdir(parents=True, exist_ok=True)
    times = {}
    start = time.perf_counter()
    stages.ingest_stage([folder / "in"], out, settings)
    times["ingest"] = time.perf_counter() - start
    start = time.perf_counter()
    stages.align_stage(out, settings)
    times["align"] = time.perf_counter() - start
    start = time.perf_counter()
    stages.check_stage(out, settings)
    times["check"] = time.perf_counter() - start
    rulings = {r["id"]: r for r in _jsonl(out / "corpus.jsonl")}
    return Run(
        name,
        out,
        times,
        rulings,
        _jsonl(out / "alignment.jsonl"),
        _jsonl(out / "findings.jsonl"),
        original_line,
    )


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# --------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------


def finding_units(run: Run) -> list[tuple[int | None, dict]]:
    """(unit, finding): the unit is the ruling's original line; MISS001 and other findings
    located on the English side count for the rule they are about."""
    return [(run.unit_of(f.get("ruling_id")), f) for f in run.findings]


Hit = tuple[str, str, bool]
"""(code, category, new): ``new`` when the clean run has no finding of that code with
that evidence on the unit, i.e. the finding reflects the defect rather than the text the
defect was put into."""


def score_defects(defects: list[Defect], hits: dict[int, list[Hit]]) -> tuple[dict, list[dict]]:
    """Per kind: caught (expected category), caught by a new finding, flagged by anything,
    codes on the defects."""
    per_kind: dict[str, dict] = {}
    detail = []
    for d in defects:
        found = hits.get(d.line, [])
        detail.append(
            {
                "line": d.line,
                "kind": d.kind,
                "caught": any(cat in d.expected for _, cat, _ in found),
                "caught_new": any(cat in d.expected and new for _, cat, new in found),
                "codes": sorted({code for code, _, _ in found}),
            }
        )
    for kind in EXPECTED:
        members = [item for item in detail if item["kind"] == kind]
        caught = sum(item["caught"] for item in members)
        caught_new = sum(item["caught_new"] for item in members)
        flagged = sum(bool(item["codes"]) for item in members)
        codes = Counter(code for item in members for code in item["codes"])
        per_kind[kind] = {
            "family": FAMILIES[kind],
            "expected": list(EXPECTED[kind]),
            "injected": len(members),
            "caught": caught,
            "recall": _ratio(caught, len(members)),
            "caught_new": caught_new,
            "recall_new": _ratio(caught_new, len(members)),
            "flagged_any": flagged,
            "flagged_any_rate": _ratio(flagged, len(members)),
            "codes": dict(codes.most_common()),
        }
    return per_kind, detail


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def false_positives(run: Run, gold_lines: set[int], units: set[int], examples: bool) -> dict:
    untouched = units - gold_lines
    by_code: Counter[str] = Counter()
    sample: dict[str, list[dict]] = defaultdict(list)
    located = 0
    for unit, finding in finding_units(run):
        if unit is not None and unit in gold_lines:
            continue
        by_code[finding["code"]] += 1
        located += unit is not None
        if examples:
            sample[finding["code"]].append(_example(run, finding, unit))
    total = sum(by_code.values())
    result = {
        "untouched_units": len(untouched),
        "findings": total,
        "per_100_units": round(100 * total / len(untouched), 2) if untouched else None,
        "units_with_findings": len(
            {u for u, f in finding_units(run) if u is not None and u not in gold_lines}
        ),
        "by_code": {
            code: {"count": n, "per_100_units": round(100 * n / len(untouched), 2)}
            for code, n in by_code.most_common()
        },
    }
    if examples:
        rng = random.Random(0)
        result["examples"] = {
            code: (
                found
                if len(found) <= EXAMPLES
                else sorted(rng.sample(found, EXAMPLES), key=lambda e: e["line"] or 0)
            )
            for code, found in sorted(sample.items())
            if by_code[code] >= FREQUENT
        }
    return result


EXCERPT = 240
"""Characters of rule text kept in the results: enough to judge a finding, not a copy of
the rules."""


def _excerpts(value):
    """The value with every string cut to an excerpt."""
    if isinstance(value, str):
        return _short(value, EXCERPT)
    if isinstance(value, dict):
        return {key: _excerpts(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_excerpts(item) for item in value]
    return value


def _example(run: Run, finding: dict, unit: int | None) -> dict:
    target = run.rulings.get(finding.get("ruling_id") or "", {})
    source = run.rulings.get(finding.get("source_id") or "", {})
    return {
        "line": unit,
        "section": finding.get("section"),
        "message": finding["message"],
        "evidence": _excerpts(finding.get("evidence")),
        "source": _short(source["text"], EXCERPT) if source else None,
        "target": _short(target["text"], EXCERPT) if target and target is not source else None,
    }


def hits_by_unit(run: Run, clean: Run) -> dict[int, list[Hit]]:
    before = {
        (unit, finding["code"], _evidence_key(finding)) for unit, finding in finding_units(clean)
    }
    hits: dict[int, list[Hit]] = defaultdict(list)
    for unit, finding in finding_units(run):
        if unit is not None:
            new = (unit, finding["code"], _evidence_key(finding)) not in before
            hits[unit].append((finding["code"], finding["category"], new))
    return hits


def _evidence_key(finding: dict) -> str:
    return json.dumps(finding.get("evidence"), sort_keys=True, ensure_ascii=False)


def collateral(defective: Run, clean: Run, gold_lines: set[int]) -> dict:
    """Findings on untouched units of the defective run that the clean run does not have:
    what the defects cost their neighbours (through alignment or per-run statistics)."""
    before = Counter((u, f["code"]) for u, f in finding_units(clean))
    after = Counter((u, f["code"]) for u, f in finding_units(defective) if u not in gold_lines)
    new = after - before
    gone = Counter({k: v for k, v in before.items() if k[0] not in gold_lines}) - after
    near = {
        key: count
        for key, count in new.items()
        if key[0] is not None and any(abs(key[0] - g) <= 4 for g in gold_lines)
    }
    return {
        "new_findings": sum(new.values()),
        "new_by_code": dict(
            Counter(code for (_, code), count in new.items() for _ in range(count)).most_common()
        ),
        "new_within_4_lines_of_a_defect": sum(near.values()),
        "gone_findings": sum(gone.values()),
        "examples": [
            {"line": u, "code": c} for (u, c) in sorted(new, key=lambda k: (k[0] or 0, k[1]))[:20]
        ],
    }


def alignment_summary(run: Run) -> dict:
    """Alignment methods, and pairs whose two lines differ although the files are
    line-aligned (the glossary's order differs in a few places, and deletions shift the
    Chinese lines: compared through the original line numbers)."""
    methods = Counter(row["method"] for row in run.alignment)
    off = []
    for row in run.alignment:
        if not (row["source_id"] and row["target_id"]) or row["method"] == "untranslated":
            continue
        source = run.rulings[row["source_id"]]
        target_line = run.unit_of(row["target_id"])
        if source["line"] != target_line:
            off.append(
                {
                    "source_line": source["line"],
                    "target_line": target_line,
                    "method": row["method"],
                    "source": _short(source["text"], 100),
                    "target": _short(run.rulings[row["target_id"]]["text"], 60),
                }
            )
    return {"methods": dict(methods.most_common()), "off_line_pairs": len(off), "examples": off[:8]}


# --------------------------------------------------------------------------------------
# pofilter
# --------------------------------------------------------------------------------------


def write_po(run: Run, path: Path) -> int:
    from translate.storage import po

    from pipelines.vocabulary import TRANSLATION_METHODS

    store = po.pofile()
    store.updateheader(add=True, Language="zh", Content_Type="text/plain; charset=UTF-8")
    count = 0
    for row in sorted(run.alignment, key=lambda r: (r["target_id"] or "", r["source_id"] or "")):
        if not (row["source_id"] and row["target_id"]):
            continue
        if row["method"] not in TRANSLATION_METHODS and row["method"] != "untranslated":
            continue
        unit = store.UnitClass(run.rulings[row["source_id"]]["text"])
        unit.target = run.rulings[row["target_id"]]["text"]
        unit.setcontext(row["target_id"])
        store.addunit(unit)
        count += 1
    path.write_bytes(bytes(store))
    return count


def pofilter_command() -> list[str]:
    local = Path(sys.executable).parent / "pofilter"
    program = str(local) if local.exists() else shutil.which("pofilter")
    if not program:
        raise SystemExit("pofilter not found (translate-toolkit is not installed)")
    return [program]


def run_pofilter(po_path: Path, out_path: Path) -> tuple[float, list[tuple[str, str]]]:
    """Wall time and (msgctxt, test) of every failure."""
    from translate.storage import po

    command = [
        *pofilter_command(),
        "--language=zh",
        "--progress=none",
        "--errorlevel=none",
        *(f"--excludefilter={name}" for name in POFILTER_EXCLUDED),
        "-i",
        str(po_path),
        "-o",
        str(out_path),
    ]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    elapsed = time.perf_counter() - start
    failures = []
    store = po.pofile.parsefile(str(out_path))
    for unit in store.units:
        if unit.isheader():
            continue
        for note in unit.getnotes("translator").splitlines():
            found = re.match(r"\(pofilter\) ([\w-]+):", note)
            if found:
                failures.append((unit.getcontext(), found.group(1)))
    return elapsed, failures


def pofilter_scores(
    run: Run, failures: list[tuple[str, str]], defects: list[Defect], units: set[int]
) -> dict:
    gold_lines = {d.line for d in defects}
    hits: dict[int, set[str]] = defaultdict(set)
    untouched: Counter[str] = Counter()
    for context, test in failures:
        unit = run.unit_of(context)
        if unit is None:
            continue
        if unit in gold_lines:
            hits[unit].add(test)
        else:
            untouched[test] += 1
    per_kind = {}
    for kind in EXPECTED:
        members = [d for d in defects if d.kind == kind]
        caught = [d for d in members if hits.get(d.line)]
        per_kind[kind] = {
            "injected": len(members),
            "caught": len(caught),
            "recall": _ratio(len(caught), len(members)),
            "tests": dict(
                Counter(t for d in members for t in sorted(hits.get(d.line, ()))).most_common()
            ),
        }
    n_untouched = len(units - gold_lines)
    return {
        "per_kind": per_kind,
        "defect_tests": {str(line): sorted(tests) for line, tests in sorted(hits.items())},
        "untouched_failures": sum(untouched.values()),
        "untouched_units_failing": len(
            {run.unit_of(c) for c, _ in failures if run.unit_of(c) not in gold_lines}
        ),
        "per_100_units": round(100 * sum(untouched.values()) / n_untouched, 2)
        if n_untouched
        else None,
        "by_test": {
            test: {"count": n, "per_100_units": round(100 * n / n_untouched, 2)}
            for test, n in untouched.most_common()
        },
    }


SPECIFIC_MAX = 5.0
"""A pofilter test counts as specific when it fails on fewer than this many units per 100
of the clean pair: the others (sentence count, punctuation spacing...) fire on so much
correct Chinese that a failure says little about a defect."""


def specific_tests(pofilter: dict, defects: list[Defect], units: int) -> dict:
    """pofilter scored with its specific tests only."""
    clean = pofilter["clean"]["by_test"]
    failing_on_defects = {
        test for tests in pofilter["defective"]["defect_tests"].values() for test in tests
    }
    specific = sorted(
        test
        for test in failing_on_defects | set(clean)
        if clean.get(test, {}).get("per_100_units", 0) < SPECIFIC_MAX
    )
    tests_of = pofilter["defective"]["defect_tests"]
    per_kind = {}
    for kind in EXPECTED:
        members = [d for d in defects if d.kind == kind]
        caught = [d for d in members if set(tests_of.get(str(d.line), ())) & set(specific)]
        per_kind[kind] = {"caught": len(caught), "recall": _ratio(len(caught), len(members))}
    untouched = pofilter["defective"]["by_test"]
    return {
        "tests": specific,
        "per_kind": per_kind,
        "caught": sum(v["caught"] for v in per_kind.values()),
        "clean_per_100": round(sum(clean.get(t, {}).get("per_100_units", 0) for t in specific), 2),
        "untouched_per_100": round(
            sum(untouched.get(t, {}).get("per_100_units", 0) for t in specific), 2
        ),
    }


# --------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------


def machine() -> dict:
    memory = None
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    memory = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": memory,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "translate_toolkit": version("translate-toolkit"),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def markdown(results: dict) -> str:
    m = results["machine"]
    d, c = results["defective_run"], results["clean_run"]
    lines = [
        "# Defect injection on the Comprehensive Rules (en -> zh), and pofilter",
        "",
        "Produced by `python benchmarks/inject_defects.py` (all numbers, the gold list and "
        "examples in `inject_defects.json`). "
        f"Seed {results['seed']}, {results['per_type']} rules per defect kind, "
        f"{results['injected']} defects in {results['candidates']} numbered rules "
        f"({100 * results['injected'] / results['candidates']:.1f}%; "
        f"{results['units']} Chinese units in all). A defect is *caught* when its rule gets "
        "a finding of the expected category; a deleted rule counts through its English rule "
        "(MISS001).",
        "",
        f"Machine: nproc {m['nproc']}, {m['cpu']}, memory {m['memory_gib']} GiB, Python "
        f"{m['python']} ({m['platform']}), translate-toolkit {m['translate_toolkit']}, "
        f"{m['date']}; load average at the start {m['load_average']} (a shared machine: "
        "timings are noisy, counts are not).",
        "",
        "## Recall per defect kind",
        "",
        "| defect | expected category | injected | checks: caught | caught by a new finding "
        "| checks: any finding | codes on the defects | pofilter: any failure "
        "| pofilter tests |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    po = results["pofilter"]["defective"]["per_kind"]
    for kind, row in d["recall"].items():
        codes = ", ".join(f"{k} {v}" for k, v in row["codes"].items()) or "–"
        tests = ", ".join(f"{k} {v}" for k, v in po[kind]["tests"].items()) or "–"
        lines.append(
            f"| {kind} | {' / '.join(row['expected'])} | {row['injected']} | "
            f"{row['caught']} ({pct(row['recall'])}) | {row['caught_new']} "
            f"({pct(row['recall_new'])}) | {row['flagged_any']} "
            f"({pct(row['flagged_any_rate'])}) | {codes} | {po[kind]['caught']} "
            f"({pct(po[kind]['recall'])}) | {tests} |"
        )
    fam = results["families"]
    lines += [
        "",
        "By family: "
        + "; ".join(
            f"{name} {v['caught']}/{v['injected']} ({pct(v['recall'])})" for name, v in fam.items()
        )
        + f"; all {results['caught']}/{results['injected']} ({pct(results['recall'])}). "
        "*Caught by a new finding*: the finding of the expected category is not on the "
        "unmodified text already (same code and evidence), so it reflects the defect and not "
        "noise on the rule it was put into.",
        "",
        "## Findings on text the benchmark did not touch",
        "",
        f"Clean run (unmodified pair): {c['false_positives']['findings']} findings on "
        f"{c['false_positives']['untouched_units']} units, "
        f"**{c['false_positives']['per_100_units']} per 100 units** "
        f"({c['false_positives']['units_with_findings']} units with a finding). Defective run, "
        f"untouched units: {d['false_positives']['findings']} findings on "
        f"{d['false_positives']['untouched_units']} units, "
        f"**{d['false_positives']['per_100_units']} per 100 units**; "
        f"{d['collateral']['new_findings']} of them are new against the clean run "
        f"({d['collateral']['new_within_4_lines_of_a_defect']} within 4 lines of a defect), "
        f"{d['collateral']['gone_findings']} clean-run findings disappeared.",
        "",
        "| code | clean run | per 100 | defective run, untouched | per 100 |",
        "|---|---|---|---|---|",
    ]
    codes = sorted(
        set(c["false_positives"]["by_code"]) | set(d["false_positives"]["by_code"]),
        key=lambda k: -c["false_positives"]["by_code"].get(k, {}).get("count", 0),
    )
    for code in codes:
        a = c["false_positives"]["by_code"].get(code, {"count": 0, "per_100_units": 0})
        b = d["false_positives"]["by_code"].get(code, {"count": 0, "per_100_units": 0})
        lines.append(
            f"| {code} | {a['count']} | {a['per_100_units']} | {b['count']} | "
            f"{b['per_100_units']} |"
        )
    if results.get("comparison"):
        lines += comparison_markdown(results["comparison"])
    lines += ["", "## Alignment", ""]
    for name, run in (("clean", c), ("defective", d)):
        a = run["alignment"]
        lines.append(
            f"- {name} run: "
            + ", ".join(f"{k} {v}" for k, v in a["methods"].items())
            + f"; {a['off_line_pairs']} pairs join different lines"
            + (
                " ("
                + "; ".join(
                    f"en {e['source_line']} ~ zh {e['target_line']} ({e['method']})"
                    for e in a["examples"][:4]
                )
                + ")"
                if a["examples"]
                else ""
            )
            + "."
        )
    lines += [
        "",
        "## pofilter beside the check stage",
        "",
        f"PO file of the defective run: {results['pofilter']['defective']['units']} units "
        "(aligned pairs with a translation method plus the rows the aligner marks "
        f"untranslated), `pofilter --language=zh`, every test but "
        f"{', '.join(POFILTER_EXCLUDED)}.",
        "",
        "| | time (s) | defects caught | on untouched units per 100 | on the clean pair per 100 |",
        "|---|---|---|---|---|",
        f"| rulings check stage | {d['times']['check']:.1f} | {results['caught_any']}/"
        f"{results['injected']} (expected category: {results['caught']}) | "
        f"{d['false_positives']['per_100_units']} | {c['false_positives']['per_100_units']} |",
        f"| pofilter | {results['pofilter']['defective']['seconds']:.1f} | "
        f"{results['pofilter']['defective']['caught']}/{results['injected']} | "
        f"{results['pofilter']['defective']['per_100_units']} | "
        f"{results['pofilter']['clean']['per_100_units']} |",
        f"| pofilter, specific tests only | | {results['pofilter_specific']['caught']}/"
        f"{results['injected']} | {results['pofilter_specific']['untouched_per_100']} | "
        f"{results['pofilter_specific']['clean_per_100']} |",
        "",
        f"Specific tests (under {SPECIFIC_MAX:g} failures per 100 units of the clean pair): "
        f"{', '.join(results['pofilter_specific']['tests'])}. Per defect kind with them: "
        + ", ".join(
            f"{k} {v['caught']}" for k, v in results["pofilter_specific"]["per_kind"].items()
        )
        + ".",
        "",
        "pofilter failures on the clean pair by test (per 100 units): "
        + ", ".join(
            f"{t} {v['per_100_units']}" for t, v in results["pofilter"]["clean"]["by_test"].items()
        )
        + ".",
        "",
        f"Stage times, clean run: {_times(c['times'])}; defective run: {_times(d['times'])} "
        "(the embedding cache was warm for the clean texts).",
    ]
    lines += ["", "## Reading", ""] + [f"- {note}" for note in results.get("notes", [])]
    lines += ["", "## Examples of frequent codes on untouched units (defective run)", ""]
    for code, examples in d["false_positives"].get("examples", {}).items():
        lines.append(f"### {code}")
        lines.append("")
        for example in examples:
            lines.append(
                f"- line {example['line']} ({example['section'] or '-'}): {example['message']}"
            )
            if example["source"]:
                lines.append(f"  - en: {_short(example['source'])}")
            if example["target"]:
                lines.append(f"  - zh: {_short(example['target'])}")
        lines.append("")
    lines += ["## Missed defects (first few per kind)", ""]
    if not any(results["missed_examples"].values()):
        lines.append("None: every defect got a finding of its expected category.")
    for kind, missed in results["missed_examples"].items():
        for item in missed:
            change = json.dumps(item["change"], ensure_ascii=False)[:200]
            lines.append(
                f"- {kind}, line {item['line']}: {change}; "
                f"codes {', '.join(item['codes']) or 'none'}"
            )
    return "\n".join(lines) + "\n"


def _times(times: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.1f} s" for k, v in times.items())


def _short(text: str, limit: int = 220) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--per-type", type=int, default=DEFAULT_PER_TYPE)
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: a temp dir)")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument(
        "--compare",
        type=Path,
        default=BEFORE,
        help="an earlier results file to compare with (default: the recorded run of the "
        "checks before the precision work, if present)",
    )
    args = parser.parse_args(argv)

    en_path, zh_path = CR_DIR / EN_NAME, CR_DIR / ZH_NAME
    if not en_path.exists() or not zh_path.exists():
        print(f"{CR_DIR} is not available (../shared is absent): nothing to measure.")
        return 0

    from pipelines.termbase import Termbase

    machine_info = machine()
    en_lines, zh_lines = read_lines(en_path), read_lines(zh_path)
    injection = inject(en_lines, zh_lines, Termbase.load(), args.seed, args.per_type)
    defects = injection.defects
    gold_lines = {d.line for d in defects}

    work = args.keep or Path(tempfile.mkdtemp(prefix="inject-defects-"))
    try:
        runs = {}
        identity = {n: n for n in range(1, len(zh_lines) + 1)}
        for name, lines, mapping in (
            ("clean", zh_lines, identity),
            ("defective", injection.lines, injection.original_line),
        ):
            folder = work / name
            (folder / "in").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(en_path, folder / "in" / EN_NAME)
            (folder / "in" / ZH_NAME).write_text("\n".join(lines), encoding="utf-8")
            print(f"{name}: running the pipeline…", file=sys.stderr)
            runs[name] = run_pipeline(name, folder, mapping)
        clean, defective = runs["clean"], runs["defective"]
        units = clean.zh_units()

        recall, detail = score_defects(defects, hits_by_unit(defective, clean))
        results: dict = {
            "seed": args.seed,
            "per_type": args.per_type,
            "candidates": len(candidates(en_lines, zh_lines)),
            "units": len(units),
            "injected": len(defects),
            "machine": machine_info,
        }
        caught = sum(1 for item in detail if item["caught"])
        caught_new = sum(1 for item in detail if item["caught_new"])
        caught_any = sum(1 for item in detail if item["codes"])
        families: dict[str, dict] = {}
        for row in recall.values():
            fam = families.setdefault(row["family"], {"injected": 0, "caught": 0})
            fam["injected"] += row["injected"]
            fam["caught"] += row["caught"]
        for fam in families.values():
            fam["recall"] = _ratio(fam["caught"], fam["injected"])
        results.update(
            caught_new=caught_new,
            recall_new=_ratio(caught_new, len(defects)),
            caught=caught,
            caught_any=caught_any,
            recall=_ratio(caught, len(defects)),
            families=families,
        )
        results["clean_run"] = {
            "times": clean.times,
            "alignment": alignment_summary(clean),
            "findings": len(clean.findings),
            "false_positives": false_positives(clean, set(), units, examples=False),
        }
        results["defective_run"] = {
            "times": defective.times,
            "alignment": alignment_summary(defective),
            "findings": len(defective.findings),
            "recall": recall,
            "false_positives": false_positives(defective, gold_lines, units, examples=True),
            "collateral": collateral(defective, clean, gold_lines),
        }
        pofilter = {}
        for name, run in runs.items():
            po_path = work / name / "pairs.po"
            count = write_po(run, po_path)
            seconds, failures = run_pofilter(po_path, work / name / "pofilter.po")
            scored = pofilter_scores(run, failures, defects if name == "defective" else [], units)
            scored.update(units=count, seconds=round(seconds, 2), failures=len(failures))
            if name == "defective":
                scored["caught"] = sum(v["caught"] for v in scored["per_kind"].values())
            pofilter[name] = scored
        results["pofilter"] = pofilter
        results["pofilter_specific"] = specific_tests(pofilter, defects, len(units))
        missed: dict[str, list[dict]] = {}
        for defect, item in zip(defects, detail, strict=True):
            if not item["caught"] and len(missed.setdefault(defect.kind, [])) < EXAMPLES // 2:
                missed[defect.kind].append(
                    {"line": defect.line, "change": defect.change, "codes": item["codes"]}
                )
        results["missed_examples"] = missed
        results["notes"] = notes(results)
        results["gold"] = [
            _excerpts({**asdict(d), "expected": list(d.expected), **item})
            for d, item in zip(defects, detail, strict=True)
        ]
        if args.compare and args.compare.exists():
            earlier = json.loads(args.compare.read_text(encoding="utf-8"))
            results["comparison"] = compare(earlier, results, args.compare)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)

    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "inject_defects.json").write_text(
        json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    (args.results / "inject_defects.md").write_text(markdown(results), encoding="utf-8")
    print(f"wrote {args.results / 'inject_defects.md'} and inject_defects.json")
    return 0


def compare(earlier: dict, later: dict, path: Path) -> dict:
    """Recall per kind and clean-run rate per code, earlier against now."""
    kinds = {
        kind: {
            "before": earlier["defective_run"]["recall"].get(kind, {}).get("recall"),
            "after": row["recall"],
            "before_new": earlier["defective_run"]["recall"].get(kind, {}).get("recall_new"),
            "after_new": row["recall_new"],
        }
        for kind, row in later["defective_run"]["recall"].items()
    }
    before_codes = earlier["clean_run"]["false_positives"]["by_code"]
    after_codes = later["clean_run"]["false_positives"]["by_code"]
    codes = {
        code: {
            "before": before_codes.get(code, {}).get("count", 0),
            "after": after_codes.get(code, {}).get("count", 0),
        }
        for code in sorted(set(before_codes) | set(after_codes))
    }
    return {
        "earlier": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
        "same_gold": [g["line"] for g in earlier.get("gold", [])]
        == [g["line"] for g in later.get("gold", [])],
        "recall": kinds,
        "recall_all": {"before": earlier.get("recall"), "after": later.get("recall")},
        "recall_new_all": {"before": earlier.get("recall_new"), "after": later.get("recall_new")},
        "clean_by_code": codes,
        "clean_per_100": {
            "before": earlier["clean_run"]["false_positives"]["per_100_units"],
            "after": later["clean_run"]["false_positives"]["per_100_units"],
        },
        "untouched_per_100": {
            "before": earlier["defective_run"]["false_positives"]["per_100_units"],
            "after": later["defective_run"]["false_positives"]["per_100_units"],
        },
    }


def comparison_markdown(comparison: dict) -> list[str]:
    lines = [
        "",
        "## Before and after the precision work",
        "",
        f"Before: `{comparison['earlier']}` (the same benchmark"
        + (", same gold list" if comparison["same_gold"] else ", a different gold list")
        + ", with the checks as they were before). Findings on the clean pair per 100 units: "
        f"{comparison['clean_per_100']['before']} -> **{comparison['clean_per_100']['after']}**"
        f"; on untouched units of the defective run: {comparison['untouched_per_100']['before']}"
        f" -> **{comparison['untouched_per_100']['after']}**; recall (expected category): "
        f"{pct(comparison['recall_all']['before'])} -> "
        f"**{pct(comparison['recall_all']['after'])}**; caught by a new finding: "
        f"{pct(comparison['recall_new_all']['before'])} -> "
        f"**{pct(comparison['recall_new_all']['after'])}**.",
        "",
        "| defect | recall before | after | by a new finding before | after |",
        "|---|---|---|---|---|",
    ]
    for kind, row in comparison["recall"].items():
        lines.append(
            f"| {kind} | {pct(row['before'])} | {pct(row['after'])} | "
            f"{pct(row['before_new'])} | {pct(row['after_new'])} |"
        )
    lines += ["", "| code | clean-pair findings before | after |", "|---|---|---|"]
    for code, row in sorted(
        comparison["clean_by_code"].items(), key=lambda kv: -max(kv[1].values())
    ):
        if row["before"] != row["after"] or row["before"]:
            lines.append(f"| {code} | {row['before']} | {row['after']} |")
    return lines


def notes(results: dict) -> list[str]:
    """Plain-language readings of the numbers (filled in from the results)."""
    d, c = results["defective_run"], results["clean_run"]
    below = [f"{k} {pct(v['recall'])}" for k, v in d["recall"].items() if v["recall"] != 1]
    top = list(c["false_positives"]["by_code"].items())[:3]
    po, spec = results["pofilter"]["defective"], results["pofilter_specific"]
    lines = [
        f"The checks catch {results['caught']}/{results['injected']} defects with a finding "
        "of the expected category; "
        + (f"kinds under 100%: {', '.join(below)}." if below else "every kind at 100%."),
        f"On the unmodified pair they report {c['false_positives']['per_100_units']} findings "
        "per 100 units"
        + (
            f" ({results['comparison']['clean_per_100']['before']} before the precision work)"
            if results.get("comparison")
            else ""
        )
        + "; the most frequent: "
        + ", ".join(f"{code} {v['per_100_units']}" for code, v in top)
        + ". Many of these are real discrepancies of the official translation (rule "
        "references that differ, untranslated symbols such as {横置}, half-width "
        "punctuation): see the examples below.",
        f"pofilter fails {po['caught']}/{results['injected']} defects on some test, but at "
        f"{po['per_100_units']} failures per 100 untouched units; with only its specific "
        f"tests it catches {spec['caught']} at {spec['untouched_per_100']} per 100. A PO file "
        "has no unit for a deleted rule, and pofilter has no termbase, so deletions and term "
        "swaps are out of its reach (the swaps it flags are flagged by unspecific tests).",
        f"Check stage {d['times']['check']:.1f} s against pofilter "
        f"{po['seconds']:.1f} s on the same {po['units']} pairs (pofilter includes its "
        "interpreter start-up; the check stage reads the tables and builds the termbase and "
        "card index).",
    ]
    return lines


if __name__ == "__main__":
    sys.exit(main())
