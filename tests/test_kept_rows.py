"""Report rows copied from the file the previous run wrote (``report/kept_rows.py``): the file
is the one a cold run writes, and only the rows whose content changed are rendered again."""

from __future__ import annotations

import io
import json
import shutil
import time
from pathlib import Path

import pytest
from conftest import shared_path
from test_incremental import SPANISH, edit, run, same_outputs

from pipelines import files, hashing, manifest, stages
from pipelines.model import Alignment, Finding, Ruling
from pipelines.report import WRITERS, kept_rows, rows
from pipelines.report.kept_rows import (
    PreviousReports,
    RowsWriter,
    row_digest,
    row_digest_from,
    rows_file,
)
from pipelines.report.kept_segments import SegmentedSheet
from pipelines.report.writers import xliff
from pipelines.report.writers.csv import _csv_lines
from pipelines.store import open_store
from pipelines.tables import RunTables
from pipelines.work import Cache
from testkit import corpus as generator
from testkit.faults import _rotate_entries


def previous_in(folder: Path, salt: str, cache: Path) -> PreviousReports:
    """The previous reports in ``folder``, their indexes in the store of ``cache``."""
    return PreviousReports(folder, Cache(open_store(cache), [salt]))


def write(folder: Path, rows: list[str], previous: PreviousReports | None) -> tuple[bytes, list]:
    """A file of ``rows`` (a head, the rows with ";" between them, a tail) into ``folder``;
    its bytes and the rows rendered."""
    rendered: list[str] = []

    def render(these: list[str]) -> list[bytes]:
        rendered.extend(these)
        return [f"<{row}>".encode() for row in these]

    path = folder / "rows.txt"
    with rows_file(path, "rows", previous) as writer:
        writer.piece(b"head:")
        writer.rows(rows, [row_digest(row) for row in rows], render, separator=b";")
        writer.piece(b":tail\n")
    return path.read_bytes(), rendered


def test_rows_the_previous_file_has_are_copied_and_the_others_rendered(tmp_path: Path):
    previous = previous_in(tmp_path / "before", "salt", tmp_path / "cache")
    previous.folder.mkdir()
    rows = [f"row {n}" for n in range(10_000)]  # more than one part
    first, rendered = write(previous.folder, rows, previous)
    assert first == b"head:" + b";".join(f"<{r}>".encode() for r in rows) + b":tail\n"
    assert rendered == rows

    changed = [*rows[:10], "new", *rows[10:5000], *rows[5001:], "row 3"]
    now = tmp_path / "now"
    now.mkdir()
    second, rendered = write(now, changed, previous)
    assert second == b"head:" + b";".join(f"<{r}>".encode() for r in changed) + b":tail\n"
    assert rendered == ["new"]


def test_rows_copied_in_one_piece_get_the_separator_between_them(tmp_path: Path):
    """Two rows the previous file had one byte apart, a piece between them (not the
    separator), follow each other now: they are copied in one piece, with the separator
    between them."""
    previous = previous_in(tmp_path / "before", "salt", tmp_path / "cache")
    previous.folder.mkdir()

    def render(these: list[str]) -> list[bytes]:
        return [f"<{row}>".encode() for row in these]

    with rows_file(previous.folder / "rows.txt", "rows", previous) as writer:
        writer.rows(["a"], [row_digest("a")], render, separator=b";")
        writer.piece(b"|")
        writer.rows(["b"], [row_digest("b")], render, separator=b";")
    assert (previous.folder / "rows.txt").read_bytes() == b"<a>|<b>"

    now = tmp_path / "now"
    now.mkdir()
    with rows_file(now / "rows.txt", "rows", previous) as writer:
        writer.rows(["a", "b"], [row_digest("a"), row_digest("b")], render, separator=b";")
        assert writer.copied == 2
    assert (now / "rows.txt").read_bytes() == b"<a>;<b>"


