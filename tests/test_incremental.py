"""Incremental runs: after one document changed, a run reads, aligns and checks that document
(and what depends on it) and takes the rest from the cache, with outputs byte-identical to
a cold run on the same input."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import fields
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from conftest import output_bytes, shared_path

from pipelines import last_run, stages, tables
from pipelines.align.versions import Versions
from pipelines.check.context import CheckContext
from pipelines.check.registry import CHECKS, PairKey, explanations
from pipelines.cli import main
from pipelines.engine.local import LocalEngine
from pipelines.model import Alignment, Finding
from pipelines.pipeline import OUTPUT_FILES
from pipelines.report import TABLES, WRITERS
from pipelines.settings import Settings
from pipelines.tables import RunTables
from pipelines.vocabulary import Scope
from pipelines.work import Reuse
from testkit import corpus as generator

SPANISH = "000_40e512ac1ae253c1.txt"
RULES_EXCERPT = "004_a602d6d99571243f.txt"
"""English rules (502.81 Retrace) and their Spanish translation in one file."""


def run(corpus: Path, out: Path, cache: Path, *options: str) -> dict[str, tuple[int, int]]:
    """Run into ``out``; what came from the cache, per kind of work: (reused, total)."""
    done = CliRunner().invoke(
        main, ["run", str(corpus), "--out", str(out), "--cache-dir", str(cache), *options]
    )
    assert done.exit_code in (0, 1), done.output
    said = " ".join(done.output.split())
    return {
        kind: (int(reused.replace(",", "")), int(total.replace(",", "")))
        for reused, total, kind in re.findall(
            r"([\d,]+) of ([\d,]+) (files|documents (?:and stretches )?\w+|groups compared)", said
        )
    }


def edit(path: Path, line: int) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[line - 1] += " (editado)"
    path.write_text("\n".join(lines), encoding="utf-8")


def same_outputs(one: Path, other: Path) -> list[str]:
    return [
        name
        for name in OUTPUT_FILES
        if (one / name).is_file() and (one / name).read_bytes() != (other / name).read_bytes()
    ]


@pytest.mark.model
def test_an_edited_translation_is_the_only_document_recomputed(tmp_path: Path, corpus_dir):
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    cache = tmp_path / "cache"
    run(corpus, tmp_path / "out", cache)

    edit(corpus / SPANISH, 3)
    reused = run(corpus, tmp_path / "out", cache)
    files, aligned, checked = (
        reused["files"],
        reused["documents aligned"],
        reused["documents and stretches checked"],
    )
    assert files == (4, 5)
    assert aligned[0] == aligned[1] - 1 and checked[0] == checked[1] - 1

    cold = run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert cold == {}
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []


@pytest.mark.model
def test_an_edited_translation_recomputes_only_the_consistency_groups_it_is_in(
    tmp_path: Path, corpus_dir
):
    """INCON001 compares the translations of one English ruling across documents: its
    findings are kept per group (an English ruling and a language), and an edit recomputes
    the group of the edited unit, not the others."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    cache = tmp_path / "cache"
    run(corpus, tmp_path / "out", cache)

    edit(corpus / SPANISH, 13)  # translated one way here, another way in 001_….txt
    reused, total = run(corpus, tmp_path / "out", cache)["groups compared"]
    assert total > 1 and reused == total - 1

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []


@pytest.mark.model
def test_an_edited_english_source_recomputes_what_is_aligned_with_it(tmp_path: Path, corpus_dir):
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    cache = tmp_path / "cache"
    run(corpus, tmp_path / "out", cache)

    text = (corpus / RULES_EXCERPT).read_text(encoding="utf-8").split("\n")
    english = next(n for n, line in enumerate(text, 1) if line.startswith("502.81a Retrace"))
    edit(corpus / RULES_EXCERPT, english)
    reused = run(corpus, tmp_path / "out", cache)
    assert reused["files"] == (4, 5)
    assert reused.get("documents aligned", (0, 0))[0] == 0

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []


@pytest.mark.model
def test_the_newer_english_versions_are_looked_for_again_only_when_the_english_changed(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """Which English ruling has a newer version is kept with the source documents' digest
    (kind ``align-versions``): after a translation is edited, the families are assigned
    with the versions found before; after the English is edited, they are looked for again."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    cache = tmp_path / "cache"
    searched: list[str] = []
    newer = Versions.newer

    def counting(self: Versions, source):
        if source.id not in self._found:
            searched.append(source.id)
        return newer(self, source)

    monkeypatch.setattr(Versions, "newer", counting)
    run(corpus, tmp_path / "out", cache)
    assert searched

    searched.clear()
    edit(corpus / SPANISH, 3)
    run(corpus, tmp_path / "out", cache)
    assert searched == []

    text = (corpus / RULES_EXCERPT).read_text(encoding="utf-8").split("\n")
    english = next(n for n, line in enumerate(text, 1) if line.startswith("502.81a Retrace"))
    edit(corpus / RULES_EXCERPT, english)
    run(corpus, tmp_path / "out", cache)
    assert searched

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []


@pytest.mark.model
def test_a_run_handing_records_between_stages_writes_what_the_stage_commands_write(
    tmp_path: Path, corpus_dir, seed_run
):
    """``rulings run`` hands each stage the records the stage before produced; the stage
    commands, one after another, read them back from the folder: the same bytes."""
    runner, out = CliRunner(), tmp_path / "stages"
    for command in (["ingest", str(corpus_dir)], ["align"], ["check"], ["report"]):
        done = runner.invoke(main, [*command, "--out", str(out)])
        assert done.exit_code in (0, 1), done.output
    compared = [name for name in OUTPUT_FILES if (out / name).exists()]
    assert len(compared) == len(OUTPUT_FILES) - 1  # all but the run manifest

    def content(path: Path) -> bytes | dict[str, bytes]:
        return output_bytes(path) if path.is_dir() else path.read_bytes()

    assert [n for n in compared if content(seed_run / n) != content(out / n)] == []


def stages_after_a_run(
    tmp_path: Path, corpus_dir: Path
) -> tuple[Reuse, list[Alignment], stages.CheckResult]:
    """A run, then the stages one by one on the same input with the cache it left: what
    they took from the cache, the rows aligned and the findings."""
    cache = tmp_path / "cache"
    run(corpus_dir, tmp_path / "out", cache)
    settings = Settings(cache_dir=cache)
    out = tmp_path / "stages"
    stages.ingest_stage([corpus_dir], out, settings)
    work = Reuse()
    rows = stages.align_stage(out, settings, reuse=work)
    checked = stages.check_stage(out, settings, stages.Resources.load(settings), reuse=work)
    return work, rows, checked


@pytest.mark.model
def test_the_stages_started_one_by_one_take_what_a_run_left_in_the_cache(
    tmp_path: Path, corpus_dir
):
    """A run keys each document's work on digests it takes while writing corpus.jsonl; a stage
    started on its own digests the corpus it reads back. The keys agree: nothing is
    recomputed."""
    work, _, _ = stages_after_a_run(tmp_path, corpus_dir)
    kinds = ("align", "check", "check-group")
    assert {kind: work.total(kind) > 0 for kind in kinds} == dict.fromkeys(kinds, True)
    assert {kind: work.reused(kind) for kind in kinds} == {k: work.total(k) for k in kinds}


@pytest.mark.model
def test_the_local_engine_checks_with_the_context_the_stage_built(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """The check stage works out the corpus facts for its cache keys on its context; the
    local engine runs the checks on that context, so nothing is worked out twice (on the
    100k corpus, a second context cost an edited run a second of corpus passes)."""
    built: list[CheckContext] = []
    original = CheckContext.__post_init__

    def counted(self: CheckContext) -> None:
        built.append(self)
        original(self)

    monkeypatch.setattr(CheckContext, "__post_init__", counted)
    run(corpus_dir, tmp_path / "out", tmp_path / "cache")
    assert len(built) == 1
    facts = [key for key in built[0].cache if key[0] == "corpus fact"]
    assert facts  # computed for the keys, then read by the checks from the same context


def test_a_local_map_given_a_context_does_not_build_another():
    built = []

    def setup(**shared):
        built.append(shared)
        return {"offset": 100}

    add = lambda item, context: item + context["offset"]  # noqa: E731
    engine = LocalEngine()
    assert engine.map(add, [1, 2], shared={"x": 1}, setup=setup, context={"offset": 5}) == [6, 7]
    assert built == []
    assert engine.map(add, [1, 2], shared={"x": 1}, setup=setup) == [101, 102]
    assert built == [{"x": 1}]


@pytest.mark.model
@pytest.mark.parametrize("together", [False, True], ids=["own entries", "last run's entries"])
def test_what_a_large_run_takes_from_the_cache_is_kept_in_one_copy(
    tmp_path: Path, corpus_dir, monkeypatch, together
):
    """Alignment rows and findings taken from the cache keep one object for each id and name
    they repeat, and for each equal part of their evidence, as tables read back do: on a
    million units, the check stage of an edited run took 3,838 MB with every document's
    findings read as copies, against 3,093 MB when it computed them. (The corpus here is
    small: it is taken for a large one.) Taken from the last run's entries
    (``last_run``), they keep one object per entry: at most one copy per bucket."""
    monkeypatch.setattr(tables, "SHARED_FROM_BYTES", 0)
    if not together:
        nothing = lambda store, kinds: last_run.Remembered([{} for _ in kinds], {})  # noqa: E731
        monkeypatch.setattr(last_run, "read", nothing)
    work, rows, checked = stages_after_a_run(tmp_path, corpus_dir)
    assert work.reused("check") == work.total("check") > 0
    cached = {entry.name for entry in CHECKS if entry.meta["scope"] != Scope.CORPUS}
    findings = [f for f in checked.findings if f.code in cached]  # corpus checks always run
    evidence = [part for f in findings for part in f.evidence.values() if isinstance(part, list)]
    assert len(rows) > 10 and len(findings) > 10 and evidence
    most = last_run.BUCKETS if together else 1
    assert most_copies([row.group for row in rows] + [row.source_id for row in rows]) <= most
    assert most_copies([f.file for f in findings] + [f.ruling_id for f in findings]) <= most
    assert most_copies(evidence, key=lambda part: json.dumps(part, sort_keys=True)) <= most
    if together:
        values = [f.file for f in findings] + [f.ruling_id for f in findings]
        assert len(copies(values)) < len(values) / 2


@pytest.mark.model
def test_what_a_small_run_takes_from_the_cache_is_read_as_it_is(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """Below ``tables.SHARED_FROM_BYTES`` of inputs and corpus table, a run reads the units'
    own entries (here all of them: the last run's results kept together are not read)
    without making their repeated values one object (the time it takes is most of reading
    them back); they are the results all the same."""
    nothing = lambda store, kinds: last_run.Remembered([{} for _ in kinds], {})  # noqa: E731
    monkeypatch.setattr(last_run, "read", nothing)
    work, rows, checked = stages_after_a_run(tmp_path, corpus_dir)
    assert work.reused("check") == work.total("check") > 0
    assert copies([row.group for row in rows] + [row.source_id for row in rows])
    assert rows == tables.read_records(tmp_path / "out" / tables.ALIGNMENT, Alignment)
    assert checked.findings == tables.read_records(tmp_path / "out" / tables.FINDINGS, Finding)


def most_copies(values: list, key=lambda value: value) -> int:
    """The most objects any one value is held in."""
    objects: dict = {}
    for value in values:
        if value is not None:
            objects.setdefault(key(value), set()).add(id(value))
    return max(map(len, objects.values()), default=0)


def copies(values: list, key=lambda value: value) -> list:
    """The values equal to an earlier one that are not that very object."""
    first: dict = {}
    return [v for v in values if v is not None and first.setdefault(key(v), v) is not v]


@pytest.mark.model
def test_a_document_checked_in_several_runs_of_a_scope_keeps_each_run(
    tmp_path: Path, corpus_dir, monkeypatch
):
    """A document's pairs are not always next to each other (the pairs are in the order of
    their English), so its items can make several runs of one scope: its cached findings keep
    one part per run, in order (a 100k run lost a DATE006 when they were merged into one)."""
    from pipelines import check

    out = tmp_path / "stages"
    plain = Settings(cache_dir=None)
    stages.ingest_stage([corpus_dir], out, plain)
    stages.align_stage(out, plain)
    reference = stages.check_stage(out, plain, stages.Resources.load(plain)).findings

    def one_item_per_run(keys: list[str]) -> list[tuple[int, int]]:
        return [(start, start + 1) for start in range(len(keys))]

    monkeypatch.setattr(check, "doc_runs", one_item_per_run)
    cached = Settings(cache_dir=tmp_path / "cache")
    for _ in ("cold", "warm"):
        work = Reuse()
        checked = stages.check_stage(out, cached, stages.Resources.load(cached), reuse=work)
        assert checked.findings == reference
    assert work.reused("check") == work.total("check") > 0


@pytest.mark.model
@pytest.mark.shared
def test_an_edited_translation_is_the_only_document_keyed_again_for_the_groups(tmp_path: Path):
    """The keys INCON002 gathers its groups by (each translation with its card names
    masked, the English it is paired with) are kept per translated document: an edit works
    them out again for the edited document only, and the outputs are a cold run's."""
    shared = shared_path("data")
    if not generator.available(shared.parent):
        pytest.skip(f"the parallel material under {shared} is incomplete")
    corpus = tmp_path / "corpus"
    generator.generate(corpus, rulings=300, seed=7, shared=shared.parent)
    cache, selected = tmp_path / "cache", ("--select", "INCON002")  # off by default
    run(corpus, tmp_path / "out", cache, *selected)

    edit(min((corpus / "es").iterdir()), 3)
    reused = run(corpus, tmp_path / "out", cache, *selected)
    keyed, documents = reused["documents and stretches keyed"]
    assert documents > 10 and keyed == documents - 1

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache", *selected)
    assert same_outputs(tmp_path / "out", tmp_path / "cold") == []


def test_a_pair_key_gives_the_value_the_run_holds_else_computes_it():
    computed = []

    def text_of(pair, ctx):
        computed.append(pair)
        return pair.target.text

    key = PairKey("test.text_of", text_of)
    pair = SimpleNamespace(
        source=SimpleNamespace(id="s1"), target=SimpleNamespace(id="t1", text="x")
    )
    ctx = SimpleNamespace(pair_keys={})
    assert key(pair, ctx) == "x" and computed == [pair]
    ctx.pair_keys = {"test.text_of": {("s1", "t1"): "held"}}
    assert key(pair, ctx) == "held" and computed == [pair]


@pytest.mark.model
def test_a_report_whose_tables_did_not_change_is_carried_over(tmp_path: Path, corpus_dir):
    """After an edit, a report written from no table the edit changed (the TBX export reads
    none) is the previous run's file, linked, not written again; one written from the
    corpus is written again; every output is still a cold run's."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    out = tmp_path / "out"
    run(corpus, out, tmp_path / "cache")
    before = {name: (out / name).stat().st_ino for name in ("termbase.tbx", "report.html")}

    edit(corpus / SPANISH, 3)
    run(corpus, out, tmp_path / "cache")
    assert (out / "termbase.tbx").stat().st_ino == before["termbase.tbx"]
    assert (out / "report.html").stat().st_ino != before["report.html"]

    run(corpus, tmp_path / "cold", tmp_path / "fresh-cache")
    assert same_outputs(out, tmp_path / "cold") == []


@pytest.mark.model
def test_each_writer_reads_only_the_tables_it_declares(tmp_path: Path, seed_run):
    """What ``carried.py`` carries over rests on each writer's ``reads``: a writer run on
    tables that note what is read reads no other table."""
    read: set[str] = set()

    class Noted(RunTables):
        def __getattribute__(self, name: str):
            if name in TABLES:
                read.add(name)
            return super().__getattribute__(name)

    tables = RunTables.load(seed_run)
    for entry in WRITERS:
        read.clear()
        run_tables = Noted(**{f.name: getattr(tables, f.name) for f in fields(RunTables)})
        run_tables.explanations = explanations()
        entry.target(run_tables, tmp_path)
        assert read <= set(entry.meta["reads"]), entry.name
