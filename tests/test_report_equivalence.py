"""The report's tables built in plain Python hold what the pandas tables of the API hold.

The spreadsheets (CSV, workbook) and summary.json used to be computed from the API's
DataFrames (``pipelines.api.frames``); they are now built from the records directly, which
is many times faster on a large run. These tests hold both to the same values, types and
order, on edge cases (missing file or line, an empty file name, a finding whose source is
its own unit, evidence of every shape) and on the seed run; and they check the values the
writers of one report share.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pandas as pd
import pytest

from pipelines.api import frames
from pipelines.model import Alignment, Finding, Ruling
from pipelines.report import rulings_by_id, shared, write_reports
from pipelines.report.rows import COLUMNS, finding_rows, findings_in_review_order
from pipelines.report.updates import update_rows
from pipelines.report.writers.summary import write_summary
from pipelines.tables import RunTables, paused_gc
from pipelines.vocabulary import Severity


def _ruling(rid: str, text: str, lang: str | None, **extra) -> Ruling:
    file, line = rid.rsplit(":", 1)
    doc_lang = extra.pop("doc_lang", lang)
    fields = {"doc": file, "doc_kind": "translation"} | extra
    return Ruling(rid, file, int(line), "plain-dated", None, None, None, doc_lang, lang, [],
                  None, None, text, **fields)  # fmt: skip


def _finding(code, severity, lang, file, line, ruling_id, source_id, evidence, **extra):
    category = {"TERM": "terminology", "STYL": "style", "NUMB": "number"}[code[:4]]
    return Finding(code, category, severity, lang, file, line, ruling_id, source_id,
                   extra.get("card"), extra.get("section"), f"message {code}", evidence,
                   extra.get("fingerprint", ""))  # fmt: skip


def edge_run() -> RunTables:
    rulings = [
        _ruling("en.txt:1", "Draw a card.", "en", doc_kind="source"),
        _ruling("en.txt:2", "=1+1 counters", "en", doc_kind="source", doc_lang=None),
        _ruling("es.txt:1", "Roba una carta.", "es"),
        _ruling("es.txt:2", "Sacrifícalo 😀.", "es"),
        _ruling("zh.txt:7", "抽一张牌。", None, doc="zh-doc"),
        _ruling("zh.txt:8", "抽一张牌。", "zh", doc="zh-doc", doc_kind=None),
    ]
    findings = [
        _finding("TERM001", "warning", "es", "es.txt", 2, "es.txt:2", "en.txt:2",
                 {"expected": ["uno", "dos"], "found": {"b": 1, "a": [2]}}),
        _finding("STYLE003", Severity.INFO, None, None, None, None, None, {}),
        _finding("STYLE003", "info", None, "", None, None, None, {"expected": None}),
        _finding("NUMBER001", "error", "zh", "zh.txt", 7, "zh.txt:7", "zh.txt:7",
                 {"expected": 3, "found": 4.5}, card="Card", section="1.2"),
        _finding("NUMBER001", "error", "zh", "zh.txt", None, "zh.txt:8", "missing:1",
                 {"found": True, "_private": "x"}),
        _finding("TERM002", "error", "es", "es.txt", 1, "es.txt:1", "en.txt:1",
                 {"expected": "ñ <&>", "found": ""}, fingerprint="0000"),
        _finding("TERM002", "error", "es", "es.txt", 1, "es.txt:1", None, {}, fingerprint="0000"),
        _finding("TERM001", "warning", "", "a.txt", 3, "nowhere:1", "en.txt:1", {"found": []}),
    ]  # fmt: skip
    alignment = [
        Alignment("en.txt:1", "es.txt:1", "es", 0.9, "embedding"),
        Alignment("en.txt:2", "es.txt:2", "es", 0.8, "order"),
        Alignment(None, "zh.txt:7", None, 0.0, "unmatched"),
        Alignment("en.txt:1", None, "zh", 0.0, "no-translation"),
    ]
    return RunTables(rulings=rulings, alignment=alignment, findings=findings)


def pandas_rows(run: RunTables) -> list[dict[str, object]]:
    """The rows as they were computed before: from the API's review DataFrame."""
    review = frames(run).review.astype(object)
    review["evidence"] = review["evidence"].map(
        lambda evidence: json.dumps(evidence, ensure_ascii=False, sort_keys=True)
    )
    return review.where(review.notna(), "").to_dict("records")


