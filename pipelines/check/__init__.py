"""Stage 3: rulings + alignment -> findings, through the check registry.

A check has a scope: ``pair`` (an English source and its translation), ``ruling`` (one
ruling of a translated document), ``document`` (all rulings of one translated document) or
``corpus`` (everything at once, for checks that compare translations with each other).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

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


def run_checks(
    ctx: CheckContext,
    select: Iterable[str] = (),
    ignore: Iterable[str] = (),
    on_progress: Callable[[str], None] | None = None,
) -> list[Finding]:
    findings: list[Finding] = []
    for entry in CHECKS:
        if not selected(entry.name, select, ignore):
            continue
        if on_progress:
            on_progress(entry.name)
        findings.extend(_apply(entry.meta["scope"], entry.target, ctx))
    return findings


def _apply(scope: str, check: Callable, ctx: CheckContext) -> Iterator[Finding]:
    if scope == "pair":
        for pair in ctx.pairs:
            yield from check(pair, ctx)
    elif scope == "ruling":
        for ruling in ctx.translations:
            yield from check(ruling, ctx)
    elif scope == "document":
        for members in ctx.documents.values():
            if members[0].doc_lang and members[0].doc_lang != ctx.source_lang:
                yield from check(members, ctx)
    elif scope == "corpus":
        yield from check(ctx)
    else:
        raise ValueError(f"unknown check scope {scope!r}")
