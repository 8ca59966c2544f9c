"""``fastjson`` writes the bytes the standard library writes and reads what it reads.

The stage tables and the cache keys are digested, so a byte written otherwise would change
every key; these tests compare with ``json`` on the values where orjson and ``json`` part
ways (small floats, long integers, lone surrogates, keys that are not strings).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines import fastjson

STANDARD = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
SORTED = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, sort_keys=True
)


def standard(value) -> bytes:
    return STANDARD.encode(value).encode("utf-8")


def standard_sorted(value) -> bytes:
    return SORTED.encode(value).encode("utf-8")


def test_floats_of_every_magnitude_are_written_as_python_writes_them():
    rng = random.Random(7)
    floats = [rng.random() * 10 ** rng.randint(-30, 30) for _ in range(20_000)]
    floats += [round(rng.random(), rng.randint(1, 8)) for _ in range(5_000)]
    floats += [0.0, -0.0, 1e-4, 9.99e-5, 1e-5, 5e-324, 1e16, 1e15, 1e308, -2.5e-7]
    for value in floats:
        assert fastjson.dumps([value, {"score": -value}]) == standard([value, {"score": -value}])


def test_values_orjson_refuses_or_reads_otherwise_go_through_json():
    values = [
        {"big": 2**64, "small": -(2**63) - 1, "huge": 10**30},
        {1: "int key", "k": (1, 2)},
        {"text": "a\ud800b"},
        {"text": "Ünïcödé “quotes” 😀 \u2028 \x00 \x1f \\ \"' </script>"},
        [True, False, None, 1.0, 1, ""],
    ]
    for value in values:
        try:
            expected = standard(value)
        except UnicodeEncodeError:
            with pytest.raises(UnicodeEncodeError):
                fastjson.dumps(value)
            continue
        assert fastjson.dumps(value) == expected


def test_every_character_is_written_as_json_writes_it():
    text = "".join(chr(c) for c in range(0x3000) if not 0xD800 <= c <= 0xDFFF)
    text += "".join(chr(c) for c in (0xFEFF, 0xFFFD, 0x1F600, 0x10FFFF))
    assert fastjson.dumps([text]) == standard([text])


def test_nan_and_infinities_are_written_null():
    """The one difference kept: the tables' encoder refused them; they are written null
    (still JSON), and no record holds one."""
    assert fastjson.dumps([math.nan, math.inf, -math.inf]) == b"[null,null,null]"


def test_nan_is_written_null_in_a_value_that_goes_through_json_too():
    """A small float sends the value through ``json``, which would refuse the NaN beside
    it: the NaN is written as orjson writes it, and the rest as ``json`` does."""
    value = {"score": 9.9e-05, "ratio": math.nan, "rows": [(math.inf, 2**70)], 1: "key"}
    assert fastjson.dumps(
        value
    ) == b'{"score":9.9e-05,"ratio":null,"rows":[[null,%d]],"1":"key"}' % (2**70)


def test_sorted_keys_are_sorted_as_json_sorts_them():
    """By code point, at every level (orjson sorts UTF-8 bytes: the same order), a
    dataclass's fields too (orjson alone writes them in declaration order)."""
    value = {
        "zeta": 1,
        "Zeta": {"é": [1, {"b": 2, "a": 9.9e-05}], "e": None, "😀": 1, "\uffff": 2},
        "": [Evidence(rule="702.9a", found=["x"])],
        "中文": True,
    }
    assert fastjson.dumps(value, sort_keys=True) == standard_sorted(
        {**value, "": [{"found": ["x"], "rule": "702.9a"}]}
    )
    without_small_float = {**value, "Zeta": {"k": [{"b": 2, "a": 1.5}], "é": 3}}
    assert fastjson.dumps(without_small_float, sort_keys=True) == standard_sorted(
        {**without_small_float, "": [{"found": ["x"], "rule": "702.9a"}]}
    )


