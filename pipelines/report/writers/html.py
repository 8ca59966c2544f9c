"""The HTML review page: one self-contained file a localization team opens from anywhere.

Everything is inlined (CSS, JS, the data as JSON, the chart as SVG), so the page works from
a USB stick over ``file://`` with no network. The data block escapes ``<``, ``>``, ``&`` and
U+2028/U+2029, the script renders corpus text with ``textContent`` only, every string the
server puts into the HTML itself goes through ``html.escape``, and a Content-Security-Policy
allows no script but the page's own (by its SHA-256 hash). The same tables give the same
bytes: no timestamps, no random ids, sorted data.
"""

from __future__ import annotations

import base64
import difflib
import functools
import hashlib
import html
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from string import Template
from typing import Any

from ... import __version__, fastjson
from ...catalogue import TABLE, describe
from ...model import CATEGORIES, SEVERITIES, Finding, Ruling
from ...resources import language_name, resource_path
from ...tables import RunTables
from ...vocabulary import Side, severity_rank
from .. import rulings_by_id, writer
from ..kept_rows import RowsWriter, row_digest_from, rows_file
from ..rows import finding_digests, line_digest_of, suppressed_digests
from ..updates import UpdateRow, update_rows

TEMPLATE = "report/report.html"
STYLE = "report/report.css"
SCRIPT = "report/report.js"

SHOWN_ELSEWHERE = {"variants"}
"""Evidence the page shows in its own way: the versions of a text side by side (besides
``expected``/``found``, the generic evidence every finding may carry)."""
PALETTE = ("#2f6f9f", "#d1603d", "#3a9d76", "#8a5fbf", "#c49a1c", "#5b6770", "#c2457a")
TOKEN = re.compile(r"\w+|[^\w\s]")
QUOTES = set("\"'“”‘’«»„‚‹›「」『』")
"""Quote styles do not count as differences between versions (STYLE004 reports them)."""


@writer("html", filename="report.html", cost=16)
def write_html(run: RunTables, out: Path) -> Path:
    """Self-contained HTML review page: findings per card or rules document, source and
    translation side by side with the evidence highlighted, filters, a chart, and a review
    mode that exports the accepted findings as a baseline file."""
    path = out / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    with rows_file(path, "html", run.previous) as rows:
        _write_page(run, rows)
    return path


def render_html(run: RunTables) -> str:
    """The page for a run, as a string (byte-identical for the same tables)."""
    buffer = io.BytesIO()
    rows = RowsWriter(buffer)
    _write_page(run, rows)
    rows.flush()
    return buffer.getvalue().decode("utf-8")


def _write_page(run: RunTables, rows: RowsWriter) -> None:
    """The page: the template around its data block, ``json_for_script(page_data(run))``.
    The block is written in pieces (whole and escaped, a large run's would be in memory
    several times), each finding's row as a row of ``rows`` (copied from the previous page
    when its finding, texts, group and confidence are the same)."""
    page = _page(run)
    before, after = _frame(run, page)
    rows.piece(before.encode())
    if page.shown:
        digests = {**finding_digests(run), **suppressed_digests(run)}
        rows.piece(b'{"findings":[')
        rows.rows(
            page.shown,
            [
                row_digest_from([digests[id(s.finding)]], s.accepted, s.group, s.confidence)
                for s in page.shown
            ],
            lambda these: [
                _escaped(fastjson.text(page.row(shown), sort_keys=True)).encode() for shown in these
            ],
            separator=b",",
        )
        rows.piece(b"]")
    else:
        rows.piece(b'{"findings":[]')
    # the rest of the block: the same object's other keys, which all sort after "findings",
    # a key at a time; the rulings the rows show as rows too (most of the block's bytes)
    rest = {**page.rest, "ranks": page.ranks}
    for key in sorted([*rest, "rulings"]):
        rows.piece(("," + fastjson.text(key) + ":").encode())
        if key == "rulings":
            _write_rulings(run, page, rows)
        else:
            for part in json_for_script_parts(rest[key], depth=1):
                rows.piece(part.encode())
    rows.piece(b"}")
    rows.piece(after.encode())


