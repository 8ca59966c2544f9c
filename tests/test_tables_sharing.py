"""Equal parts of the records read back are one object (``tables._one_copy``): looked up by
a digest of their bytes before any walk through them, with the same outcome as the walk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines import tables
from pipelines.model import Finding, Ruling
from pipelines.tables import _identity, _one_copy, share

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from([0.0, -0.0, 1.0, 0.5]),
    st.sampled_from(["", "a", "b", "versions", "1"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "found", "versions"]), inner, max_size=3),
    ),
    max_leaves=12,
)


def walked(value: Any, copies: dict[Any, Any]) -> Any:
    """The walk alone: every container known by its kind and its items' identities."""
    kind = type(value)
    if kind is str:
        return copies.setdefault(value, value)
    if kind is list:
        items = [walked(item, copies) for item in value]
        return copies.setdefault((list, *map(_identity, items)), items)
    if kind is dict:
        entries = {copies.setdefault(k, k): walked(v, copies) for k, v in value.items()}
        key = (dict, *map(_identity, entries), *map(_identity, entries.values()))
        return copies.setdefault(key, entries)
    return value


def same_objects(values: list[Any]) -> list[list[int]]:
    """Which of the values are one object, as groups of their positions."""
    groups: dict[int, list[int]] = {}
    for position, value in enumerate(values):
        groups.setdefault(id(value), []).append(position)
    return sorted(groups.values())


def exact(value: Any) -> Any:
    """A value with each number's kind and sign spelled out (1, 1.0, True and -0.0 apart)."""
    if isinstance(value, list):
        return ["list", *map(exact, value)]
    if isinstance(value, dict):
        return ["dict", *((k, exact(v)) for k, v in value.items())]
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=8), st.data(), st.sampled_from([0, 8, 64, 1 << 20]))
def test_the_digest_finds_what_the_walk_finds(pool, data, packed_as_key):
    """Whether containers are looked up by their bytes, by their digest, or some by one and
    some by the other (``tables.PACKED_AS_KEY``), the same ones are made one object as a
    walk through them makes."""
    values = [data.draw(st.sampled_from(pool)) for _ in range(12)] if pool else []
    walk_copies: dict[Any, Any] = {}
    digest_copies: dict[Any, Any] = {}
    by_walk = [walked(_copy(value), walk_copies) for value in values]
    usual, tables.PACKED_AS_KEY = tables.PACKED_AS_KEY, packed_as_key
    try:
        by_digest = [_one_copy(_copy(value), digest_copies) for value in values]
    finally:
        tables.PACKED_AS_KEY = usual
    assert [exact(v) for v in by_digest] == [exact(v) for v in values]
    assert [exact(v) for v in by_walk] == [exact(v) for v in values]
    containers = [i for i, v in enumerate(values) if isinstance(v, list | dict)]
    assert same_objects([by_digest[i] for i in containers]) == same_objects(
        [by_walk[i] for i in containers]
    )


