"""Card identity: which card each ruling document is about, and titles the card data
contradicts (CARD001, CARD002)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache

from ..cards import CardIndex, Mention, is_subtype_name, name_key
from ..catalogue import make_finding
from ..model import CardName, Finding, Ruling
from ..resources import read_tsv
from ..text.tokens import tokens
from ..vocabulary import DocKind, is_unspaced

MIN_MENTION_VOTES = 2.0
"""A document is about a card its text names when a ruling opens with the name, or two
name it: a card's text names other cards in passing ("una carta llamada Teferi, el
Tuercetiempo"), and a name inside a longer one ("Marwyn, la Cuidadora") is no mention of
the shorter card."""
MAX_CARD_RULINGS = 100
"""A card has at most a few dozen rulings: a longer document (a translated rules file that
mentions Mountain more than any other card) is not identified from the names it mentions."""


def identify_cards(
    rulings: list[Ruling], index: CardIndex, source_lang: str = "en"
) -> list[Finding]:
    """Set ``card`` on every card-ruling document and report titles the card data contradicts.

    The card comes from the title (through the index, in any language). A translated
    document of card size whose title the index does not know is identified from the card
    names its rulings mention (a name opening a ruling counts double, one in parentheses
    or after "such as" half), but never from a name that is also a subtype ("Forest",
    "Plains": a land's text names its land type, not a card). An English document's title
    is its card's English name: a title the index does not know is an unknown card, never
    the cards its rulings mention. Documents whose card stays unknown are counted in one
    CARD002 for the run (``unknown_cards``), not reported one by one.
    """
    findings, unresolved = identify_by_document(rulings, index, source_lang)
    return findings + identify_across(unresolved, rulings, index)


def identify_by_document(
    rulings: list[Ruling], index: CardIndex, source_lang: str = "en"
) -> tuple[list[Finding], list[list[Ruling]]]:
    """What each document tells of its card alone (its title, the names its rulings
    mention): the cards set, the titles the card data contradicts, and the documents left
    unresolved (``identify_across``)."""
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    findings: list[Finding] = []
    unresolved: list[list[Ruling]] = []
    for members in by_doc.values():
        first = members[0]
        if first.card or any(m.section or m.kind != "ruling" for m in members):
            continue
        if first.format == "scryfall":
            card, how = index.oracle.get(first.doc_title or ""), "oracle_id"
        else:
            card, how = _card_of(members, index, source_lang)
        if card is None:
            unresolved.append(members)
            continue
        _set_card(members, card, retitle=how == "oracle_id")
        findings.extend(_title_problems(members, card, how, index))
    return findings, unresolved


def identify_across(
    unresolved: list[list[Ruling]], rulings: list[Ruling], index: CardIndex
) -> list[Finding]:
    """The documents ``identify_by_document`` left unresolved (in corpus order), against the
    whole run's ``rulings``: a title two cards share is the card whose English documents share
    most of its symbols and numbers; the rest are counted in one CARD002."""
    findings: list[Finding] = []
    unknown: list[list[Ruling]] = []
    english = EnglishByCard(rulings)
    for members in unresolved:
        first = members[0]
        if first.doc_kind == DocKind.OTHER:
            continue  # reported once as a document that is not checked (DOC002)
        named = sorted({c for c, _ in index.lookup(first.doc_title or "")})
        card = _by_source_text(members, named, english) if len(named) > 1 else None
        if card is not None:
            _set_card(members, card)
            english.identified(members)
            findings.extend(_title_problems(members, card, "title+text", index))
        elif first.doc_kind != DocKind.SOURCE:
            unknown.append(members)
    findings.extend(unknown_cards(unknown, index))
    return findings


def title_coverage(rulings: list[Ruling], index: CardIndex) -> tuple[int, int]:
    """(unknown, all): how many of the card documents' titles the card index does not know,
    of how many card documents (rules and glossaries, and documents not checked, aside)."""
    titles: dict[str, str | None] = {}
    for item in rulings:
        if item.doc in titles:
            continue
        if (
            item.section
            or item.kind != "ruling"
            or item.doc_kind in (DocKind.OTHER, DocKind.GLOSSARY)
        ):
            titles[item.doc] = None
        else:
            titles[item.doc] = item.doc_title or ""
    cards = [title for title in titles.values() if title is not None]
    return sum(1 for title in cards if not index.lookup(title)), len(cards)


UNKNOWN_TITLES_SHOWN = 5


def unknown_cards(unknown: list[list[Ruling]], index: CardIndex) -> list[Finding]:
    """One CARD002 for the run: how many translated documents are about cards the card data
    does not know, and which card data would name them. Their titles are in the evidence."""
    if not unknown:
        return []
    titles = sorted({members[0].doc_title or members[0].file for members in unknown})
    shown = ", ".join(f"\u201c{t}\u201d" for t in titles[:UNKNOWN_TITLES_SHOWN])
    more = (
        f" and {len(titles) - UNKNOWN_TITLES_SHOWN} more"
        if len(titles) > UNKNOWN_TITLES_SHOWN
        else ""
    )
    one = len(unknown) == 1
    documents = "1 translated document is" if one else f"{len(unknown)} translated documents are"
    english = "its English document is" if one else "their English documents are"
    cards = "1 card" if len(titles) == 1 else f"{len(titles)} cards"
    return [
        make_finding(
            "CARD002",
            f"{documents} about {cards} the card index ({len(index):,} cards) does not know "
            f"({shown}{more}): {english} found by place or by content, and card names are not "
            "checked in them. Add the set's card data (`rulings fetch mtgjson SET`, or an "
            "MTGJSON or Scryfall file among the inputs) to name them.",
            evidence={
                "documents": len(unknown),
                "titles": titles,
                "files": sorted({members[0].file for members in unknown}),
                "index_cards": len(index),
            },
        )
    ]


class EnglishByCard:
    """The rulings of the English (source) documents by card, in corpus order, indexed on
    first use. Looking them up in the whole corpus for each ambiguous title was quadratic:
    27 s of a million-unit run, 174 titles."""

    def __init__(self, rulings: list[Ruling]) -> None:
        self._rulings = rulings
        self._by_card: dict[str, list[Ruling]] | None = None
        self._position: dict[int, int] = {}

    def texts(self, card: str) -> str:
        """The card's English rulings' text, joined by spaces."""
        return " ".join(r.text for r in self._index().get(card, ()))

    def identified(self, members: list[Ruling]) -> None:
        """A document's card was set after the index was built: an English one joins its
        card's rulings, where the corpus order puts it."""
        if self._by_card is None or members[0].doc_kind != DocKind.SOURCE:
            return
        if not self._position:
            self._position = {id(r): n for n, r in enumerate(self._rulings)}
        for card in {m.card for m in members}:
            found = self._by_card.setdefault(card, [])
            found.extend(m for m in members if m.card == card)
            found.sort(key=lambda r: self._position[id(r)])

    def _index(self) -> dict[str, list[Ruling]]:
        if self._by_card is None:
            self._by_card = defaultdict(list)
            for r in self._rulings:
                if r.card and r.doc_kind == DocKind.SOURCE:
                    self._by_card[r.card].append(r)
        return self._by_card


def _by_source_text(members: list[Ruling], named: list[str], english: EnglishByCard) -> str | None:
    """Which of the cards a title names (two cards with one Chinese name: 狂热裂片妖 is
    Frenzy Sliver and Frenetic Sliver) the document is about: the one whose English
    documents in the input share most of its symbols and numbers ({0}; frenzy 1, +1/+0),
    if one does."""
    mine = _marks(" ".join(m.text for m in members))
    if not mine:
        return None
    scores = {}
    for card in named:
        texts = english.texts(card)
        scores[card] = len(mine & _marks(texts)) if texts else 0
    ranked = sorted(scores.items(), key=lambda item: -item[1])
    if ranked[0][1] == 0 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]


