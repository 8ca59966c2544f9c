"""Defects injected into the Chinese Comprehensive Rules: recall and noise of the checks, and
translate-toolkit's pofilter on the same pairs, as rules files and in CAT formats.

    python benchmarks/inject_defects.py                # 20 defects per kind, a few minutes
    python benchmarks/inject_defects.py --per-type 5   # a quick look

1. **Inject** (``testkit.defects``): among the rules whose English and Chinese lines carry
   the same number, a seeded choice of ``--per-type`` rules per kind (``KINDS``) gets one
   defect: a term swapped for a form the termbase forbids, English left in (whole or half),
   a dropped symbol, power/toughness modifier or rule reference, a changed number (digits or
   a Chinese number word), a cut text, a deleted rule. The gold list records every change.
2. **Run** ingest -> align -> check on the clean pair and on the defective copy.
3. **Score**: a defect is caught when its rule (for a deleted rule, the English rule) gets a
   finding of the expected category; findings on untouched units count per 100 units.
4. **pofilter**: the aligned pairs as a PO file, ``pofilter --language=zh`` (all tests but
   spellcheck), failures mapped back to rules through msgctxt and scored the same way.
5. **CAT formats** (``results/cat_formats``): the defective pair written two more ways,
   ``xliff`` (one trans-unit per line pair, the rule number as its id, a deleted rule an
   empty target; also ``drop-code`` defects: a unit whose source ends with an inline code
   ``<x id="fn1"/>`` its target lacks) and ``po`` (the same units, the id as msgctxt), each
   checked by rulings (with a warm embedding cache) and by pofilter (all tests but
   spellcheck and the workflow test isfuzzy), beside the rules files (``plain``, step 2).

Writes ``results/inject_defects.{json,md}`` and ``results/cat_formats.{json,md}``.
Deterministic but for timings.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from common import (
    CR,
    CR_EN,
    CR_ZH,
    data,
    md_table,
    page,
    parser,
    pct,
    per_100,
    ratio,
    read_jsonl,
    read_lines,
    record,
    shared_or_exit,
)

from testkit.defects import (
    CODE_EXPECTED,
    CODE_KIND,
    KINDS,
    Defect,
    Injection,
    add_code_defects,
    candidates,
    cat_units,
    inject,
    write_xliff,
    write_xliff2,
)

SEED, PER_TYPE = 20231013, 20
EXAMPLES, FREQUENT = 10, 5
"""Examples kept per code found at least FREQUENT times (and per missed defect kind: half)."""
EXCERPT = 240
"""Characters of rule text kept in the results: enough to judge, not a copy of the rules."""
POFILTER_EXCLUDED = ("spellcheck",)
"""spellcheck needs a dictionary for the language and would flag every game word."""
POFILTER_SKIPPED = (*POFILTER_EXCLUDED, "isfuzzy")
"""isfuzzy reports a workflow state (every XLIFF unit without approved="yes"), not the text."""
POFILTER_CATEGORIES = data("inject_defects")["pofilter_categories"]
"""pofilter tests that speak to a defect category: in the CAT forms a defect is caught by
pofilter when one of these fails on its unit (and counted apart when any test fails)."""
SPECIFIC_MAX = 5.0
"""A pofilter test is *specific* when it fails on fewer than this many units per 100 of the
clean pair: the others fire on so much correct Chinese that a failure says little."""
POFILTER_NOTE = re.compile(r"(?:\(pofilter\) )?([\w-]+): ")
"""A failure as pofilter notes it: ``(pofilter) endpunc: …`` in PO, ``endpunc: …`` in XLIFF."""
XLIFF_FILE, PO_FILE = "MagicCompRules_20231013.xlf", "MagicCompRules_20231013.po"
XLIFF2_FILE = "MagicCompRules_20231013.xliff2.xlf"


# --- running the pipeline and scoring -----------------------------------------------------


@dataclass
class Run:
    times: dict[str, float]
    rulings: dict[str, dict]
    alignment: list[dict]
    findings: list[dict]
    original_line: dict[int, int]

    def unit_of(self, ruling_id: str | None) -> int | None:
        """The original line a ruling stands for (Chinese line, or English line)."""
        ruling = self.rulings.get(ruling_id or "")
        if ruling is None or ruling["file"] != CR_ZH:
            return ruling and ruling["line"]
        return self.original_line.get(ruling["line"])

    def zh_units(self) -> set[int]:
        lines = [r["line"] for r in self.rulings.values() if r["file"] == CR_ZH]
        return {self.original_line[line] for line in lines if line in self.original_line}

    def located(self) -> list[tuple[int | None, dict]]:
        """(unit, finding): findings on the English side (MISS001) count for their rule."""
        return [(self.unit_of(f.get("ruling_id")), f) for f in self.findings]


def run_pipeline(folder: Path, original_line: dict[int, int]) -> Run:
    """ingest -> align -> check of ``folder/in`` in this process, each stage timed (check
    includes loading the termbase)."""
    from pipelines import stages
    from pipelines.catalogue import CATALOGUE
    from pipelines.settings import Settings

    every_code = tuple(sorted(CATALOGUE))  # the opt-in checks too: ``defaults`` filters them
    settings, out, times = Settings(select=every_code), folder / "out", {}
    out.mkdir(parents=True, exist_ok=True)
    steps = {
        "ingest": lambda: stages.ingest_stage([folder / "in"], out, settings),
        "align": lambda: stages.align_stage(out, settings),
        "check": lambda: stages.check_stage(out, settings, stages.Resources.load(settings)),
    }
    for name, step in steps.items():
        start = time.perf_counter()
        step()
        times[name] = time.perf_counter() - start
    rulings = {r["id"]: r for r in read_jsonl(out / "corpus.jsonl")}
    tables = [read_jsonl(out / name) for name in ("alignment.jsonl", "findings.jsonl")]
    return Run(times, rulings, *tables, original_line)


def defaults(run: Run) -> Run:
    """The run as a default run reports it: the findings of checks that are on by default."""
    from pipelines.catalogue import CATALOGUE

    kept = [f for f in run.findings if CATALOGUE[f["code"]].default]
    return Run(run.times, run.rulings, run.alignment, kept, run.original_line)


def evidence_key(finding: dict) -> str:
    return json.dumps(finding.get("evidence"), sort_keys=True, ensure_ascii=False)


def score_defects(defects: list[Defect], defective: Run, clean: Run) -> tuple[dict, list[dict]]:
    """Per kind: caught (expected category), caught by a *new* finding (one the clean run
    does not have on that unit with that evidence), flagged by anything."""
    before = {(u, f["code"], evidence_key(f)) for u, f in clean.located()}
    hits: dict[int, list] = defaultdict(list)
    for unit, f in defective.located():
        if unit is not None:
            new = (unit, f["code"], evidence_key(f)) not in before
            hits[unit].append((f["code"], f["category"], new))
    detail = [
        {
            "line": d.line,
            "kind": d.kind,
            "caught": any(cat in d.expected for _, cat, _ in hits[d.line]),
            "caught_new": any(cat in d.expected and new for _, cat, new in hits[d.line]),
            "codes": sorted({code for code, _, _ in hits[d.line]}),
        }
        for d in defects
    ]
    per_kind = {}
    for kind, (family, expected) in KINDS.items():
        members = [item for item in detail if item["kind"] == kind]
        counts = {key: sum(bool(i[key]) for i in members) for key in ("caught", "caught_new")}
        flagged = sum(bool(i["codes"]) for i in members)
        per_kind[kind] = {
            "family": family,
            "expected": list(expected),
            "injected": len(members),
            **counts,
            "recall": ratio(counts["caught"], len(members)),
            "recall_new": ratio(counts["caught_new"], len(members)),
            "flagged_any": flagged,
            "flagged_any_rate": ratio(flagged, len(members)),
            "codes": dict(Counter(c for i in members for c in i["codes"]).most_common()),
        }
    return per_kind, detail


def excerpt(value, limit: int = EXCERPT):
    """The value with every string cut to an excerpt."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[: limit - 1] + "…"
    if isinstance(value, dict):
        return {key: excerpt(item) for key, item in value.items()}
    return [excerpt(item) for item in value] if isinstance(value, list) else value