def test_a_previous_file_changed_since_it_was_written_is_not_copied_from(tmp_path: Path):
    previous = previous_in(tmp_path / "before", "salt", tmp_path / "cache")
    previous.folder.mkdir()
    rows = ["one", "two", "three"]
    write(previous.folder, rows, previous)
    path = previous.folder / "rows.txt"
    path.write_bytes(path.read_bytes().replace(b"<two>", b"<TWO>"))

    now = tmp_path / "now"
    now.mkdir()
    written, rendered = write(now, rows, previous)
    assert rendered == rows
    assert b"<two>" in written


def test_an_index_written_with_other_code_or_options_is_not_used(tmp_path: Path):
    folder = tmp_path / "before"
    folder.mkdir()
    write(folder, ["one", "two"], previous_in(folder, "old code", tmp_path / "cache"))
    now = tmp_path / "now"
    now.mkdir()
    other_code = previous_in(folder, "new code", tmp_path / "cache")
    _, rendered = write(now, ["one", "two"], other_code)
    assert rendered == ["one", "two"]


def test_an_index_that_does_not_fit_the_file_is_refused():
    index = kept_rows.RowIndex(b"d" * kept_rows.DIGEST_SIZE, bytes(8) + (99).to_bytes(8, "little"))
    with pytest.raises(ValueError):
        kept_rows.KeptRows(b"short", index)


def test_rows_that_cannot_be_digested_are_always_rendered(tmp_path: Path):
    rendered: list = []
    handle = io.BytesIO()
    writer = RowsWriter(handle)
    writer.rows(
        ["a", "b"],
        [row_digest(object()), row_digest("b")],
        lambda these: rendered.extend(these) or [x.encode() for x in these],
    )
    writer.flush()
    assert row_digest(object()) is None
    assert handle.getvalue() == b"ab"
    assert rendered == ["a", "b"]


def test_rows_made_from_a_digest_that_could_not_be_made_are_always_rendered():
    """A row digested from findings' digests (``row_digest_from``: the page's, SARIF's and
    XLIFF's rows) has none when one of them is None: two such rows with the same other
    parts would otherwise share a digest, and one be copied for the other."""
    one, other = row_digest("one finding"), row_digest("another")
    assert row_digest_from([None], True, "group") is None
    assert row_digest_from([one, None], "target") is None
    assert row_digest_from([one], True) != row_digest_from([other], True)
    assert row_digest_from([one], True) != row_digest_from([one], False)
    assert row_digest_from([one, other], "x") != row_digest_from([other, one], "x")


def test_csv_rows_are_rendered_each_as_its_lines():
    """A cell with line breaks is quoted inside its row; a part with nothing to render
    renders nothing."""
    assert _csv_lines([]) == []
    assert _csv_lines([["a", "b\nc"], ["d", 'e"f']]) == [b'a,"b\nc"\n', b'd,"e""f"\n']