def pandas_summary(run: RunTables) -> dict:
    """summary.json's counts as they were computed before, from the API's DataFrames."""

    def counts(values: pd.Series) -> dict[str, int]:
        return {str(key): int(count) for key, count in sorted(values.value_counts().items())}

    tables = frames(run)
    corpus, alignment, findings = tables.corpus, tables.alignment, tables.findings
    documents = corpus.drop_duplicates("doc")
    findings = findings.assign(
        lang=findings["lang"].fillna("none"),
        severity=findings["severity"].astype(str),
        category=findings["category"].astype(str),
    )
    return {
        "corpus": {
            "files": int(corpus["file"].nunique()),
            "documents": len(documents),
            "rulings": len(corpus),
            "rulings_by_lang": counts(corpus["lang"].fillna("unknown")),
            "documents_by_lang": counts(documents["doc_lang"].fillna("unknown")),
            "documents_by_kind": counts(documents["doc_kind"].fillna("unknown")),
        },
        "alignment": {
            "rows": len(alignment),
            "by_method": counts(alignment["method"]),
            "by_lang": counts(alignment["lang"].fillna("unknown")),
        },
        "findings": {
            "total": len(findings),
            "suppressed_by_baseline": len(run.suppressed),
            "by_severity": counts(findings["severity"]),
            "by_category": counts(findings["category"]),
            "by_code": counts(findings["code"]),
            "by_lang": counts(findings["lang"]),
            "by_lang_and_category": {
                str(lang): counts(group["category"])
                for lang, group in sorted(findings.groupby("lang"), key=lambda item: item[0])
            },
        },
    }


def _typed(rows: list[dict[str, object]]) -> list[list[tuple[str, object]]]:
    return [[(type(row[name]).__name__, row[name]) for name in COLUMNS] for row in rows]


def test_rows_equal_the_api_review_table_on_edge_cases():
    run = edge_run()
    for findings in (run.findings, run.findings[::-1]):
        run.findings = findings
        rows = list(finding_rows(run))
        assert [list(row) for row in rows] == [list(COLUMNS)] * len(rows)
        assert _typed(rows) == _typed(pandas_rows(run))


def test_rows_of_no_findings_and_no_rulings():
    run = RunTables(rulings=[], alignment=[], findings=[])
    assert list(finding_rows(run)) == pandas_rows(run) == []
    assert list(frames(run).review.columns) == list(COLUMNS)


def test_summary_equals_the_pandas_counts(tmp_path: Path):
    reversed_run = edge_run()
    reversed_run.rulings.reverse()
    reversed_run.findings.reverse()
    for run in (edge_run(), reversed_run, RunTables(rulings=[], alignment=[], findings=[])):
        written = json.loads(write_summary(run, tmp_path).read_text(encoding="utf-8"))
        del written["tool"]
        assert written == pandas_summary(run)


@pytest.mark.model
def test_rows_and_summary_equal_the_pandas_tables_on_the_seed_run(seed_run: Path):
    run = RunTables.load(seed_run)
    assert _typed(list(finding_rows(run))) == _typed(pandas_rows(run))
    written = json.loads((seed_run / "summary.json").read_text(encoding="utf-8"))
    del written["tool"]
    assert written == pandas_summary(run)


def test_writers_of_one_report_share_what_they_compute(tmp_path: Path, monkeypatch):
    run = edge_run()
    calls: list[str] = []

    def counted(run: RunTables) -> list[str]:
        calls.append("computed")
        return calls

    shared(run, counted)
    shared(run, counted)
    assert len(calls) == 2, "outside a report, each call computes"
    seen = {}

    def probe(run: RunTables, out: Path) -> Path:
        seen["order"] = findings_in_review_order(run)
        seen["again"] = findings_in_review_order(run)
        seen["by_id"] = rulings_by_id(run) is rulings_by_id(run)
        seen["updates"] = update_rows(run) is update_rows(run)
        seen["gc"] = gc.isenabled()
        return out / "probe"

    from pipelines.report import WRITERS

    monkeypatch.setitem(WRITERS._entries, "probe", type(WRITERS["csv"])("probe", probe, {}))
    assert write_reports(run, tmp_path, ["probe"]) == [tmp_path / "probe"]
    assert seen["order"] is seen["again"] and seen["by_id"] and seen["updates"]
    assert seen["gc"] is False and gc.isenabled()
    # Outside a report, each call computes afresh (the tables may have changed).
    assert findings_in_review_order(run) is not findings_in_review_order(run)