DIGITS = re.compile(r"(?<![\d.])\d+(?![\d.])")


def _marks(text: str) -> set[str]:
    """The symbols, power/toughness changes and numbers of a text (copied, never
    translated)."""
    found = {f"{kind}:{t}" for kind, counts in tokens(text).items() for t in counts}
    return found | {f"n:{n}" for n in DIGITS.findall(text)}


def _set_card(members: list[Ruling], card: str, *, retitle: bool = False) -> None:
    for item in members:
        item.card = card
        if retitle:
            item.doc_title = card


def _card_of(members: list[Ruling], index: CardIndex, source_lang: str) -> tuple[str | None, str]:
    title = members[0].doc_title
    if title:
        cards = {card for card, _ in index.lookup(title)}
        if len(cards) == 1:
            return cards.pop(), "title"
    if len(members) > MAX_CARD_RULINGS or (title and members[0].doc_lang == source_lang):
        return None, ""
    votes: Counter[str] = Counter()
    own_title = f" {name_key(title or '')} "
    for item in members:
        for mention in index.mentions(item.text):
            if _may_identify(mention, own_title):
                votes[mention.card] += _mention_weight(item.text, mention)
    if not votes:
        return None, ""
    ranked = votes.most_common()
    if ranked[0][1] < MIN_MENTION_VOTES or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None, ""
    return ranked[0][0], "mentions"