def _write_rulings(run: RunTables, page: _Page, rows: RowsWriter) -> None:
    """The block's ``rulings`` object, an entry a row: each entry is made of its ruling's
    line in corpus.jsonl, so an edited run copies all but the edited rulings' entries from
    the previous page (at a million units, 108 MB of its 403). The line's digest
    (``rows.line_digest_of``, as long as a row digest) is the row's: the line holds the id
    and every field the entry shows, and no other row's digest is of a JSON line."""
    line = line_digest_of(run)
    by_id = page.by_id
    rows.piece(b"{")
    rows.rows(
        page.rulings,
        [line(by_id[i]) for i in page.rulings],
        lambda these: [
            _escaped(
                fastjson.text(i) + ":" + fastjson.text(_ruling_row(by_id[i]), sort_keys=True)
            ).encode()
            for i in these
        ],
        separator=b",",
    )
    rows.piece(b"}")


def _frame(run: RunTables, page: _Page) -> tuple[str, str]:
    """The page before its data block and after it."""
    style = _resource(STYLE)
    script = _resource(SCRIPT)
    if "</script" in script.lower() or "</style" in style.lower():
        raise ValueError("the report's script or style would close its own element")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (
        "default-src 'none'; "
        f"script-src 'sha256-{digest}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    totals = Counter(f.severity for f in run.findings)
    fields = dict(
        csp=html.escape(csp, quote=False),
        title=html.escape(f"Translation review: {len(run.findings)} findings"),
        summary=_summary(run, page.rest),
        tiles="".join(
            f'<div class="tile {s}"><b>{totals.get(s, 0)}</b><span>{html.escape(_plural(s))}'
            "</span></div>"
            for s in SEVERITIES
        ),
        chart=chart_svg(run.findings),
        updates=updates_section(update_rows(run)),
        style=style,
        script=script,
        version=html.escape(__version__),
    )
    before, after = _resource(TEMPLATE).split("$data")
    return Template(before).substitute(fields), Template(after).substitute(fields)


def updates_section(rows: list[UpdateRow]) -> str:
    """The update list as a static section (no script needed): per translated document, a
    table of the units to update, translate, remove or check, with the English change
    marked word by word. Empty when the English did not change."""
    if not rows:
        return ""
    by_document: dict[str, list[UpdateRow]] = {}
    for row in rows:
        by_document.setdefault(row.document, []).append(row)
    parts = [
        '<section class="panel updates" id="updates" aria-label="Update list">',
        f"<h2>Update list: {_count(len(rows), 'unit')} to redo after the English changed</h2>",
    ]
    for document, members in by_document.items():
        counts = Counter(row.status.split(":")[0] for row in members)
        tally = ", ".join(f"{number} to {status}" for status, number in sorted(counts.items()))
        parts.append(f"<details><summary>{html.escape(document)} ({html.escape(tally)})</summary>")
        parts.append(
            '<table><thead><tr><th class="rule">Rule</th><th class="status">What to do</th>'
            "<th>English (old → current)</th><th>Translation</th></tr></thead><tbody>"
        )
        for row in members:
            parts.append(
                f'<tr><td class="rule">{html.escape(row.rule)}</td>'
                f'<td class="status">{html.escape(row.status)}</td>'
                f"<td>{_english_change(row)}</td><td>{html.escape(row.translation)}</td></tr>"
            )
        parts.append("</tbody></table></details>")
    parts.append("</section>")
    return "\n".join(parts)


def _english_change(row: UpdateRow) -> str:
    if not row.runs:
        text = row.current_english or row.old_english
        note = f"<br><small>{html.escape(row.changes)}</small>" if row.changes else ""
        return html.escape(text) + note
    pieces = []
    for op, old, new in row.runs:
        if op == "equal":
            pieces.append(html.escape(old))
            continue
        if old:
            pieces.append(f"<del>{html.escape(old)}</del>")
        if new:
            pieces.append(f"<ins>{html.escape(new)}</ins>")
    return "".join(pieces)


def _resource(name: str) -> str:
    return resource_path(name).read_text(encoding="utf-8").replace("\r\n", "\n")


def _plural(severity: str) -> str:
    return {"error": "errors", "warning": "warnings", "info": "info"}[severity]


def _summary(run: RunTables, data: dict[str, Any]) -> str:
    """What was read and found, counted as the console counts it (``Read 5 files: 6
    documents, 76 rulings``)."""
    languages = ", ".join(data["languages"][code] for code in data["meta"]["langs"]) or "none"
    files = len({r.file for r in run.rulings})
    documents = len({r.doc for r in run.rulings})
    parts = [
        _count(len(run.findings), "finding"),
        f"{_count(files, 'file')}: {_count(documents, 'document')}, "
        f"{_count(len(run.rulings), 'ruling')}",
        f"languages: {languages}",
    ]
    if run.suppressed:
        parts.append(f"{len(run.suppressed)} more already accepted in the baseline")
    return " · ".join(html.escape(part) for part in parts)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun if number == 1 else noun + 's'}"


