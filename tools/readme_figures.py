"""Write the README's table of headline figures from the recorded benchmark results.

Usage (from the repository root):
    python tools/readme_figures.py            # rewrite the table in README.md
    python tools/readme_figures.py --check    # exit 1 when the README's table is stale

The table sits between ``<!-- figures -->`` and ``<!-- /figures -->``. Each row is one figure
read from ``benchmarks/results/*.json`` with the date and machine it was measured on, so the
README never carries a number that no recorded result backs; benchmarks/results keeps the
whole record.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
README = ROOT / "README.md"
START, END = "<!-- figures -->", "<!-- /figures -->"


def _load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text("utf-8")) if path.exists() else None


def _latest(name: str) -> dict | None:
    """The latest round of judged evaluation verdicts of a run (``precision_eval-rN-NAME``)."""
    rounds = sorted(
        RESULTS.glob(f"precision_eval-r*-{name}.json"),
        key=lambda path: int(path.name.split("-r", 1)[1].split("-", 1)[0]),
    )
    return (
        json.loads(rounds[-1].read_text("utf-8")) | {"record": rounds[-1].name} if rounds else None
    )


def _when(result: dict) -> str:
    machine = result.get("machine", {})
    date = str(machine.get("date", ""))[:10]
    return f"{date}, {machine.get('cpus', '?')} CPUs"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def rows() -> list[tuple[str, str, str, str]]:
    """(what, figure, measured, record) per headline figure that has a recorded result."""
    found = []
    judged = {
        name: _latest(name)
        for name in ("es-documents", "es-card-names", "zh-documents", "zh-card-names", "cr2022")
    }
    if all(judged.values()):
        cards = ", ".join(
            f"{name} {_pct(judged[name]['overall']['precision'])}"
            for name in ("es-documents", "es-card-names", "zh-documents", "zh-card-names")
        )
        found.append(
            (
                "judged true, fresh samples on sets never tuned on (cards, 62 each)",
                cards,
                _when(judged["es-documents"]),
                judged["es-documents"]["record"].replace(".json", ".md"),
            )
        )
        if together := _latest("new-sets"):
            overall = together["overall"]
            found.append(
                (
                    "judged true, the latest fresh sample of the four card runs together (62)",
                    f"{overall['true']}/{overall['judged']} ({_pct(overall['precision'])}), "
                    f"{overall['false']} false",
                    _when(together),
                    together["record"].replace(".json", ".md"),
                )
            )
        rules = judged["cr2022"]["overall"]
        found.append(
            (
                "judged true, the latest judged sample of the 2022 Chinese rules (never tuned on)",
                f"{rules['true']}/{rules['judged']} ({_pct(rules['precision'])}), "
                f"{rules['false']} false",
                _when(judged["cr2022"]),
                judged["cr2022"]["record"].replace(".json", ".md"),
            )
        )
    if new_sets := _load("new_sets"):
        per_100 = ", ".join(
            f"{name} {run['per_100_units']}" for name, run in sorted(new_sets["runs"].items())
        )
        found.append(
            ("findings per 100 translated units, new sets", per_100, _when(new_sets), "new_sets.md")
        )
    if injected := _load("inject_defects"):
        opt_in = injected.get("opt_in", {}).get("caught")
        figure = f"{injected['caught']}/{injected['injected']} caught"
        if opt_in is not None:
            figure += f" ({opt_in} with the opt-in checks)"
        per_100 = injected["defective_run"]["false_positives"]["per_100_units"]
        found.append(
            (
                "defects injected into the Chinese rules",
                f"{figure}; {per_100} findings per 100 untouched rules",
                _when(injected),
                "inject_defects.md",
            )
        )
    if cards := _load("inject_cards"):
        recalls = [
            kind["recall"]
            for lang in cards["languages"].values()
            for kind in lang["recall"].values()
        ]
        figure = f"every kind {_pct(min(recalls))} or more"
        if meaning := _load("inject_cards-meaning"):
            pasted = [
                lang["recall"]["swap-other-card"]["recall"]
                for lang in meaning["languages"].values()
            ]
            figure += (
                f" (a line pasted from another card: {_pct(min(pasted))} or more with "
                "MEAN003, which is off by default)"
            )
        found.append(
            (
                "defects injected into card documents of new sets (es, zh)",
                figure,
                _when(cards),
                "inject_cards.md",
            )
        )
    if speed := _load("benchmarks"):
        cr = speed["corpora"].get("cr", {})
        cold = cr.get("scenarios", {}).get("cold", {}) if isinstance(cr, dict) else {}
        if cold.get("process_wall_seconds"):
            found.append(
                (
                    "the Comprehensive Rules pair (8,298 units), cold run",
                    f"{cold['process_wall_seconds']:.0f} s wall",
                    _when(speed),
                    "benchmarks.md",
                )
            )
        edit = speed["corpora"].get("generated", {}).get("cli_edit", {})
        if edit.get("edit") and edit.get("cold"):
            found.append(
                (
                    "100,000 generated units, one document edited, against a cold run",
                    f"{edit['edit']:.1f} s against {edit['cold']:.1f} s "
                    f"({_pct(edit['edit'] / edit['cold'])})",
                    _when(speed),
                    "benchmarks.md",
                )
            )
    return found


def table() -> str:
    lines = ["| what | figure | measured | record |", "| --- | --- | --- | --- |"]
    for what, figure, when, record in rows():
        link = f"[{record}](benchmarks/results/{record})"
        lines.append(f"| {what} | {figure} | {when} | {link} |")
    return "\n".join(lines)


def rewritten(text: str) -> str:
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.DOTALL)
    return pattern.sub(f"{START}\n{table()}\n{END}", text)


def main(argv: list[str]) -> int:
    text = README.read_text("utf-8")
    new = rewritten(text)
    if "--check" in argv:
        return 0 if new == text else 1
    README.write_text(new, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
