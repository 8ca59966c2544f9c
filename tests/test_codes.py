"""Every finding code `rulings rules` lists is pinned by a fixture (ruff's one fixture per
rule): a bad input it reports and a good one it must not, and a snapshot of what it reports
on the bad one (code, severity, file, line, message, evidence, marks) in
``tests/snapshots/codes/CODE.txt``. A change to what a code reports fails here; a new code
without a fixture fails ``test_every_listed_code_has_a_fixture``.

The checks' inputs are their examples (``pipelines/resources/check_examples.toml``, also
shown by ``rulings rules CODE``); the ingest codes' are written by ``code_fixtures.py``.

After a deliberate change, rewrite the snapshots and review their diff:
``RULINGS_UPDATE_SNAPSHOTS=1 pytest tests/test_codes.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from code_fixtures import BUILDERS

from pipelines.catalogue import CHECK, TABLE
from pipelines.check.examples import examples, findings_of
from pipelines.cli import main
from pipelines.ingest import ingest
from pipelines.ingest.readers import READERS
from pipelines.model import Finding
from pipelines.registry import Entry
from pipelines.work import Cache

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots" / "codes"
UPDATE = os.environ.get("RULINGS_UPDATE_SNAPSHOTS") == "1"
CHECK_CODES = sorted(row.code for row in TABLE if row.stage == CHECK)
INGEST_CODES = sorted(row.code for row in TABLE if row.stage != CHECK)


def render(code: str, findings: list[Finding]) -> str:
    """What a snapshot holds: each finding of the code, in a stable order and layout."""
    lines = [f"# {code}: {len(findings)} finding{'s' if len(findings) != 1 else ''}"]
    for f in sorted(findings, key=lambda f: (f.file or "", f.line or 0, f.message)):
        lines += [
            "",
            f"{f.code} {f.severity} {f.file}:{f.line} lang={f.lang} card={f.card} "
            f"section={f.section}",
            f"message: {f.message}",
            f"evidence: {json.dumps(f.evidence, ensure_ascii=False, sort_keys=True)}",
        ]
        if f.marks:
            lines.append(f"marks: {json.dumps(f.marks, ensure_ascii=False, sort_keys=True)}")
    return "\n".join(lines) + "\n"


def matches_snapshot(code: str, findings: list[Finding]) -> None:
    path = SNAPSHOTS / f"{code}.txt"
    text = render(code, findings)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), (
        f"no snapshot for {code}: run RULINGS_UPDATE_SNAPSHOTS=1 pytest {__file__}"
    )
    assert text == path.read_text(encoding="utf-8"), (
        f"{code} reports something else than its snapshot {path.name} (if the change is meant, "
        "rewrite the snapshots with RULINGS_UPDATE_SNAPSHOTS=1 and review the diff)"
    )


def listed_codes() -> set[str]:
    result = CliRunner().invoke(main, ["rules"])
    assert result.exit_code == 0, result.output
    return {line.split("\t")[0] for line in result.stdout.splitlines()}


def test_every_listed_code_has_a_fixture_and_a_snapshot():
    listed = listed_codes()
    assert set(CHECK_CODES) | set(INGEST_CODES) == listed
    assert set(examples()) == set(CHECK_CODES), "a check without an example in check_examples.toml"
    assert set(BUILDERS) == set(INGEST_CODES), (
        "an ingest code without a fixture in code_fixtures.py"
    )
    assert {path.stem for path in SNAPSHOTS.glob("*.txt")} == listed


@pytest.mark.parametrize("code", CHECK_CODES)
def test_what_each_check_reports_on_its_bad_example(code, termbase, cards):
    example = examples()[code]
    found = findings_of(code, example.bad, termbase, cards)
    assert found, f"{code} does not fire on its bad example"
    assert {f.code for f in found} == {code}
    matches_snapshot(code, found)
    assert findings_of(code, example.good, termbase, cards) == [], f"{code} fires on its good one"


@pytest.fixture(scope="module")
def index_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder for the card index and language answers, shared by the fixtures (no
    work cache: each input is read afresh)."""
    return tmp_path_factory.mktemp("codes-cache")


def _ingested(code: str, folder: Path, good: bool, monkeypatch, cache: Path) -> list[Finding]:
    folder.mkdir(parents=True, exist_ok=True)
    inputs, options = BUILDERS[code](folder, good)
    close = options.pop("close", None)
    if options.pop("break_reader", False):

        def broken(_doc):
            raise ValueError("the reader broke on purpose")

        READERS.names()  # loads the readers
        for name, entry in list(READERS._entries.items()):
            monkeypatch.setitem(READERS._entries, name, Entry(name, broken, entry.meta))
    try:
        result = ingest(inputs, cache_dir=cache, work=Cache(None), **options)
    finally:
        if close is not None:
            close()
    monkeypatch.undo()
    return [f for f in result.findings if f.code == code]


@pytest.mark.parametrize("code", INGEST_CODES)
def test_what_each_ingest_code_reports_on_its_bad_input(code, tmp_path, monkeypatch, index_cache):
    found = _ingested(code, tmp_path / "bad", False, monkeypatch, index_cache)
    assert found, f"{code} is not reported on its bad input"
    matches_snapshot(code, found)
    assert _ingested(code, tmp_path / "good", True, monkeypatch, index_cache) == [], (
        f"{code} is reported on its good input"
    )