@dataclasses.dataclass(slots=True)
class Evidence:
    rule: str
    found: list


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        ' \t{"b" : [1, 2.5, -0.0, 1e-7, 1e400, true, null]}  \t',
        '{"c": "\\ud83d\\ude00 \\u00e9 \\n"}',
        '{"d": "\\ud800"}',
        '{"e": NaN, "f": Infinity, "g": -Infinity}',
        '{"g": 123456789012345678901234567890, "h": -9223372036854775809}',
        '{"i": 18446744073709551615, "j": 9223372036854775807}',
        '{"dup": 1, "dup": 2}',
        '"just a string"',
        "[]",
    ],
)
def test_read_as_json_loads_reads(text: str):
    expected = json.loads(text)
    for given_text in (text, text.encode("utf-8")):
        got = fastjson.loads(given_text)
        assert json.dumps(got) == json.dumps(expected)
        assert [type(v) for v in _leaves(got)] == [type(v) for v in _leaves(expected)]


def _leaves(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


@pytest.mark.parametrize("text", ['{"a": 1', '{"a": 1} x', "", "[1,]", '{"a": "\x01"}'])
def test_malformed_text_raises_what_json_raises(text: str):
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    with pytest.raises(json.JSONDecodeError):
        fastjson.loads(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(300), deadline=None)
@given(JSON_VALUES)
def test_any_json_value_is_written_and_read_as_json_does(value):
    try:
        expected = standard(value)
    except (UnicodeEncodeError, ValueError):
        return
    assert fastjson.dumps(value) == expected
    assert fastjson.dumps(value, sort_keys=True) == standard_sorted(value)
    assert json.dumps(fastjson.loads(expected)) == json.dumps(json.loads(expected))


@settings(max_examples=examples(300), deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(), inner, max_size=4)
            | st.dictionaries(st.integers(), inner, max_size=3)
        ),
        max_leaves=16,
    )
)
def test_indented_text_is_what_json_indents(value):
    """The run manifest's format: ``indent=1``, sorted keys, text as it is."""
    assert fastjson.indented(value) == as_manifest(value)


def test_a_run_manifest_is_indented_as_json_indents_it():
    manifest = {
        "code": "f5ec08fa7953c2cb28aa8bffcd1e21b6",
        "inputs": {f"zh/{n:05d}_卡牌.txt": f"{n:032x}" for n in range(300, 0, -1)},
        "options": {"langs": "es,zh", "threshold": 0.62, "empty": {}, "none": []},
        "reports": {"csv": ["a" * 32, "b" * 32]},
        "version": "0.9.0",
    }
    assert fastjson.indented(manifest) == as_manifest(manifest)


def as_manifest(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)


# --- the stage tables, a chunk of records at a time (``tables._lines_of``) ------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.sampled_from([1e-5, 9.9e-5, 1e16, 2.5e300, -0.0, 0.5, 1e-4])
    | st.text()
)
EVIDENCE = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=10,
)
ROW_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
        | st.dictionaries(st.integers(0, 3) | st.sampled_from([1e16, 0.5, True]), inner, max_size=2)
    ),
    max_leaves=10,
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(EVIDENCE, max_size=4), ROW_VALUES, st.floats(), st.text())
def test_a_chunk_of_records_is_written_as_each_alone(evidence, row, score, text):
    from pipelines.model import Alignment, Finding
    from pipelines.tables import _line, _lines_of

    findings = [
        Finding(
            *("NUM001", "number", "warning", "es", "es/a.txt", n, None, None, None, None),
            *(text, {"found": value}),
        )
        for n, value in enumerate(evidence)
    ]
    rows = [Alignment("en:1", "es:1", "es", score, "rule", score / 3), {"k": row, "t": text}]
    for records in (findings, rows, findings + rows):
        try:
            expected = [_line(record) for record in records]
        except (UnicodeEncodeError, ValueError):
            continue
        assert _lines_of(records) == expected


def test_a_chunk_with_what_json_refuses_fails_as_each_alone():
    from pipelines.tables import _lines_of

    with pytest.raises(TypeError):
        _lines_of([{"found": {1, 2}}])  # a set: json refuses it, msgspec would write a list
    with pytest.raises(UnicodeEncodeError):
        _lines_of([{"text": "a\ud800b"}])
