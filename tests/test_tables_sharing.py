"""Equal parts of the records read back are one object (``tables._one_copy``): looked up by
a digest of their bytes before any walk through them, with the same outcome as the walk."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.model import Finding
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
@given(st.lists(VALUES, max_size=8), st.data())
def test_the_digest_finds_what_the_walk_finds(pool, data):
    values = [data.draw(st.sampled_from(pool)) for _ in range(12)] if pool else []
    walk_copies: dict[Any, Any] = {}
    digest_copies: dict[Any, Any] = {}
    by_walk = [walked(_copy(value), walk_copies) for value in values]
    by_digest = [_one_copy(_copy(value), digest_copies) for value in values]
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
