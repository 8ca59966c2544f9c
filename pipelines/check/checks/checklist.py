"""The team's checklist rules (``checklists.py``), run as checks of their own codes: a rule
that reads the source is a pair check, one that reads only the translation a ruling check."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from ...checklists import Hit, Rule, hits, message
from ...model import Mark, Ruling
from ...registry import Entry
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..registry import Problem, run_checks_from


@run_checks_from
def checklist_checks(ctx: CheckContext) -> list[Entry]:
    """One check per rule of the run's checklist, in the checklist's order."""
    entries = []
    for rule in ctx.checklist.rules:
        if rule.reads_source:
            function = functools.partial(_pair_rule, rule)
            scope = Scope.PAIR
        else:
            function = functools.partial(_ruling_rule, rule)
            scope = Scope.RULING
        function.__doc__ = rule.explanation()
        entries.append(Entry(rule.code, function, {"scope": scope}))
    return entries


def _pair_rule(rule: Rule, pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    if not rule.applies_to(pair.lang) or pair.lang == ctx.source_lang:
        return
    for hit in hits(rule, pair.source.text, pair.target.text):
        yield _problem(rule, hit, pair.target, pair.source)


def _ruling_rule(rule: Rule, ruling: Ruling, ctx: CheckContext) -> Iterator[Problem]:
    lang = ruling.lang or ""
    if not lang or lang == ctx.source_lang or not rule.applies_to(lang):
        return
    for hit in hits(rule, None, ruling.text):
        yield _problem(rule, hit, ruling, None)


def _problem(rule: Rule, hit: Hit, target: Ruling, source: Ruling | None) -> Problem:
    marks = []
    if hit.source_span is not None:
        role = Role.TERM if hit.target_span is not None else Role.MISSING
        marks.append(Mark.source(*hit.source_span, role))
    if hit.target_span is not None:
        marks.append(Mark.target(*hit.target_span, Role.WRONG))
    return Problem(target, message(rule, hit), hit.evidence, source=source, marks=marks)
