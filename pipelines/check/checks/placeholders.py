"""Placeholders: symbols, counters, rule references and brackets that must survive."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

from ...bounded import TEXTS_REMEMBERED
from ...model import Mark, Ruling
from ...text.tokens import (
    in_source_notation,
    named_in_words,
    refers_back,
    token_counts,
    token_kinds,
    token_spans,
)
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import without_translator_notes, words
from ..registry import Problem, check

OPENERS = {"(": ")", "（": "）", "[": "]", "［": "］"}
QUOTES_OPEN = "“«「『‘"
QUOTES_CLOSE = "”»」』’"
PAIRED_MARK = re.compile(
    "["
    + re.escape("".join(OPENERS) + "".join(OPENERS.values()) + QUOTES_OPEN + QUOTES_CLOSE + '"')
    + "]"
)
"""The characters PH003 counts (counting only them is faster than counting every one)."""


@check("PH001", scope=Scope.PAIR)
def dropped_placeholder(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A symbol ({X}, {T}, {1}{G}), a power/toughness change (+1/+1), a power/toughness
    (2/2) or a rule reference (702.62a) of the source is missing from the translation, or
    the translation has one the source does not. These are copied, never translated. A
    translation may say one the source has once more, where the source refers back to it
    ("gets this bonus": 得到+1/+1) or say fewer of one it has, where it refers back to it
    in words ("两种指示物" for "+1/+1 and -1/-1 counters"); a symbol the source names in
    words ("a chaos symbol") may be written as the symbol; a correct cross reference the
    translation adds (the cited rule is about what the text is about) is no error, nor a
    rule number the source gets wrong (SRC001); the notation a language writes its own way
    ({等级N3+} for {LEVEL N3+}) is read as the source's; a translator's note is not
    translation. Words that name or refer back to tokens are data
    (resources/token_words.tsv)."""
    source = token_counts(in_source_notation(pair.source_text, ctx.source_lang))
    checked = without_translator_notes(pair.target.text, pair.lang)
    target = token_counts(in_source_notation(checked, pair.lang))
    if source == target:  # what a miscited reference takes away, it takes from both
        return
    miscited = ctx.uncontested_citations(pair)["rule-reference"]
    if miscited:
        source = {**source, "rule-reference": source["rule-reference"] - miscited}
        target = {**target, "rule-reference": target["rule-reference"] - miscited}
    named = named_in_words(pair.source_text, ctx.source_lang)
    for kind in token_kinds():
        missing = source[kind.name] - target[kind.name]
        if missing and refers_back(checked, pair.lang, kind.name):
            missing = Counter({t: n for t, n in missing.items() if not target[kind.name][t]})
        extra = Counter(
            {
                token: n
                for token, n in (target[kind.name] - source[kind.name]).items()
                if not source[kind.name][token] and not named.get(kind.name, {}).get(token)
            }
        )
        if not missing and not extra:
            continue
        parts = []
        if missing:
            parts.append("lacks " + ", ".join(sorted(missing.elements())))
        if extra:
            parts.append("adds " + ", ".join(sorted(extra.elements())))
        yield Problem(
            pair.target,
            f"The translation {' and '.join(parts)} ({kind.description.split(' such')[0]}).",
            {
                "kind": kind.name,
                "expected": sorted(source[kind.name].elements()),
                "found": sorted(target[kind.name].elements()),
                "missing": sorted(missing.elements()),
                "extra": sorted(extra.elements()),
            },
            source=pair.source,
            marks=[
                Mark.source(start, end, Role.MISSING)
                for start, end in token_spans(pair.source.text, kind.name, missing)
            ]
            + [
                Mark.target(start, end, Role.EXTRA)
                for start, end in token_spans(pair.target.text, kind.name, extra)
            ],
        )


PLURAL_MARK = re.compile(r"(?<=[^\W\d_])\((?:s|es)\)")
"""target(s), mode(s): an optional plural ending, not a parenthesised passage."""
LOYALTY_COST = re.compile(r"[\[［][+\-−–]?[\dX]+[\]］]")
"""A loyalty cost, [+1] or [−2], which printings also write without brackets (+1:)."""
QUOTED = re.compile(r"“[^“”]*”|«[^«»]*»|「[^「」]*」|『[^『』]*』|\"[^\"]*\"|‘[^‘’]*’")
MIN_QUOTED_WORDS = 4
"""A quoted passage of the source counts when it has at least this many words: a rule
text, an example or a phrase ("without paying its mana cost"). Up to three quoted words
("put", "Token", "bands with other", "already attached to") are words being talked about,
which translations may render as plain text (“put” -> 放置; 与…结合异能)."""