def false_positives(run: Run, gold: set[int], units: set[int], examples: bool) -> dict:
    """Findings on units the benchmark did not touch, per 100 such units, by code."""
    untouched = len(units - gold)
    kept = [(u, f) for u, f in run.located() if u is None or u not in gold]
    by_code = Counter(f["code"] for _, f in kept)
    result = {
        "untouched_units": untouched,
        "findings": len(kept),
        "per_100_units": per_100(len(kept), untouched),
        "units_with_findings": len({u for u, _ in kept if u is not None}),
        "by_code": {
            code: {"count": n, "per_100_units": per_100(n, untouched)}
            for code, n in by_code.most_common()
        },
    }
    if examples:
        rng, sample = random.Random(0), defaultdict(list)
        for unit, finding in kept:
            target = run.rulings.get(finding.get("ruling_id") or "", {})
            source = run.rulings.get(finding.get("source_id") or "", {})
            sample[finding["code"]].append(
                {
                    "line": unit,
                    "section": finding.get("section"),
                    "message": finding["message"],
                    "evidence": excerpt(finding.get("evidence")),
                    "source": excerpt(source["text"]) if source else None,
                    "target": excerpt(target["text"]) if target and target is not source else None,
                }
            )
        result["examples"] = {
            code: sorted(rng.sample(found, EXAMPLES), key=lambda e: e["line"] or 0)
            if len(found) > EXAMPLES
            else found
            for code, found in sorted(sample.items())
            if by_code[code] >= FREQUENT
        }
    return result