_SCRIPT_ESCAPES = (
    ("&", "\\u0026"),
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)
"""Characters that could end the <script> element, be read as markup or as a JS line break."""
_PART_SIZE = 1 << 20


def json_for_script(data: Any) -> str:
    """JSON that cannot end its <script> element nor be read as markup or a JS line break."""
    return "".join(json_for_script_parts(data))


def json_for_script_parts(data: Any, depth: int = 2) -> Iterator[str]:
    """``json_for_script`` in parts of about a megabyte (each escape replaces one
    character, so escaping part by part is escaping the whole); ``depth``: the levels of
    containers written item by item (``_json_pieces``)."""
    pending: list[str] = []
    size = 0
    for piece in _json_pieces(data, depth=depth):
        pending.append(piece)
        size += len(piece)
        if size >= _PART_SIZE:
            yield _escaped("".join(pending))
            pending, size = [], 0
    if pending:
        yield _escaped("".join(pending))


def _json_pieces(value: Any, depth: int) -> Iterator[str]:
    """``value`` as compact JSON with sorted keys (``fastjson``), the containers of the
    first ``depth`` levels item by item, those of the last of them ``ITEMS_AT_ONCE`` items
    at a time (the encoder writes each item or run of items)."""
    if depth and type(value) is dict and value and all(type(k) is str for k in value):
        items = sorted(value.items())
        if depth == 1:
            yield from _in_runs(items, dict, "{")
        else:
            for number, (key, item) in enumerate(items):
                yield ("," if number else "{") + fastjson.text(key, sort_keys=True) + ":"
                yield from _json_pieces(item, depth - 1)
        yield "}"
    elif depth and type(value) is list and value:
        if depth == 1:
            yield from _in_runs(value, list, "[")
        else:
            for number, item in enumerate(value):
                yield "," if number else "["
                yield from _json_pieces(item, depth - 1)
        yield "]"
    else:
        yield fastjson.text(value, sort_keys=True)


def _in_runs(items: list[Any], container: type, opening: str) -> Iterator[str]:
    """A container's items (its pairs, for a dict) as JSON, ``ITEMS_AT_ONCE`` in one call:
    each run encoded as a ``container`` of its own, without its brackets."""
    for start in range(0, len(items), ITEMS_AT_ONCE):
        run = fastjson.text(container(items[start : start + ITEMS_AT_ONCE]), sort_keys=True)
        yield ("," if start else opening) + run[1:-1]


ITEMS_AT_ONCE = 256
"""The items of the block's innermost containers encoded in one call: the rulings, groups
and ranks of a 100k run's page encoded in 0.05 s instead of 0.09 s one call an item (the
block's parts with their escapes: 0.08 s against 0.13 s), without the whole block in
memory at once."""


def _escaped(text: str) -> str:
    for char, escape in _SCRIPT_ESCAPES:
        text = text.replace(char, escape)
    return text


# --- the data the script renders ------------------------------------------------------------


# --- the order a reviewer sees ---------------------------------------------------------------


def certainty(finding: Finding, pair_scores: dict[tuple[str, str], float]) -> float:
    """How sure a finding is, 0..1: its ``confidence``; for findings of a run made before
    findings had one, the alignment score of the pair it is about (1.0 for a text alone)."""
    if finding.confidence is not None:
        return finding.confidence
    if finding.source_id and finding.ruling_id:
        return pair_scores.get((finding.source_id, finding.ruling_id), 1.0)
    return 1.0


def review_priority(finding: Finding, sureness: float) -> tuple[int, float]:
    """What a reviewer should see first: errors, then warnings, then infos; within a
    severity the surest first. Ties keep the document order."""
    return (severity_rank(finding.severity), -sureness)


