"""Style: form of address, regional variants, capitals, quotation marks, punctuation width,
notation."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import NamedTuple

from ...bounded import TEXTS_REMEMBERED
from ...model import Mark, Ruling
from ...resources import read_tsv
from ...termbase import TermHit
from ...text.tokens import either
from ...thresholds import CHECK, threshold
from ...vocabulary import Scope, is_cjk
from ..context import AlignedPair, CheckContext
from ..lexicon import (
    address_forms,
    addressed_verbs,
    regional_variants,
    without_translator_notes,
)
from ..registry import Problem, check, document_fact, quoted

ADDRESSING_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)
QUOTE_STYLES = {
    "straight": re.compile(r'"'),
    "curly": re.compile(r"[“”]"),
    "angular": re.compile(r"[«»]"),
    "corner": re.compile(r"[「」『』]"),
}
HALF_WIDTH = {",": "，", ";": "；", ":": "：", "!": "！", "?": "？", "(": "（", ")": "）"}
HAN = r"[\u4e00-\u9fff]"
HALF_WIDTH_NEXT_TO_HAN = re.compile(rf"(?<={HAN})[,;:!?()]|[,;:!?()](?={HAN})")
HAN_CHAR = re.compile(HAN)
LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")


@document_fact
def informal_uses(document: list[Ruling], ctx: CheckContext) -> int:
    """How often the document addresses the reader as tú (STYLE001)."""
    lang = document[0].doc_lang or ""
    return sum(_informal_count(r.text, lang) for r in document)


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _informal_count(text: str, lang: str) -> int:
    """How often a text uses the informal form (once per text: rulings recur on cards)."""
    informal, _, _ = address_forms(lang)
    return len(informal.findall(text))


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _formal_uses(text: str, lang: str) -> tuple[tuple[int, int, str], ...]:
    """(start, end, word) of the formal forms in a text, once per text."""
    _, formal, _ = address_forms(lang)
    return tuple((m.start(), m.end(), m.group()) for m in formal.finditer(text))


SENTENCE = re.compile(r"[^.!?;:()]+[.!?;:()]*")


def _speaks_to_you_there(source: str, target: str, start: int, found: str, lang: str) -> bool:
    """Whether the source sentence that the verb's sentence translates has "you" doing what
    the verb says ("you may" for puede, formality.tsv): "Tiene prisa." translates "It has
    haste." (the creature has it), "pone el doble" translates "it puts twice that many".
    When the two texts do not have as many sentences, the verb cannot be placed: not
    reported."""
    ours = [m.span() for m in SENTENCE.finditer(target)]
    theirs = [m.group() for m in SENTENCE.finditer(source)]
    if len(ours) != len(theirs):
        return False
    index = next(i for i, (s, e) in enumerate(ours) if s <= start < e)
    verb = addressed_verbs(lang).get(found.casefold())
    sentence = theirs[index]
    return bool(verb.search(sentence) if verb else ADDRESSING_YOU.search(sentence))


@cache
def _style_words(kind: str, lang: str) -> frozenset[str]:
    """The words of a kind for a language, and those for every language (style_words.tsv)."""
    return frozenset(
        word
        for row in read_tsv("style_words.tsv")
        if row["kind"] == kind and row["lang"] in ("*", lang.split("-")[0])
        for word in row["words"].split("|")
    )


@cache
def _capital_after_semicolon(lang: str) -> re.Pattern[str]:
    """A word of a capital and small letters right after a semicolon."""
    letters = sorted(_style_words("letters", lang))
    capitals = "".join(part for part in letters if part.isupper())
    small = "".join(part for part in letters if part.islower())
    return re.compile(rf";\s+([A-Z{capitals}][a-z{small}]+)")


def _addresses_reader(text: str, start: int, lang: str) -> bool:
    """Whether the verb at ``start`` opens a clause (no subject before it)."""
    before = text[:start].rstrip()
    if not before or before[-1] in ",;:(¿¡.":
        return True
    openers = _style_words("clause-opener", lang)
    previous = before.split()[-1].casefold()
    if previous in _style_words("negation", lang):
        rest = before[: -len(previous)].rstrip()
        return not rest or rest[-1] in ",;:(" or rest.split()[-1].casefold() in openers
    return previous in openers


@check("STYLE001", scope=Scope.PAIR)
def mixed_form_of_address(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The document addresses the reader as tú ("puedes"), but this ruling, whose English
    speaks to "you", uses the formal usted form ("Sin embargo, puede pagar costes
    adicionales"). Keep one form of address. Only where the English has "you" doing what the
    verb says ("you may pay"): the same form says what a permanent or an effect does ("it
    can't attack", "no puede atacar"), as the printed cards write it."""
    _, _, to_informal = address_forms(pair.lang)
    if not to_informal or not ADDRESSING_YOU.search(pair.source.text):
        return
    document = ctx.documents[pair.target.doc]
    if not informal_uses(document, ctx):
        return
    for start, end, found in _formal_uses(pair.target.text, pair.lang):
        if not _addresses_reader(pair.target.text, start, pair.lang):
            continue
        if not _speaks_to_you_there(pair.source.text, pair.target.text, start, found, pair.lang):
            continue
        yield Problem(
            pair.target,
            f"\u201c{found}\u201d addresses the reader as usted; the document uses tú "
            f"(\u201c{to_informal[found.casefold()]}\u201d).",
            {
                "found": found,
                "expected": to_informal[found.casefold()],
                "informal_uses_in_document": informal_uses(document, ctx),
            },
            source=pair.source,
            marks=[Mark.target(start, end)],
        )