def collateral(defective: Run, clean: Run, gold: set[int]) -> dict:
    """Findings on untouched units of the defective run that the clean run does not have:
    what the defects cost their neighbours (through alignment or per-run statistics)."""
    before = Counter((u, f["code"]) for u, f in clean.located())
    after = Counter((u, f["code"]) for u, f in defective.located() if u not in gold)
    new = after - before
    gone = Counter({k: v for k, v in before.items() if k[0] not in gold}) - after
    by_code: Counter[str] = Counter()
    near = 0
    for (unit, code), count in new.items():
        by_code[code] += count
        near += count if unit is not None and any(abs(unit - g) <= 4 for g in gold) else 0
    first = sorted(new, key=lambda k: (k[0] or 0, k[1]))[:20]
    return {
        "new_findings": sum(new.values()),
        "new_by_code": dict(by_code.most_common()),
        "new_within_4_lines_of_a_defect": near,
        "gone_findings": sum(gone.values()),
        "examples": [{"line": unit, "code": code} for unit, code in first],
    }


def alignment_summary(run: Run) -> dict:
    """Alignment methods, and pairs joining different original lines (the glossary's order
    differs in a few places)."""
    off = []
    for row in run.alignment:
        if not (row["source_id"] and row["target_id"]) or row["method"] == "untranslated":
            continue
        source, target_line = run.rulings[row["source_id"]], run.unit_of(row["target_id"])
        if source["line"] != target_line:
            off.append(
                {
                    "source_line": source["line"],
                    "target_line": target_line,
                    "method": row["method"],
                    "source": excerpt(source["text"], 100),
                    "target": excerpt(run.rulings[row["target_id"]]["text"], 60),
                }
            )
    methods = Counter(row["method"] for row in run.alignment)
    return {"methods": dict(methods.most_common()), "off_line_pairs": len(off), "examples": off[:8]}


# --- pofilter -----------------------------------------------------------------------------


def write_po(pairs: list[tuple[str, str, str]], path: Path, language: str) -> int:
    """(source, target, msgctxt) pairs as a PO file."""
    from translate.storage import po

    store = po.pofile()
    store.updateheader(add=True, Language=language, Content_Type="text/plain; charset=UTF-8")
    for source, target, context in pairs:
        unit = store.UnitClass(source)
        unit.target = target
        unit.setcontext(context)
        store.addunit(unit)
    path.write_bytes(bytes(store))
    return len(pairs)


