"""A bad and a good example of every check (``resources/check_examples.toml``): the units a
check fires on and the corrected ones it stays quiet on. ``tests/test_examples.py`` runs
every example through its check, so they stay true; ``rulings rules CODE`` prints them with
the check's documentation.

An example is a list of units. A unit has a ``target`` (the translation; ``text_lang`` when
its text is in another language than ``lang``, the document's, default ``es``) and the
``source`` it translates (English), or only one of them: a source alone is an English unit
the translation lacks (``method = "no-translation"``), a target alone a translation with no
English (``no-source``). Optional: ``doc`` and ``source_doc`` (document names), ``card``,
``section``, ``date`` and ``source_date``, ``version`` and ``source_version`` (release
dates), ``format``, ``kind``, ``spans``; of the alignment row: ``method``, ``similarity``,
``family`` (units with the same family translate one English ruling), ``superseded_by``
and ``better_source`` (the ``name`` of a unit whose source is meant), ``better_similarity``
and ``release``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..cards import CardIndex
from ..catalogue import CATALOGUE, explanation, lookup, quality
from ..checklists import Checklist
from ..model import Alignment, Finding, Ruling
from ..resources import resource_path
from ..termbase import Termbase
from .context import CheckContext

EXAMPLES = "check_examples.toml"
UNIT_KEYS = frozenset(
    {"name", "source", "target", "lang", "text_lang", "doc", "source_doc", "card", "section"}
    | {"date", "source_date", "version", "source_version", "format", "kind", "spans"}
    | {"method", "similarity", "family", "superseded_by", "better_source"}
    | {"better_similarity", "release", "source_lang_doc"}
)


@dataclass(frozen=True)
class Example:
    code: str
    bad: tuple[dict[str, Any], ...]
    good: tuple[dict[str, Any], ...]
    note: str = ""
    """What the pair of examples shows, when the texts do not say it."""


@cache
def examples() -> dict[str, Example]:
    """Every check's example, by code (as the shipped file gives them)."""
    data = tomllib.loads(resource_path(EXAMPLES).read_text(encoding="utf-8"))
    found = {}
    for code, entry in data.items():
        for side in ("bad", "good"):
            for unit in entry.get(side, []):
                unknown = set(unit) - UNIT_KEYS
                if unknown:
                    raise ValueError(f"{EXAMPLES}: {code}.{side}: unknown keys {sorted(unknown)}")
        found[code] = Example(
            code,
            tuple(entry.get("bad", [])),
            tuple(entry.get("good", [])),
            " ".join(entry.get("note", "").split()),
        )
    return found


def context_of(
    units: tuple[dict[str, Any], ...] | list[dict[str, Any]],
    termbase: Termbase,
    cards: CardIndex,
    checklist: Checklist | None = None,
) -> CheckContext:
    """A check context holding the example's units, as ingest and align would give them."""
    rulings: list[Ruling] = []
    rows: list[Alignment] = []
    named: dict[str, tuple[Ruling | None, Ruling | None]] = {}
    lines: dict[str, int] = {}
    first_of_text: dict[str, str] = {}
    family_ids: dict[str, str] = {}

    def unit(doc: str, text: str, lang: str, doc_lang: str, item: dict, source: bool) -> Ruling:
        lines[doc] = lines.get(doc, 0) + 1
        prefix = "source_" if source else ""
        ruling = Ruling(
            id=f"{doc}:{lines[doc]}",
            file=doc,
            line=lines[doc],
            format=item.get("format", "plain-dated"),
            doc_title=None,
            card=item.get("card"),
            section=item.get("section"),
            doc_lang=doc_lang,
            lang=lang,
            spans=[] if source else list(item.get("spans", [])),
            date=item.get(f"{prefix}date"),
            date_raw=item.get(f"{prefix}date"),
            text=text,
            doc=doc,
            kind=item.get("kind", "ruling"),
            doc_kind="source" if doc_lang == "en" else "translation",
            position=lines[doc] - 1,
            doc_version=item.get(f"{prefix}version"),
        )
        rulings.append(ruling)
        return ruling

    for number, item in enumerate(units):
        lang = item.get("lang", "es")
        en = tr = None
        if "source" in item:
            en = unit(item.get("source_doc", "en.txt"), item["source"], "en", "en", item, True)
            first_of_text.setdefault(en.text, en.id)
        if "target" in item:
            doc = item.get("doc", f"{lang}.txt")
            tr = unit(doc, item["target"], item.get("text_lang", lang), lang, item, False)
        named[item.get("name", f"#{number}")] = (en, tr)
        label = item.get("family")
        if label is not None:
            family_ids.setdefault(label, (en or tr).id)
    for number, item in enumerate(units):
        en, tr = named[item.get("name", f"#{number}")]
        lang = item.get("lang", "es")
        default = "no-translation" if tr is None else "no-source" if en is None else "rule"
        method = item.get("method", default)
        family = family_ids.get(item["family"]) if "family" in item else None
        if family is None and en is not None:
            family = first_of_text[en.text]
        superseded_by, better = (
            named[item[key]][0].id if key in item else None
            for key in ("superseded_by", "better_source")
        )
        rows.append(
            Alignment(
                en.id if en else None,
                tr.id if tr else None,
                lang,
                0.9 if en and tr else 0.0,
                method,
                similarity=item.get("similarity", 0.8) if en and tr else None,
                group=(en or tr).doc,
                family=family,
                superseded_by=superseded_by,
                release=item.get("release"),
                better_source=better,
                better_similarity=item.get("better_similarity"),
            )
        )
    return CheckContext(rulings, rows, termbase, cards, "en", checklist=checklist or Checklist())