def document_order(shown: _Shown) -> tuple:
    """The page's other order: by card or document, then file and line."""
    finding = shown.finding
    return (
        shown.group.casefold(),
        shown.group,
        finding.lang or "",
        finding.file or "",
        finding.line if finding.line is not None else -1,
        severity_rank(finding.severity),
        finding.code,
        finding.fingerprint,
    )


def _pair_scores(run: RunTables) -> dict[tuple[str, str], float]:
    return {
        (row.source_id, row.target_id): float(row.score)
        for row in run.alignment
        if row.source_id and row.target_id and row.score is not None
    }


@dataclass
class _Shown:
    """A finding as the page shows it: its row's parts that the rest of the page reads."""

    finding: Finding
    accepted: bool
    group: str
    confidence: float
    ruling: str | None
    """The translation the row shows (None: a finding about the source alone)."""
    source: str | None


@dataclass
class _Page:
    """The page's data: the findings in document order (their rows are built apart, and
    copied from the previous page when they did not change: ``kept_rows``), each one's rank
    in the review order, and the rest (meta, languages, rules, rulings, groups)."""

    shown: list[_Shown]
    ranks: list[int]
    rest: dict[str, Any]
    rulings: list[str]
    """The ids of the rulings the rows show, in order: the block's ``rulings`` object, an
    entry a row (``_write_rulings``)."""
    by_id: dict[str, Ruling]
    doc_titles: dict[str, str]

    def row(self, shown: _Shown) -> dict[str, Any]:
        row = _finding_row(shown.finding, shown.accepted, self.by_id, self.doc_titles)
        row["confidence"] = shown.confidence
        return row


def page_data(run: RunTables) -> dict[str, Any]:
    """The data the page's script renders (its JSON block)."""
    page = _page(run)
    return {
        **page.rest,
        "findings": [page.row(shown) for shown in page.shown],
        "ranks": page.ranks,
        "rulings": {i: _ruling_row(page.by_id[i]) for i in page.rulings},
    }


def _page(run: RunTables) -> _Page:
    by_id = rulings_by_id(run)
    rules = _rule_summaries(run)
    findings = [(f, False) for f in run.findings] + [(f, True) for f in run.suppressed]
    # only a finding of a run made before findings had a confidence reads the scores (the
    # index of every pair's took 0.36 s at a million units)
    unsure = any(f.confidence is None and f.source_id and f.ruling_id for f, _ in findings)
    scores = _pair_scores(run) if unsure else {}
    doc_titles = _document_titles(run.rulings, {finding.file for finding, _ in findings})
    ranked = []
    for finding, accepted in findings:
        sureness = certainty(finding, scores)
        target = by_id.get(finding.ruling_id or "")
        source = by_id.get(finding.source_id or "")
        missing_side = target is not None and source is not None and target.id == source.id
        shown = _Shown(
            finding,
            accepted,
            group_of(finding, by_id, doc_titles),
            round(sureness, 3),
            None if missing_side or target is None else target.id,
            source.id if source else None,
        )
        ranked.append((shown, review_priority(finding, sureness)))
    ranked.sort(key=lambda pair: document_order(pair[0]))
    shown_rows = [shown for shown, _ in ranked]
    by_priority = sorted(range(len(ranked)), key=lambda index: (ranked[index][1], index))
    ranks = [0] * len(ranked)
    for rank, index in enumerate(by_priority):
        ranks[index] = rank
    used = sorted({i for r in shown_rows for i in (r.ruling, r.source) if i and i in by_id})
    groups: dict[str, dict[str, Any]] = {}
    for shown in shown_rows:
        group = groups.setdefault(shown.group, {"key": shown.group, "titles": [], "files": []})
        ruling = by_id.get(shown.ruling or "")
        title = ruling.doc_title if ruling else None
        if title and title != shown.group and title not in group["titles"]:
            group["titles"].append(title)
        file = shown.finding.file
        if file and file not in group["files"]:
            group["files"].append(file)
    for group in groups.values():
        group["titles"].sort()
        group["files"].sort()
    langs = sorted({r.finding.lang for r in shown_rows if r.finding.lang})
    found_categories = {r.finding.category for r in shown_rows}
    codes = sorted({r.finding.code for r in shown_rows})
    rest = {
        "meta": {
            "open": len(run.findings),
            "baseline": len(run.suppressed),
            "source_lang": run.source_lang,
            "langs": langs,
            "categories": [c for c in CATEGORIES if c in found_categories],
            "severities": list(SEVERITIES),
        },
        "languages": {code: language_name(code) for code in {*langs, run.source_lang}},
        "rules": {code: rules[code] for code in codes if code in rules},
        "groups": list(groups.values()),
    }
    return _Page(shown_rows, ranks, rest, used, by_id, doc_titles)


