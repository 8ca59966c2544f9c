"""Write the checks reference from the finding catalogue: docs/checks.md (the index: every code
with its category, severity, stage, ITS/MQM type and summary) and one page per code,
docs/checks/CODE.md (what it reports and why it matters, its bad and good example and what
it reports on the bad one, its ITS 2.0 and MQM types, its measured precision, whether it is
on by default and how to turn it on or off).

Every text comes from where the code's behaviour is defined: the catalogue
(``pipelines/catalogue.py``) and the checks' docstrings (the explanation ``rulings rules``
prints), the examples (``pipelines/resources/check_examples.toml``), the ITS/MQM table
(``resources/its_mqm.tsv``), the judged precision (``resources/confidence.tsv``) and, for the
codes the ingest stage emits, the pinned snapshot of their test fixture
(``tests/snapshots/codes/CODE.txt``).

Usage (from the repository root): python tools/generate_checks_doc.py
tests/test_docs.py fails when a page is out of date, missing or left over.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pipelines.cards import CardIndex
from pipelines.catalogue import CHECK, TABLE, Code, quality
from pipelines.check.examples import examples, findings_of
from pipelines.check.registry import explanations
from pipelines.model import CATEGORIES
from pipelines.resources import read_tsv
from pipelines.termbase import Termbase

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "docs" / "checks.md"
PAGES = ROOT / "docs" / "checks"
SNAPSHOTS = ROOT / "tests" / "snapshots" / "codes"

WHY = {
    "terminology": "Game terms are rules: a player who reads the wrong term (an *activated* "
    "ability where the English says *triggered*) plays the card wrong.",
    "untranslated": "Text left in English is text the reader of the translation cannot read.",
    "mixed-language": "A sentence half in English is half unreadable to the translation's "
    "reader, and usually marks a translation that was never finished.",
    "placeholder": "Symbols, quotes and inline codes carry rules text ({X}, {T}) or the "
    "markup a tool needs to put the text back: a dropped one changes the rule or breaks the "
    "file.",
    "number": "A changed number (two counters for three) changes what the card does.",
    "card-name": "Players look cards up by their printed name in their language: a name left "
    "in English or not the official one points to no card.",
    "truncation": "A ruling cut off by a tool's length limit has lost its end, often the part "
    "that decides the ruling.",
    "date": "A ruling's date says which version of the rules it follows: a wrong or "
    "unreadable date makes a current ruling look outdated, or an old one current.",
    "missing-translation": "A ruling the English has and the translation lacks is a ruling "
    "the translation's readers never see.",
    "extra-translation": "A unit with no English source is either a mistake or something the "
    "source dropped: either way the two no longer say the same.",
    "inconsistent-translation": "The same English said several ways across cards or "
    "documents makes readers wonder whether the rules differ.",
    "meaning": "A translation far from its source in meaning may say another rule.",
    "outdated": "A translation of an older English text tells its readers a rule that has changed.",
    "style": "Consistent punctuation, capitals and register are what make a translation read "
    "as one text; they rarely change a rule.",
    "parse": "Input that could not be read as written is input that was not checked: nothing "
    "is lost, but a finding says what was not read.",
}
"""Why each category of finding matters (a code's page says its category's)."""


def _judged() -> dict[str, dict[str, str]]:
    return {row["code"]: row for row in read_tsv("confidence.tsv")}


def _unit_lines(item: dict) -> list[str]:
    lang = item.get("lang", "es")
    where = ", ".join(
        f"{key} {item[key]}"
        for key in ("card", "section", "doc", "date", "version", "method", "similarity")
        if key in item
    )
    lines = []
    if "source" in item:
        lines.append(f"    en: {item['source']}")
    if "target" in item:
        lines.append(f"    {lang}: {item['target']}")
    if where:
        lines.append(f"        ({where})")
    return lines


def _snapshot_reports(code: str) -> list[str]:
    """``file:line: message`` of each finding pinned in the code's snapshot."""
    path = SNAPSHOTS / f"{code}.txt"
    if not path.exists():
        return []
    found, where = [], ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"{code} "):
            where = line.split()[2].replace(":None", "").replace("None", "(the run)")
        elif line.startswith("message: "):
            found.append(f"{where}: {line.removeprefix('message: ')}")
    return found


def _precision(row: Code, judged: dict[str, dict[str, str]]) -> list[str]:
    lines = []
    if row.note:
        lines += [f"Measured: {row.note}", ""]
    entry = judged.get(row.code)
    if entry is not None:
        lines.append(
            f"Judged on {entry['judged']} finding{'s' if entry['judged'] != '1' else ''} of "
            f"the tuning data: {entry['true']} true, {entry['debatable']} debatable, "
            f"{entry['false']} false. A finding's confidence starts from {entry['prior']} "
            "(`resources/confidence.tsv`)."
        )
        for name, kind in sorted(judged.items()):
            if name.startswith(f"{row.code}/"):
                lines.append(
                    f"Its findings of the class `{name.split('/', 1)[1]}` (evidence `_class`): "
                    f"{kind['judged']} judged, {kind['true']} true, {kind['debatable']} "
                    f"debatable, {kind['false']} false; their confidence starts from "
                    f"{kind['prior']}."
                )
    else:
        lines.append(
            "Not judged yet on its own: a finding's confidence starts from the overall "
            f"precision of the judged findings, {judged['*']['prior']} "
            "(`resources/confidence.tsv`)."
        )
    return lines


