"""The natural sort key of ruling ids (``model.id_order``): the key of the whole id split
into its runs of digits, however the id ends."""

from __future__ import annotations

import re

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.model import id_order, shared_head_numbers


def whole_key(ruling_id: str) -> tuple:
    """The key as the id split at once into text and numbers."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", ruling_id)
    )


IDS = st.text(alphabet="ab:/#._-0123456789\u0663\u0664\u00b2", max_size=24)
"""Letters, separators, ASCII digits, Arabic-Indic digits (decimal digits too) and a
superscript two (a digit to ``str.isdigit``, not to ``\\d``)."""


@settings(max_examples=examples(3000), deadline=None)
@given(IDS)
def test_the_key_is_that_of_the_whole_id_split_at_once(ruling_id: str):
    try:
        expected = whole_key(ruling_id)
    except ValueError:  # a lone "²" between numbers: no number, yet a digit
        expected = ValueError
    try:
        found = id_order(ruling_id)
    except ValueError:
        found = ValueError
    assert found == expected


def test_ids_sort_in_natural_order():
    ids = ["f.txt:100", None, "f.txt:12", "f.txt", "e2.txt:3", "f.txt:12#2", "12"]
    assert sorted(ids, key=id_order) == [
        None,
        "12",
        "e2.txt:3",
        "f.txt",
        "f.txt:12",
        "f.txt:12#2",
        "f.txt:100",
    ]


@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(st.one_of(st.none(), IDS), max_size=8), st.sampled_from(["", "f.txt:", "a12b"]))
def test_shared_head_numbers_order_ids_as_their_keys_do(tails: list[str | None], head: str):
    """Ids that differ only in their last number sort by those numbers as by their keys
    (ties kept in place); the others give None."""
    ids = [None if tail is None else head + tail for tail in tails]
    try:
        keys = [id_order(ruling_id) for ruling_id in ids]
    except ValueError:
        return
    numbers = shared_head_numbers(ids)
    if numbers is None:
        return
    by_numbers = sorted(range(len(ids)), key=numbers.__getitem__)
    assert by_numbers == sorted(range(len(ids)), key=keys.__getitem__)


def test_shared_head_numbers_of_one_file_and_of_two():
    assert shared_head_numbers(["f.txt:12", None, "f.txt:3", "f.txt:012"]) == [12, -1, 3, 12]
    assert shared_head_numbers(["f.txt:12", "g.txt:3"]) is None
    assert shared_head_numbers(["f.txt:12", "f.txt"]) is None  # no last number
    assert shared_head_numbers(["f\u0663:12"]) == [12]
    assert shared_head_numbers(["f:\u06632"]) is None  # a decimal digit before the last number