def _copy(value: Any) -> Any:
    """A fresh copy (values decoded from two cache entries are different objects)."""
    if isinstance(value, list):
        return [_copy(item) for item in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def test_findings_read_back_share_the_evidence_they_repeat():
    versions = [{"doc": "es/a.txt", "text": "Suspender 4—{R}"}, {"doc": "es/b.txt", "text": "x"}]
    findings = [
        Finding(
            *(
                "INCON001",
                "inconsistent-translation",
                "warning",
                "es",
                "es/a.txt",
                n,
                None,
                None,
                None,
            ),
            *(None, f"m{n}", {"versions": [dict(v) for v in versions], "found": f"f{n % 2}"}),
        )
        for n in range(4)
    ]
    copies: dict[Any, Any] = {}
    share(findings, copies)
    evidences = [f.evidence for f in findings]
    assert evidences[0] is evidences[2] and evidences[1] is evidences[3]
    assert evidences[0] is not evidences[1]
    assert evidences[0]["versions"] is evidences[1]["versions"]
    assert evidences[0]["versions"] == versions


def test_a_value_msgpack_cannot_hold_is_walked():
    huge = [2**70, "a"]
    copies: dict[Any, Any] = {}
    first, second = _one_copy(list(huge), copies), _one_copy(list(huge), copies)
    assert first == huge and first is second


def test_equal_in_python_is_not_enough_to_share():
    values = [
        {"a": 1, "b": 2},
        {"b": 2, "a": 1},
        [1],
        [1.0],
        [True],
        [0.0],
        [-0.0],
        [[1]],
        [[True]],
    ]
    copies: dict[Any, Any] = {}
    shared = [_one_copy(_copy(value), copies) for value in values]
    assert [exact(v) for v in shared] == [exact(v) for v in values]
    again = [_one_copy(_copy(value), copies) for value in values]
    assert all(a is b for a, b in zip(again, shared, strict=True))


def test_card_names_read_back_share_their_language_and_card():
    """A card name is a frozen record: its repeated columns are shared all the same."""
    from pipelines.model import CardName

    names = [
        CardName(name, "".join(["e", "s"]), "".join(["Sh", "ock"]), "".join(["card", "s"]))
        for name in ("Descarga", "Choque")
    ]
    assert names[0].lang is not names[1].lang and names[0].card is not names[1].card
    share(names, {})
    assert names[0].lang is names[1].lang and names[0].card is names[1].card
    assert names[0].source is names[1].source and names[0].name == "Descarga"


def _rulings(texts: list[str]) -> list[Ruling]:
    """Units of one Spanish card file, each with its own copies of the file's strings."""
    return [
        Ruling(
            "".join(["es/shock.txt:", str(n)]), "".join(["es/", "shock.txt"]), n, "plain-dated",
            "".join(["Desc", "arga"]), "".join(["Sh", "ock"]), None, "es", "es", [], None, None,
            text, doc="".join(["es/", "shock.txt"]), carried=[{"text": "".join(["x", "y"])}],
        )
        for n, text in enumerate(texts, 1)
    ]  # fmt: skip


def test_a_list_of_records_is_shared_a_column_at_a_time_as_one_by_one():
    """A file's rulings read back: their repeated strings and equal parts are one object
    each, the same objects as when each ruling is shared on its own."""
    texts = ["Descarga hace 2 puntos de daño.", "Si el objetivo es ilegal, no se resuelve."]
    by_column, one_by_one = _rulings(texts), _rulings(texts)
    copies: dict[Any, Any] = {}
    share(by_column, copies)
    singles: dict[Any, Any] = {}
    for ruling in one_by_one:
        share(ruling, singles)
    assert by_column == one_by_one
    first, second = by_column
    assert first.file is second.file is second.doc and first.card is second.card
    assert first.spans is second.spans and first.carried is second.carried
    assert first.text is not second.text  # a ruling's own text is not a repeated column
    assert set(map(type, copies)) - {type(None)} == set(map(type, singles))
    assert {k for k in copies if type(k) is str} == {k for k in singles if type(k) is str}


@dataclass(slots=True)
class _Tagged:
    """A record whose repeated column ``tag`` may hold anything (none of ``model``'s does)."""

    name: str
    tag: Any


def test_a_column_that_may_hold_anything_but_text_is_shared_one_by_one(monkeypatch):
    """``True`` after a 1 in a column annotated to hold anything is not taken for the 1:
    equal keys are not enough to share. The column annotated as text beside it is shared
    all the same."""
    monkeypatch.setitem(tables.REPEATED_COLUMNS, _Tagged, frozenset({"name", "tag"}))
    records = [_Tagged("".join(["Sh", "ock"]), 1), _Tagged("".join(["Sh", "ock"]), True)]
    share(records, {})
    assert records[0].tag == 1 and records[1].tag is True
    assert records[0].name is records[1].name


def test_a_column_annotated_as_text_is_shared_without_a_look_at_its_values_types(monkeypatch):
    """What the cache's typed decoder gives holds text or None where the annotation says so:
    ``share`` goes through such a column without scanning its values' types, and shares
    every equal text of it."""
    scanned: list[Any] = []
    scan = tables._TEXT_OR_NOTHING

    class Watched(frozenset):
        def issuperset(self, types):
            kinds = list(types)
            scanned.append(kinds)
            return scan.issuperset(kinds)

    monkeypatch.setattr(tables, "_TEXT_OR_NOTHING", Watched(scan))
    rulings = _rulings(["uno", "dos"])
    share(rulings, {})
    assert scanned == []
    assert rulings[0].file is rulings[1].file and rulings[0].card is rulings[1].card


def test_records_in_many_small_lists_are_shared_together():
    """What the cache gives back (a document's findings by code, one list per code; a file's
    rulings inside its reading): the records of each type are gathered from every list and
    dict and shared as one list would be, each repeated string and equal part one object
    across all of them."""
    first, second = _rulings(["uno"]), _rulings(["dos"])
    findings = [_finding(n) for n in range(3)]
    value = [{"TERM003": [findings[0]], "INCON001": [findings[1]]}, {"TERM003": [findings[2]]}]
    copies: dict[Any, Any] = {}
    share([first, {"held": second}, value], copies)
    assert first[0].file is second[0].file and first[0].card is second[0].card
    assert first[0].spans is second[0].spans
    assert findings[0].file is findings[1].file is findings[2].file
    assert findings[0].evidence is findings[2].evidence  # equal parts: one object
    assert [f.line for f in findings] == [0, 1, 2]


def test_each_record_type_is_gone_through_once_however_many_lists_hold_it(monkeypatch):
    """A column is gone through in one pass over every record of its type, not once per
    small list (that took longer than the values themselves on a million units)."""
    passes: list[type] = []
    column_passes = tables._shared_by_column

    def counted(records, copies, with_parts=True):
        passes.append(type(records[0]))
        return column_passes(records, copies, with_parts)

    monkeypatch.setattr(tables, "_shared_by_column", counted)
    lists = [{"TERM003": [_finding(n)], "INCON001": [_finding(n + 10)]} for n in range(5)]
    share([_rulings(["uno"]), _rulings(["dos"]), lists], {})
    assert sorted(passes, key=lambda kind: kind.__name__) == [Finding, Ruling]


def _finding(line: int) -> Finding:
    return Finding(
        "".join(["TERM", "003"]), "terminology", "warning", "es",
        "".join(["es/", "shock.txt"]), line, f"es/shock.txt:{line}", None, None, None,
        "“jugar” is old wording; use “lanzar”.",
        {"concept": "cast", "expected": ["lanzar"], "found": ["".join(["jug", "ar"])]},
    )  # fmt: skip