@check("STYLE002", scope=Scope.DOCUMENT)
def mixed_regional_variants(document: list[Ruling], ctx: CheckContext) -> Iterator[Problem]:
    """One document mixes regional variants of the same word ("coste" and "costo",
    "quitar" and "remover"). The evidence counts each variant; the less used one is reported
    where it first appears."""
    lang = document[0].doc_lang or ""
    groups = regional_variants(lang)
    if not groups:
        return
    using = [(r, used) for r in document if (used := _variant_uses(r.text, lang))]
    for group in sorted(groups):
        uses: dict[str, list[tuple[Ruling, Use]]] = defaultdict(list)
        for ruling, used in using:
            for use in used.get(group, ()):
                uses[use.region].append((ruling, use))
        if len(uses) < 2:
            continue
        counts = {region: len(found) for region, found in uses.items()}
        majority = max(sorted(counts), key=lambda region: counts[region])
        for region, found in sorted(uses.items()):
            if region == majority:
                continue
            ruling, use = found[0]
            word, usual = use.word, uses[majority][0][1].word
            yield Problem(
                ruling,
                f"\u201c{word}\u201d ({region}) is mixed with "
                f"\u201c{usual}\u201d ({majority}) in this document.",
                {
                    "group": group,
                    "found": word,
                    "expected": usual,
                    "counts": counts,
                    "rulings": sorted({r.id for r, _ in found}),
                },
                marks=[Mark.target(use.start, use.end)],
            )


class Use(NamedTuple):
    """A regional variant used in a text."""

    region: str
    start: int
    end: int
    word: str


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _variant_uses(text: str, lang: str) -> dict[str, tuple[Use, ...]]:
    """Group -> the variants of the group a text uses, variant by variant in the data
    file's order (once per text: rulings recur on cards; to read, not to change)."""
    anything = _any_variant(lang)
    if anything is not None and anything.search(text) is None:
        return {}
    found = {}
    for group, variants in regional_variants(lang).items():
        uses = tuple(
            Use(variant.region, m.start(), m.end(), m.group())
            for variant in variants
            for m in variant.pattern.finditer(text)
        )
        if uses:
            found[group] = uses
    return found


@cache
def _any_variant(lang: str) -> re.Pattern[str] | None:
    """Every regional variant of a language in one expression: a ruling it finds none in
    uses none (``either``)."""
    return either(tuple(v.pattern for found in regional_variants(lang).values() for v in found))


