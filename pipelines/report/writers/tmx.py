"""aligned.tmx: the aligned pairs as a TMX 1.4 translation memory, for CAT tools.

A pair whose translation has an error finding is left out: a CAT tool that imports the
memory would offer the wrong translation again; so is a pair whose English has changed
since (reworded or removed): the memory holds the current pairs only. A pair with warnings
is kept, with the codes in a ``x-rulings-warnings`` property, so a translator sees it needs
review.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from translate.storage import tmx
from translate.storage.lisa import DEFAULT_LANGUAGE_VARIANTS, normalize_language

from ...model import Alignment, Ruling
from ...tables import RunTables
from ...vocabulary import TRANSLATION_METHODS, Severity
from .. import rulings_by_id, writer
from ..kept_rows import PreviousReports, row_digest, row_digest_from, rows_file
from ..markup import attribute, text, xml_safe
from ..rows import line_digest_of

NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
WARNINGS_PROPERTY = "x-rulings-warnings"


@writer("tmx", filename="aligned.tmx", cost=6, reads=("rulings", "alignment", "findings"))
def write_tmx(run: RunTables, out: Path) -> Path:
    """Every source-translation pair the aligner found but those whose translation has an
    error finding (untranslated and unmatched rulings are left out too), written with
    translate-toolkit; each unit's id is the translation's ruling id, its note says how it
    was aligned, and a pair with warnings carries their codes in a property."""
    pairs = _pairs(run)
    path = out / "aligned.tmx"
    if _plain(pairs, run.source_lang):
        digest = functools.partial(
            _block_digest, line=line_digest_of(run), checked=run.document_keys
        )
        _write_as_text(pairs, run.source_lang, path, run.previous, digest)
    else:
        path.write_bytes(_with_translate_toolkit(map(_unit, pairs), run.source_lang))
    return path


class _Pair(NamedTuple):
    """A unit of the memory before it is text: its alignment row, its two rulings and the
    codes of the translation's warnings (or empty)."""

    row: Alignment
    source: Ruling
    target: Ruling
    warnings: str


class _Unit(NamedTuple):
    tuid: str
    source: str
    target: str
    lang: str
    note: str
    warnings: str
    """The codes of the translation's warnings, or empty."""


def _pairs(run: RunTables) -> list[_Pair]:
    by_id = rulings_by_id(run)
    in_error: set[str] = set()
    warned: dict[str, set[str]] = {}
    error, warning = Severity.ERROR, Severity.WARNING
    for finding in run.findings:
        if finding.ruling_id:
            if finding.severity == error:
                in_error.add(finding.ruling_id)
            elif finding.severity == warning:
                warned.setdefault(finding.ruling_id, set()).add(finding.code)
    pairs = []
    for row in run.alignment:
        target_id = row.target_id
        if (
            row.method not in TRANSLATION_METHODS
            or not row.source_id
            or not target_id
            or target_id in in_error
            or row.superseded_by
            or row.release
        ):
            continue
        warnings = warned.get(target_id)
        pairs.append(
            _Pair(
                row,
                by_id[row.source_id],
                by_id[target_id],
                " ".join(sorted(warnings)) if warnings else "",
            )
        )
    return pairs


def _unit(pair: _Pair) -> _Unit:
    row, source, target = pair.row, pair.source, pair.target
    return _Unit(
        target.id,
        _xml_text(source.text),
        _xml_text(target.text),
        row.lang or "",
        f"{row.method} score={row.score:.4f} source={source.id}",
        pair.warnings,
    )


def _with_translate_toolkit(units: Iterable[_Unit], source_lang: str) -> bytes:
    """The memory built unit by unit with translate-toolkit."""
    memory = tmx.tmxfile(sourcelanguage=source_lang)
    for unit in units:
        memory.addtranslation(unit.source, source_lang, unit.target, unit.lang)
        element = memory.units[-1].xmlelement
        element.set("tuid", unit.tuid)
        memory.units[-1].addnote(unit.note)
        if unit.warnings:
            prop = element.makeelement("prop", {"type": WARNINGS_PROPERTY})
            prop.text = unit.warnings
            element.insert(0, prop)
    return bytes(memory)


# --- the memory as text ----------------------------------------------------------------------
#
# Building a translate-toolkit unit (an lxml element with language lookups) per pair took
# most of the writer's time on a large run. When every pair has two distinct languages and
# nothing XML cannot hold, the memory is written as text (``report/markup.py``):
# translate-toolkit's empty memory (its header) with the units as translate-toolkit builds
# them and lxml's pretty printer lays them out (``tests/test_report_equivalence.py``
# compares the bytes). Anything else goes through translate-toolkit.


