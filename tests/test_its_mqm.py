"""Every finding code as the industry's QA categories: one ITS 2.0 Localization Quality
Issue type and one MQM dimension and severity, carried by every finding and every writer."""

from __future__ import annotations

from pipelines.catalogue import (
    CATALOGUE,
    ITS_TYPES,
    MQM_CATEGORIES,
    MQM_SEVERITIES,
    make_finding,
    quality,
    quality_table,
)
from pipelines.resources import read_tsv


def test_every_code_has_one_row_of_valid_values():
    rows = read_tsv("its_mqm.tsv")
    codes = [row["code"] for row in rows]
    assert sorted(codes) == sorted(set(codes)) == sorted(CATALOGUE)
    for row in rows:
        assert row["its_type"] in ITS_TYPES, row
        assert row["mqm"] in MQM_CATEGORIES, row
        assert row["mqm_severity"] in MQM_SEVERITIES, row
    assert len(ITS_TYPES) == 27


def test_findings_carry_them_and_a_team_rule_takes_its_categorys():
    finding = make_finding("UNTR001", "left in English")
    assert (finding.its_type, finding.mqm) == (
        "untranslated",
        {"category": "Accuracy", "severity": "critical"},
    )
    assert quality("X-TEAM", "number") == ("numbers", {"category": "Accuracy", "severity": "minor"})
    assert quality_table()["OMIT002"][0] == "omission"
