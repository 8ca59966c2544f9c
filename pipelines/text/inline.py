"""Inline codes of CAT files as they stand in a unit's text: ``<x1/>`` (standalone),
``<g1>`` … ``</g1>`` (paired). Readers write them, the inline-code check compares them, the
XLIFF writer turns them back into markup."""

from __future__ import annotations

import re
from dataclasses import dataclass

STANDALONE_KINDS = ("bpt", "ept", "bx", "ex", "it", "ph", "sc", "ec", "ut", "x")
PAIRED_KINDS = ("mrk", "pc", "g")
INLINE_KINDS = STANDALONE_KINDS + PAIRED_KINDS
"""No kind is a prefix of another, so ``<xph1/>`` reads as kind ``x``, id ``ph1``."""
INLINE_TOKEN = re.compile(
    rf"<(?P<close>/)?(?P<kind>{'|'.join(INLINE_KINDS)})(?P<id>\w+)(?P<empty>/)?>"
)
"""One inline-code token: ``<x1/>`` (standalone), ``<g1>`` (opens), ``</g1>`` (closes)."""
ID_CHARS = re.compile(r"[^A-Za-z0-9_]")


def code_id(value: str | None, fallback: int) -> str:
    """An inline code's id as a token writes it (the n-th of its kind when it has none)."""
    cleaned = ID_CHARS.sub("_", value or "")
    return cleaned or str(fallback)


def standalone(kind: str, ident: str) -> str:
    return f"<{kind}{ident}/>"


def opening(kind: str, ident: str) -> str:
    return f"<{kind}{ident}>"


def closing(kind: str, ident: str) -> str:
    return f"</{kind}{ident}>"


@dataclass(frozen=True, slots=True)
class InlineCode:
    kind: str
    ident: str
    role: str
    """``open``, ``close`` or ``standalone``."""
    start: int
    end: int

    @property
    def token(self) -> str:
        return {"open": opening, "close": closing}.get(self.role, standalone)(self.kind, self.ident)


def inline_codes(text: str) -> list[InlineCode]:
    """The inline-code tokens of a text, in order."""
    found = []
    for match in INLINE_TOKEN.finditer(text):
        kind = match["kind"]
        if match["close"] and kind in PAIRED_KINDS and not match["empty"]:
            role = "close"
        elif match["empty"] and not match["close"]:
            role = "standalone"
        elif not match["close"] and not match["empty"] and kind in PAIRED_KINDS:
            role = "open"
        else:
            continue
        found.append(InlineCode(kind, match["id"], role, match.start(), match.end()))
    return found