def _rule_summaries(run: RunTables) -> dict[str, str]:
    """Each code's explanation, the team's checklist rules' too."""
    return {row.code: describe(row, run.explanations) for row in (*TABLE, *run.codes)}


def _document_titles(rulings: list[Ruling], files: set[str | None]) -> dict[str, str]:
    """file -> the title of its document, for those of ``files`` (the findings') that hold
    one document without a card."""
    titles: dict[str, set[str]] = {}
    if not files:
        return {}
    # the distinct pairs first, in one C loop: a million rulings are a few hundred
    # thousand documents
    for file, title in set(map(_FILE_AND_TITLE, rulings)):
        if title and file in files:
            titles.setdefault(file, set()).add(title)
    return {file: next(iter(names)) for file, names in titles.items() if len(names) == 1}


_FILE_AND_TITLE = attrgetter("file", "doc_title")


def _ruling_row(ruling: Ruling) -> dict[str, Any]:
    return {
        "text": ruling.text,
        "lang": ruling.lang,
        "file": ruling.file,
        "line": ruling.line,
        "title": ruling.doc_title,
        "section": ruling.section,
        "date": ruling.date,
    }


def group_of(finding: Finding, by_id: dict[str, Ruling], doc_titles: dict[str, str]) -> str:
    """The card, else the rules document (or section) of the ruling, else the file."""
    if finding.card:
        return finding.card
    ruling = by_id.get(finding.ruling_id or "")
    if ruling is not None and (ruling.card or ruling.doc_title or ruling.section):
        return ruling.card or ruling.doc_title or ruling.section or ""
    if finding.file and finding.file in doc_titles:
        return doc_titles[finding.file]
    return finding.section or finding.file or "(no file)"


def _finding_row(
    finding: Finding,
    accepted: bool,
    by_id: dict[str, Ruling],
    doc_titles: dict[str, str],
) -> dict[str, Any]:
    evidence = finding.evidence if isinstance(finding.evidence, dict) else {}
    target = by_id.get(finding.ruling_id or "")
    source = by_id.get(finding.source_id or "")
    missing_side = target is not None and source is not None and target.id == source.id
    row: dict[str, Any] = {
        "fp": finding.fingerprint,
        "code": finding.code,
        "category": finding.category,
        "severity": finding.severity,
        "its": finding.its_type,
        "mqm": finding.mqm,
        "lang": finding.lang,
        "file": finding.file,
        "line": finding.line,
        "card": finding.card,
        "section": finding.section,
        "message": finding.message,
        "group": group_of(finding, by_id, doc_titles),
        "ruling": None if missing_side or target is None else target.id,
        "source": source.id if source else None,
        "baseline": accepted,
        "marks": {
            "target": []
            if missing_side or target is None
            else marks_of(finding, Side.TARGET, target.text),
            "source": marks_of(finding, Side.SOURCE, source.text) if source else [],
        },
        "details": evidence_details(evidence),
    }
    if "expected" in evidence:
        row["expected"] = _quote(evidence.get("expected"))
        row["found"] = _quote(evidence.get("found"))
    variants = variant_panes(evidence, finding.ruling_id, None if target is None else target.text)
    if variants:
        row["variants"] = variants
    return row


# --- highlights: Python offsets (code points) -> JS offsets (UTF-16 units) -----------------


ASTRAL = re.compile("[\U00010000-\U0010ffff]")
"""A character outside the Basic Multilingual Plane: two UTF-16 units in JavaScript."""


def _utf16(text: str, offset: int) -> int:
    return offset + len(ASTRAL.findall(text, 0, offset))


