"""Placeholders: symbols, counters, rule references and brackets that must survive."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from ...model import Mark, Ruling
from ...text.tokens import in_source_notation, token_kinds, token_spans, tokens
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..lexicon import words
from ..registry import Problem, check

OPENERS = {"(": ")", "（": "）", "[": "]", "［": "］"}
QUOTES_OPEN = "“«「『‘"
QUOTES_CLOSE = "”»」』’"


@check("PH001", scope=Scope.PAIR)
def dropped_placeholder(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A symbol ({X}, {T}, {1}{G}), a power/toughness change (+1/+1), a power/toughness
    (2/2) or a rule reference (702.62a) of the source is missing from the translation, or
    the translation has one the source does not. These are copied, never translated."""
    source = tokens(in_source_notation(pair.source.text, ctx.source_lang))
    target = tokens(in_source_notation(pair.target.text, pair.lang))
    miscited = ctx.miscited_in_source(pair)["rule-reference"]
    source["rule-reference"] -= miscited
    target["rule-reference"] -= miscited
    for kind in token_kinds():
        missing = source[kind.name] - target[kind.name]
        extra = target[kind.name] - source[kind.name]
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
MIN_QUOTED_WORDS = 3
"""A quoted passage of the source counts when it has at least this many words: a rule
text, an example or a phrase ("without paying its mana cost"). One or two quoted words
("put", "Token") are a word being talked about, which translations may render as plain
text (“put” -> 放置)."""


def _brackets(text: str, lang: str, *, source: bool) -> tuple[int, int]:
    """Parenthesised passages and quoted passages (in the source, only long ones)."""
    text = LOYALTY_COST.sub("", PLURAL_MARK.sub("", text))
    parens = sum(text.count(o) for o in OPENERS)
    passages = [match.group()[1:-1] for match in QUOTED.finditer(text)]
    if source:
        passages = [p for p in passages if len(words(p, lang)) >= MIN_QUOTED_WORDS]
    return parens, len(passages)


@check("PH002", scope=Scope.PAIR)
def dropped_brackets(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation has fewer parenthesised or quoted passages than the source: a
    reminder, an example or a quoted phrase ("without paying its mana cost") was dropped
    or merged into the sentence. Plural endings such as "target(s)" are not passages, and
    quoted words under three words long ("put", "Token") are not counted in the source:
    translations may render a word being talked about as plain text."""
    source_parens, source_quotes = _brackets(pair.source.text, ctx.source_lang, source=True)
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
    counts = Counter(ruling.text)
    problems = {}
    for opener, closer in OPENERS.items():
        if counts[opener] != counts[closer]:
            problems[opener + closer] = [counts[opener], counts[closer]]
    for opener, closer in zip(QUOTES_OPEN, QUOTES_CLOSE, strict=True):
        if opener == "‘":
            continue
        if counts[opener] != counts[closer]:
            problems[opener + closer] = [counts[opener], counts[closer]]
    if counts['"'] % 2:
        problems['"'] = [counts['"'], counts['"']]
    if problems:
        marks = set("".join(problems))
        yield Problem(
            ruling,
            "Unbalanced " + ", ".join(problems) + " in this ruling.",
            {"pairs": problems},
            marks=[Mark.target(i, i + 1) for i, char in enumerate(ruling.text) if char in marks],
        )