def findings_of(code: str, units, termbase: Termbase, cards: CardIndex) -> list[Finding]:
    """The findings of one check on an example's units."""
    from . import run_checks

    ctx = context_of(units, termbase, cards)
    return [f for f in run_checks(ctx, select=[code]) if f.code == code]


def render_rule(code: str, checklist: Checklist) -> str:
    """What ``rulings rules CODE`` prints: the code's row, its full explanation, and its bad
    and good examples."""
    from ..settings import SettingsError, closest
    from .registry import CHECKS

    written = code.strip()
    team = {rule.code: rule for rule in checklist.rules}
    if written.upper() in team:
        rule = team[written.upper()]
        return (
            f"{rule.code}  {rule.category}, {rule.severity}, team rule ({rule.kind})\n\n"
            f"{rule.explanation()}\n"
        )
    if written.upper() not in CATALOGUE:
        suggestion = closest(written, sorted({*CATALOGUE, *team}), [])
        raise SettingsError(f"rules: no finding code {written!r}; did you mean {suggestion}?")
    row = lookup(written.upper())
    function = CHECKS[row.code].target if row.code in CHECKS else None
    state = ", off by default" if not row.default else ""
    its_type, mqm = quality(row.code, str(row.category))
    lines = [
        f"{row.code}  {row.category}, {row.severity}, {row.stage} stage{state}",
        "",
        explanation(row.code, function),
        "",
        f"ITS 2.0 issue type: {its_type}; MQM: {mqm['category']}, {mqm['severity']}.",
    ]
    if row.note:
        lines += ["", f"Measured: {row.note}"]
    if row.covers:
        lines += ["", f"Folds {', '.join(row.covers)} on the same unit."]
    example = examples().get(row.code)
    if example is None:
        lines += ["", "No example: the code is emitted while the files are read or aligned."]
    else:
        if example.note:
            lines += ["", example.note]
        for side, units in (("Bad", example.bad), ("Good", example.good)):
            lines += ["", f"{side} (reported):" if side == "Bad" else f"{side} (not reported):"]
            for item in units:
                lines += _shown(item)
        found = findings_of(row.code, example.bad, Termbase.load(), CardIndex.build([]))
        lines += ["", "Reported on the bad example:"]
        lines += [f"  {f.file}:{f.line}: {f.message}" for f in found]
    return "\n".join(lines) + "\n"


def _shown(item: dict[str, Any]) -> list[str]:
    lang = item.get("lang", "es")
    where = ", ".join(
        f"{key} {item[key]}"
        for key in ("card", "section", "doc", "date", "version", "method", "similarity")
        if key in item
    )
    shown = []
    if "source" in item:
        shown.append(f"  en: {item['source']}")
    if "target" in item:
        shown.append(f"  {lang}: {item['target']}")
    if where:
        shown.append(f"      ({where})")
    return shown
