"""The defect-injection benchmark in CAT form: the same defective Chinese Comprehensive Rules as
plain rules files, as XLIFF 1.2 and as PO, checked by rulings and by translate-toolkit's
pofilter on the same files.

    python benchmarks/cat_formats.py                 # 20 defects per kind, a few minutes
    python benchmarks/cat_formats.py --per-type 5    # a quick look

1. **Inject** with ``inject_defects.inject`` (same seed, same gold list), then write the pair
   three ways: ``plain`` (the English and the defective Chinese rules files, as
   ``inject_defects.py`` checks them); ``xliff`` (one trans-unit per line pair, the rule
   number as its id, a deleted rule an empty target); ``po`` (the same units, the id as
   msgctxt). The XLIFF form also gets ``drop-code`` defects: a unit whose source ends with
   an inline code (``<x id="fn1"/>``, a footnote mark) that its target lacks.
2. **Run** rulings (ingest, align, check, in this process, with a warm embedding cache) on
   each form, and pofilter (all tests but spellcheck and the workflow test isfuzzy) on the
   XLIFF and PO files.
3. **Score** per form: a defect is caught when its unit gets a finding (a failure) of the
   expected category; findings on the units no defect touched, per 100 such units.

Writes ``results/cat_formats.{json,md}``. Deterministic but for timings.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    CR,
    CR_EN,
    CR_ZH,
    machine,
    machine_line,
    md_table,
    read_lines,
    shared_or_exit,
    write_results,
)
from inject_defects import KINDS, PER_TYPE, POFILTER_EXCLUDED, SEED, inject, run_pipeline

RULE_LINE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.?\s+(.*)$")
XLIFF_FILE, PO_FILE = "MagicCompRules_20231013.xlf", "MagicCompRules_20231013.po"
CODE_KIND = "drop-code"
CODE_EXPECTED = ("placeholder",)
POFILTER_SKIPPED = (*POFILTER_EXCLUDED, "isfuzzy")
"""isfuzzy reports a workflow state (every XLIFF unit without approved="yes"), not the text."""
POFILTER_TEST = re.compile(r"^([a-z]+): ")
POFILTER_CATEGORIES = {
    "untranslated": "missing-translation",
    "unchanged": "untranslated",
    "xmltags": "placeholder",
    "printf": "placeholder",
    "pythonbraceformat": "placeholder",
    "numbers": "number",
    "endpunc": "truncation",
}
"""pofilter tests that speak to a defect category; a defect counts as caught by pofilter when
any test fails on its unit (as in inject_defects.py) and, more strictly, when one of these
fails."""


# --- the pair as units ---------------------------------------------------------------------


def units(en_lines: list[str], zh_lines: list[str], injection) -> list[dict]:
    """One unit per line that has text in both files: id (the rule number, else L<line>),
    original line, source and (defective) target without the rule number."""
    defective = {original: injection.lines[line - 1] for line, original in
                 injection.original_line.items()}  # fmt: skip
    seen: Counter[str] = Counter()
    found = []
    for number, (en, zh) in enumerate(zip(en_lines, zh_lines, strict=False), 1):
        if not en.strip() or not zh.strip():
            continue
        match = RULE_LINE.match(en.strip())
        key = match.group(1) if match else f"L{number}"
        seen[key] += 1
        key = key if seen[key] == 1 else f"L{number}"
        target = defective.get(number, "")
        if match:
            target_match = RULE_LINE.match(target.strip())
            target = target_match.group(2) if target_match else target
        found.append(
            {"id": key, "line": number, "source": match.group(2) if match else en.strip(),
             "target": target.strip()}
        )  # fmt: skip
    return found


def add_code_defects(rows: list[dict], gold: set[int], count: int, seed: int) -> list[dict]:
    """``count`` units outside the gold list whose source ends with a footnote code the
    target lacks (the XLIFF form only)."""
    rng = random.Random(seed + 1)
    pool = [row for row in rows if row["line"] not in gold and RULE_LINE.match(row["id"] + " x")]
    chosen = sorted(rng.sample(pool, min(count, len(pool))), key=lambda r: r["line"])
    for row in chosen:
        row["code"] = True
    return [{"line": row["line"], "kind": CODE_KIND} for row in chosen]


def write_xliff(rows: list[dict], path: Path) -> None:
    from lxml import etree

    ns = "urn:oasis:names:tc:xliff:document:1.2"
    root = etree.Element(f"{{{ns}}}xliff", nsmap={None: ns}, version="1.2")
    file = etree.SubElement(root, f"{{{ns}}}file", original="MagicCompRules_20231013.docx",
                            datatype="plaintext")  # fmt: skip
    file.set("source-language", "en-US")
    file.set("target-language", "zh-CN")
    body = etree.SubElement(file, f"{{{ns}}}body")
    for row in rows:
        unit = etree.SubElement(body, f"{{{ns}}}trans-unit", id=row["id"])
        source = etree.SubElement(unit, f"{{{ns}}}source")
        source.text = row["source"]
        if row.get("code"):
            etree.SubElement(source, f"{{{ns}}}x", id="fn1")
        if row["target"]:
            target = etree.SubElement(unit, f"{{{ns}}}target", state="translated")
            target.text = row["target"]
    etree.indent(root, space=" ")
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def write_po(rows: list[dict], path: Path) -> None:
    from translate.storage import po

    store = po.pofile()
    store.updateheader(add=True, Language="zh_CN", Content_Type="text/plain; charset=UTF-8")
    for row in rows:
        unit = store.UnitClass(row["source"])
        unit.target = row["target"]
        unit.setcontext(row["id"])
        store.addunit(unit)
    path.write_bytes(bytes(store))


# --- runs ----------------------------------------------------------------------------------


def rulings_run(form: str, folder: Path, rows: list[dict], injection) -> dict:
    """The pipeline on one form: stage times, and each finding located at its original line."""
    mapping = injection.original_line if form == "plain" else {}
    run = run_pipeline(folder, mapping)
    line_of = {row["id"]: row["line"] for row in rows}

    def unit_of(ruling_id: str | None) -> int | None:
        if form == "plain":
            return run.unit_of(ruling_id)
        if not ruling_id or "#" not in ruling_id:
            return None
        key = ruling_id.split("#", 1)[1].removesuffix("/source")
        return line_of.get(key)

    located = [(unit_of(f.get("ruling_id")), f["code"], f["category"]) for f in run.findings]
    return {"times": {k: round(v, 2) for k, v in run.times.items()}, "located": located}


def pofilter_run(path: Path, out: Path, rows: list[dict]) -> dict:
    """pofilter on a file: wall time and (original line, test) of every failure."""
    from translate.storage import factory

    local = Path(sys.executable).parent / "pofilter"
    command = [str(local) if local.exists() else shutil.which("pofilter"), "--language=zh"]
    command += ["--progress=none", "--errorlevel=none", "-i", str(path), "-o", str(out)]
    command += [f"--excludefilter={name}" for name in POFILTER_SKIPPED]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    line_of = {row["id"]: row["line"] for row in rows}
    located = []
    for unit in factory.getobject(str(out)).units:
        if unit.isheader():
            continue
        key = unit.getcontext() if path.suffix == ".po" else unit.getid().split("\x04")[-1]
        notes = unit.getnotes("pofilter" if path.suffix != ".po" else "translator")
        for line in notes.splitlines():
            found = POFILTER_TEST.match(line.removeprefix("(pofilter) "))
            if found:
                located.append((line_of.get(key), found.group(1)))
    return {"seconds": round(seconds, 2), "located": located}


# --- scoring -------------------------------------------------------------------------------


def score(located: list[tuple], defects: list[dict], untouched: int, gold: set[int]) -> dict:
    """Recall per kind (a finding of an expected category on the defect's unit; for pofilter,
    any failure, and a failure of a test mapped to the category) and findings on untouched
    units per 100."""
    on_unit: dict[int | None, list[tuple[str, str]]] = defaultdict(list)
    for unit, code, category in located:
        on_unit[unit].append((code, category))
    per_kind = {}
    for kind in [*KINDS, CODE_KIND]:
        members = [d for d in defects if d["kind"] == kind]
        if not members:
            continue
        expected = CODE_EXPECTED if kind == CODE_KIND else KINDS[kind][1]
        caught = sum(any(cat in expected for _, cat in on_unit[d["line"]]) for d in members)
        flagged = sum(bool(on_unit[d["line"]]) for d in members)
        codes = Counter(code for d in members for code, _ in on_unit[d["line"]])
        per_kind[kind] = {"injected": len(members), "caught": caught, "any": flagged,
                          "codes": dict(codes.most_common(6))}  # fmt: skip
    noise = [code for unit, code, _ in located if unit not in gold]
    return {
        "per_kind": per_kind,
        "caught": sum(v["caught"] for v in per_kind.values()),
        "any": sum(v["any"] for v in per_kind.values()),
        "injected": sum(v["injected"] for v in per_kind.values()),
        "untouched_findings": len(noise),
        "per_100_untouched": round(100 * len(noise) / untouched, 2) if untouched else None,
        "untouched_by_code": dict(Counter(noise).most_common()),
    }


def measure(seed: int, per_type: int, keep: Path | None) -> dict:
    from pipelines.termbase import Termbase

    en_lines, zh_lines = read_lines(CR / CR_EN), read_lines(CR / CR_ZH)
    injection = inject(en_lines, zh_lines, Termbase.load(), seed, per_type)
    rows = units(en_lines, zh_lines, injection)
    defects = [{"line": d.line, "kind": d.kind} for d in injection.defects]
    code_defects = add_code_defects(rows, {d["line"] for d in defects}, per_type, seed)
    gold = {d["line"] for d in defects + code_defects}
    untouched = len({row["line"] for row in rows} - gold)
    work = keep or Path(tempfile.mkdtemp(prefix="cat-formats-"))
    results: dict[str, dict] = {}
    try:
        folders = {name: work / name for name in ("plain", "xliff", "po")}
        for folder in folders.values():
            (folder / "in").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CR / CR_EN, folders["plain"] / "in" / CR_EN)
        (folders["plain"] / "in" / CR_ZH).write_text("\n".join(injection.lines), encoding="utf-8")
        write_xliff(rows, folders["xliff"] / "in" / XLIFF_FILE)
        plain_rows = [{**row, "code": False} for row in rows]
        write_po(plain_rows, folders["po"] / "in" / PO_FILE)
        for form, folder in folders.items():
            print(f"warming the embedding cache with the {form} form…", file=sys.stderr)
            rulings_run(form, folder, rows, injection)
        for form, folder in folders.items():
            print(f"rulings on the {form} form…", file=sys.stderr, flush=True)
            run = rulings_run(form, folder, rows, injection)
            scored = score(run["located"], defects + (code_defects if form == "xliff" else []),
                           untouched, gold)  # fmt: skip
            results[f"rulings/{form}"] = {**scored, "seconds": run["times"]}
        for form, name in (("xliff", XLIFF_FILE), ("po", PO_FILE)):
            print(f"pofilter on the {form} form…", file=sys.stderr, flush=True)
            source = folders[form] / "in" / name
            run = pofilter_run(source, folders[form] / f"pofilter{source.suffix}", rows)
            located = [(unit, test, POFILTER_CATEGORIES.get(test, "other"))
                       for unit, test in run["located"]]  # fmt: skip
            scored = score(located, defects + (code_defects if form == "xliff" else []),
                           untouched, gold)  # fmt: skip
            results[f"pofilter/{form}"] = {**scored, "seconds": {"total": run["seconds"]}}
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return {
        "seed": seed,
        "per_type": per_type,
        "units": len(rows),
        "untouched_units": untouched,
        "defects": len(defects) + len(code_defects),
        "runs": results,
        "pofilter_skipped": list(POFILTER_SKIPPED),
        "pofilter_categories": POFILTER_CATEGORIES,
    }


def markdown(r: dict) -> str:
    runs = r["runs"]
    names = list(runs)
    kinds = [*KINDS, CODE_KIND]

    def cell(run: dict, kind: str) -> str:
        row = run["per_kind"].get(kind)
        if row is None:
            return "–"
        if run is runs.get("pofilter/xliff") or run is runs.get("pofilter/po"):
            return f"{row['caught']}/{row['injected']} ({row['any']} any)"
        return f"{row['caught']}/{row['injected']}"

    rows = [[kind, *(cell(runs[name], kind) for name in names)] for kind in kinds]
    rows.append(["all", *(f"{runs[n]['caught']}/{runs[n]['injected']}" for n in names)])
    noise = [["findings per 100 untouched units", *(runs[n]["per_100_untouched"] for n in names)]]
    times = [
        [
            "seconds (rulings: ingest + align + check; pofilter: whole run)",
            *(round(sum(runs[n]["seconds"].values()), 1) for n in names),
        ],
        ["seconds, check stage only", *(runs[n]["seconds"].get("check", "–") for n in names)],
    ]
    top = [
        [n, ", ".join(f"{c} {k}" for c, k in list(runs[n]["untouched_by_code"].items())[:6])]
        for n in names
    ]
    return "\n".join(
        [
            "# The injection benchmark as plain files, XLIFF and PO: rulings and pofilter",
            "",
            f"`python benchmarks/cat_formats.py` (all numbers in `cat_formats.json`): the "
            f"defects of `inject_defects.py` (seed {r['seed']}, {r['per_type']} per kind) in "
            f"the Chinese Comprehensive Rules, written as plain rules files, as one XLIFF 1.2 "
            f"file and as one PO file of {r['units']} units (a unit per line pair, the rule "
            f"number as its id); the XLIFF form also has {r['per_type']} `drop-code` defects "
            "(a footnote code `<x/>` of the source missing from the target). A defect is "
            "caught when its unit gets a finding of the expected category; for pofilter, a "
            "failure of a test that speaks to that category "
            f"({', '.join(f'{k} → {v}' for k, v in r['pofilter_categories'].items())}), with "
            "the count of defects that got any failure in brackets. pofilter runs all tests "
            f"but {', '.join(r['pofilter_skipped'])}; rulings runs with a warm embedding cache.",
            "",
            machine_line(r["machine"]),
            "",
            "## Recall per defect kind",
            "",
            md_table(["defect", *names], rows),
            "## Noise and time",
            "",
            f"{r['untouched_units']} units no defect touched.",
            "",
            md_table(["", *names], noise + times),
            "Most frequent codes (tests) on untouched units:",
            "",
            md_table(["run", "codes"], top),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--per-type", type=int, default=PER_TYPE)
    parser.add_argument("--keep", type=Path, help="work folder to keep (default: a temp dir)")
    args = parser.parse_args(argv)
    shared_or_exit()
    results = {**measure(args.seed, args.per_type, args.keep), "machine": machine()}
    paths = write_results("cat_formats", results, markdown(results))
    print(f"wrote {paths[0]} and {paths[1].name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
