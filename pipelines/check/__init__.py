"""Stage 3: rulings + alignment -> findings, through the check registry.

A check has a scope: ``pair`` (an English source and its translation), ``ruling`` (one
ruling of a translated document), ``document`` (all rulings of one translated document) or
``corpus`` (everything at once, for checks that compare translations with each other). The
runner calls each selected check on the items of its scope, in tasks of about
``ITEMS_PER_TASK`` items cut where a card or rules document ends, and turns the problems the
checks yield into findings of their codes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..catalogue import CATALOGUE, make_finding
from ..engine import Engine
from ..engine.local import LocalEngine
from ..model import Finding
from ..vocabulary import Scope
from .context import AlignedPair, CheckContext
from .registry import CHECKS, Problem

__all__ = ["AlignedPair", "CheckContext", "Problem", "run_checks", "selected"]

ITEMS_PER_TASK = 5000
"""Pairs, rulings or documents per check task."""


def selected(code: str, select: Iterable[str], ignore: Iterable[str]) -> bool:
    """Whether a finding code passes --select/--ignore (codes, code prefixes or categories,
    any case). Codes that are off by default run only when --select names them."""
    row = CATALOGUE.get(code)
    category = str(row.category) if row else ""

    def matches(patterns: Iterable[str]) -> bool:
        return any(code.startswith(p.upper()) or category == p.lower() for p in patterns)

    select, ignore = list(select), list(ignore)
    if matches(ignore):
        return False
    if select:
        return matches(select)
    return row is None or row.default


def run_checks(
    ctx: CheckContext,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    engine: Engine | None = None,
) -> list[Finding]:
    """Every selected check, findings in registry order. ``ctx`` gives the tables; each
    worker of the engine builds its own context from them once."""
    engine = engine or LocalEngine()
    codes = [entry.name for entry in CHECKS if selected(entry.name, select, ignore)]
    tasks: list[tuple[str, tuple[str, ...], int, int]] = []
    for scope in Scope:
        scoped = tuple(code for code in codes if CHECKS[code].meta["scope"] == scope)
        if not scoped:
            continue
        if scope == Scope.CORPUS:
            tasks.extend((scope, (code,), 0, 1) for code in scoped)
            continue
        keys = [document_of(item) for item in scope_items(ctx, scope)]
        tasks.extend((scope, scoped, start, end) for start, end in chunk_bounds(keys))
    shared = {
        "rulings": ctx.rulings,
        "alignment": ctx.alignment,
        "termbase": ctx.termbase,
        "cards": ctx.cards,
        "source_lang": ctx.source_lang,
    }
    by_code: dict[str, list[Finding]] = {code: [] for code in codes}
    for found in engine.map(check_task, tasks, shared=shared, setup=CheckContext):
        for code, findings in found.items():
            by_code[code].extend(findings)
    return [finding for code in codes for finding in by_code[code]]


def scope_items(ctx: CheckContext, scope: Scope) -> list:
    """What a check of a scope is called with, in a fixed order."""
    if scope == Scope.PAIR:
        return ctx.pairs
    if scope == Scope.RULING:
        return ctx.translations
    if scope == Scope.DOCUMENT:
        return ctx.translated_documents
    raise ValueError(f"{scope} checks take the whole context")


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


def check_task(task: tuple[str, tuple[str, ...], int, int], ctx: CheckContext) -> dict:
    """Run the checks of one scope on a slice of its items (one task of ``run_checks``)."""
    scope, codes, start, end = task
    found: dict[str, list[Finding]] = {}
    if scope == Scope.CORPUS:
        [code] = codes
        problems = CHECKS[code].target(ctx)
        found[code] = [to_finding(code, problem, ctx) for problem in problems]
        return found
    items = scope_items(ctx, Scope(scope))[start:end]
    for code in codes:
        check = CHECKS[code].target
        found[code] = [
            to_finding(code, problem, ctx) for item in items for problem in check(item, ctx)
        ]
    return found


def to_finding(code: str, problem: Problem, ctx: CheckContext) -> Finding:
    """A finding of ``code`` at the problem's unit (or at its document's first unit)."""
    if problem.document is not None:
        first = min(problem.document, key=lambda r: (r.line or 0, r.position))
        return make_finding(
            code,
            problem.message,
            file=first.file,
            line=first.line,
            lang=problem.lang or first.doc_lang,
            card=first.card,
            evidence=problem.evidence,
            marks=problem.marks,
            severity=problem.severity,
            anchor=first.doc,
        )
    ruling = problem.ruling
    lang = problem.lang
    if lang is None:
        lang = ruling.lang if ruling.lang != ctx.source_lang else ruling.doc_lang
    return make_finding(
        code,
        problem.message,
        file=ruling.file,
        line=ruling.line,
        lang=lang,
        ruling_id=ruling.id,
        source_id=problem.source.id if problem.source else None,
        card=ruling.card,
        section=ruling.section,
        evidence=problem.evidence,
        marks=problem.marks,
        severity=problem.severity,
        anchor=ruling.text,
    )
