"""Release updates: a translation of one release of the rules read against the next.

    python benchmarks/releases.py                 # work folder /tmp/releases

Inputs: the 2022-06-10 Chinese Comprehensive Rules with (A) the 2022-06-10 and 2023-10-13
English, and (B) the 2023-10-13 English alone; and (C) the 2023-10-13 pair, a single
release, which must get no release finding.

Gold, made independently of the tool's release matcher: the two English releases' units
(as ``rulings ingest`` reads them) compared as two sequences of texts with ``difflib``
(``equal`` runs are unchanged units, renumbered when their rule number differs; inside a
``replace`` run a unit and one of the same kind sharing at least ``GOLD_WORDS`` of its words
are one unit reworded); then units left over whose text is found elsewhere (moved) or
that share ``GOLD_MOVED_WORDS`` of their words with a unit left over on the other side
(moved and reworded). Everything else is removed (older only) or new (current only).

Measured (only on units the Chinese translates, as paired by the tool): reworded units
reported OUT001, removed ones OUT003, renumbered ones reported neither OUT003 nor missing,
unchanged ones falsely reported OUT001 (per 1,000); new units reported MISS001. In (B):
date findings per document and new units reported missing. Results go to
``benchmarks/results/releases.{json,md}``; disagreements between gold and tool are listed
there for review. When ../shared is absent it says so and exits 0.
"""

from __future__ import annotations

import difflib
import re
import shutil
from collections import Counter
from pathlib import Path

from common import (
    CR,
    ROOT,
    md_table,
    page,
    parser,
    percent,
    read_jsonl,
    record,
    run_rulings,
    shared_or_exit,
)

OLDER, CURRENT = "MagicCompRules_20220610", "MagicCompRules_20231013"
GOLD_WORDS = 0.5
GOLD_MOVED_WORDS = 0.7
WORDS = re.compile(r"\w+")
EXAMPLES = 12
JUDGED = ROOT / "benchmarks" / "judgements" / "releases.jsonl"


def normal(text: str) -> str:
    return " ".join(text.replace("’", "'").replace("“", '"').replace("”", '"').split()).casefold()


def share(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, WORDS.findall(a), WORDS.findall(b), False).ratio()


def gold(older: list[dict], current: list[dict]) -> dict:
    """old id -> (state, current id); new current ids. States: unchanged, reworded, removed."""
    a = [(u["kind"], normal(u["text"])) for u in older]
    b = [(u["kind"], normal(u["text"])) for u in current]
    pairs: dict[int, int] = {}
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, False).get_opcodes():
        if op == "equal":
            pairs.update({i1 + k: j1 + k for k in range(i2 - i1)})
        elif op == "replace":
            last = j1 - 1
            for i in range(i1, i2):
                scored = [
                    (share(a[i][1], b[j][1]), j) for j in range(last + 1, j2) if b[j][0] == a[i][0]
                ]
                best = max(scored, default=(0, None))
                if best[0] >= GOLD_WORDS:
                    pairs[i] = last = best[1]
    left_new = {j for j in range(len(b)) if j not in set(pairs.values())}
    for i in range(len(a)):
        if i in pairs:
            continue
        same = [j for j in sorted(left_new) if b[j] == a[i]]
        if same:
            pairs[i] = same[0]
            left_new.discard(same[0])
    for i in range(len(a)):
        if i in pairs:
            continue
        scored = [(share(a[i][1], b[j][1]), j) for j in sorted(left_new) if b[j][0] == a[i][0]]
        best = max(scored, default=(0, None))
        if best[0] >= GOLD_MOVED_WORDS:
            pairs[i] = best[1]
            left_new.discard(best[1])
    states = {}
    for i, unit in enumerate(older):
        if i not in pairs:
            states[unit["id"]] = ("removed", None)
            continue
        other = current[pairs[i]]
        state = "unchanged" if a[i] == b[pairs[i]] else "reworded"
        states[unit["id"]] = (state, other["id"], unit["section"] != other["section"])
    return {"old": states, "new": [current[j]["id"] for j in sorted(left_new)]}


def adjudicated(truth: dict, current: list[dict]) -> dict:
    """The gold with a judge's verdicts applied (``benchmarks/judgements/releases.jsonl``:
    pairs where gold and tool disagreed; "same" makes the old unit a rewording of the
    current one, "different" undoes the pairing)."""
    states = dict(truth["old"])
    texts = {unit["id"]: unit for unit in current}
    for verdict in read_jsonl(JUDGED):
        old_id, current_id = verdict["old_id"], verdict["current_id"]
        if verdict["verdict"] == "same":
            renumbered = verdict["old_section"] != texts[current_id]["section"]
            states[old_id] = ("reworded", current_id, renumbered)
        elif verdict["verdict"] == "different" and states.get(old_id, ("",))[1:2] == (current_id,):
            states[old_id] = ("removed", None)
    taken = {state[1] for state in states.values() if state[1]}
    return {"old": states, "new": [unit["id"] for unit in current if unit["id"] not in taken]}