def _clean(text: str, ranges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Sorted, merged, in-range ranges, in UTF-16 units."""
    valid = sorted(
        (int(start), int(end))
        for start, end in ranges
        if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)
    )
    merged: list[list[int]] = []
    for start, end in valid:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    if not merged or text.isascii() or not ASTRAL.search(text):
        return merged
    return [[_utf16(text, start), _utf16(text, end)] for start, end in merged]


def marks_of(finding: Finding, side: Side, text: str) -> list[list[int]]:
    """The finding's typed marks on one side, clipped, merged and in UTF-16 units."""
    ranges = [
        (mark.get("start"), mark.get("end"))
        for mark in finding.marks
        if isinstance(mark, dict) and mark.get("side") == side
    ]
    return _clean(text, ranges)


def variant_panes(
    evidence: dict[str, Any], ruling_id: str | None, own_text: str | None = None
) -> list[dict[str, Any]]:
    """The versions of one translation, each with the words that differ marked: the
    evidence ``variants`` (DESIGN.md lists "the other variants" in every finding's evidence;
    any check may give them, INCON001 does), read by its documented fields only.

    A version stands for every ruling that reads the same but for the card it names, and
    its ``text`` is one of them: the pane of the finding's own version shows ``own_text``,
    the finding's own ruling, so that a reviewer of one card does not read another card's
    name as this card's translation (Altar's Reap's version shown as Fling's "Arrojar")."""
    variants = [v for v in evidence.get("variants") or [] if isinstance(v, dict) and "text" in v]
    if not variants:
        return []
    texts = [str(v["text"]) for v in variants]
    preferred = next((i for i, v in enumerate(variants) if v.get("preferred")), 0)
    own = next((i for i, v in enumerate(variants) if ruling_id in (v.get("rulings") or [])), None)
    shown = list(texts)
    if own is not None and own_text:
        shown[own] = own_text
    panes = []
    for index, variant in enumerate(variants):
        if index == preferred:
            other = own if own is not None and own != preferred else None
            if other is None:
                other = next((i for i in range(len(texts)) if i != preferred), None)
        else:
            other = preferred
        if other is None:
            ranges: tuple[tuple[int, int], ...] = ()
        elif shown[index] != texts[index]:
            ranges = _own_word_diff(shown[index], texts[other], texts[index])
        else:
            ranges = _word_diff(texts[index], texts[other])
        panes.append(
            {
                "text": shown[index],
                "marks": _clean(shown[index], ranges),
                "preferred": bool(variant.get("preferred")),
                "count": variant.get("count"),
                "wrong_terms": variant.get("wrong_terms"),
                "rulings": list(map(str, variant.get("rulings") or [])),
                "this": index == own,
            }
        )
    return panes


@functools.lru_cache(maxsize=4096)
def _word_diff(text: str, other: str) -> tuple[tuple[int, int], ...]:
    """Ranges of ``text``'s words (and signs) that ``other`` does not have in that place
    (kept for the next findings: every finding about an inconsistent translation shows
    the same versions)."""
    return _ranges(_tokens(text), _differing_words(text, other))


def _own_word_diff(text: str, other: str, standing_for: str) -> tuple[tuple[int, int], ...]:
    """``_word_diff`` of a ruling shown for the version ``standing_for`` stands for (the
    same words but for the card each names): the words of ``text`` in the place of those
    ``_word_diff`` marks in ``standing_for``. The card's name is marked where the version's
    is (a card named instead of "este hechizo"), not merely for being another card's."""
    mine = _tokens(text)
    differing = _differing_words(standing_for, other)
    marked: set[int] = set()
    matcher = difflib.SequenceMatcher(
        None, [m.group() for m in mine], _words(standing_for), autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            marked.update(i1 + k for k in range(i2 - i1) if j1 + k in differing)
        elif j2 > j1 and differing.intersection(range(j1, j2)):
            marked.update(range(i1, i2))
        elif j2 == j1:
            marked.update(_differing_words(text, other).intersection(range(i1, i2)))
    return _ranges(mine, marked)


@functools.lru_cache(maxsize=4096)
def _differing_words(text: str, other: str) -> frozenset[int]:
    """The places among ``text``'s words (quotes aside) of those ``other`` does not have in
    that place (kept: every finding of a version compares it with the same other)."""
    matcher = difflib.SequenceMatcher(None, _words(text), _words(other), autojunk=False)
    return frozenset(
        index
        for tag, i1, i2, _, _ in matcher.get_opcodes()
        if tag in ("replace", "delete")
        for index in range(i1, i2)
    )


def _ranges(tokens: list[re.Match[str]], places: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """The text ranges of the runs of consecutive words at ``places`` among ``tokens``."""
    runs: list[list[int]] = []
    for index in sorted(places):
        if runs and runs[-1][1] == index - 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return tuple((tokens[first].start(), tokens[last].end()) for first, last in runs)


def _tokens(text: str) -> list[re.Match[str]]:
    """The words and signs of ``text`` the differences are counted in (quotes aside)."""
    return [m for m in TOKEN.finditer(text) if m.group() not in QUOTES]


def _words(text: str) -> list[str]:
    return [m.group() for m in _tokens(text)]


# --- evidence as text -------------------------------------------------------------------------


def _quote(value: Any) -> str:
    if value is None or value == []:
        return "—"
    if isinstance(value, list | tuple):
        return ", ".join(_quote(v) for v in value)
    if isinstance(value, str):
        return f"\u201c{value}\u201d"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _plain(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple) and all(not isinstance(v, dict | list) for v in value):
        return ", ".join(_plain(v) for v in value) or "—"
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def evidence_details(evidence: dict[str, Any]) -> list[list[str]]:
    """The evidence the page does not show otherwise, as (label, text) rows."""
    rows = []
    for key in sorted(evidence):
        if key in SHOWN_ELSEWHERE or key.startswith("_"):
            continue
        if key in ("expected", "found") and "expected" in evidence:
            continue
        value = evidence[key]
        if key == "differences" and isinstance(value, list):
            text = "; ".join(
                f"{_quote(d.get('found'))} instead of {_quote(d.get('preferred'))}"
                for d in value
                if isinstance(d, dict)
            )
        else:
            text = _plain(value)
        rows.append([key.replace("_", " "), text])
    return rows


# --- the chart ------------------------------------------------------------------------------


def chart_svg(findings: list[Finding]) -> str:
    """Findings per category, one bar per category stacked by language, as inline SVG."""
    counts = Counter((f.category, f.lang or "none") for f in findings)
    categories = [c for c in CATEGORIES if any(cat == c for cat, _ in counts)]
    langs = sorted({lang for _, lang in counts}, key=lambda lang: (lang == "none", lang))
    colour = {lang: PALETTE[i % len(PALETTE)] for i, lang in enumerate(langs)}
    if not categories:
        return '<p class="empty">No findings.</p>'
    label_w, bar_w, row_h, top = 190, 860, 24, 34
    width, height = label_w + bar_w + 60, top + row_h * len(categories) + 6
    most = max(sum(counts[(c, lang)] for lang in langs) for c in categories)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'role="img" aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg">',
        '<title id="chart-title">Findings per category and language</title>',
    ]
    x = label_w
    for lang in langs:
        name = "no language" if lang == "none" else f"{language_name(lang)} ({lang})"
        parts.append(
            f'<rect x="{x}" y="8" width="12" height="12" rx="2" fill="{colour[lang]}"/>'
            f'<text x="{x + 17}" y="18.5" class="legend">{html.escape(name)}</text>'
        )
        x += 30 + 7 * len(name)
    for row, category in enumerate(categories):
        y = top + row * row_h
        total = sum(counts[(category, lang)] for lang in langs)
        parts.append(
            f'<g data-category="{html.escape(category)}"><text x="{label_w - 10}" y="{y + 15}" '
            f'text-anchor="end" class="label">{html.escape(category)}</text>'
        )
        x = float(label_w)
        for lang in langs:
            n = counts[(category, lang)]
            if not n:
                continue
            w = bar_w * n / most
            parts.append(
                f'<rect x="{x:.1f}" y="{y + 4}" width="{w:.1f}" height="15" '
                f'fill="{colour[lang]}"><title>{html.escape(category)}, '
                f"{html.escape(lang)}: {n}</title></rect>"
            )
            x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}" class="count">{total}</text></g>')
    parts.append("</svg>")
    return "".join(parts)