def render_page(row: Code, text: str, judged, termbase: Termbase, cards: CardIndex) -> str:
    its_type, mqm = quality(row.code, str(row.category))
    state = (
        "on by default"
        if row.default
        else f"off by default: it runs only when `--select {row.code}` names it"
    )
    lines = [
        f"# {row.code}: {row.summary.rstrip('.')}",
        "",
        f"*{row.category}*, default severity **{row.severity}**, emitted by the {row.stage} "
        f"stage; {state}. [All codes](../checks.md).",
        "",
        "## What it reports",
        "",
        text,
        "",
        "## Why it matters",
        "",
        WHY[str(row.category)],
        "",
        "## Example",
        "",
    ]
    example = examples().get(row.code)
    if example is not None:
        if example.note:
            lines += [example.note, ""]
        lines += ["Reported:", "", "```"]
        for item in example.bad:
            lines += _unit_lines(item)
        lines += ["```", "", "Not reported:", "", "```"]
        for item in example.good:
            lines += _unit_lines(item)
        lines += ["```", "", "What it reports on the first:", "", "```"]
        found = findings_of(row.code, example.bad, termbase, cards)
        lines += [f"{f.file}:{f.line}: {f.message}" for f in found]
        lines += ["```"]
    else:
        lines += [
            "Its fixture (`tests/code_fixtures.py`) writes an input it reports and the same "
            "input put right, which it does not. What it reports on the first:",
            "",
            "```",
            *_snapshot_reports(row.code),
            "```",
        ]
    lines += [
        "",
        "## Types",
        "",
        f"ITS 2.0 Localization Quality Issue type `{its_type}`; MQM dimension "
        f"{mqm['category']}, severity {mqm['severity']} (`resources/its_mqm.tsv`).",
        "",
        "## Precision",
        "",
        *_precision(row, judged),
    ]
    if row.covers:
        lines += [
            "",
            "## Folds",
            "",
            f"A finding of {row.code} makes findings of {', '.join(row.covers)} on the same "
            "unit redundant: they are folded under it (its `folded` list).",
        ]
    lines += [
        "",
        "## Turning it on or off",
        "",
        f"`--ignore {row.code}` leaves it out, `--select {row.code}` runs only it (a code "
        f"prefix such as `{row.code.rstrip('0123456789')}` or the category `{row.category}` "
        "work too); in a project file, `ignore`, `select`, `per-path-ignores` and `severity` "
        "do the same ([configuration](../configuration.md)). Pinned by "
        f"`tests/test_codes.py` (snapshot `tests/snapshots/codes/{row.code}.txt`).",
    ]
    return "\n".join(lines) + "\n"


def render_pages() -> dict[Path, str]:
    """docs/checks/CODE.md for every code."""
    texts = explanations()
    judged = _judged()
    termbase, cards = Termbase.load(), CardIndex.build([])
    return {
        PAGES / f"{row.code}.md": render_page(row, texts[row.code], judged, termbase, cards)
        for row in TABLE
    }


def render() -> str:
    """docs/checks.md, the index."""
    lines = [
        "# Checks",
        "",
        "Every finding code `rulings` can report, one page each, generated from the catalogue "
        "(`pipelines/catalogue.py`), the checks' docstrings and their examples by "
        "`tools/generate_checks_doc.py` (`rulings rules` and `rulings rules CODE` print the "
        "same). Select or ignore them with `--select` / `--ignore` (codes, code prefixes or "
        "categories, any case); codes marked *off* run only when `--select` names them. Each "
        "code's W3C ITS 2.0 Localization Quality Issue type and MQM dimension and severity are "
        "data (`pipelines/resources/its_mqm.tsv`), carried by every finding (`its_type`, "
        "`mqm`). The codes of the ingest stage are emitted while the files are read; those "
        f"of the {CHECK} stage by the checks.",
        "",
        "| code | category | severity | stage | ITS 2.0 type | MQM | summary |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    rows = sorted(TABLE, key=lambda r: (CATEGORIES.index(r.category), r.code))
    for row in rows:
        state = "" if row.default else " (off)"
        its_type, mqm = quality(row.code, str(row.category))
        lines.append(
            f"| [{row.code}](checks/{row.code}.md) | {row.category} | {row.severity}{state} "
            f"| {row.stage} | {its_type} | {mqm['category']}, {mqm['severity']} | {row.summary} |"
        )
    lines += ["", "## By category"]
    for category in CATEGORIES:
        members = [row for row in rows if row.category == category]
        if members:
            codes = ", ".join(f"[{row.code}](checks/{row.code}.md)" for row in members)
            lines += ["", f"**{category}**: {codes}. {WHY[category]}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    PAGES.mkdir(parents=True, exist_ok=True)
    pages = render_pages()
    for stale in set(PAGES.glob("*.md")) - set(pages):
        stale.unlink()
    for path, text in pages.items():
        path.write_text(text, encoding="utf-8")
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET} and {len(pages)} pages in {PAGES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
