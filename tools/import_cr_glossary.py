"""Generate pipelines/resources/termbase_cr_glossary.tsv from the Chinese CR glossary.

Usage, from the repository root:

    python tools/import_cr_glossary.py ../shared/data/cr/glossary_en_zh.md

Every glossary entry (``### <span id='Activated Ability'>Activated Ability</span> /
<span id='起动式异能'>起动式异能</span>``) becomes a reference-only concept (enforce=no)
with an English and a Chinese row. Entries marked obsolete get status ``obsolete``.
Entries the curated termbase.tsv already covers (same concept id, or an English form it
lists) are left to it. The output is sorted, so the same glossary gives the same file.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from pipelines.termbase import Term, concept_id, read_terms, write_tsv

ROOT = Path(__file__).resolve().parents[1]
CURATED = ROOT / "pipelines" / "resources" / "termbase.tsv"
OUTPUT = ROOT / "pipelines" / "resources" / "termbase_cr_glossary.tsv"

HEADWORD = re.compile(
    r"^### <span id='[^']*'>(?P<en>[^<]+)</span> / <span id='[^']*'>(?P<zh>[^<]+)</span>\s*$"
)
EN_OBSOLETE = " (Obsolete)"
ZH_OBSOLETE = "已废止"
PARENTHETICAL = re.compile(r"（([^）]*)）")

# Errors in the glossary itself, corrected from the rules text of the same CR release.
ERRATA = {
    # The glossary swaps these two; CR 122.1b says 关键字指示物 for keyword counter and
    # CR 309.2 says 关键字动作 for keyword action.
    "Keyword Action": "关键字动作",
    "Keyword Counter": "关键字指示物",
    # The glossary repeats Plainswalk's 平原行者; the other landcyclings are 循环<land>
    # (循环海岛, 循环沼泽, 循环山脉, 循环树林).
    "Plainscycling": "循环平原",
}

# Obsolete entries whose words still have an ordinary, current meaning in rules text
# ("during", "placed", "set aside", 视为, 转移, 召唤失调, dungeon cards "removed from the game"):
# flagging them as obsolete wording would be wrong far more often than right.
STILL_CURRENT = {
    "Casting Cost",
    "Counts As",
    "During",
    "Legend",
    "Placed",
    "Redirect",
    "Remove from the Game, Removed, Removed-from-the-Game Zone",
    "Set Aside",
    "Snow-Covered",
    "Summon",
}


@dataclass(frozen=True)
class Entry:
    headword: str
    en_forms: tuple[str, ...]
    zh_forms: tuple[str, ...]
    obsolete: bool
    zh_note: str
    line: int


def parse_glossary(path: Path) -> list[Entry]:
    """The glossary's entries, errata applied."""
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    entries = []
    for index, line in enumerate(lines):
        found = HEADWORD.match(line)
        if not found:
            continue
        body = []
        for following in lines[index + 1 :]:
            if following.startswith(("### ", "----", "## ")):
                break
            body.append(following.strip())
        entries.append(_entry(found, body, index + 1))
    return entries


def _entry(found: re.Match[str], body: list[str], line: int) -> Entry:
    en = html.unescape(found["en"]).strip()
    zh = html.unescape(found["zh"]).strip()
    obsolete = en.endswith(EN_OBSOLETE) or any(text.startswith("(Obsolete)") for text in body)
    headword = en.removesuffix(EN_OBSOLETE)
    zh = ERRATA.get(headword, zh)
    notes = [note for note in PARENTHETICAL.findall(zh) if note != ZH_OBSOLETE]
    zh = PARENTHETICAL.sub("", zh)
    en_parts = _split(headword, ", ")
    zh_parts = _split(zh, "，")
    if len(en_parts) != len(zh_parts):  # "Active Player, Nonactive Player Order" is one term
        en_parts = (_unquote(headword),)
        zh_parts = (_unquote(zh),)
    zh_forms = tuple(dict.fromkeys(form for part in zh_parts for form in _split(part, "/")))
    return Entry(headword, en_parts, zh_forms, obsolete, "; ".join(notes), line)


def _split(text: str, separator: str) -> tuple[str, ...]:
    return tuple(_unquote(part) for part in text.split(separator) if _unquote(part))


def _unquote(text: str) -> str:
    return text.strip().strip('“”"').strip()


def glossary_terms(entries: list[Entry], curated: list[Term], source: str) -> list[Term]:
    """Rows for the entries the curated termbase does not already cover, sorted."""
    curated_ids = {term.concept for term in curated}
    curated_en = {form.casefold() for term in curated if term.lang == "en" for form in term.forms}
    terms = []
    taken: dict[str, str] = {}
    for entry in entries:
        if entry.obsolete and entry.headword in STILL_CURRENT:
            continue
        concept = concept_id(entry.headword)
        if concept in curated_ids or any(f.casefold() in curated_en for f in entry.en_forms):
            continue
        if concept in taken:
            raise SystemExit(
                f"{source}:{entry.line}: concept id {concept!r} is taken by {taken[concept]!r}"
            )
        taken[concept] = entry.headword
        status = "obsolete" if entry.obsolete else "approved"
        note = "Obsolete term (CR glossary)." if entry.obsolete else ""
        zh_note = "; ".join(part for part in (note, entry.zh_note) if part)
        origin = f"{source}:{entry.line}"
        terms.append(Term(concept, "en", entry.en_forms, status, False, note, origin))
        terms.append(Term(concept, "zh", entry.zh_forms, status, False, zh_note, origin))
    return sorted(terms, key=lambda term: (term.concept, term.lang))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("glossary", type=Path, help="glossary_en_zh.md of the Chinese CR")
    parser.add_argument("--curated", type=Path, default=CURATED, help="the curated termbase")
    parser.add_argument("--out", type=Path, default=OUTPUT, help="the TSV file to write")
    args = parser.parse_args(argv)
    entries = parse_glossary(args.glossary)
    terms = glossary_terms(entries, read_terms(args.curated), args.glossary.name)
    comments = [
        "GENERATED by tools/import_cr_glossary.py from the Chinese Comprehensive Rules glossary",
        f"({args.glossary.name}); do not edit: curate terms in termbase.tsv instead, where a",
        "concept or English form listed there takes precedence over this file.",
        "Every concept is reference only (enforce=no); obsolete glossary terms have status",
        "obsolete. Corrected glossary errors: " + ", ".join(sorted(ERRATA)) + ".",
    ]
    write_tsv(args.out, terms, comments)
    concepts = len(terms) // 2
    print(
        f"{args.out}: {concepts} concepts from {len(entries)} glossary entries "
        f"({len(entries) - concepts} covered by {args.curated.name} or still-current words)",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
