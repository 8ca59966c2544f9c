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
    source belongs to. A citation without a title is the source's error when the rule the
    translation cites is about what the citation is about and the source's is not ("If a
    Magic subgame (see rule 724) is restarted", where 724 is Restarting the Game and the
    translation cites 726, Subgames): the words right before the citation decide, else the
    whole sentence's, matched against each rule's title, its section's title and the start
    of its text."""
    titles = ctx.rule_headings.get(pair.source.doc, {})
    for ours, theirs in ctx.miscitations(pair):
        cited, meant = _title(titles, ours.number), _title(titles, theirs.number)
        if ours.title:
            message = (
                f"The source cites rule {ours.number} as \u201c{ours.title}\u201d, which is rule "
                f"{theirs.number} (as the {pair.lang} translation cites it)."
            )
        else:
            message = (
                f"The source cites rule {ours.number}{cited} where it means rule "
                f"{theirs.number}{meant}, as the {pair.lang} translation cites it."
            )
        yield Problem(
            pair.source,
            message,
            {
                "expected": theirs.number,
                "found": ours.number,
                "title": ours.title or None,
                "found_title": titles.get(_section(ours.number)),
                "expected_title": titles.get(_section(theirs.number)),
                "translation": pair.target.id,
            },
            marks=[Mark.target(ours.start, ours.end, Role.WRONG)],
        )


def _section(number: str) -> str:
    return number.split(".")[0]


def _title(titles: dict[str, str], number: str) -> str:
    """ " (Subgames)" for a rule of the section titled so, else nothing."""
    title = titles.get(number) or titles.get(_section(number))
    return f" ({title})" if title else ""