def measure(work: Path) -> dict:
    runs = {}
    for name, files in {
        "A": [f"{OLDER}_en.txt", f"{CURRENT}_en.txt", f"{OLDER}_zh.txt"],
        "B": [f"{CURRENT}_en.txt", f"{OLDER}_zh.txt"],
        "C": [f"{CURRENT}_en.txt", f"{CURRENT}_zh.txt"],
    }.items():
        folder = work / "inputs" / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for file in files:
            shutil.copy(CR / file, folder / file)
        runs[name] = run_rulings([folder], work / "runs" / name)
    corpus = read_jsonl(work / "runs" / "A" / "corpus.jsonl")
    units = {doc: [u for u in corpus if u["doc"] == f"{doc}_en.txt"] for doc in (OLDER, CURRENT)}
    truth = gold(units[OLDER], units[CURRENT])
    data = {"runs": runs, "gold": Counter(s[0] for s in truth["old"].values())}
    data["gold"]["new"] = len(truth["new"])
    data["gold"]["renumbered"] = sum(1 for s in truth["old"].values() if len(s) > 2 and s[2])
    data["with_both"] = score_both(work / "runs" / "A", truth)
    data["current_only"] = score_current_only(work / "runs" / "B", truth)
    judged = adjudicated(truth, units[CURRENT])
    data["probable_updates"] = probable_updates(work / "runs", judged)
    data["adjudicated"] = {
        "with_both": score_both(work / "runs" / "A", judged),
        "current_only": score_current_only(work / "runs" / "B", judged),
        "judgements": len(read_jsonl(JUDGED)),
    }
    single = read_jsonl(work / "runs" / "C" / "findings.jsonl")
    data["single_release"] = {
        "findings": len(single),
        "release_findings": sum(f["code"].startswith("OUT") for f in single),
        "date_findings": sum(f["code"].startswith("DATE") for f in single),
    }
    return data


def score_both(run: Path, truth: dict) -> dict:
    findings = read_jsonl(run / "findings.jsonl")
    alignment = read_jsonl(run / "alignment.jsonl")
    translated = {
        r["source_id"]: r["target_id"] for r in alignment if r["source_id"] and r["target_id"]
    }
    by_unit = {(f["code"], f["ruling_id"]) for f in findings}
    missing = {f["ruling_id"] for f in findings if f["code"] == "MISS001"}
    counts: Counter = Counter()
    examples: dict[str, list] = {}

    def tally(key: str, hit: bool, unit: str) -> None:
        counts[f"{key}_total"] += 1
        counts[f"{key}_hit"] += hit
        if not hit and len(examples.setdefault(key, [])) < EXAMPLES:
            examples[key].append(unit)

    for old_id, state in sorted(truth["old"].items()):
        target = translated.get(old_id)
        if not target:
            continue
        if state[0] == "reworded":
            tally("reworded_reported", ("OUT001", target) in by_unit, old_id)
        if state[0] == "removed":
            tally("removed_reported", ("OUT003", target) in by_unit, old_id)
        if state[0] != "removed" and state[2]:
            wrong = ("OUT003", target) in by_unit or state[1] in missing
            tally("renumbered_kept", not wrong, old_id)
        if state[0] == "unchanged":
            tally("unchanged_not_outdated", ("OUT001", target) not in by_unit, old_id)
    for new_id in truth["new"]:
        tally("new_missing", new_id in missing, new_id)
    outdated = {f["ruling_id"] for f in findings if f["code"] == "OUT001"}
    gold_reworded = {translated.get(k) for k, s in truth["old"].items() if s[0] == "reworded"}
    counts["outdated_not_in_gold"] = len(outdated - gold_reworded)
    examples["outdated_not_in_gold"] = sorted(outdated - gold_reworded)[:EXAMPLES]
    return {
        "counts": dict(counts),
        "examples": examples,
        "codes": dict(Counter(f["code"] for f in findings)),
    }


