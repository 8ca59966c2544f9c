"""Rule citations with their titles, and which side of a pair cites the wrong rule.

Rules text cites rules with their titles ("See rule 726, “Day and Night.”"). When a
translation cites another number than its source, the titles settle who is right: the
number whose heading (in the rules document the source belongs to) is the quoted title. A
source that quotes the title of the rule the translation cites has the wrong number, and
the translation is right (reported on the source, SRC001, not on the translation).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache

from ..model import Ruling
from ..resources import read_tsv

TITLE_MAX_CHARS = 80
TITLED_RULE = re.compile(r"\d{3}\.\d+")
"""A rule numbered without a letter (702.19) whose text is a title (Trample)."""
SENTENCE_END = re.compile(r"[.。!！?？]$")


@dataclass(frozen=True, slots=True)
class Citation:
    number: str
    title: str
    start: int
    end: int


@cache
def _pattern(lang: str) -> re.Pattern[str] | None:
    rows = [row["pattern"] for row in read_tsv("references.tsv") if row["lang"] == lang]
    return re.compile("|".join(f"(?:{p})" for p in rows[:1]), re.IGNORECASE) if rows else None


def citations(text: str, lang: str) -> list[Citation]:
    pattern = _pattern(lang.split("-")[0])
    if pattern is None:
        return []
    return [
        Citation(m["number"], m["title"], m.start("number"), m.end("number"))
        for m in pattern.finditer(text)
    ]


def title_key(title: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", title).casefold().split())


def rule_titles(rulings: list[Ruling]) -> dict[str, dict[str, str]]:
    """Per rules document, section number -> its title (a section heading, or a rule whose
    text is a short title such as ``702.19. Trample``)."""
    titles: dict[str, dict[str, str]] = defaultdict(dict)
    for ruling in rulings:
        if not ruling.section or len(ruling.text) > TITLE_MAX_CHARS:
            continue
        titled_rule = (
            ruling.kind == "rule"
            and TITLED_RULE.fullmatch(ruling.section)
            and not SENTENCE_END.search(ruling.text)
        )
        if ruling.kind == "heading" or titled_rule:
            titles[ruling.doc].setdefault(ruling.section, title_key(ruling.text))
    return dict(titles)


def same_title(heading: str | None, quoted: str) -> bool:
    """Whether a quoted title names a heading (citations may quote the start of a title:
    "Free-for-All" for Free-for-All Variant)."""
    return bool(heading) and (heading == quoted or heading.startswith(quoted + " "))


def miscited(
    source: Ruling,
    target: Ruling,
    titles: dict[str, str],
    source_lang: str,
    lang: str,
) -> list[tuple[Citation, Citation]]:
    """(source citation, translation citation) pairs where the source's number is wrong:
    the title it quotes is the title of the rule the translation cites."""
    theirs = citations(target.text, lang)
    if not theirs:
        return []
    ours = citations(source.text, source_lang)
    their_numbers = {c.number for c in theirs}
    our_numbers = {c.number for c in ours}
    unmatched = [c for c in theirs if c.number not in our_numbers]
    found = []
    for citation in ours:
        if citation.number in their_numbers:
            continue
        quoted = title_key(citation.title)
        if titles.get(citation.number) is None or same_title(titles[citation.number], quoted):
            continue
        right = next((c for c in unmatched if same_title(titles.get(c.number), quoted)), None)
        if right is not None:
            found.append((citation, right))
    return found