def pofilter(path: Path, out: Path, skipped: tuple[str, ...]) -> tuple[float, list]:
    """Wall seconds of ``pofilter --language=zh`` on a PO or XLIFF file, and (msgctxt or unit
    id, test) of every failure."""
    from translate.storage import factory

    local = Path(sys.executable).parent / "pofilter"
    command = [str(local) if local.exists() else shutil.which("pofilter"), "--language=zh"]
    command += ["--progress=none", "--errorlevel=none", "-i", str(path), "-o", str(out)]
    command += [f"--excludefilter={name}" for name in skipped]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    elapsed, failures, is_po = time.perf_counter() - start, [], path.suffix == ".po"
    for unit in factory.getobject(str(out)).units:
        if unit.isheader():
            continue
        key = unit.getcontext() if is_po else unit.getid().split("\x04")[-1]
        for note in unit.getnotes("translator" if is_po else "pofilter").splitlines():
            if found := POFILTER_NOTE.match(note):
                failures.append((key, found.group(1)))
    return elapsed, failures


def aligned_pairs(run: Run) -> list[tuple[str, str, str]]:
    """Pairs with a translation method, and rows marked untranslated (msgctxt: the target)."""
    from pipelines.vocabulary import TRANSLATION_METHODS

    rows = sorted(run.alignment, key=lambda r: (r["target_id"] or "", r["source_id"] or ""))
    return [
        (run.rulings[r["source_id"]]["text"], run.rulings[r["target_id"]]["text"], r["target_id"])
        for r in rows
        if r["source_id"]
        and r["target_id"]
        and (r["method"] in TRANSLATION_METHODS or r["method"] == "untranslated")
    ]


def pofilter_scores(run: Run, failures: list, defects: list[Defect], units: set[int]) -> dict:
    gold = {d.line for d in defects}
    hits: dict[int, set[str]] = defaultdict(set)
    untouched: Counter[str] = Counter()
    for context, test in failures:
        unit = run.unit_of(context)
        if unit in gold:
            hits[unit].add(test)
        elif unit is not None:
            untouched[test] += 1
    per_kind = {}
    for kind in KINDS:
        members = [d for d in defects if d.kind == kind]
        caught = sum(bool(hits.get(d.line)) for d in members)
        tests = Counter(t for d in members for t in sorted(hits.get(d.line, ())))
        per_kind[kind] = {"injected": len(members), "caught": caught}
        per_kind[kind] |= {
            "recall": ratio(caught, len(members)),
            "tests": dict(tests.most_common()),
        }
    n = len(units - gold)
    return {
        "per_kind": per_kind,
        "defect_tests": {str(line): sorted(tests) for line, tests in sorted(hits.items())},
        "untouched_failures": sum(untouched.values()),
        "untouched_units_failing": len({run.unit_of(c) for c, _ in failures} - gold),
        "per_100_units": per_100(sum(untouched.values()), n),
        "by_test": {
            t: {"count": c, "per_100_units": per_100(c, n)} for t, c in untouched.most_common()
        },
    }


def specific_tests(pofilter: dict, defects: list[Defect]) -> dict:
    """pofilter scored with its specific tests only."""
    clean, tests_of = pofilter["clean"]["by_test"], pofilter["defective"]["defect_tests"]
    failing = {test for tests in tests_of.values() for test in tests} | set(clean)
    specific = sorted(t for t in failing if clean.get(t, {}).get("per_100_units", 0) < SPECIFIC_MAX)
    per_kind = {}
    for kind in KINDS:
        members = [d for d in defects if d.kind == kind]
        caught = sum(bool(set(tests_of.get(str(d.line), ())) & set(specific)) for d in members)
        per_kind[kind] = {"caught": caught, "recall": ratio(caught, len(members))}

    def rate(by_test: dict) -> float:
        return round(sum(by_test.get(t, {}).get("per_100_units", 0) for t in specific), 2)

    return {
        "tests": specific,
        "per_kind": per_kind,
        "caught": sum(v["caught"] for v in per_kind.values()),
        "clean_per_100": rate(clean),
        "untouched_per_100": rate(pofilter["defective"]["by_test"]),
    }