PASSAGE_OPENERS = ("(", "（")
"""Brackets that open a passage; square brackets hold a template's variables ([cost],
[quality], [P/T]), which a translation may restate as words (其返照费用) or merge."""
CITATION = re.compile(r"[(（]\s*(?:see\b|véase\b|参见)[^()（）]*[)）]", re.IGNORECASE)
"""A parenthesised cross reference, "(see 601.2b and 601.2f–h)": a translation may make it
a clause (需依照规则601.2b…); its rule references are checked by PH001."""
CLOSING_QUOTES = "”»」』"
OPENING_QUOTES = "“«「『"


def _brackets(text: str, lang: str, *, source: bool) -> tuple[int, int]:
    """Parenthesised passages and quoted passages (in the source, only long ones and not
    cross references; in the translation, quotation marks typed the wrong way round count
    too: PH003 reports those)."""
    text = LOYALTY_COST.sub("", PLURAL_MARK.sub("", text))
    if source:
        text = CITATION.sub("", text)
    parens = sum(text.count(o) for o in PASSAGE_OPENERS)
    passages = [match.group()[1:-1] for match in QUOTED.finditer(text)]
    if source:
        passages = [p for p in passages if len(words(p, lang)) >= MIN_QUOTED_WORDS]
        return parens, len(passages)
    marks = max(
        sum(text.count(c) for c in OPENING_QUOTES), sum(text.count(c) for c in CLOSING_QUOTES)
    )
    return parens, max(len(passages), marks)


@check("PH002", scope=Scope.PAIR)
def dropped_brackets(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation has fewer parenthesised or quoted passages than the source: a
    reminder, an example or a quoted phrase ("without paying its mana cost") was dropped
    or merged into the sentence. Plural endings such as "target(s)" are not passages, and
    quotes of up to three words ("put", "bands with other") are not counted in the source:
    translations may render a word being talked about as plain text. A card's text line
    may leave out the reminder text of its keywords (printed cards often do). Square
    brackets are a template's variables ([cost]), not passages, and a parenthesised cross
    reference ("(see rule 700.2)") may become a clause: its rule numbers are checked by
    PH001."""
    source_parens, source_quotes = _brackets(pair.source_text, ctx.source_lang, source=True)
    target_parens, target_quotes = _brackets(pair.target.text, pair.lang, source=False)
    lost = {}
    if target_parens < source_parens:
        lost["parentheses"] = (source_parens, target_parens)
    if target_quotes < source_quotes:
        lost["quotations"] = (source_quotes, target_quotes)
    if lost:
        what = " and ".join(f"{n - m} {kind}" for kind, (n, m) in lost.items())
        yield Problem(
            pair.target,
            f"The translation drops {what} of the source.",
            {kind: {"expected": n, "found": m} for kind, (n, m) in lost.items()},
            source=pair.source,
        )


@check("PH003", scope=Scope.RULING)
def unbalanced_brackets(ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    """Brackets or quotation marks that open and never close (or close without opening)
    in a translated ruling."""
    problems = {mark: list(counts) for mark, counts in _unbalanced(ruling.text)}
    if problems:
        marks = set("".join(problems))
        yield Problem(
            ruling,
            "Unbalanced " + ", ".join(problems) + " in this ruling.",
            {"pairs": problems},
            marks=[Mark.target(i, i + 1) for i, char in enumerate(ruling.text) if char in marks],
        )


@lru_cache(maxsize=TEXTS_REMEMBERED)
def _unbalanced(text: str) -> tuple[tuple[str, tuple[int, int]], ...]:
    """(marks, (opening count, closing count)) of the pairs a text does not balance, once
    per text."""
    counts = Counter(PAIRED_MARK.findall(text))
    problems = []
    for opener, closer in OPENERS.items():
        if counts[opener] != counts[closer]:
            problems.append((opener + closer, (counts[opener], counts[closer])))
    for opener, closer in zip(QUOTES_OPEN, QUOTES_CLOSE, strict=True):
        if opener == "‘":
            continue
        if counts[opener] != counts[closer]:
            problems.append((opener + closer, (counts[opener], counts[closer])))
    if counts['"'] % 2:
        problems.append(('"', (counts['"'], counts['"'])))
    return tuple(problems)