@check("STYLE003", scope=Scope.RULING)
def capital_after_semicolon(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """A word after a semicolon starts with a capital letter ("…normalmente; Necesitarás
    una forma…"). After a semicolon the sentence goes on in lower case, unless the word is
    a name."""
    if not ruling.lang or is_cjk(ruling.lang):
        return
    for match in _capital_after_semicolon(ruling.lang).finditer(ruling.text):
        word = match.group(1)
        following = ruling.text[match.start(1) : match.start(1) + 40]
        if ctx.cards.mentions(following):
            continue
        yield Problem(
            ruling,
            f"\u201c{word}\u201d after a semicolon should start in lower case.",
            {
                "found": word,
                "expected": word[0].lower() + word[1:],
            },
            marks=[Mark.target(match.start(1), match.end(1))],
        )


@check("STYLE004", scope=Scope.DOCUMENT)
def mixed_quotation_marks(document: list[Ruling], ctx: CheckContext) -> Iterator[Problem]:
    """One document uses more than one style of quotation marks ("…", “…”, «…»). The
    less used styles are reported where they first appear. A translator's note, which is
    no translation (SRC002), is not counted."""
    uses: dict[str, list[Ruling]] = defaultdict(list)
    for ruling in document:
        if ruling.lang != document[0].doc_lang:
            continue
        checked = without_translator_notes(ruling.text, ruling.lang or "")
        for style, pattern in QUOTE_STYLES.items():
            if pattern.search(checked):
                uses[style].append(ruling)
    if len(uses) < 2:
        return
    counts = Counter({style: len(rulings) for style, rulings in uses.items()})
    majority = max(sorted(counts), key=lambda style: counts[style])
    for style, rulings in sorted(uses.items()):
        if style == majority:
            continue
        yield Problem(
            rulings[0],
            f"{style.capitalize()} quotation marks here; the document mostly uses {majority} ones.",
            {
                "found": style,
                "expected": majority,
                "counts": dict(counts),
                "rulings": [r.id for r in rulings],
            },
            marks=[
                Mark.target(m.start(), m.end())
                for m in QUOTE_STYLES[style].finditer(rulings[0].text)
            ],
        )


@check("STYLE005", scope=Scope.RULING)
def half_width_punctuation(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """Chinese text uses half-width punctuation (, ; : ( ) next to Chinese characters)
    where Chinese typography uses full-width marks (，；：（）). A line that is no Chinese
    sentence and is written mostly in Latin script (a credits list of names: "Del Laugel
    (领队) , Lyz Liddell, …") follows Latin typography and is not checked."""
    if not ruling.lang or ruling.lang.split("-")[0] != "zh":
        return
    if "。" not in ruling.text and len(LATIN_LETTER.findall(ruling.text)) > len(
        HAN_CHAR.findall(ruling.text)
    ):
        return
    found = [(m.group(), m.start()) for m in HALF_WIDTH_NEXT_TO_HAN.finditer(ruling.text)]
    if found:
        marks = sorted({mark for mark, _ in found})
        yield Problem(
            ruling,
            f"Half-width {' '.join(marks)} in Chinese text; use "
            f"{' '.join(HALF_WIDTH[m] for m in marks)}.",
            {
                "found": marks,
                "expected": [HALF_WIDTH[m] for m in marks],
            },
            marks=[Mark.target(offset, offset + 1) for _, offset in found],
        )


CLOSED_SENTENCE = (".)", "!)", "?)", ".）", "!）", "?）")
"""A reminder that ends its sentence inside its brackets: what follows starts a sentence
(a printing that runs the next ability on: "…(Esta criatura no tiene color.)Destruye…")."""


def _in_title(ruling: Ruling, hit: TermHit) -> bool:
    """Whether a term is part of the document's title where the text names it (the card's
    own name: "La Jugada del diablo")."""
    title = ruling.doc_title or ""
    if len(title) < 3:
        return False
    start = ruling.text.find(title)
    while start >= 0:
        if start <= hit.start and hit.end <= start + len(title):
            return True
        start = ruling.text.find(title, start + 1)
    return False


@check("STYLE006", scope=Scope.DOCUMENT)
def keyword_capitalisation(document: list[Ruling], ctx: CheckContext) -> Iterator[Problem]:
    """A game term is written with a capital letter in the middle of a sentence in some
    rulings of a document and in lower case in others ("usando Suspender" and "con
    suspender"). Rulings write keywords in lower case mid-sentence; after a cost's colon, a
    keyword's or a chapter's dash and a bullet a sentence starts (resources/style_words.tsv:
    the printed cards write "Estímulo—Sacrificar", "I, II — Gira"), and after a reminder
    that closes its own sentence ("…no tiene color.)Destruye"). A term inside the card's own
    name, where the text names it by its title ("La Jugada del diablo"), is a name."""
    lang = document[0].doc_lang
    if not lang or is_cjk(lang):
        return
    capitalised: dict[str, list[tuple[Ruling, TermHit]]] = defaultdict(list)
    lower: Counter[str] = Counter()
    for ruling in document:
        if ruling.lang != lang:
            continue
        for hit in ctx.term_hits(ruling.text, lang):
            if hit.status == "forbidden" or not hit.form[:1].isalpha():
                continue
            before = ruling.text[: hit.start].rstrip()
            if not before or before[-1] in _style_words("sentence-start", lang):
                continue
            if before.endswith(CLOSED_SENTENCE) or _in_title(ruling, hit):
                continue
            if hit.form[0].isupper():
                capitalised[hit.concept].append((ruling, hit))
            else:
                lower[hit.concept] += 1
    for concept, found in sorted(capitalised.items()):
        if not lower[concept]:
            continue
        ruling, hit = found[0]
        form = hit.form
        yield Problem(
            ruling,
            f"\u201c{form}\u201d is capitalised mid-sentence here but written in lower case "
            f"elsewhere in the document ({lower[concept]} times).",
            {
                "concept": concept,
                "found": form,
                "expected": form.lower(),
                "capitalised": len(found),
                "lower_case": lower[concept],
                "rulings": sorted({r.id for r, _ in found}),
            },
            marks=[Mark.target(hit.start, hit.end)],
        )


class MixedNotation(NamedTuple):
    """One group of notation.tsv: the translation's own forms and the source's."""

    name: str
    own: tuple[tuple[re.Pattern[str], str], ...]
    """(pattern, replacement): the translation's own notation and what it stands for."""
    source: re.Pattern[str]
    """The source's notation, as a translation may write it too."""


BRACED = re.compile(r"\{[^{}]{1,12}\}")
MIN_USUAL_USES = threshold(
    "style.notation-min-uses",
    3,
    """STYLE007: a document's usual notation of a symbol is the one it uses at least this
    many times ...""",
    stage=CHECK,
    minimum=1,
    integer=True,
)
USUAL_SHARE = threshold(
    "style.notation-share",
    2.0,
    """STYLE007: ... and this many times as often as the other notation.""",
    stage=CHECK,
    minimum=1,
)


@cache
def _notation_groups(lang: str) -> tuple[MixedNotation, ...]:
    rows = [
        row
        for row in read_tsv("notation.tsv")
        if row.get("group") and row["lang"] in ("*", lang.split("-")[0])
    ]
    groups: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        groups[row["group"]].append(row)
    return tuple(
        MixedNotation(
            name,
            tuple((re.compile(r["pattern"]), r["replacement"]) for r in members),
            re.compile("|".join(f"(?:{r['source_form']})" for r in members)),
        )
        for name, members in sorted(groups.items())
    )


@check("STYLE007", scope=Scope.DOCUMENT)
def mixed_notation(document: list[Ruling], ctx: CheckContext) -> Iterator[Problem]:
    """One document writes a symbol in two notations: mostly as the source does ({U}, {T})
    and in a few units in words ({1}{蓝}{黑}, {横置}). Both read the same (PH001 compares
    them as one, resources/notation.tsv), but a document keeps one notation: each unit that
    departs from the one it uses most (at least 3 times and twice as often) is reported."""
    lang = document[0].doc_lang or ""
    groups = _notation_groups(lang)
    if not groups:
        return
    braced = {
        ruling.id: list(BRACED.finditer(ruling.text)) for ruling in document if ruling.lang == lang
    }
    for group in groups:
        own: dict[str, list[tuple[int, int, str, str]]] = {}
        usual = 0
        for ruling in document:
            if ruling.id not in braced:
                continue
            usual += len(group.source.findall(ruling.text))
            symbols = [
                (m.start(), m.end(), m.group(), _rewritten(m.group(), group))
                for m in braced[ruling.id]
            ]
            symbols = [s for s in symbols if s[2] != s[3]]
            if symbols:
                own[ruling.id] = symbols
        uses = sum(len(symbols) for symbols in own.values())
        if (
            not uses
            or usual < ctx.threshold(MIN_USUAL_USES)
            or usual < ctx.threshold(USUAL_SHARE) * uses
        ):
            continue
        for ruling in document:
            symbols = own.get(ruling.id)
            if not symbols:
                continue
            found = list(dict.fromkeys(s[2] for s in symbols))
            expected = list(dict.fromkeys(s[3] for s in symbols))
            yield Problem(
                ruling,
                f"{quoted(found)} here, where the rest of this document writes "
                f"{quoted(expected)} ({group.name} symbols: {usual} in that notation, {uses} "
                "in this one).",
                {
                    "group": group.name,
                    "found": found,
                    "expected": expected,
                    "counts": {"usual": usual, "other": uses},
                },
                marks=[Mark.target(start, end) for start, end, _, _ in symbols],
            )


def _rewritten(symbol: str, group: MixedNotation) -> str:
    for pattern, replacement in group.own:
        symbol = pattern.sub(replacement, symbol)
    return symbol
