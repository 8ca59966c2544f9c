"""Inline codes and placeholders of CAT files: tags and format placeholders must survive."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...bounded import TEXTS_REMEMBERED
from ...model import Mark
from ...text.inline import inline_codes
from ...vocabulary import Role, Scope, Severity
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check

PRINTF = re.compile(
    r"(?<!%)%(?:(?P<position>\d+\$)|\((?P<name>[\w.]+)\))?[-+#0]*\d*(?:\.\d+)?[sdifuxXoeEgGc@]"
)
"""printf-style placeholders: %s, %d, %1$s, %(count)d (not "50 %" or "%%")."""
NAMED_BRACE = re.compile(r"\{[A-Za-z_][\w.]{8,}\}")
"""Named brace placeholders too long to be a symbol ({card_name}); shorter ones ({0}, {X})
are symbols to the placeholder check (PH001)."""


@dataclass(frozen=True, slots=True)
class Placeholder:
    token: str
    start: int
    end: int
    ordered: bool
    """Whether its position among the others carries meaning (%s, %d: the n-th argument)."""
    role: str = "standalone"
    """``open``, ``close`` or ``standalone`` for an inline code, ``text`` for a placeholder
    written in the text."""
    key: str = ""
    """For a paired code: what pairs its opening and closing tokens."""


@lru_cache(maxsize=TEXTS_REMEMBERED)
def placeholders(text: str) -> tuple[Placeholder, ...]:
    """Inline-code tokens and format placeholders of a text, in order (once per text)."""
    found = [
        Placeholder(code.token, code.start, code.end, False, code.role, code.kind + code.ident)
        for code in inline_codes(text)
    ]
    for match in PRINTF.finditer(text):
        positional = bool(match["position"] or match["name"])
        found.append(Placeholder(match.group(), match.start(), match.end(), not positional, "text"))
    for match in NAMED_BRACE.finditer(text):
        found.append(Placeholder(match.group(), match.start(), match.end(), False, "text"))
    return tuple(sorted(found, key=lambda p: p.start))


def nesting_problem(codes: Sequence[Placeholder]) -> str | None:
    """What is wrong with how paired codes open and close, or None."""
    stack: list[str] = []
    for code in codes:
        if code.role == "open":
            stack.append(code.key)
        elif code.role == "close":
            if not stack or stack[-1] != code.key:
                return f"{code.token} closes a tag that is not the last one open"
            stack.pop()
    return f"<{stack[-1]}> is never closed" if stack else None


@check("PH004", scope=Scope.PAIR)
def inline_code_changed(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """An inline code of a CAT file (a formatting tag such as <g1>…</g1>, a standalone
    code such as <x2/> or <ph3/>, as the XLIFF, TMX and PO readers write them) or a format
    placeholder (%s, %1$d, %(count)d, {card_name}) of the source is missing from the
    translation, or the translation adds one: the CAT tool cannot rebuild the formatting,
    or the program shows the wrong value. The order counts where it carries meaning: tags
    that no longer nest (a closing tag before its opening one) and %s-style placeholders
    in another order (the n-th argument fills the n-th one) are errors; tags that only move
    with the word order are reported as infos to look at. Symbols such as {X} and {0} are
    the placeholder check's (PH001)."""
    source, target = placeholders(pair.source.text), placeholders(pair.target.text)
    if not source and not target:
        return
    expected = Counter(p.token for p in source)
    found = Counter(p.token for p in target)
    missing, extra = expected - found, found - expected
    evidence = {
        "expected": [p.token for p in source],
        "found": [p.token for p in target],
    }
    if missing or extra:
        parts = []
        if missing:
            parts.append("lacks " + ", ".join(sorted(missing.elements())))
        if extra:
            parts.append("adds " + ", ".join(sorted(extra.elements())))
        yield Problem(
            pair.target,
            f"The translation {' and '.join(parts)} (inline codes and placeholders).",
            {**evidence, "missing": sorted(missing.elements()), "extra": sorted(extra.elements())},
            source=pair.source,
            marks=_marks(source, missing, Mark.source, Role.MISSING)
            + _marks(target, extra, Mark.target, Role.EXTRA),
        )
        return
    broken = nesting_problem(target) if not nesting_problem(source) else None
    arguments = [p.token for p in source if p.ordered], [p.token for p in target if p.ordered]
    if broken:
        message, severity = f"The translation's tags do not nest: {broken}.", Severity.ERROR
    elif arguments[0] != arguments[1]:
        message = (
            "The translation has the placeholders "
            f"{', '.join(arguments[0])} in another order ({', '.join(arguments[1])}): each "
            "is filled with the argument of its position."
        )
        severity = Severity.ERROR
    elif [p.token for p in source if p.role != "text"] != [
        p.token for p in target if p.role != "text"
    ]:
        message = "The translation has the inline codes in another order; check that each "
        message += "still encloses or follows the right words."
        severity = Severity.INFO
    else:
        return
    yield Problem(
        pair.target,
        message,
        {**evidence, "order": True},
        source=pair.source,
        marks=[Mark.target(p.start, p.end, Role.CHANGED) for p in target],
        severity=str(severity),
    )


def _marks(items: Sequence[Placeholder], wanted: Counter[str], make, role: Role) -> list[Mark]:
    left = Counter(wanted)
    marks = []
    for item in items:
        if left[item.token] > 0:
            left[item.token] -= 1
            marks.append(make(item.start, item.end, role))
    return marks
