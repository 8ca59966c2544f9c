"""Card names inside ruling text: left in English, or not the official localized name."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...allowlists import covered
from ...cards import Mention, is_subtype_name, name_key
from ...model import Mark, Ruling
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..names import TITLE_CASE
from ..registry import Problem, check, corpus_fact

HAN = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]")
LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*")
CLAUSE_START = re.compile(r"(?:^|[.:;!?\"“(—–•]\s*|\]:\s*)$")


@corpus_fact(reads="in_source_language", kept_as=set[str])
def _source_words(ctx: CheckContext) -> set[str]:
    """The words the source-language texts of the run write in lower case."""
    found: set[str] = set()
    for ruling in ctx.in_source_language:
        found.update(LOWER_WORD.findall(ruling.text))
    return found


def _is_word_not_name(ctx: CheckContext, text: str, mention: Mention) -> bool:
    """A one-word face of a split card at the start of a sentence or clause ("Return target
    creature…": the verb, not the face Return of Never // Return; a split card is named
    whole); a one-word name that the English also writes as an ordinary word, at the start
    of a clause, or anywhere when it is a face ("[Cost], Reveal this card…, Return an
    unblocked attacker"); or a name that is also a subtype ("Earth", a planar type and the
    face of Heaven // Earth)."""
    if is_subtype_name(mention.name):
        return True
    if " " in mention.name.strip():
        return False
    face = FACES in mention.card and name_key(mention.name) != name_key(mention.card)
    opens = bool(CLAUSE_START.search(text[: mention.start]))
    if face and opens:
        return True
    return (face or opens) and mention.name.casefold() in _source_words(ctx)


FACES = " // "
GLOSS = re.compile(r"[(（]\s*([^()（）]{1,60}?)\s*[)）]")


def _is_gloss(text: str, mention: Mention) -> bool:
    """An English name alone in brackets right after the translation's own name for it
    ("趁愿仙儿（Fae of Wishes）"): given for reference, not left untranslated."""
    for found in GLOSS.finditer(text):
        if (found.start(1), found.end(1)) == (mention.start, mention.end):
            before = text[: found.start()]
            return bool(before) and not before[-1].isspace() and before[-1] not in ".:;"
    return False


def _english_mentions(ctx: CheckContext, text: str) -> list[Mention]:
    """Source-language card names in a text. Han characters are blanked first (same
    offsets): an English name is never written in them, and scanning every Han substring
    is what makes a name search slow. Once per text (to read, not to change)."""
    key = ("english mentions", text)
    found = ctx.memo.get(key)
    if found is None:
        found = ctx.memo[key] = ctx.cards.mentions(HAN.sub(" ", text), [ctx.source_lang])
    return found


def _english_face(name: str, card: str) -> bool:
    """A "localized" name that is the card's English name or one of its faces' (card data
    gives split cards' faces no name in the language): nothing to ask for."""
    faces = {name_key(face) for face in card.split(" // ")} | {name_key(card)}
    return name_key(name) in faces


def _inside_longer_name(text: str, mention: Mention) -> tuple[int, int] | None:
    """The longer capitalised name a mention is part of ("Island" in "Island of Wak-Wak",
    "Grapeshot" in "Grapeshot Catapult"), if it is one."""
    for found in TITLE_CASE.finditer(text):
        start, end = found.span()
        if (
            start <= mention.start
            and mention.end <= end
            and (start, end)
            != (
                mention.start,
                mention.end,
            )
        ):
            return start, end
    return None


def _part_of_source_name(text: str, mention: Mention, source: str | None) -> bool:
    """The name is part of a longer capitalised name that the English source writes the
    same way ("Mountain" in "Magnetic Mountain", a card kept in English on purpose)."""
    if source is None:
        return False
    longer = _inside_longer_name(text, mention)
    return longer is not None and text[longer[0] : longer[1]] in source


@check("CARD003", scope=Scope.RULING)
def untranslated_card_name(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """A translated ruling names a card by its English name ("la habilidad de Meddling
    Mage") where the card data gives a name in the ruling's language, or (when it gives
    none) inside text that is otherwise translated. Use the official localized name. An
    English name in brackets right after the localized one ("趁愿仙儿（Fae of Wishes）") is
    given for reference and is not reported, nor is a name the project's allow lists let
    stay in English."""
    lang = ruling.lang
    if not lang or lang == ctx.source_lang:
        return
    pair = ctx.pairs_by_target.get(ruling.id)
    source = pair.source.text if pair else None
    allowed = ctx.allowed(ruling.text, lang)
    for mention in _english_mentions(ctx, ruling.text):
        if _is_word_not_name(ctx, ruling.text, mention) or _is_gloss(ruling.text, mention):
            continue
        if covered(allowed, ruling.text, mention.start, mention.end):
            continue
        localized = ctx.cards.name_in(mention.card, lang)
        if localized and name_key(localized) == name_key(mention.name):
            continue
        if _part_of_source_name(ruling.text, mention, source):
            continue
        yield Problem(
            ruling,
            f"\u201c{mention.name}\u201d is the English card name"
            + (f"; in {lang} it is \u201c{localized}\u201d." if localized else "."),
            {
                "card": mention.card,
                "found": mention.name,
                "expected": localized,
            },
            marks=[Mark.target(mention.start, mention.end)],
        )


@check("CARD004", scope=Scope.PAIR)
def missing_card_name(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The source names a card and the translation does not contain that card's official
    name in its language (it names it differently, or not at all). For a ruling shared by
    many cards, the source's own card name stands for the translation's card. A name that
    is also a game term of the termbase ("Fortify", the keyword and a card) is not taken
    for the card, nor is one that is part of a longer name ("Grapeshot" in "Grapeshot
    Catapult", a card the index does not know), nor a one-word name that opens a sentence or
    clause and is an ordinary word of the English text ("Return target creature…", not the
    face Return of Never // Return)."""
    lang = pair.lang
    mentions = ctx.cards.mentions(pair.source.text, [ctx.source_lang])
    if not mentions:
        return
    terms = {(h.start, h.end) for h in ctx.term_hits(pair.source.text, ctx.source_lang)}
    mentions = [
        m
        for m in mentions
        if (m.start, m.end) not in terms
        and _inside_longer_name(pair.source.text, m) is None
        and not _is_word_not_name(ctx, pair.source.text, m)
    ]
    if not mentions:
        return
    target_cards = {m.card for m in ctx.cards.mentions(pair.target.text)}
    for mention in mentions:
        card = mention.card
        if card == pair.source.card and pair.target.card and pair.target.card != card:
            card = pair.target.card
        expected = ctx.cards.name_in(card, lang)
        if not expected or card in target_cards or _english_face(expected, card):
            continue
        yield Problem(
            pair.target,
            f"The source names {card}; the translation should call it \u201c{expected}\u201d.",
            {"card": card, "source_name": mention.name, "expected": expected, "found": None},
            source=pair.source,
            marks=[Mark.source(mention.start, mention.end, Role.MISSING)],
        )