def _plain(pairs: list[_Pair], source_lang: str) -> bool:
    """Whether translate-toolkit gives each pair a variant per language, in this order (both
    languages named, and the translation's neither the source's, as it compares them, nor
    its default regional variant), and lxml takes every value as it is."""
    langs = {pair.row.lang or "" for pair in pairs}
    if not source_lang or not all(langs) or not xml_safe(source_lang + "".join(langs)):
        return False
    source = normalize_language(source_lang)
    for lang in langs:
        target = normalize_language(lang)
        if target == source or DEFAULT_LANGUAGE_VARIANTS.get(target) == source:
            return False
    return xml_safe(
        "".join(pair.target.id + pair.source.id + pair.row.method + pair.warnings for pair in pairs)
    )


def _write_as_text(
    pairs: list[_Pair],
    source_lang: str,
    path: Path,
    previous: PreviousReports | None,
    digest: Callable[[list[_Pair], str], bytes | None],
) -> None:
    """The memory translate-toolkit would write. Its rows are the runs of consecutive units
    of one translated document, each copied from the previous run's file when its pairs are
    the same (``kept_rows``): an edited document writes its own units again, not the
    memory's."""
    empty = bytes(tmx.tmxfile(sourcelanguage=source_lang))
    with rows_file(path, "tmx", previous) as rows:
        if not pairs:
            rows.piece(empty)
            return
        head, body, tail = empty.partition(b"<body/>")
        if not body:
            raise ValueError("translate-toolkit's empty memory has no <body/>")
        rows.piece(head + b"<body>\n")
        blocks = _blocks(pairs)
        rows.rows(
            blocks,
            [digest(block, source_lang) for block in blocks],
            lambda these: [_block_text(block, source_lang) for block in these],
        )
        rows.piece(b"  </body>" + tail)


def _blocks(pairs: list[_Pair]) -> list[list[_Pair]]:
    """The pairs in runs of consecutive pairs of one translated document."""
    blocks: list[list[_Pair]] = []
    doc = None
    for pair in pairs:
        if pair.target.doc != doc or not blocks:
            blocks.append([])
            doc = pair.target.doc
        blocks[-1].append(pair)
    return blocks


def _block_digest(
    block: list[_Pair],
    source_lang: str,
    line: Callable[[Ruling | None], bytes | None],
    checked: Mapping[str, str],
) -> bytes | None:
    """The digest of everything a block's units are made of: their rulings' lines
    (``rows.line_digest_of``) and what their alignment rows and warnings add (None when a
    ruling has no line: the block is then always written, ``kept_rows.row_digest_from``).
    When the run digested what its document's checks read (``RunTables.document_keys``: its
    units' lines, its alignment rows and the lines of the documents they point into), that
    stands for the lines and rows, with the block's units' ids and warnings."""
    key = checked.get(block[0].target.doc)
    if key is not None:
        return row_digest(
            "checked", key, source_lang, [(pair.target.id, pair.warnings) for pair in block]
        )
    return row_digest_from(
        [digest for pair in block for digest in (line(pair.target), line(pair.source))],
        source_lang,
        [(pair.row.lang, pair.row.method, pair.row.score, pair.warnings) for pair in block],
    )


def _block_text(block: list[_Pair], source_lang: str) -> bytes:
    """A block's units as translate-toolkit builds them and lxml's pretty printer lays them
    out."""
    unit_start = f'    <tu srclang="{attribute(source_lang)}" tuid="'
    source_start = f'\n      <tuv xml:lang="{attribute(source_lang)}">\n        <seg>'
    parts: list[str] = []
    for unit in map(_unit, block):
        parts.append(unit_start + attribute(unit.tuid) + '">')
        if unit.warnings:
            parts.append(f'\n      <prop type="{WARNINGS_PROPERTY}">{text(unit.warnings)}</prop>')
        parts.append(f"\n      <note>{text(unit.note.strip())}</note>")
        parts.append(source_start + text(unit.source))
        parts.append(f'</seg>\n      </tuv>\n      <tuv xml:lang="{attribute(unit.lang)}">')
        parts.append(f"\n        <seg>{text(unit.target)}</seg>\n      </tuv>\n    </tu>\n")
    return "".join(parts).encode("utf-8")


def _xml_text(value: str) -> str:
    """Text without the characters XML 1.0 cannot hold (control characters)."""
    return NOT_XML.sub("\ufffd", value)