def _may_identify(mention: Mention, own_title: str) -> bool:
    """Whether a mention may tell the card a document is about: not a subtype ("Forest"),
    not a part of the title's own name ("Cuidadora" in "Marwyn, la Cuidadora"), not one
    face of a split card (互斗, Fight of Prepare // Fight, is also the keyword action), and
    not a name in a language written without spaces found inside a titled document's text:
    such a name is found inside longer words as often as on its own (冲锋, Charge, in the
    title 雷刃冲锋; 火元素, Fire Elemental, in the token name 星火元素), so only a name written
    with spaces, or the document's own title, tells its card."""
    if is_unspaced(mention.lang) and own_title.strip():
        return False
    return (
        not is_subtype_name(mention.name)
        and f" {name_key(mention.name)} " not in own_title
        and (" // " not in mention.card or name_key(mention.name) == name_key(mention.card))
    )


@cache
def _example_cue() -> re.Pattern[str]:
    """The words that introduce an example (example_cues.tsv), or an open parenthesis,
    right before a mention."""
    cues = "|".join(re.escape(row["cue"]) for row in read_tsv("example_cues.tsv"))
    return re.compile(rf"({cues}|(\(|（)[^)）]*)$", re.I)


def _mention_weight(text: str, mention: Mention) -> float:
    if not text[: mention.start].strip():
        return 2.0
    if _example_cue().search(text[: mention.start]):
        return 0.5
    return 1.0


def _names_and_faces(name: str) -> set[str]:
    """A card's name and, for a split or double-faced card (Rough // Tumble), each face's."""
    return {name_key(name), *(name_key(face) for face in name.split(" // "))}


def _title_problems(members: list[Ruling], card: str, how: str, index: CardIndex) -> list[Finding]:
    first = members[0]
    title, lang = first.doc_title, first.doc_lang
    if not title or not lang:
        return []
    expected = index.name_in(card, lang)
    if expected is None or name_key(title) in _names_and_faces(expected):
        return []
    if name_key(title) in _names_and_faces(card) and " // " in card:
        return []  # a face of a split card, whose faces the card data names only in English
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


def identified_names(
    rulings: list[Ruling], index: CardIndex, languages: Iterable[str]
) -> list[CardName]:
    """The card index's names, in the run's languages, of the cards the documents were found
    to be about, where the inputs did not give them (the index's ``listed``: it was built
    from the run's entries): ``cards.jsonl`` says which cards a run of plain ruling files is
    about, not only what card data it read."""
    found = []
    for card in sorted({item.card for item in rulings if item.card}):
        names = index.names.get(card, {})
        for lang in dict.fromkeys(languages):
            if (card, lang) in index.listed and names.get(lang):
                found.append(CardName(names[lang], lang, card, "card index"))
    return found


def card_title_languages(
    rulings: list[Ruling], index: CardIndex, languages: Iterable[str], source_lang: str
) -> dict[str, str]:
    """Titles that are a card's name in exactly one candidate language other than the
    source language, and that language (a card document titled with the card's official
    Spanish name is a Spanish document; an English title decides nothing, since
    translations keep English names of cards never printed in their language, and neither
    does a name that is the same in English, "Tarmogoyf": its text tells)."""
    candidates = set(languages) - {source_lang}
    found = {}
    for title in {r.doc_title for r in rulings if r.doc_title}:
        named = {lang.split("-")[0] for _, lang in index.lookup(title)}
        if source_lang in named:
            continue  # also an English name (Tarmogoyf is Tarmogoyf in Spanish): no telling
        langs = named & candidates
        if len(langs) == 1:
            found[title] = langs.pop()
    return found