def probable_updates(runs: Path, truth: dict) -> dict:
    """OUT004 in (B) against the judged gold: how many sit on a unit whose English (the
    older English the translation follows, by run A's pairs) changed."""
    pairs = read_jsonl(runs / "A" / "alignment.jsonl")
    english_of = {
        r["target_id"]: r["source_id"] for r in pairs if r["target_id"] and r["source_id"]
    }
    reworded = {k for k, state in truth["old"].items() if state[0] == "reworded"}
    flagged = {
        f["ruling_id"] for f in read_jsonl(runs / "B" / "findings.jsonl") if f["code"] == "OUT004"
    }
    changed = {unit for unit, english in english_of.items() if english in reworded}
    return {
        "flagged": len(flagged),
        "on_changed_english": len(flagged & changed),
        "changed": len(changed),
    }


def score_current_only(run: Path, truth: dict) -> dict:
    findings = read_jsonl(run / "findings.jsonl")
    missing = {f["ruling_id"] for f in findings if f["code"] == "MISS001"}
    dated = Counter(f["file"] for f in findings if f["code"].startswith("DATE"))
    kept = {state[1] for state in truth["old"].values() if state[0] != "removed"}
    return {
        "new_total": len(truth["new"]),
        "new_missing": sum(new_id in missing for new_id in truth["new"]),
        "kept_total": len(kept),
        "kept_missing": len(kept & missing),
        "date_findings_per_document": max(dated.values(), default=0),
        "probable_updates": sum(f["code"] == "OUT004" for f in findings),
        "summaries": [f["message"] for f in findings if f["code"] == "OUT002"],
        "codes": dict(Counter(f["code"] for f in findings)),
    }


def markdown(data: dict) -> str:
    judged = data["adjudicated"]
    return page(
        "Release updates",
        "Produced by `python benchmarks/releases.py` (every number in `releases.json`; the gold "
        "and the inputs are described in the script's docstring).",
        data["machine"],
        f"Gold: {dict(data['gold'])}",
        "## Against the gold as judged",
        "A judge (a helper session acting as a rules editor, told nothing of who proposed what) "
        f"decided the {judged['judgements']} pairs where gold and tool disagreed "
        "(`benchmarks/judgements/releases.jsonl`); these numbers use the gold with those "
        "verdicts.",
        table(judged["with_both"], judged["current_only"], data),
        "(B) OUT004 on units whose English changed: {on_changed_english} of {flagged} (of the "
        "{changed} translated units whose English changed).".format(**data["probable_updates"]),
        "## Against the raw gold",
        table(data["with_both"], data["current_only"], data),
    )


def table(with_both: dict, current_only: dict, data: dict) -> str:
    both, only = with_both["counts"], current_only

    def rate(key: str) -> str:
        return percent(both.get(f"{key}_hit", 0), both.get(f"{key}_total", 0))

    unchanged = both.get("unchanged_not_outdated_total", 0)
    false_outdated = unchanged - both.get("unchanged_not_outdated_hit", 0)
    rows = [
        ["reworded rules reported outdated (OUT001)", rate("reworded_reported"), "≥ 97 %"],
        ["new rules reported missing (MISS001)", rate("new_missing"), "≥ 98 %"],
        ["removed rules reported (OUT003)", rate("removed_reported"), "≥ 95 %"],
        ["renumbered rules neither removed nor missing", rate("renumbered_kept"), "100 %"],
        ["unchanged rules falsely outdated", f"{false_outdated} of {unchanged}", "≤ 1 / 1,000"],
        ["outdated findings on units the gold calls unchanged or removed",
         both.get("outdated_not_in_gold", 0), "–"],
        ["(B) new rules reported missing", percent(only["new_missing"], only["new_total"]),
         "≥ 95 %"],
        ["(B) kept rules falsely reported missing",
         f"{only['kept_missing']} of {only['kept_total']}", "–"],
        ["(B) date findings per document (most)", only["date_findings_per_document"], "≤ 1"],
        ["(B) probable updates (OUT004)", only["probable_updates"], "–"],
        ["(C) release findings on a single release",
         data["single_release"]["release_findings"], "0"],
    ]  # fmt: skip
    examples = "\n".join(f"- {k}: {', '.join(v)}" for k, v in with_both["examples"].items() if v)
    return (
        md_table(["measure", "result", "target"], rows)
        + "\n(B) summary: "
        + " ".join(only["summaries"])
        + "\n\nUnits where tool and gold disagree (first few; for review):\n\n"
        + examples
    )


def main(argv: list[str] | None = None) -> int:
    cli = parser(__doc__, {"releases": markdown})
    cli.add_argument("--work", type=Path, default=Path("/tmp/releases"))
    args = cli.parse_args(argv)
    shared_or_exit()
    record("releases", measure(args.work), markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
