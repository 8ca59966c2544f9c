"""Findings stored with the lists and dicts of their evidence once per entry
(``parts_once``): read back equal, and as single as ``tables.share`` makes them."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.model import Finding
from pipelines.parts_once import REFERENCE, PartsOnce
from pipelines.tables import share
from pipelines.work import Kind
from tests.test_tables_sharing import VALUES, _copy, exact, same_objects

Found = dict[str, list[Finding]]


def finding(number: int, evidence: dict[str, Any], code: str = "INCON001") -> Finding:
    return Finding(
        code, "inconsistent-translation", "warning", "es", f"es/{number % 3}.txt", number,
        f"es/{number % 3}.txt:{number}", f"en/{number % 3}.txt:{number}", "Shock", None,
        f"Translated {number % 2 + 1} ways.", evidence,
    )  # fmt: skip


def group(versions: list[dict[str, Any]], size: int = 6) -> Found:
    """One group's findings, each with the group's versions (each its own copy, as a check
    builds them) and a value of its own."""
    return {
        "INCON001": [
            finding(n, {"variants": _copy(versions), "family": ["es", n % 2], "count": n})
            for n in range(size)
        ]
    }


VERSIONS = [
    {"text": "Descarga hace 2 puntos de daño.", "rulings": ["es/0.txt:1", "es/1.txt:4"]},
    {"text": "Descarga hace 2 de daño.", "rulings": ["es/2.txt:7"], "preferred": False},
]


def test_a_group_read_back_is_the_group_with_its_versions_once():
    stored = PartsOnce(Found)
    found = group(VERSIONS)
    data = stored.encode(found)
    text = "Descarga hace 2 puntos de daño.".encode()
    assert data.count(text) == 1 and msgspec.msgpack.encode(found).count(text) == 6
    back = stored.decode(data)
    assert back == found
    variants = [f.evidence["variants"] for f in back["INCON001"]]
    assert all(v is variants[0] for v in variants)
    assert back["INCON001"][0].evidence is not back["INCON001"][1].evidence


def test_entries_read_with_one_copies_share_their_values_as_share_does():
    stored = PartsOnce(Found)
    entries = [stored.encode(group(VERSIONS)), stored.encode(group(VERSIONS[::-1], 3))]
    copies: dict[Any, Any] = {}
    back = [stored.decode(data, copies) for data in entries]
    share(back, copies, parts=False)
    shared = [group(VERSIONS), group(VERSIONS[::-1], 3)]
    share(shared, {})
    assert back == shared
    mine = [f.evidence for found in back for f in found["INCON001"]]
    theirs = [f.evidence for found in shared for f in found["INCON001"]]
    for name in ("variants", "family"):
        assert same_objects([e[name] for e in mine]) == same_objects([e[name] for e in theirs])
    assert mine[0]["variants"][0] is mine[-1]["variants"][1]  # across the two entries
    assert mine[0]["variants"][0]["rulings"][0] is mine[-1]["variants"][1]["rulings"][0]
    assert back[0]["INCON001"][0].file is back[1]["INCON001"][0].file


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["a", "found", "versions"]), VALUES), max_size=6))
def test_any_evidence_reads_back_exactly_and_as_single_as_share_makes_it(evidences):
    stored = PartsOnce(Found)
    found = {"INCON001": [finding(n, _copy(e)) for n, e in enumerate(evidences)]}
    copies: dict[Any, Any] = {}
    back = stored.decode(stored.encode(found), copies)
    share(back, copies, parts=False)
    expected = {"INCON001": [finding(n, _copy(e)) for n, e in enumerate(evidences)]}
    share(expected, {})
    mine = [f.evidence for f in back["INCON001"]]
    theirs = [f.evidence for f in expected["INCON001"]]
    assert [exact(e) for e in mine] == [exact(e) for e in evidences]
    values = [
        (v, w)
        for e, d in zip(mine, theirs, strict=True)
        for v, w in zip(e.values(), d.values(), strict=True)
    ]
    containers = [i for i, (v, _) in enumerate(values) if isinstance(v, list | dict)]
    assert same_objects([values[i][0] for i in containers]) == same_objects(
        [values[i][1] for i in containers]
    )


@pytest.mark.parametrize(
    "reference",
    [
        msgspec.msgpack.Ext(REFERENCE, (5).to_bytes(4, "little")),  # to a part not stored
        msgspec.msgpack.Ext(REFERENCE + 1, (0).to_bytes(4, "little")),  # another extension
        msgspec.msgpack.Ext(REFERENCE, b"\x00"),
    ],
)
def test_a_reference_to_no_part_is_no_entry(reference):
    stored = PartsOnce(Found)
    body = msgspec.msgpack.encode({"INCON001": [finding(1, {"variants": reference})]})
    data = msgspec.msgpack.encode(([msgspec.Raw(msgspec.msgpack.encode(["a"]))], msgspec.Raw(body)))
    with pytest.raises(ValueError):
        stored.decode(data)


def test_a_kind_stores_its_parts_once_under_another_version():
    plain = Kind("check-group", "groups", Found, version="1")
    once = Kind("check-group", "groups", Found, version="1", parts_once=True)
    found = group(VERSIONS)
    assert once.decode(once.encode(found)) == plain.decode(plain.encode(found)) == found
    assert len(once.encode(found)) < len(plain.encode(found))
    assert once.version_digest != plain.version_digest
    with pytest.raises((msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError)):
        once.decode(plain.encode(found))