# --- the CAT forms ------------------------------------------------------------------------


def score_form(located: list[tuple], defects: list[dict], untouched: int, gold: set[int]) -> dict:
    """Recall per kind (a finding of an expected category on the defect's unit; for pofilter,
    a failure of a test mapped to the category, and any failure) and findings on untouched
    units per 100."""
    on_unit: dict[int | None, list[tuple[str, str]]] = defaultdict(list)
    for unit, code, category in located:
        on_unit[unit].append((code, category))
    per_kind = {}
    for kind in [*KINDS, CODE_KIND]:
        if members := [d for d in defects if d["kind"] == kind]:
            expected = CODE_EXPECTED if kind == CODE_KIND else KINDS[kind][1]
            caught = sum(any(cat in expected for _, cat in on_unit[d["line"]]) for d in members)
            codes = Counter(code for d in members for code, _ in on_unit[d["line"]])
            per_kind[kind] = {
                "injected": len(members),
                "caught": caught,
                "any": sum(bool(on_unit[d["line"]]) for d in members),
                "codes": dict(codes.most_common(6)),
            }
    noise = [code for unit, code, _ in located if unit not in gold]
    totals = {key: sum(v[key] for v in per_kind.values()) for key in ("caught", "any", "injected")}
    return {
        "per_kind": per_kind,
        **totals,
        "untouched_findings": len(noise),
        "per_100_untouched": per_100(len(noise), untouched),
        "untouched_by_code": dict(Counter(noise).most_common()),
    }


def cat_formats(en_lines, zh_lines, injection: Injection, plain: Run, work: Path, seed, per_type):
    """The CAT-form measurements (``results/cat_formats``); ``plain``: the defective run."""
    units = cat_units(en_lines, zh_lines, injection)
    line_of = {unit["id"]: unit["line"] for unit in units}
    defects = [{"line": d.line, "kind": d.kind} for d in injection.defects]
    code_defects = add_code_defects(units, {d["line"] for d in defects}, per_type, seed)
    gold = {d["line"] for d in defects + code_defects}
    untouched = len({unit["line"] for unit in units} - gold)
    files = {
        "xliff": work / "xliff" / "in" / XLIFF_FILE,
        "xliff2": work / "xliff2" / "in" / XLIFF2_FILE,
        "po": work / "po" / "in" / PO_FILE,
    }
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    write_xliff(units, files["xliff"])
    write_xliff2(units, files["xliff2"])
    write_po([(u["source"], u["target"], u["id"]) for u in units], files["po"], "zh_CN")

    def unit_id(ruling_id: str | None) -> str | None:
        """The unit id of a ruling read from a CAT file (``FILE#ID`` or ``FILE#ID/source``)."""
        if not ruling_id or "#" not in ruling_id:
            return None
        return ruling_id.split("#", 1)[1].removesuffix("/source").removesuffix("::s1")

    located = {"rulings/plain": (plain.located(), plain)}
    for form, path in files.items():
        print(f"rulings on the {form} form (warm-up, then measured)…", file=sys.stderr, flush=True)
        run_pipeline(path.parents[1], {})
        run = defaults(run_pipeline(path.parents[1], {}))
        found = [(line_of.get(unit_id(f.get("ruling_id"))), f) for f in run.findings]
        located[f"rulings/{form}"] = (found, run)
    results = {}
    for name, (found, run) in located.items():
        form_defects = defects + (code_defects if "xliff" in name else [])
        on_units = [(unit, f["code"], f["category"]) for unit, f in found]
        results[name] = score_form(on_units, form_defects, untouched, gold)
        results[name]["seconds"] = {k: round(v, 2) for k, v in run.times.items()}
    for form, path in files.items():
        if form == "xliff2":
            continue  # pofilter reads XLIFF 1.2 only
        out = path.parents[1] / f"pofilter{path.suffix}"
        seconds, failures = pofilter(path, out, POFILTER_SKIPPED)
        on_units = [(line_of.get(k), t, POFILTER_CATEGORIES.get(t, "other")) for k, t in failures]
        form_defects = defects + (code_defects if "xliff" in form else [])
        results[f"pofilter/{form}"] = score_form(on_units, form_defects, untouched, gold)
        results[f"pofilter/{form}"]["seconds"] = {"total": round(seconds, 2)}
    return {
        "seed": seed,
        "per_type": per_type,
        "units": len(units),
        "untouched_units": untouched,
        "defects": len(defects) + len(code_defects),
        "runs": results,
        "pofilter_skipped": list(POFILTER_SKIPPED),
        "pofilter_categories": POFILTER_CATEGORIES,
    }


