"""Card identity: which card each ruling document is about, and titles the card data
contradicts (CARD001, CARD002)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ..cards import CardIndex, Mention, name_key
from ..catalogue import make_finding
from ..model import Finding, Ruling

MAX_CARD_RULINGS = 100
"""A card has at most a few dozen rulings: a longer document (a translated rules file that
mentions Mountain more than any other card) is not identified from the names it mentions."""


def identify_cards(rulings: list[Ruling], index: CardIndex) -> list[Finding]:
    """Set ``card`` on every card-ruling document and report titles the card data contradicts.

    The card comes from the title (through the index, in any language), else, for a
    document of card size, from the card names the rulings mention (a name opening a ruling
    counts double, one in parentheses or after "such as" half), else stays null with a
    CARD002 finding.
    """
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    findings: list[Finding] = []
    for members in by_doc.values():
        first = members[0]
        if first.card or any(m.section or m.kind != "ruling" for m in members):
            continue
        if first.format == "scryfall":
            card, how = index.oracle.get(first.doc_title or ""), "oracle_id"
        else:
            card, how = _card_of(members, index)
        if card is None:
            findings.append(
                make_finding(
                    "CARD002",
                    f"No card could be identified for \u201c{first.doc_title}\u201d "
                    f"({first.file}).",
                    file=first.file,
                    line=_title_line(members),
                    lang=first.doc_lang,
                    evidence={"title": first.doc_title},
                )
            )
            continue
        _set_card(members, card, retitle=how == "oracle_id")
        findings.extend(_title_problems(members, card, how, index))
    return findings


def _set_card(members: list[Ruling], card: str, *, retitle: bool = False) -> None:
    for item in members:
        item.card = card
        if retitle:
            item.doc_title = card


def _card_of(members: list[Ruling], index: CardIndex) -> tuple[str | None, str]:
    title = members[0].doc_title
    if title:
        cards = {card for card, _ in index.lookup(title)}
        if len(cards) == 1:
            return cards.pop(), "title"
    if len(members) > MAX_CARD_RULINGS:
        return None, ""
    votes: Counter[str] = Counter()
    for item in members:
        for mention in index.mentions(item.text):
            votes[mention.card] += _mention_weight(item.text, mention)
    if not votes:
        return None, ""
    ranked = votes.most_common()
    if ranked[0][1] < 1.0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None, ""
    return ranked[0][0], "mentions"


EXAMPLE_CUE = re.compile(r"(such as|like|como|por ejemplo|例如|比如|(\(|（)[^)）]*)$", re.I)


def _mention_weight(text: str, mention: Mention) -> float:
    if not text[: mention.start].strip():
        return 2.0
    if EXAMPLE_CUE.search(text[: mention.start]):
        return 0.5
    return 1.0


def _title_problems(members: list[Ruling], card: str, how: str, index: CardIndex) -> list[Finding]:
    first = members[0]
    title, lang = first.doc_title, first.doc_lang
    if not title or not lang:
        return []
    expected = index.name_in(card, lang)
    if expected is None or name_key(expected) == name_key(title):
        return []
    known = sorted(index.lookup(title))
    return [
        make_finding(
            "CARD001",
            f"The title \u201c{title}\u201d of {first.file} is not the {lang} name of "
            f"{card}: the card data names it \u201c{expected}\u201d.",
            file=first.file,
            line=_title_line(members),
            lang=lang,
            card=card,
            evidence={
                "expected": expected,
                "found": title,
                "identified_by": how,
                "title_names": [f"{c} ({lg})" for c, lg in known],
            },
        )
    ]


def _title_line(members: list[Ruling]) -> int | None:
    carried = [line for item in members for line in item.carried_lines]
    return min(carried) if carried else members[0].line
