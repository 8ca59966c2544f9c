"""Release updates: a translation of the 2022-06-10 rules read against the 2023-10-13 English.

The fixture is a dozen real rules of both releases (tests/fixtures/releases): 100.7 was
reworded; 210-211 (hand and life modifiers) moved to 211-212 with a changed cross-reference
(see rule 103.4 -> 103.5), 212 moved to 213 unchanged; 210 (Defense, battles) is new; 713.6
(meld cards) is gone.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from pipelines.align.releases import text_key, word_share
from pipelines.cli import main
from pipelines.text.diff import diff_text, word_diff

RELEASES = FIXTURES / "releases"
OLDER_ZH = "MagicCompRules_20220610_zh.txt"
OLDER_EN = "MagicCompRules_20220610_en.txt"
CURRENT_EN = "MagicCompRules_20231013_en.txt"


def _run(tmp_path_factory, name: str, files: list[str]) -> Path:
    inputs = tmp_path_factory.mktemp(f"{name}-in")
    for file in files:
        shutil.copy(RELEASES / file, inputs / file)
    out = tmp_path_factory.mktemp(name)
    result = CliRunner().invoke(main, ["run", str(inputs), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output
    return out


def _findings(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "findings.jsonl").read_text().splitlines()]


def _by_section(findings: list[dict], code: str) -> dict[str | None, dict]:
    return {f["section"]: f for f in findings if f["code"] == code}


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> Path:
    return _run(tmp_path_factory, "both", [OLDER_EN, CURRENT_EN, OLDER_ZH])


@pytest.fixture(scope="module")
def current_only(tmp_path_factory) -> Path:
    return _run(tmp_path_factory, "current", [CURRENT_EN, OLDER_ZH])


@pytest.mark.model
def test_a_reworded_rule_is_outdated_with_the_english_change(both):
    outdated = _by_section(_findings(both), "OUT001")
    hand = outdated["210.1"]
    assert hand["evidence"]["current_section"] == "211.1"
    assert "See rule 103.[-4-]{+5+}." in hand["message"]
    assert "rule 211.1 now" in hand["message"]
    assert {"100.7", "210.1", "211.1"} <= set(outdated)


@pytest.mark.model
def test_a_renumbered_unchanged_rule_is_neither_removed_nor_missing(both):
    findings = _findings(both)
    about = {(f["code"], f["section"]) for f in findings}
    assert not {code for code, section in about if section in ("212.1", "212.1b", "213.1b")}
    assert ("MISS001", "213.1") not in about


@pytest.mark.model
def test_a_removed_rule_and_new_rules(both):
    findings = _findings(both)
    assert set(_by_section(findings, "OUT003")) == {"713.6"}
    missing = _by_section(findings, "MISS001")
    assert set(missing) == {"210", "210.1"}
    assert "new in the 2023-10-13 release" in missing["210.1"]["message"]


@pytest.mark.model
def test_one_release_summary_and_no_date_findings(both):
    findings = _findings(both)
    [summary] = [f for f in findings if f["code"] == "OUT002"]
    counts = {key: summary["evidence"][key] for key in ("to_update", "new", "removed", "unchanged")}
    assert counts == {"to_update": 4, "new": 2, "removed": 1, "unchanged": 8}
    assert not [f for f in findings if f["code"].startswith("DATE")]


@pytest.mark.model
def test_the_update_list_in_csv_workbook_and_page(both):
    with open(both / "updates.csv", encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    by_rule = {row["rule"]: row for row in rows}
    assert [row["rule"] for row in rows] == ["", "100.7", "210", "210.1", "211.1", "212.1", "713.6"]
    assert by_rule["211.1"]["old_rule"] == "210.1"
    assert by_rule["211.1"]["status"].startswith("update")
    assert by_rule["211.1"]["translation"].startswith("每张先锋牌的左下角都印有手牌修正")
    assert by_rule["210.1"]["status"].startswith("translate")
    assert not by_rule["210.1"]["translation"]
    assert by_rule["713.6"]["status"].startswith("remove")
    page = (both / "report.html").read_text(encoding="utf-8")
    assert 'id="updates"' in page and "103.<del>4</del><ins>5</ins>" in page
    from openpyxl import load_workbook

    sheet = load_workbook(both / "findings.xlsx", read_only=True)["updates"]
    assert sum(1 for _ in sheet.iter_rows()) == len(rows) + 1


@pytest.mark.model
def test_the_memory_holds_only_current_pairs(both):
    memory = (both / "aligned.tmx").read_text(encoding="utf-8")
    assert f'tuid="{OLDER_ZH}:' in memory
    findings = _findings(both)
    stale = [f["ruling_id"] for f in findings if f["code"] in ("OUT001", "OUT003")]
    assert stale and not [tuid for tuid in stale if f'tuid="{tuid}"' in memory]


@pytest.mark.model
def test_with_only_the_current_english(current_only):
    findings = _findings(current_only)
    [summary] = [f for f in findings if f["code"] == "OUT002"]
    assert summary["evidence"]["translated_release"] == "2022-06-10"
    assert summary["evidence"]["current_release"] == "2023-10-13"
    assert {"210", "210.1"} <= set(_by_section(findings, "MISS001"))
    assert not {f["code"] for f in findings} & {"OUT001", "OUT003"}
    assert len([f for f in findings if f["code"].startswith("DATE")]) <= 1


@pytest.mark.model
def test_a_single_release_gets_no_release_findings(tmp_path_factory):
    out = _run(tmp_path_factory, "single", [OLDER_EN, OLDER_ZH])
    assert not [f for f in _findings(out) if f["code"].startswith("OUT")]
    assert (out / "updates.csv").read_text(encoding="utf-8-sig").count("\n") == 1


def test_word_diff_joins_back_to_both_texts():
    old = "If a spell would be countered, exile it instead."
    new = "If a spell or ability would be countered, exile it."
    runs = word_diff(old, new)
    assert "".join(run["old"] for run in runs) == old
    assert "".join(run["new"] for run in runs) == new
    assert diff_text(runs) == "If a spell{+ or ability+} would be countered, exile it[- instead-]."


def test_a_rule_merged_into_a_longer_one_still_matches():
    old = text_key("Each face of a double-faced card has its own set of characteristics.")
    merged = text_key(
        "Each face of a transforming or modal double-faced card has its own set of "
        "characteristics. The front face of each meld card and the combined face formed by a "
        "meld pair each has its own set of characteristics."
    )
    other = text_key("Each battle card has a defense number printed in its lower right corner.")
    assert word_share(old, merged) >= 0.6 > word_share(old, other)


@pytest.mark.model
def test_a_card_ruling_reworded_in_a_later_snapshot(tmp_path):
    """Two English snapshots of Phthisis's rulings (MTGJSON 2021, the 2024 suspend change)
    in different files and a Spanish translation of the 2021 text: the translation is
    outdated, with the change, and the 2024 ruling is not also reported missing."""
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(RELEASES / "rulings"), "--out", str(out)])
    assert result.exit_code in (0, 1), result.output
    findings = _findings(out)
    assert [f["code"] for f in findings] == ["OUT001"]
    [outdated] = findings
    assert outdated["file"] == "es/phthisis.txt" and outdated["line"] == 5
    assert outdated["evidence"]["current_version"] == "en-2024/phthisis.txt:5"
    changes = outdated["evidence"]["changes"]
    assert "".join(run["new"] for run in changes) == outdated["evidence"]["current_text"]
    assert "you may cast the card" in outdated["evidence"]["current_text"]
    with open(out / "updates.csv", encoding="utf-8-sig", newline="") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["rule"] == "Phthisis" and row["translation"].startswith("Mientras se resuelve")


@pytest.mark.model
def test_a_rerun_reads_the_word_diffs_back(tmp_path, monkeypatch):
    """The English changes the update list compares are kept in the work store: a run that
    replaces the folder after another file was added compares none of them again, and
    writes the same list."""
    from pipelines.report import updates

    inputs, out, cache = tmp_path / "in", tmp_path / "out", tmp_path / "cache"
    inputs.mkdir()
    for file in (OLDER_EN, CURRENT_EN, OLDER_ZH):
        shutil.copy(RELEASES / file, inputs / file)

    def run() -> list[tuple[str, str]]:
        compared: list[tuple[str, str]] = []
        compare = updates._compared

        def counted(old: str, new: str):
            compared.append((old, new))
            return compare(old, new)

        monkeypatch.setattr(updates, "_compared", counted)
        args = ["run", str(inputs), "--out", str(out), "--cache-dir", str(cache)]
        assert CliRunner().invoke(main, args).exit_code in (0, 1)
        return compared

    first = run()
    listed = (out / "updates.csv").read_bytes()
    assert first and len(set(first)) == len(first)
    shutil.copy(FIXTURES.parent.parent / "corpus" / "000_40e512ac1ae253c1.txt", inputs / "card.txt")
    assert run() == []
    assert (out / "updates.csv").read_bytes() == listed