def test_paused_gc_restores_the_collector():
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def translate_toolkit_tmx(run: RunTables) -> bytes:
    """aligned.tmx as it was written before: a unit object per pair, through
    ``tmxfile.addtranslation`` (the writer now builds the same elements directly)."""
    from collections import defaultdict

    from translate.storage import tmx

    from pipelines.report.writers.tmx import WARNINGS_PROPERTY, _xml_text
    from pipelines.vocabulary import TRANSLATION_METHODS

    memory = tmx.tmxfile(sourcelanguage=run.source_lang)
    by_id = run.by_id
    severities: dict = defaultdict(lambda: defaultdict(set))
    for finding in run.findings:
        if finding.ruling_id:
            severities[finding.ruling_id][finding.severity].add(finding.code)
    for row in run.alignment:
        if row.method not in TRANSLATION_METHODS or not row.source_id or not row.target_id:
            continue
        found = severities.get(row.target_id, {})
        if found.get(Severity.ERROR) or row.superseded_by or row.release:
            continue
        source, target = by_id[row.source_id], by_id[row.target_id]
        memory.addtranslation(
            _xml_text(source.text), run.source_lang, _xml_text(target.text), row.lang or ""
        )
        unit = memory.units[-1]
        unit.xmlelement.set("tuid", target.id)
        unit.addnote(f"{row.method} score={row.score:.4f} source={source.id}")
        if found.get(Severity.WARNING):
            prop = unit.xmlelement.makeelement("prop", {"type": WARNINGS_PROPERTY})
            prop.text = " ".join(sorted(found[Severity.WARNING]))
            unit.xmlelement.insert(0, prop)
    return bytes(memory)


LANGUAGE_PAIRS = [
    ("en", "es"),
    ("en", None),
    ("", "es"),
    ("en", "en"),
    ("en", "EN"),
    ("en_US", "en-us"),
    ("en-US", "en"),
    ("en", "en-US"),
    ("pt-PT", "pt"),
    ("zh", "zh-Hans"),
]


@pytest.mark.parametrize(("source_lang", "lang"), LANGUAGE_PAIRS)
def test_tmx_is_what_translate_toolkit_units_give(tmp_path: Path, source_lang: str, lang):
    from pipelines.report.writers.tmx import write_tmx

    texts = ["", " ", "  padded  ", "a\nb\r\nc\td", "<&>\"'", "ctrl \x00\x01\x1b end", "😀 \ud800",
             "same", "same", "\u2028\u2029 \ufffe\uffff"]  # fmt: skip
    rulings, alignment, findings = [], [], []
    for n, text in enumerate(texts, 1):
        rulings.append(_ruling(f"en.txt:{n}", text, "en", doc_kind="source"))
        rulings.append(_ruling(f"es.txt:{n}", texts[-n], "es"))
        pair_lang = "es" if n == 3 else lang
        alignment.append(Alignment(f"en.txt:{n}", f"es.txt:{n}", pair_lang, n / 7, "embedding"))
        if n % 3 == 0:
            findings.append(_finding("STYLE003", "warning", "es", "es.txt", n, f"es.txt:{n}",
                                     None, {}))  # fmt: skip
            findings.append(_finding("TERM001", "warning", "es", "es.txt", n, f"es.txt:{n}",
                                     None, {}))  # fmt: skip
    findings.append(_finding("TERM001", "error", "es", "es.txt", 2, "es.txt:2", None, {}))
    alignment.append(Alignment("en.txt:1", None, "es", 0.0, "no-translation"))
    odd = 'es&"<>\t\n\r é.txt:99'
    rulings.append(_ruling(odd, "odd id", "es"))
    alignment.append(Alignment(odd.replace("es", "en", 1), odd, lang, 1.0, "embedding"))
    rulings.append(_ruling(odd.replace("es", "en", 1), " ", "en", doc_kind="source"))
    findings.append(_finding("STYLE003", "warning", "es", "es.txt", 9, odd, None, {}))
    run = RunTables(rulings, alignment, findings, source_lang=source_lang)
    written = write_tmx(run, tmp_path).read_bytes()
    assert written == translate_toolkit_tmx(run)
    assert b"x-rulings-warnings" in written and b'tuid="es.txt:2"' not in written
    assert b'tuid="es&amp;&quot;&lt;&gt;&#9;&#10;&#13; \xc3\xa9.txt:99"' in written
    run.alignment = [row for row in run.alignment if row.target_id and "." not in row.target_id]
    assert write_tmx(run, tmp_path).read_bytes() == translate_toolkit_tmx(run)
    for bad in ("\x00", "\ud800"):
        run.alignment = [Alignment("en.txt:1", f"es{bad}.txt:1", "es", 1.0, "embedding")]
        run.rulings.append(_ruling(f"es{bad}.txt:1", "x", "es"))
        with pytest.raises(ValueError):
            translate_toolkit_tmx(run)
        with pytest.raises(ValueError):
            write_tmx(run, tmp_path)