# ------------------------------------------------------------------------------------------


def measure(seed: int = SEED, per_type: int = PER_TYPE) -> tuple[dict, dict]:
    """The results of ``inject_defects`` and of ``cat_formats``."""
    from pipelines.termbase import Termbase

    en_lines, zh_lines = read_lines(CR / CR_EN), read_lines(CR / CR_ZH)
    injection = inject(en_lines, zh_lines, Termbase.load(), seed, per_type)
    defects, gold = injection.defects, {d.line for d in injection.defects}
    variants = {
        "clean": (zh_lines, {n: n for n in range(1, len(zh_lines) + 1)}),
        "defective": (injection.lines, injection.original_line),
    }
    runs, every, pofilter_runs = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="inject-defects-") as work:
        work = Path(work)
        for name, (lines, mapping) in variants.items():
            (work / name / "in").mkdir(parents=True)
            shutil.copyfile(CR / CR_EN, work / name / "in" / CR_EN)
            (work / name / "in" / CR_ZH).write_text("\n".join(lines), encoding="utf-8")
            print(f"{name}: running the pipeline…", file=sys.stderr, flush=True)
            every[name] = run_pipeline(work / name, mapping)
            runs[name] = defaults(every[name])
        units = runs["clean"].zh_units()
        for name, run in runs.items():
            count = write_po(aligned_pairs(run), work / name / "pairs.po", "zh")
            seconds, failures = pofilter(
                work / name / "pairs.po", work / name / "out.po", POFILTER_EXCLUDED
            )
            scored = pofilter_scores(run, failures, defects if name == "defective" else [], units)
            info = {"units": count, "seconds": round(seconds, 2), "failures": len(failures)}
            pofilter_runs[name] = scored | info
        forms = cat_formats(
            en_lines, zh_lines, injection, runs["defective"], work / "cat", seed, per_type
        )
    clean, defective = runs["clean"], runs["defective"]
    po_kinds = pofilter_runs["defective"]["per_kind"].values()
    pofilter_runs["defective"]["caught"] = sum(v["caught"] for v in po_kinds)
    recall, detail = score_defects(defects, defective, clean)
    opt_in, _ = score_defects(defects, every["defective"], every["clean"])
    for kind, row in recall.items():
        row["caught_opt_in"] = opt_in[kind]["caught"]
        row["opt_in_codes"] = {
            code: n for code, n in opt_in[kind]["codes"].items() if code not in row["codes"]
        }
    families: dict[str, dict] = {}
    for row in recall.values():
        family = families.setdefault(row["family"], {"injected": 0, "caught": 0})
        family["injected"] += row["injected"]
        family["caught"] += row["caught"]
        family["recall"] = ratio(family["caught"], family["injected"])
    missed: dict[str, list[dict]] = {}
    for defect, item in zip(defects, detail, strict=True):
        if not item["caught"] and len(missed.setdefault(defect.kind, [])) < EXAMPLES // 2:
            missed[defect.kind].append(
                {"line": defect.line, "change": defect.change, "codes": item["codes"]}
            )
    caught = sum(item["caught"] for item in detail)
    caught_new = sum(item["caught_new"] for item in detail)
    results = {
        "seed": seed,
        "per_type": per_type,
        "candidates": len(candidates(en_lines, zh_lines)),
        "units": len(units),
        "injected": len(defects),
        "caught": caught,
        "caught_new": caught_new,
        "caught_any": sum(bool(item["codes"]) for item in detail),
        "recall": ratio(caught, len(defects)),
        "recall_new": ratio(caught_new, len(defects)),
        "families": families,
        "clean_run": {
            "times": clean.times,
            "alignment": alignment_summary(clean),
            "findings": len(clean.findings),
            "false_positives": false_positives(clean, set(), units, examples=False),
        },
        "defective_run": {
            "times": defective.times,
            "alignment": alignment_summary(defective),
            "findings": len(defective.findings),
            "recall": recall,
            "false_positives": false_positives(defective, gold, units, examples=True),
            "collateral": collateral(defective, clean, gold),
        },
        "opt_in": {
            "caught": sum(row["caught_opt_in"] for row in recall.values()),
            "false_positives": false_positives(every["defective"], gold, units, examples=False),
        },
        "pofilter": pofilter_runs,
        "pofilter_specific": specific_tests(pofilter_runs, defects),
        "missed_examples": missed,
        "gold": [
            excerpt({**asdict(d), "expected": list(d.expected), **item})
            for d, item in zip(defects, detail, strict=True)
        ],
    }
    return results, forms