@pytest.mark.model
def test_an_edited_run_renders_only_the_changed_findings_rows(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """The reports written row by row after an edit (findings.csv, findings.sarif, the HTML
    page's findings, findings.xlf's and aligned.tmx's documents; findings.xlsx's sheets
    segment by segment): the rows the edit did not touch come from the previous files, and
    every output is still a cold run's."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    out = tmp_path / "out"
    run(corpus, out, tmp_path / "cache")

    counts = tmp_path / "counts"  # some writers run in a forked process
    copies: dict[int, tuple[int, int]] = {}  # by the index's id: its rows (segments), copied
    index, segments_index = RowsWriter.index, SegmentedSheet.index

    def counting_index(self: RowsWriter):
        made = index(self)
        copies[id(made)] = (len(made.digests) // kept_rows.DIGEST_SIZE, self.copied)
        return made

    def counting_segments(self: SegmentedSheet, data_start: int):
        made = segments_index(self, data_start)
        copies[id(made)] = (self.segments, self.copied)
        return made

    keep = PreviousReports.keep

    def counting_keep(self: PreviousReports, name: str, digest: str, index, *kept) -> None:
        with open(counts, "a", encoding="utf-8") as handle:
            handle.write("{}\t{}\t{}\n".format(name, *copies[id(index)]))
        keep(self, name, digest, index, *kept)

    monkeypatch.setattr(RowsWriter, "index", counting_index)
    monkeypatch.setattr(SegmentedSheet, "index", counting_segments)
    monkeypatch.setattr(PreviousReports, "keep", counting_keep)
    edit(corpus / SPANISH, 3)
    run(corpus, out, tmp_path / "cache")
    written = {
        name: (int(rows), int(copied))
        for name, rows, copied in (line.split("\t") for line in counts.read_text().splitlines())
    }
    for name in ("csv", "sarif", "html"):
        rows, copied = written[name]
        assert rows > 40 and rows - 3 <= copied < rows, name
    segments, copied = written["xlsx es"]  # the Spanish findings' sheet, in segments
    assert copied < segments
    assert written["xlsx zh"][0] == written["xlsx zh"][1] > 0  # no Chinese finding changed
    rows, copied = written["xliff"]  # a <file> element for each translated document
    assert rows >= 3 and copied == rows - 1  # the edited document's, written again
    assert written["tmx"][0] == written["tmx"][1] > 0  # its one document's pairs unchanged

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(out, tmp_path / "cold") == []


@pytest.mark.model
@pytest.mark.shared
def test_a_documents_report_rows_stand_on_what_its_checks_read(tmp_path: Path, monkeypatch):
    """In ``rulings run``, a plain translated document's ``<file>`` row in findings.xlf, and
    each run of its pairs in aligned.tmx, is digested from what its checks read
    (``RunTables.document_keys``: its units, its alignment rows and every ruling of the
    documents they point into) with its notes (its pairs' warnings) and the English it
    lacks, not from each unit's rulings: after an English ruling is edited (in a card data
    file), the documents aligned with it are written again, the others copied, and every
    output is a cold run's."""
    shared = shared_path("data")
    if not generator.available(shared.parent):
        pytest.skip(f"the parallel material under {shared} is incomplete")
    corpus = tmp_path / "corpus"
    generator.generate(corpus, rulings=300, seed=11, shared=shared.parent)
    monkeypatch.setattr(stages, "REPORT_PROCESSES", 1)  # the writers in this process
    keyed = []
    checked_digest = xliff._checked_digest
    monkeypatch.setattr(
        xliff, "_checked_digest", lambda *a: keyed.append(a[0]) or checked_digest(*a)
    )
    written: dict[str, tuple[int, int]] = {}
    index = RowsWriter.index

    def counting_index(self: RowsWriter):
        made = index(self)
        written[Path(self.handle.name).name] = (
            len(made.digests) // kept_rows.DIGEST_SIZE,
            self.copied,
        )
        return made

    monkeypatch.setattr(RowsWriter, "index", counting_index)
    run(corpus, tmp_path / "out", tmp_path / "cache")
    assert len(keyed) > 10

    (card_data,) = (corpus / "en").iterdir()
    translated = next(
        row
        for row in map(json.loads, (tmp_path / "out" / "alignment.jsonl").open(encoding="utf-8"))
        if row["method"] == "date+embedding" and "/rulings/" in row["source_id"]
    )  # an English ruling a translation is aligned with: shown in the translation's <file>
    card, _, ruling = translated["source_id"].partition("#/data/cards/")[2].split("/")
    sets = json.loads(card_data.read_text(encoding="utf-8"))
    sets["data"]["cards"][int(card)]["rulings"][int(ruling)]["text"] += " Edited."
    card_data.write_text(json.dumps(sets, ensure_ascii=False), encoding="utf-8")
    run(corpus, tmp_path / "out", tmp_path / "cache")
    for name in ("findings.xlf", "aligned.tmx"):
        rows, copied = written[name]
        assert 0 < copied < rows, name
        assert " Edited." in (tmp_path / "out" / name).read_text(encoding="utf-8"), name

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []


@pytest.mark.model
def test_rows_are_digested_alike_from_the_run_its_tables_and_bare_records(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """A report row is digested from the lines of the rulings and findings it shows: taken
    as the stages wrote them (``rulings run``), as the tables are read (``rulings
    report``), or made again from bare records. The three agree, so a report written
    either way copies the rows the other wrote."""
    handed: list[RunTables] = []
    report_stage = stages.report_stage

    def capturing(*args, run=None, **kwargs):
        handed.append(run)
        return report_stage(*args, run=run, **kwargs)

    monkeypatch.setattr(stages, "report_stage", capturing)
    run(corpus_dir, tmp_path / "out", tmp_path / "cache")
    [from_run] = handed
    from_tables = RunTables.load(tmp_path / "out", digests=True)
    bare = RunTables.load(tmp_path / "out")
    assert from_run.digests is not None and len(from_run.finding_lines) > 40
    assert bare.digests is None and not bare.finding_lines

    def digests(tables: RunTables) -> tuple[list, list]:
        line, found = rows.line_digest_of(tables), rows.finding_digests(tables)
        return [line(r) for r in tables.rulings], [found[id(f)] for f in tables.findings]

    made = digests(from_run)
    assert None not in made[0] + made[1] and len(set(made[0])) == len(made[0]) > 50
    assert made == digests(from_tables) == digests(bare)


@pytest.mark.model
def test_a_row_index_stored_for_another_file_is_not_used(tmp_path: Path, corpus_dir):
    """Every report file's row index, and every workbook sheet's segment index, moved to
    another file's or sheet's key (the entries of the work store carry their key): the next
    run copies nothing with it, and writes a cold run's files."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    out, cache = tmp_path / "out", tmp_path / "cache"
    run(corpus, out, cache)
    assert _rotate_entries(cache / "work.db", "report-rows") > 2
    assert _rotate_entries(cache / "work.db", "workbook-segments") >= 2

    edit(corpus / SPANISH, 3)
    run(corpus, out, cache)
    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(out, tmp_path / "cold") == []


@pytest.mark.model
def test_report_files_are_digested_from_the_bytes_written_not_read_again(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """A run records each report file written row by row in its manifest with the digest of
    the bytes it wrote (``files.wrote``), and the next run into the same folder finds the
    previous files' row indexes by those digests: neither reads those files to digest them
    (the clock is moved on: the files settled before the exchange). The edited run still
    writes a cold run's files."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    out, cache = tmp_path / "out", tmp_path / "cache"
    log = tmp_path / "log"  # some writers run in a forked process
    real_open = open

    def logging_open(path, *args, **kwargs):
        with real_open(log, "a", encoding="utf-8") as handle:
            handle.write(f"read {Path(path).name}\n")
        return real_open(path, *args, **kwargs)

    rows = PreviousReports.rows

    def logging_rows(self: PreviousReports, name: str, filename: str):
        found = rows(self, name, filename)
        with real_open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{'kept' if found else 'none'} {filename}\n")
        return found

    def logged() -> set[str]:
        lines = set(log.read_text(encoding="utf-8").splitlines())
        log.unlink()
        return lines

    later = time.time_ns() + 10 * files.SETTLED_NS
    monkeypatch.setattr(files.time, "time_ns", lambda: later)
    monkeypatch.setattr(files, "open", logging_open, raising=False)
    monkeypatch.setattr(PreviousReports, "rows", logging_rows)
    by_rows = ["findings.csv", "findings.sarif", "report.html", "findings.xlf", "aligned.tmx"]
    run(corpus, out, cache)
    assert logged() & {f"read {name}" for name in by_rows} == set()
    for name, (_, digest) in manifest.reports(out).items():
        data = (out / WRITERS[name].meta["filename"]).read_bytes()
        assert digest == hashing.hexdigest(data), name

    edit(corpus / SPANISH, 3)
    run(corpus, out, cache)
    lines = logged()
    assert lines & {f"read {name}" for name in by_rows} == set()
    assert {f"kept {name}" for name in by_rows} <= lines
    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(out, tmp_path / "cold") == []


SOURCES = {
    1: "Flash lets you cast a spell any time you could cast an instant.",
    2: "Its triggered ability resolves before combat damage is dealt.",
    3: "If the target becomes illegal, the ability doesn't resolve.",
}
TRANSLATIONS = {
    "es": {
        1: "El destello te permite lanzar un hechizo cuando podrías lanzar un instantáneo.",
        2: "Su habilidad disparada se resuelve antes de que se haga el daño de combate.",
        3: "Si el objetivo se vuelve ilegal, la habilidad no se resuelve.",
    },
    "zh": {
        1: "闪现让你可以在任何你能施放瞬间的时机施放咒语。",
        2: "其触发式异能在战斗伤害造成前结算。",
        3: "如果目标变为不合法，该异能不会结算。",
    },
}


def unit(lang: str, n: int, text: str, kind: str) -> Ruling:
    """Line ``n`` of the document ``{lang}.txt``."""
    file = f"{lang}.txt"
    nothing = dict.fromkeys(("doc_title", "card", "section", "date", "date_raw"))
    return Ruling(
        f"{file}:{n}", file, n, "plain-dated", **nothing, doc_lang=lang, lang=lang, spans=[],
        text=text, doc=file, doc_kind=kind,
    )  # fmt: skip


def memory_run(translations: dict[str, dict[int, str]], warning_on: str = "") -> RunTables:
    """Two translated card documents (Spanish, Chinese) aligned with one English document;
    a style warning on the ruling ``warning_on``."""
    rulings = [unit("en", n, text, "source") for n, text in SOURCES.items()]
    alignment, findings = [], []
    for lang, texts in translations.items():
        for n, text in texts.items():
            rulings.append(unit(lang, n, text, "translation"))
            rid = rulings[-1].id
            alignment.append(Alignment(f"en.txt:{n}", rid, lang, 0.9 - n / 100, "embedding"))
            if rid == warning_on:
                where = dict(lang=lang, file=f"{lang}.txt", line=n, ruling_id=rid)
                findings.append(
                    Finding("STYLE003", "style", "warning", **where, source_id=f"en.txt:{n}",
                            card=None, section=None, message="tú and usted", evidence={})
                )  # fmt: skip
    return RunTables(rulings, alignment, findings, source_lang="en")


def test_the_memory_copies_the_pairs_of_documents_that_did_not_change(tmp_path: Path, monkeypatch):
    """aligned.tmx's rows are each translated document's pairs: after a Spanish edit and a
    Chinese warning, the Spanish and Chinese rows are written again and the file is the one
    written without a previous file."""
    from pipelines.report.writers import tmx

    previous = previous_in(tmp_path / "before", "salt", tmp_path / "cache")
    previous.folder.mkdir()
    run = memory_run(TRANSLATIONS)
    run.previous = previous
    tmx.write_tmx(run, previous.folder)

    rendered: list[str] = []
    block_text = tmx._block_text

    def counting(block, source_lang):
        rendered.append(block[0].target.doc)
        return block_text(block, source_lang)

    monkeypatch.setattr(tmx, "_block_text", counting)
    for edited, warning, again in [
        ({**TRANSLATIONS}, "", []),
        (
            {**TRANSLATIONS, "es": {**TRANSLATIONS["es"], 2: "Su habilidad activada se resuelve."}},
            "",
            ["es.txt"],
        ),
        (TRANSLATIONS, "zh.txt:3", ["zh.txt"]),
    ]:
        rendered.clear()
        now = tmp_path / f"now{len(again)}{warning}"
        now.mkdir()
        run = memory_run(edited, warning)
        run.previous = previous
        written = tmx.write_tmx(run, now).read_bytes()
        assert rendered == again
        run.previous = None
        rendered.clear()
        assert written == tmx.write_tmx(run, tmp_path).read_bytes()
        assert rendered == ["es.txt", "zh.txt"]