@pytest.mark.slow
def test_the_command_line_and_the_writers_do_not_import_pandas_or_xlsxwriter():
    """pandas takes half a second to import; only ``pipelines.load`` needs it. XlsxWriter
    takes 0.1 s; only writing the workbook needs it (each stage command pays its imports)."""
    import subprocess
    import sys

    code = (
        "import sys, pipelines.cli\n"
        "from pipelines.report import WRITERS\n"
        "WRITERS.names()\n"
        "import pipelines.api\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
        "assert 'xlsxwriter' not in sys.modules, 'xlsxwriter imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_workbook_sheet_writes_what_xlsxwriter_writes(tmp_path: Path):
    """The writer's short paths for cells give the bytes XlsxWriter's own paths give."""
    import xlsxwriter

    from pipelines.report.writers.xlsx import FIXED_DATE, TEXT_ONLY
    from pipelines.report.xlsx_sheet import Sheet, Workbook

    rows = [
        ["error", "", 12, "=SUM(A1)", "http://example.com", "12.5", " lead", "a\nb\x01", "<&>"],
        ["", 0, -3, 1.25, None, True, "x" * 40000, "after the cut", ""],
        ["😀" * 20000, "next"],
        [],
        *([f"row {n}", n, "", "same text"] * (n % 3 + 1) for n in range(40)),
        ["trail\n", "\u3000wide", "tab\t", "_x0041_ and \x1f", "\ufffe\uffff", '"q" <r>', "<r>"],
        ["a" * 2000 + "&", "\x0b", "\r", " ", "\n"],
    ]

    def workbook(path: Path, fast: bool) -> bytes:
        book = (Workbook if fast else xlsxwriter.Workbook)(str(path), TEXT_ONLY)
        book.set_properties({"created": FIXED_DATE})
        cell = book.add_format({"text_wrap": True})
        shade = book.add_format({"bg_color": "#F8D7DA"})
        sheet = book.add_worksheet("a", worksheet_class=Sheet if fast else None)
        sheet.set_column(0, 3, 20, cell)
        for number, values in enumerate(rows):
            if fast:
                sheet.write_values(number, values, cell)
            else:
                sheet.write_row(number, 0, values, cell)
            sheet.write(number, 0, "warning", shade)
        sheet.write_row(len(rows), 0, ["plain", 1], None)
        sheet.freeze_panes(1, 0)
        book.close()
        return path.read_bytes()

    assert workbook(tmp_path / "fast.xlsx", True) == workbook(tmp_path / "slow.xlsx", False)


def test_findings_rows_are_the_cells_xlsxwriter_writes_in_constant_memory(tmp_path: Path):
    """A findings sheet's rows (``xlsx_sheet.row_markup``) are XlsxWriter's cells of its
    constant-memory mode (inline strings) without their references, on hostile text
    (control characters, ``_xHHHH_``, whitespace at the ends, markup characters), and
    numbers; text over Excel's 32,767 characters is cut."""
    import re
    import zipfile

    import xlsxwriter

    from pipelines.report.writers.xlsx import TEXT_ONLY
    from pipelines.report.xlsx_sheet import STRING_LIMIT, row_markup

    rows = [
        ["error", "", 12, 0.997, " lead", "a\nb\x01", "<&>", "trail\n", "\u3000wide"],
        ["_x0041_ and \x1f", "\ufffe\uffff", '"q"', "tab\t", 0, -3, 1.25, "😀" * 20, "é"],
        ["x" * (STRING_LIMIT + 10), "next", "", "", "", "", "", "", ""],
    ]
    path = tmp_path / "book.xlsx"
    book = xlsxwriter.Workbook(str(path), {**TEXT_ONLY, "constant_memory": True})
    cell = book.add_format({"text_wrap": True})
    shade = book.add_format({"bg_color": "#F8D7DA"})
    sheet = book.add_worksheet("a")
    for number, values in enumerate(rows):
        for column, value in enumerate(values):
            if value == "":
                sheet.write_blank(number, column, None, shade if column == 0 else cell)
            else:
                sheet.write(number, column, value, shade if column == 0 else cell)
    book.close()
    xml = zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode("utf-8")
    theirs = re.findall(r"<row [^>]*>(.*?)</row>", xml, re.S)
    styles = [shade._get_xf_index()] + [cell._get_xf_index()] * 8
    ours = [row_markup(values, styles)[5:-6] for values in rows]
    assert [re.sub(r' r="[A-Z]+\d+"', "", row) for row in theirs] == ours


def test_workbook_text_shaped_like_rich_string_markup_stays_text(tmp_path: Path):
    """XlsxWriter writes a string shaped like its rich string markup (``<r>…</r>``) into the
    shared strings as markup: corpus text of that shape stays text in findings.xlsx."""
    import zipfile

    import openpyxl

    from pipelines.report.writers.xlsx import TEXT_ONLY
    from pipelines.report.xlsx_sheet import Sheet, Workbook

    hostile = ["<r><t>x</t></r><si><t>injected</t></si><r>y</r>", "<r>bad</r>", "<r></r>"]
    path = tmp_path / "book.xlsx"
    book = Workbook(str(path), TEXT_ONLY)
    sheet = book.add_worksheet("a", worksheet_class=Sheet)
    sheet.write_values(0, hostile, book.add_format({"text_wrap": True}))
    book.close()

    shared = zipfile.ZipFile(path).read("xl/sharedStrings.xml").decode("utf-8")
    assert "<t>injected</t>" not in shared and "&lt;r&gt;bad&lt;/r&gt;" in shared
    cells = next(openpyxl.load_workbook(path).active.iter_rows(values_only=True))
    assert list(cells) == hostile


def test_xliff_text_is_what_lxml_writes_for_its_tree(tmp_path: Path):
    """findings.xlf is written as text; parsed and written again by lxml it gives the same
    bytes (escaping in attributes and text, elements closed in place, indentation), on
    hostile names and texts: markup characters, tabs, line breaks and carriage returns,
    inline codes, empty texts, control characters."""
    from lxml import etree

    from pipelines.report.writers.xliff import write_xliff

    hostile = 'a&b "q" <x> \t tab \n line \r cr é 😀 \x00'
    rulings = [
        _ruling(
            "en&\"<>'\t.txt:1", "Put <g1>a <x2/> time</g1> " + hostile, "en", doc_kind="source"
        ),
        _ruling(
            "es&\"<>'\t.txt:1", "Pon </g1>un<g1> " + hostile, "es", context="state: needs-l10n"
        ),
        _ruling("es&\"<>'\t.txt:2", "", "es"),
        _ruling("es&\"<>'\t.txt:3", "\r\n", "es"),
    ]
    alignment = [
        Alignment("en&\"<>'\t.txt:1", "es&\"<>'\t.txt:1", "es", 0.9, "embedding"),
        Alignment(None, "es&\"<>'\t.txt:2", "es", 0.0, "unmatched"),
        Alignment("en&\"<>'\t.txt:1", None, "es", 0.0, "no-translation", group="g"),
    ]
    findings = [
        _finding(
            "TERM001",
            "warning",
            "es",
            "es&\"<>'\t.txt",
            1,
            "es&\"<>'\t.txt:1",
            None,
            {"expected": ["<g1>", hostile]},
        ),
        _finding("TERM002", "info", "es", "es&\"<>'\t.txt", 1, "en&\"<>'\t.txt:1", None, {}),
        _finding(
            "NUMBER001",
            "error",
            "es",
            "es&\"<>'\t.txt",
            3,
            "es&\"<>'\t.txt:3",
            None,
            {"expected": 3},
        ),
    ]
    for source_lang in ("en", "en&<"):
        run = RunTables(rulings, alignment, findings, source_lang=source_lang)
        written = write_xliff(run, tmp_path).read_bytes()
        assert written.count(b"<trans-unit") >= 3 and b'<g id="1">' in written
        again = etree.tostring(etree.fromstring(written), xml_declaration=True, encoding="UTF-8")
        assert written == again + b"\n"
    empty = write_xliff(RunTables([], [], []), tmp_path).read_bytes()
    assert empty == etree.tostring(etree.fromstring(empty), xml_declaration=True,
                                   encoding="UTF-8") + b"\n"  # fmt: skip
    with pytest.raises(ValueError):
        write_xliff(RunTables(rulings, alignment, findings, source_lang="e\x00n"), tmp_path)