RECALL_COLUMNS = ["injected", "caught", "caught_new", "flagged_any", "codes", "caught_opt_in"]
RECALL_COLUMNS += ["opt_in_codes"]
RECALL_COLUMNS += ["pofilter.caught", "pofilter.tests"]
CODE_COLUMNS = [f"{run}.{v}" for run in ("clean", "defective") for v in ("count", "per_100_units")]


def markdown(r: dict) -> str:
    d, c, po, spec = r["defective_run"], r["clean_run"], r["pofilter"], r["pofilter_specific"]
    fp_c, fp_d = c["false_positives"], d["false_positives"]
    recall = {k: {**v, "pofilter": po["defective"]["per_kind"][k]} for k, v in d["recall"].items()}
    pd, pc = po["defective"], po["clean"]
    versus = [
        ["rulings checks", r["caught"], fp_d["per_100_units"], fp_c["per_100_units"]],
        ["pofilter", pd["caught"], pd["per_100_units"], pc["per_100_units"]],
        ["pofilter, specific", spec["caught"], spec["untouched_per_100"], spec["clean_per_100"]],
    ]
    codes = {
        code: {"clean": fp_c["by_code"].get(code), "defective": fp_d["by_code"].get(code)}
        for code in sorted(fp_c["by_code"].keys() | fp_d["by_code"].keys())
    }
    examples = [
        f"**{code}** line {e['line']}: {e['message']} (zh: {e['target']})"
        for code, found in fp_d.get("examples", {}).items()
        for e in found
    ]
    missed = [
        f"{kind}, line {m['line']}: {m['change']}; codes {m['codes']}"
        for kind, items in r["missed_examples"].items()
        for m in items
    ]
    return page(
        "Defect injection on the Comprehensive Rules (en -> zh), and pofilter",
        f"`python benchmarks/inject_defects.py` (everything in `inject_defects.json`): seed "
        f"{r['seed']}, {r['per_type']} rules per kind, {r['injected']} defects in "
        f"{r['candidates']} numbered rules ({r['units']} Chinese units). *caught*: a finding of "
        "the expected category on the rule (a deleted rule: on its English rule); *caught_new*: "
        "one the unmodified text does not have; *caught_opt_in*: caught when the checks that "
        "are off by default are selected too (OMIT003, OMIT004…), *opt_in_codes* the codes "
        "only they add.",
        r["machine"],
        "## Recall per defect kind",
        (recall, RECALL_COLUMNS, "defect"),
        f"All: {r['caught']}/{r['injected']} ({pct(r['recall'])}); by family: "
        + "; ".join(f"{n} {v['caught']}/{v['injected']}" for n, v in r["families"].items())
        + (
            f". With the opt-in checks: {r['opt_in']['caught']}/{r['injected']}, and "
            f"{r['opt_in']['false_positives']['per_100_units']} findings per 100 untouched units."
            if "opt_in" in r
            else ""
        ),
        "## Findings on text the benchmark did not touch",
        f"Clean run: {fp_c['findings']} findings on {fp_c['untouched_units']} units, "
        f"**{fp_c['per_100_units']} per 100**. Defective run, untouched units: {fp_d['findings']}"
        f" on {fp_d['untouched_units']}, **{fp_d['per_100_units']} per 100**; "
        f"{d['collateral']['new_findings']} new against the clean run, "
        f"{d['collateral']['gone_findings']} gone.",
        (codes, CODE_COLUMNS, "code"),
        "## Alignment",
        ({"clean": c, "defective": d}, ["alignment.methods", "alignment.off_line_pairs"], ""),
        "## pofilter beside the check stage",
        f"{po['defective']['units']} pairs, `pofilter --language=zh`, all tests but "
        f"{', '.join(POFILTER_EXCLUDED)}; *specific* tests (< {SPECIFIC_MAX:g} failures per 100 "
        f"clean units): {', '.join(spec['tests'])}. Check stage {d['times']['check']:.1f} s, "
        f"pofilter {po['defective']['seconds']} s.",
        md_table(["", "defects caught", "untouched, per 100", "clean pair, per 100"], versus),
        "## Examples of frequent codes on untouched units (defective run)",
        examples,
        "## Missed defects",
        missed,
    )


