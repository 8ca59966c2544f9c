"""Perturbed copies of the Chinese Comprehensive Rules, for measuring the alignment
(``benchmarks/align_cr.py``) and fitting its score calibration (``tools/calibrate_alignment.py``).

``make_variant(variant, lines, folder, seed)`` writes a copy of the Chinese file as a
``Variant`` says (``VARIANTS``, in ``data/variants.json``) and returns it with where each of
its lines came from (``Perturbed``): ``numbered`` as published; ``numbered-perturbed`` with 3%
of the rules deleted and 1% stray paragraphs inserted (seeded: a sentence copied from another
rule, two rules spliced, or an unrelated made-up sentence, ``made_up`` in the data);
``stripped`` the same without rule numbers (only order and meaning can pair the units);
``stripped-all`` without section and chapter numbers either. A variant may also trade the
texts of neighbouring rules under unchanged numbers (``swap_share``). The same seed deletes
and inserts the same in every variant with the same shares. Nothing is edited from the
credits after the glossary on.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from testkit.paths import CR_ZH, data

SEED = 20231013
DATA = data("variants")
CREDITS = "版权信息"
"""The heading of the credits after the glossary: no edits from there on."""
RULE_PREFIX = re.compile(r"^\d{3}\.\d+[a-z]?\.?\s+(?=\S)")
HEADING_PREFIX = re.compile(r"^\d{1,3}\.\s+(?=\S)")


@dataclass(frozen=True)
class Variant:
    name: str
    strip_rules: bool
    strip_headings: bool
    description: str
    delete_share: float = 0.0
    insert_share: float = 0.0
    swap_share: float = 0.0
    """Share of rule lines whose text trades places with the next rule's, the numbers
    staying: a translation numbered after another edition (calibration only)."""


VARIANTS = [Variant(**variant) for variant in DATA["variants"]]


@dataclass
class Perturbed:
    """A modified copy of the Chinese file and where each of its lines came from."""

    path: Path
    origin: list[int | None]
    """Original line number of each line of the copy, None for an inserted line."""
    deleted: list[int] = field(default_factory=list)
    inserted: dict[int, str] = field(default_factory=dict)
    """Line number in the copy -> kind of the inserted paragraph (copy, splice, made-up)."""


def make_insertions(lines: list[str], count: int, rng: random.Random, deleted: set[int]) -> list:
    """(kind, text) of each stray paragraph, the kinds in turn; copies come from rules that
    are not deleted (a copy of a deleted rule would be its translation)."""
    rules = [
        RULE_PREFIX.sub("", x)
        for i, x in enumerate(lines)
        if RULE_PREFIX.match(x) and i not in deleted
    ]
    found: list[tuple[str, str]] = []
    made_up = list(DATA["made_up"])
    rng.shuffle(made_up)
    while len(found) < count:
        kind = ("copy", "splice", "made-up")[len(found) % 3]
        if kind == "copy":
            sentences = [s + "。" for s in rng.choice(rules).split("。") if len(s) >= 8]
            found.append((kind, rng.choice(sentences or rules[:1])))
        elif kind == "splice":
            one, two = rng.sample([r for r in rules if "，" in r], 2)
            found.append((kind, one.split("，")[0] + "，" + two.split("，", 1)[1]))
        else:
            found.append((kind, made_up[(len(found) // 3) % len(made_up)]))
    return found


def make_variant(variant: Variant, lines: list[str], folder: Path, seed: int = SEED) -> Perturbed:
    """Write the variant's copy of the Chinese file into ``folder``/``variant.name``; the same
    seed deletes and inserts the same in every variant with the same shares."""
    rng = random.Random(seed)
    first = next(i for i, line in enumerate(lines) if RULE_PREFIX.match(line))
    last = max(i for i, line in enumerate(lines) if line.strip() == CREDITS) - 1
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
        chosen = sorted(rng.sample(blanks, len(insertions)))
        insert_after = dict(zip(chosen, insertions, strict=True))
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
            text = RULE_PREFIX.match(line)[0] + RULE_PREFIX.sub("", lines[content[i]])
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
    path = folder / variant.name / CR_ZH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return Perturbed(path, origin, sorted(i + 1 for i in deleted), inserted)
