"""Outdated: a translation of an older version of its English (an older ruling, an older
release of the rules) that the current English changed."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from operator import attrgetter

from ...model import Alignment, Ruling
from ...text.diff import diff_text, word_diff
from ...vocabulary import Method, Release, Scope
from ..context import AlignedPair, CheckContext
from ..registry import Problem, check, corpus_fact
from .meaning import meaning_differs
from .numbers import changed_number
from .placeholders import dropped_brackets, dropped_placeholder
from .terminology import missing_term

DISAGREEMENTS = (
    changed_number,
    dropped_placeholder,
    dropped_brackets,
    meaning_differs,
    missing_term,
)
"""The checks whose findings, on a translation of an older release read against the
current English alone, may be the English's own update rather than a translation error."""


def _name(unit: Ruling) -> str:
    return f"rule {unit.section}" if unit.section else f"the {unit.kind}"


@check("OUT001", scope=Scope.PAIR)
def follows_old_version(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The input has a newer, reworded version of the English the translation follows (a
    ruling with a later date, or the unit of a later release of the rules), and the
    translation matches the older one: it was not updated (for example the 2024 suspend
    rules change: "you must cast the card if able" became "you may cast it"). The evidence
    has the English change as a word diff and the current English to translate."""
    newer_id = pair.alignment.superseded_by
    if not newer_id:
        return
    newer = ctx.by_id[newer_id]
    changes = word_diff(pair.source.text, newer.text)
    if pair.alignment.release == Release.REWORDED:
        moved = f" ({_name(newer)} now)" if newer.section != pair.source.section else ""
        message = (
            f"The English of {_name(pair.source)} was reworded in the {newer.doc_version} "
            f"release{moved}; this translates the {pair.source.doc_version} text: "
            f"{diff_text(changes)}"
        )
    else:
        message = (
            f"This translates the {pair.source.date} version of the ruling; the English was "
            f"reworded on {newer.date}: {diff_text(changes)}"
        )
    yield Problem(
        pair.target,
        message,
        {
            "translated_version": pair.source.id,
            "translated_date": pair.source.doc_version or pair.source.date,
            "current_version": newer.id,
            "current_date": newer.doc_version or newer.date,
            "current_section": newer.section,
            "current_text": newer.text,
            "changes": changes,
        },
        source=pair.source,
    )


@check("OUT003", scope=Scope.PAIR)
def removed_from_current_release(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """The translation follows an English unit that the current release of the rules (in
    the input) no longer has: the rule was deleted or merged into another one, so this
    translation should go (or be replaced by the translation of its new place)."""
    if pair.alignment.release != Release.REMOVED:
        return
    current = _current_release(ctx, pair.alignment.group)
    yield Problem(
        pair.target,
        f"The {current or 'current'} release of the rules no longer has "
        f"{_name(pair.source)} of the {pair.source.doc_version} release that this translates.",
        {"translated_version": pair.source.id, "current_release": current},
        source=pair.source,
    )


@check("OUT004", scope=Scope.PAIR, every_run=True)  # MEAN001 among its disagreements
def probable_update(pair: AlignedPair, ctx: CheckContext) -> Iterator[Problem]:
    """A translation of an older release of the rules (by its own date line), read against
    a newer English release alone (the English it translated is not in the input), that
    disagrees with that English in its numbers, symbols, terms or meaning: the English may
    have changed since (then the unit needs updating) or the translation is wrong; on the
    2022 Chinese rules against the 2023 English, 75% of these units had English that
    changed, and half of the changed units got one (benchmarks/results/releases.md). The
    disagreements are folded under this finding. Add the English of the translation's
    release to get exact diffs instead."""
    older, newer = pair.target.doc_version, pair.source.doc_version
    if not older or not newer or older >= newer or pair.alignment.release:
        return
    found = [problem for function in DISAGREEMENTS for problem in function(pair, ctx)]
    if not found:
        return
    yield Problem(
        pair.target,
        f"This translation of the {older} release differs from the {newer} English, the "
        "only English in the input: the English may have changed since (add the "
        f"{older} English to know), or the translation is wrong. "
        + "; ".join(problem.message for problem in found[:3]),
        {
            "translated_release": older,
            "current_release": newer,
            "current_text": pair.source.text,
            "differences": [problem.message for problem in found],
        },
        source=pair.source,
    )


@check("OUT002", scope=Scope.CORPUS)
def release_summary(ctx: CheckContext) -> Iterator[Problem]:
    """Once per translated rules document that translates an older release than the
    current English in the input: which release it translates, which is current, and how
    many of its units are to update, new in the English, removed from it, or unchanged.
    With only the current English in the input, the counts are of units missing, without
    English and aligned (OUT004 tells which aligned ones probably need an update). Dates of
    single units are then not reported one by one."""
    for (group, _lang), rows in sorted(_rows_by_document(ctx).items()):
        targets = sorted(
            (ctx.by_id[row.target_id] for row in rows if row.target_id), key=lambda r: r.position
        )
        translated = targets[0].doc_version if targets else None
        current = _current_release(ctx, group)
        if not translated or not current or translated >= current:
            continue
        counts = Counter(_state(row) for row in rows)
        if any(row.release for row in rows):
            counts["unchanged"] = counts.pop("aligned", 0)
            keys = ("to update", "new", "removed", "unchanged", "missing", "without English")
        else:
            keys = ("missing", "without English", "aligned")
        keys = tuple(key for key in keys if counts[key] or key in keys[:4])
        summary = ", ".join(f"{counts[key]} {key}" for key in keys)
        yield Problem(
            targets[0],
            f"This translates the {translated} release of the rules; the current English in "
            f"the input is the {current} release: {summary}.",
            {
                "translated_release": translated,
                "current_release": current,
                **{key.replace(" ", "_"): counts[key] for key in keys},
            },
            document=targets,
        )


def _rows_by_document(ctx: CheckContext) -> dict[tuple[str, str], list[Alignment]]:
    """Rows of rules documents' translations, by (source document, language)."""
    rows: dict[tuple[str, str], list[Alignment]] = defaultdict(list)
    for row in ctx.alignment:
        source = ctx.by_id.get(row.source_id) if row.source_id else None
        if row.group and row.lang and (source is None or source.doc_version):
            rows[(row.group, row.lang)].append(row)
    return rows


def _current_release(ctx: CheckContext, group: str | None) -> str | None:
    """The newest release of the English the rows of ``group`` were read against."""
    return _newest_releases(ctx).get(group)


_DOC_VERSION = attrgetter("doc_version")


@corpus_fact
def _newest_releases(ctx: CheckContext) -> dict[str, str]:
    newest: dict[str, str] = {}
    if not any(map(_DOC_VERSION, ctx.rulings)):
        return newest  # no release in the run (looked at in one C loop: no row to walk)
    by_id = ctx.by_id
    for row in ctx.alignment:
        group = row.group
        for unit_id in (row.source_id, row.superseded_by):
            if unit_id:
                version = by_id[unit_id].doc_version
                if group and version:
                    newest[group] = max(newest.get(group, version), version)
    return newest


def _state(row: Alignment) -> str:
    if row.release:
        return {Release.NEW: "new", Release.REMOVED: "removed", Release.REWORDED: "to update"}[
            Release(row.release)
        ]
    if row.method == Method.NO_TRANSLATION:
        return "missing"
    if row.method in (Method.NO_SOURCE, Method.UNTRANSLATED) or not row.source_id:
        return "without English"
    return "aligned"
