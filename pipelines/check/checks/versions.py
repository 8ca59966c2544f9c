"""Outdated: a translation that follows an older version of its English source."""

from __future__ import annotations

from collections.abc import Iterator

from ...vocabulary import Scope
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check


@check("OUT001", scope=Scope.PAIR)
def follows_old_version(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The input has a newer, reworded version of the English ruling (a later date), and
    the translation matches the older version better: it was not updated (for example the
    2024 suspend rules change: "you must cast the card if able" became "you may cast it")."""
    newer_id = pair.alignment.superseded_by
    if not newer_id:
        return
    newer = ctx.by_id[newer_id]
    yield Problem(
        pair.target,
        f"This translates the {pair.source.date} version of the ruling; the English was "
        f"reworded on {newer.date}.",
        {
            "translated_version": pair.source.id,
            "translated_date": pair.source.date,
            "current_version": newer.id,
            "current_date": newer.date,
            "current_text": newer.text,
        },
        source=pair.source,
    )
