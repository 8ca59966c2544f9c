"""Stage 3: rulings + alignment -> findings, through the check registry.

A check has a scope: ``pair`` (an English source and its translation), ``ruling`` (one
ruling of a translated document), ``document`` (all rulings of one translated document) or
``corpus`` (everything at once, for checks that compare translations with each other).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..engine import Engine
from ..engine.local import LocalEngine
from ..model import Finding
from ..rules import RULES
from .context import CheckContext
from .registry import CHECKS

__all__ = ["CheckContext", "run_checks", "selected"]


def selected(code: str, select: Iterable[str], ignore: Iterable[str]) -> bool:
    """Whether a finding code passes --select/--ignore (codes, code prefixes or categories)."""
    category = RULES[code].category if code in RULES else ""

    def matches(patterns: Iterable[str]) -> bool:
        return any(code.startswith(p) or category == p for p in patterns)

    select, ignore = list(select), list(ignore)
    return (not select or matches(select)) and not matches(ignore)


ITEMS_PER_TASK = 5000
"""Pairs, rulings or documents per check task on a distributed engine."""


def run_checks(
    ctx: CheckContext,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    on_progress: Callable[[str], None] | None = None,
    engine: Engine | None = None,
) -> list[Finding]:
    """Every selected check, in registry order. The pair, ruling and document checks run
    in tasks over chunks of their items, partitioned by card and rules section (one task per
    chunk runs all checks of a scope); corpus checks run here, since they compare across
    the whole corpus."""
    engine = engine or LocalEngine()
    _CONTEXTS.clear()
    _CONTEXTS[_context_key(ctx.rulings, ctx.alignment, ctx.termbase, ctx.cards)] = ctx
    codes = [entry.name for entry in CHECKS if selected(entry.name, select, ignore)]
    by_code: dict[str, list[Finding]] = {code: [] for code in codes}
    shared = {
        "rulings": ctx.rulings,
        "alignment": ctx.alignment,
        "termbase": ctx.termbase,
        "cards": ctx.cards,
        "source_lang": ctx.source_lang,
    }
    for scope in ("pair", "ruling", "document"):
        scoped = [code for code in codes if CHECKS[code].meta["scope"] == scope]
        if not scoped:
            continue
        keys = [document_of(item) for item in scope_items(ctx, scope)]
        chunks = [(scope, scoped, start, end) for start, end in chunk_bounds(keys)]
        for found in engine.map(check_chunk, chunks, shared=shared):
            for code, findings in found.items():
                by_code[code].extend(findings)
        if on_progress:
            for code in scoped:
                on_progress(code)
    for code in codes:
        if CHECKS[code].meta["scope"] == "corpus":
            by_code[code].extend(CHECKS[code].target(ctx))
            if on_progress:
                on_progress(code)
    _CONTEXTS.clear()
    return [finding for code in codes for finding in by_code[code]]


def scope_items(ctx: CheckContext, scope: str) -> list:
    """What a check of a scope is called with, in a fixed order."""
    if scope == "pair":
        return ctx.pairs
    if scope == "ruling":
        return ctx.translations
    if scope == "document":
        return [
            members
            for members in ctx.documents.values()
            if members[0].doc_lang and members[0].doc_lang != ctx.source_lang
        ]
    raise ValueError(f"unknown check scope {scope!r}")


def document_of(item: Any) -> str:
    """The card or rules-section document an item of any scope belongs to."""
    if isinstance(item, list):
        return item[0].doc
    return getattr(item, "target", item).doc


def chunk_bounds(keys: list[str], size: int = ITEMS_PER_TASK) -> list[tuple[int, int]]:
    """Slices of about ``size`` items that end where the document changes, so that the
    items of one card or rules section go to one task."""
    bounds, start = [], 0
    while start < len(keys):
        end = min(start + size, len(keys))
        while end < len(keys) and keys[end] == keys[end - 1]:
            end += 1
        bounds.append((start, end))
        start = end
    return bounds


_CONTEXTS: dict[tuple[int, ...], CheckContext] = {}
"""The check context of this process's current run (its caches serve every task)."""


def _context_key(*parts: Any) -> tuple[int, ...]:
    return tuple(map(id, parts))


def check_chunk(
    chunk: tuple[str, list[str], int, int],
    rulings: list,
    alignment: list,
    termbase: Any,
    cards: Any,
    source_lang: str,
) -> dict[str, list[Finding]]:
    """Run the checks of one scope on a slice of its items (one task of ``run_checks``)."""
    scope, codes, start, end = chunk
    key = _context_key(rulings, alignment, termbase, cards)
    if key not in _CONTEXTS:
        _CONTEXTS.clear()
        _CONTEXTS[key] = CheckContext(rulings, alignment, termbase, cards, source_lang)
    ctx = _CONTEXTS[key]
    items = scope_items(ctx, scope)[start:end]
    found: dict[str, list[Finding]] = {}
    for code in codes:
        check = CHECKS[code].target
        found[code] = [finding for item in items for finding in check(item, ctx)]
    return found
