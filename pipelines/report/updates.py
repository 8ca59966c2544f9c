"""The update list: what a translator must redo after the English changed, one row per unit.

Rows come from the alignment (a reworded English unit, a unit the current release removed
or added, a card ruling with a newer English version) and from OUT004 findings (a
translation of an older release that disagrees with the only, newer English). They are
ordered by translated document and rule number (or card), so a translator works through
them from top to bottom. The CSV, the workbook sheet and the HTML section all show these
rows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import msgspec

from ..model import Alignment, Ruling, id_order
from ..tables import RunTables
from ..text.diff import diff_text, word_diff
from ..vocabulary import Method, Release
from ..work import Job, execute, kind, no_cache
from . import computed_before_fork, rulings_by_id, shared
from .kept_rows import PreviousReports

COLUMNS = (
    "document",
    "lang",
    "rule",
    "old_rule",
    "status",
    "old_english",
    "current_english",
    "changes",
    "translation",
    "translation_id",
    "english_id",
)
STATUS = {
    Release.REWORDED: "update: the English was reworded",
    Release.NEW: "translate: new in the English",
    Release.REMOVED: "remove: no longer in the English",
}
PROBABLE = "check: probably changed in the English"
Runs = tuple[tuple[str, str, str], ...]


@dataclass(frozen=True, slots=True)
class UpdateRow:
    document: str
    lang: str
    rule: str
    old_rule: str
    status: str
    old_english: str
    current_english: str
    changes: str
    """The English change as one line, [-removed-]{+added+}."""
    translation: str
    translation_id: str
    english_id: str
    runs: tuple[tuple[str, str, str], ...] = ()
    """The same change as (op, old, new) runs, for rendering."""

    def cells(self) -> list[str]:
        return [getattr(self, name) for name in COLUMNS]


def update_rows(run: RunTables) -> list[UpdateRow]:
    """The update list (shared by the writers of one report: the CSV, the workbook sheet and
    the HTML section show the same rows)."""
    return shared(run, _update_rows)


@computed_before_fork
def _update_rows(run: RunTables) -> list[UpdateRow]:
    by_id = rulings_by_id(run)
    listed: list[tuple[Alignment, str, Ruling | None, Ruling | None, Ruling | None]] = []
    removed, new_release, no_translation = Release.REMOVED, Release.NEW, Method.NO_TRANSLATION
    for row in run.alignment:
        if row.superseded_by and row.source_id and row.target_id:
            old, new, target = by_id[row.source_id], by_id[row.superseded_by], by_id[row.target_id]
            status = STATUS[Release.REWORDED]
        elif not row.release:
            continue  # most rows: the current release's
        elif row.release == removed and row.source_id and row.target_id:
            old, new, target = by_id[row.source_id], None, by_id[row.target_id]
            status = STATUS[Release.REMOVED]
        elif row.release == new_release and row.source_id and row.method == no_translation:
            old, new, target = None, by_id[row.source_id], None
            status = STATUS[Release.NEW]
        else:
            continue
        listed.append((row, status, old, new, target))
    translations = _translations(run, {(row.group, row.lang) for row, *_, t in listed if not t})
    diffs = _diffs(
        [(old.text, new.text) for _, _, old, new, _ in listed if old and new], run.previous
    )
    rows: list[tuple[tuple, UpdateRow]] = []
    for row, status, old, new, target in listed:
        document = target.doc if target else translations.get((row.group, row.lang), row.group)
        update = _row(document, row.lang, status, old, new, target, diffs)
        rows.append(((document, id_order(update.rule)), update))
    for finding in run.findings:
        if finding.code == "OUT004" and finding.ruling_id and finding.source_id:
            target, new = by_id[finding.ruling_id], by_id[finding.source_id]
            row = _row(target.doc, finding.lang, PROBABLE, None, new, target, diffs)
            changes = "; ".join(finding.evidence.get("differences", []))
            rows.append(((target.doc, id_order(row.rule)), replace(row, changes=changes)))
    rows.sort(key=lambda item: item[0])
    return [row for _, row in rows]


def _translations(run: RunTables, wanted: set[tuple[str | None, str | None]]) -> dict:
    """The document of the last translation aligned in each (group, language) of ``wanted``
    (where a new English ruling with no translation is listed): looked up only for those,
    not for every row of the alignment (0.5 s of an edited million-unit run)."""
    if not wanted:
        return {}
    by_id = rulings_by_id(run)
    return {
        key: by_id[row.target_id].doc
        for row in run.alignment
        if row.target_id and (key := (row.group, row.lang)) in wanted
    }


def _row(document, lang, status, old, new, target, diffs) -> UpdateRow:
    runs, changes = diffs[(old.text, new.text)] if old and new else ((), "")
    english = new or old
    return UpdateRow(
        document=document,
        lang=lang or "",
        rule=english.section or english.card or "",
        old_rule=(old.section or "") if old and new and old.section != new.section else "",
        status=status,
        old_english=old.text if old else "",
        current_english=new.text if new else "",
        changes=changes,
        translation=target.text if target else "",
        translation_id=target.id if target else "",
        english_id=english.id,
        runs=runs,
    )


def _compared(old: str, new: str) -> tuple[Runs, str]:
    runs = word_diff(old, new)
    line = diff_text(runs) if runs else ""
    return tuple((run["op"], run["old"], run["new"]) for run in runs), line


class KeptDiff(msgspec.Struct, array_like=True):
    """A word diff kept in the work store (kind ``report-diffs``)."""

    runs: list[tuple[str, str, str]]
    line: str


DIFFS = kind("report-diffs", "English changes compared", KeptDiff, version="1", share=False)
"""The word diff of two versions of an English text, keyed by the two texts: the million-unit
corpus's update list compares 5,423 pairs, 5.8 s of every run's report, and they change
only with the English. Bump ``version`` when ``word_diff`` or ``diff_text`` changes."""


def _diffs(
    pairs: list[tuple[str, str]], previous: PreviousReports | None
) -> dict[tuple[str, str], tuple[Runs, str]]:
    """The word diff of each pair of English texts, as (op, old, new) runs and as one line,
    once per pair (a reworded English unit has a row for each language it is translated
    into): those the work store of the folder the run replaces keeps, the others compared
    and kept there (without one, all compared)."""
    work = previous.cache if previous is not None else no_cache()
    texts = list(dict.fromkeys(pairs))
    keys = [work.key(DIFFS, list(pair)) for pair in texts]
    [found] = execute([Job(DIFFS, keys, items=texts, size=256)], _compare_all, cache=work)
    return {pair: (tuple(kept.runs), kept.line) for pair, kept in zip(texts, found, strict=True)}


def _compare_all(pairs: list[tuple[str, str]]) -> list[KeptDiff]:
    return [KeptDiff(list(runs), line) for runs, line in (_compared(*pair) for pair in pairs)]
