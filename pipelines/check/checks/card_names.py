"""Card names inside ruling text: left in English, or not the official localized name."""

from __future__ import annotations

from collections.abc import Iterator

from ...ingest.cards import name_key
from ...model import Finding, Ruling
from ..context import AlignedPair, CheckContext
from ..registry import check


@check("CARD003", category="card-name", severity="warning", scope="ruling")
def untranslated_card_name(ruling: Ruling, ctx: CheckContext) -> Iterator[Finding]:
    """A translated ruling names a card by its English name ("la habilidad de Meddling
    Mage") where the card data gives a name in the ruling's language, or (when it gives
    none) inside text that is otherwise translated. Use the official localized name."""
    lang = ruling.lang
    if not lang or lang == ctx.source_lang:
        return
    for mention in ctx.cards.mentions(ruling.text, [ctx.source_lang]):
        localized = ctx.cards.name_in(mention.card, lang)
        if localized and name_key(localized) == name_key(mention.name):
            continue
        yield ctx.finding(
            "CARD003",
            ruling,
            f"\u201c{mention.name}\u201d is the English card name"
            + (f"; in {lang} it is \u201c{localized}\u201d." if localized else "."),
            {
                "card": mention.card,
                "found": mention.name,
                "expected": localized,
                "span": [mention.start, mention.end],
            },
        )


@check("CARD004", category="card-name", severity="warning", scope="pair")
def missing_card_name(pair: AlignedPair, ctx: CheckContext) -> Iterator[Finding]:
    """The source names a card and the translation does not contain that card's official
    name in its language (it names it differently, or not at all). For a ruling shared by
    many cards, the source's own card name stands for the translation's card."""
    lang = pair.lang
    target_cards = {m.card for m in ctx.cards.mentions(pair.target.text)}
    for mention in ctx.cards.mentions(pair.source.text, [ctx.source_lang]):
        card = mention.card
        if card == pair.source.card and pair.target.card and pair.target.card != card:
            card = pair.target.card
        expected = ctx.cards.name_in(card, lang)
        if not expected or card in target_cards:
            continue
        yield ctx.finding(
            "CARD004",
            pair.target,
            f"The source names {card}; the translation should call it \u201c{expected}\u201d.",
            {"card": card, "source_name": mention.name, "expected": expected, "found": None},
            source=pair.source,
        )