def cat_markdown(r: dict) -> str:
    runs = r["runs"]

    def cell(name: str, kind: str) -> str:
        if (row := runs[name]["per_kind"].get(kind)) is None:
            return "–"
        extra = f" ({row['any']} any)" if name.startswith("pofilter") else ""
        return f"{row['caught']}/{row['injected']}{extra}"

    recall = {kind: {name: cell(name, kind) for name in runs} for kind in [*KINDS, CODE_KIND]}
    recall["all"] = {name: f"{run['caught']}/{run['injected']}" for name, run in runs.items()}
    noise = {
        name: run | {"top": dict(list(run["untouched_by_code"].items())[:6])}
        for name, run in runs.items()
    }
    mapping = ", ".join(f"{k} → {v}" for k, v in r["pofilter_categories"].items())
    return page(
        "The injection benchmark as plain files, XLIFF 1.2, XLIFF 2.0 and PO: rulings and pofilter",
        f"`python benchmarks/inject_defects.py` (all numbers in `cat_formats.json`): its defects "
        f"(seed {r['seed']}, {r['per_type']} per kind) in the Chinese Comprehensive Rules, "
        f"written as plain rules files, as one XLIFF 1.2 file (`xliff`), one XLIFF 2.0 file "
        f"(`xliff2`, a reviewed segment per unit) and one PO file of {r['units']} units (a unit "
        f"per line pair, the rule number as its id); the XLIFF forms also have "
        f"{r['per_type']} `drop-code` defects (a footnote code `<x/>`, in 2.0 `<ph/>`, of the "
        "source missing from the target). pofilter reads XLIFF 1.2 and PO only. A defect is "
        "caught when its unit gets a finding of the expected category; "
        f"for pofilter, a failure of a test that speaks to that category ({mapping}), with the "
        "count of defects that got any failure in brackets. pofilter runs all tests but "
        f"{', '.join(r['pofilter_skipped'])}; rulings runs with a warm embedding cache.",
        r["machine"],
        "## Recall per defect kind",
        (recall, list(runs), "defect"),
        f"## Noise and time ({r['untouched_units']} units no defect touched)",
        "Findings per 100 untouched units; seconds per stage (rulings: ingest, align, check; "
        "pofilter: the whole run); the most frequent codes (tests) on untouched units.",
        (noise, ["per_100_untouched", "seconds", "top"], "run"),
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"inject_defects": markdown, "cat_formats": cat_markdown})
    cli.add_argument("--seed", type=int, default=SEED)
    cli.add_argument("--per-type", type=int, default=PER_TYPE)
    args = cli.parse_args(argv)
    shared_or_exit()
    results, forms = measure(args.seed, args.per_type)
    record("inject_defects", results, markdown)
    record("cat_formats", forms, cat_markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
