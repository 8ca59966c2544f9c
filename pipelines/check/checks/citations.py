"""Citations of rules: the source cites a rule by the wrong number (the translation is right)."""

from __future__ import annotations

from collections.abc import Iterator

from ...model import Mark
from ...vocabulary import Role, Scope
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check


@check("SRC001", scope=Scope.PAIR)
def source_cites_wrong_rule(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The English source cites a rule whose number does not go with the title it quotes,
    and the translation cites the rule that has that title: the error is in the source
    ("See rule 727, “Handling Illegal Actions”" where rule 728 is Handling Illegal Actions
    and the translation cites 728). It is reported on the source unit, and the translation
    is not asked to copy the wrong number. Titles are looked up in the rules document the
    source belongs to."""
    for ours, theirs in ctx.miscitations(pair):
        yield Problem(
            pair.source,
            f"The source cites rule {ours.number} as \u201c{ours.title}\u201d, which is rule "
            f"{theirs.number} (as the {pair.lang} translation cites it).",
            {
                "expected": theirs.number,
                "found": ours.number,
                "title": ours.title,
                "translation": pair.target.id,
            },
            marks=[Mark.target(ours.start, ours.end, Role.WRONG)],
        )
