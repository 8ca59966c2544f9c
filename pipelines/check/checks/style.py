"""Style: form of address, regional variants, capitals, quotation marks, punctuation width."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from ...model import Finding, Ruling
from ..context import AlignedPair, CheckContext
from ..lexicon import address_forms, regional_variants
from ..registry import check

ADDRESSING_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)
CLAUSE_OPENERS = {"embargo", "también", "tambien", "además", "ademas", "entonces", "y", "pero"}
CAPITAL_AFTER_SEMICOLON = re.compile(r";\s+([A-ZÁÉÍÓÚÑÜ][a-záéíóúñü]+)")
QUOTE_STYLES = {
    "straight": re.compile(r'"'),
    "curly": re.compile(r"[“”]"),
    "angular": re.compile(r"[«»]"),
    "corner": re.compile(r"[「」『』]"),
}
HALF_WIDTH = {",": "，", ";": "；", ":": "：", "!": "！", "?": "？", "(": "（", ")": "）"}
HAN = r"[\u4e00-\u9fff]"
HALF_WIDTH_NEXT_TO_HAN = re.compile(rf"(?<={HAN})[,;:!?()]|[,;:!?()](?={HAN})")


def _informal_uses(ctx: CheckContext, doc: list[Ruling]) -> int:
    key = f"informal:{doc[0].doc}"
    if key not in ctx.cache:
        informal, _, _ = address_forms(doc[0].doc_lang or "")
        ctx.cache[key] = sum(len(informal.findall(r.text)) for r in doc)
    return ctx.cache[key]


def _addresses_reader(text: str, start: int) -> bool:
    """Whether the verb at ``start`` opens a clause (no subject before it)."""
    before = text[:start].rstrip()
    if not before or before[-1] in ",;:(¿¡.":
        return True
    previous = before.split()[-1].casefold()
    if previous == "no":
        rest = before[: -len(previous)].rstrip()
        return not rest or rest[-1] in ",;:(" or rest.split()[-1].casefold() in CLAUSE_OPENERS
    return previous in CLAUSE_OPENERS


@check("STYLE001", category="style", severity="warning", scope="pair")
def mixed_form_of_address(pair: AlignedPair, ctx: CheckContext) -> Iterator[Finding]:
    """The document addresses the reader as tú ("puedes"), but this ruling, whose English
    speaks to "you", uses the formal usted form ("Sin embargo, puede pagar costes
    adicionales"). Keep one form of address."""
    _, formal, to_informal = address_forms(pair.lang)
    if not to_informal or not ADDRESSING_YOU.search(pair.source.text):
        return
    document = ctx.documents[pair.target.doc]
    if not _informal_uses(ctx, document):
        return
    for match in formal.finditer(pair.target.text):
        if not _addresses_reader(pair.target.text, match.start()):
            continue
        found = match.group()
        yield ctx.finding(
            "STYLE001",
            pair.target,
            f"\u201c{found}\u201d addresses the reader as usted; the document uses tú "
            f"(\u201c{to_informal[found.casefold()]}\u201d).",
            {
                "found": found,
                "expected": to_informal[found.casefold()],
                "span": [match.start(), match.end()],
                "informal_uses_in_document": _informal_uses(ctx, document),
            },
            source=pair.source,
        )


@check("STYLE002", category="style", severity="warning", scope="document")
def mixed_regional_variants(document: list[Ruling], ctx: CheckContext) -> Iterator[Finding]:
    """One document mixes regional variants of the same word ("coste" and "costo",
    "quitar" and "remover"). The evidence counts each variant; the less used one is reported
    where it first appears."""
    for group, variants in sorted(regional_variants(document[0].doc_lang or "").items()):
        uses: dict[str, list[tuple[Ruling, str]]] = defaultdict(list)
        for ruling in document:
            for variant in variants:
                for match in variant.pattern.finditer(ruling.text):
                    uses[variant.region].append((ruling, match.group()))
        if len(uses) < 2:
            continue
        counts = {region: len(found) for region, found in uses.items()}
        majority = max(sorted(counts), key=lambda region: counts[region])
        for region, found in sorted(uses.items()):
            if region == majority:
                continue
            ruling, word = found[0]
            yield ctx.finding(
                "STYLE002",
                ruling,
                f"\u201c{word}\u201d ({region}) is mixed with "
                f"\u201c{uses[majority][0][1]}\u201d ({majority}) in this document.",
                {
                    "group": group,
                    "found": word,
                    "expected": uses[majority][0][1],
                    "counts": counts,
                    "rulings": sorted({r.id for r, _ in found}),
                },
            )


@check("STYLE003", category="style", severity="warning", scope="ruling")
def capital_after_semicolon(ruling: Ruling, ctx: CheckContext) -> Iterator[Finding]:
    """A word after a semicolon starts with a capital letter ("…normalmente; Necesitarás
    una forma…"). After a semicolon the sentence goes on in lower case, unless the word is
    a name."""
    if not ruling.lang or ruling.lang.split("-")[0] in ("zh", "ja", "ko"):
        return
    for match in CAPITAL_AFTER_SEMICOLON.finditer(ruling.text):
        word = match.group(1)
        following = ruling.text[match.start(1) : match.start(1) + 40]
        if ctx.cards.mentions(following):
            continue
        yield ctx.finding(
            "STYLE003",
            ruling,
            f"\u201c{word}\u201d after a semicolon should start in lower case.",
            {
                "found": word,
                "expected": word[0].lower() + word[1:],
                "span": [match.start(1), match.end(1)],
            },
        )


@check("STYLE004", category="style", severity="warning", scope="document")
def mixed_quotation_marks(document: list[Ruling], ctx: CheckContext) -> Iterator[Finding]:
    """One document uses more than one style of quotation marks ("…", “…”, «…»). The
    less used styles are reported where they first appear."""
    uses: dict[str, list[Ruling]] = defaultdict(list)
    for ruling in document:
        if ruling.lang != document[0].doc_lang:
            continue
        for style, pattern in QUOTE_STYLES.items():
            if pattern.search(ruling.text):
                uses[style].append(ruling)
    if len(uses) < 2:
        return
    counts = Counter({style: len(rulings) for style, rulings in uses.items()})
    majority = max(sorted(counts), key=lambda style: counts[style])
    for style, rulings in sorted(uses.items()):
        if style == majority:
            continue
        yield ctx.finding(
            "STYLE004",
            rulings[0],
            f"{style.capitalize()} quotation marks here; the document mostly uses {majority} ones.",
            {
                "found": style,
                "expected": majority,
                "counts": dict(counts),
                "rulings": [r.id for r in rulings],
            },
        )


@check("STYLE005", category="style", severity="warning", scope="ruling")
def half_width_punctuation(ruling: Ruling, ctx: CheckContext) -> Iterator[Finding]:
    """Chinese text uses half-width punctuation (, ; : ( ) next to Chinese characters)
    where Chinese typography uses full-width marks (，；：（）)."""
    if not ruling.lang or ruling.lang.split("-")[0] != "zh":
        return
    found = [(m.group(), m.start()) for m in HALF_WIDTH_NEXT_TO_HAN.finditer(ruling.text)]
    if found:
        marks = sorted({mark for mark, _ in found})
        yield ctx.finding(
            "STYLE005",
            ruling,
            f"Half-width {' '.join(marks)} in Chinese text; use "
            f"{' '.join(HALF_WIDTH[m] for m in marks)}.",
            {
                "found": marks,
                "expected": [HALF_WIDTH[m] for m in marks],
                "offsets": [offset for _, offset in found],
            },
        )


@check("STYLE006", category="style", severity="info", scope="document")
def keyword_capitalisation(document: list[Ruling], ctx: CheckContext) -> Iterator[Finding]:
    """A game term is written with a capital letter in the middle of a sentence in some
    rulings of a document and in lower case in others ("usando Suspender" and "con
    suspender"). Rulings write keywords in lower case mid-sentence."""
    lang = document[0].doc_lang
    if not lang or lang.split("-")[0] in ("zh", "ja", "ko"):
        return
    capitalised: dict[str, list[tuple[Ruling, str]]] = defaultdict(list)
    lower: Counter[str] = Counter()
    for ruling in document:
        if ruling.lang != lang:
            continue
        for hit in ctx.term_hits(ruling.text, lang):
            if hit.status == "forbidden" or not hit.form[:1].isalpha():
                continue
            before = ruling.text[: hit.start].rstrip()
            if not before or before[-1] in '.!?:¿¡"“«(':
                continue
            if hit.form[0].isupper():
                capitalised[hit.concept].append((ruling, hit.form))
            else:
                lower[hit.concept] += 1
    for concept, found in sorted(capitalised.items()):
        if not lower[concept]:
            continue
        ruling, form = found[0]
        yield ctx.finding(
            "STYLE006",
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
        )
