"""The memos bounded in size that the checks keep per text (pipelines/bounded.py)."""

import pytest

from pipelines.bounded import BoundedMemo

TEXTS = [f"Suspend {n}—{{{n}}}{{R}}" for n in range(100)]


def test_a_memo_keeps_its_latest_entries_and_never_more_than_twice_its_size():
    memo = BoundedMemo(size=10)
    for n, text in enumerate(TEXTS):
        memo[text] = n
        assert len(memo) <= 20
    assert all(memo.get(text) == n for n, text in enumerate(TEXTS[-10:], start=90))
    assert memo.get(TEXTS[0]) is None
    assert memo.get(TEXTS[0], "computed again") == "computed again"


def test_an_entry_read_again_is_kept_as_a_new_one():
    memo = BoundedMemo(size=10)
    memo["Flash"] = ["flash"]
    for text in TEXTS[:15]:
        memo[text] = 0
    assert memo.get("Flash") == ["flash"]  # old, read again: made young again
    for text in TEXTS[15:25]:
        memo[text] = 0
    assert memo.get("Flash") == ["flash"]
    for text in TEXTS[25:50]:
        memo[text] = 0
    assert memo.get("Flash") is None


def test_a_value_read_right_after_it_is_stored_is_there_whatever_the_size():
    memo = BoundedMemo(size=1)
    for n, text in enumerate(TEXTS):
        memo[text] = n
        assert memo.get(text) == n
    memo.clear()
    assert len(memo) == 0
    with pytest.raises(ValueError, match="at least one"):
        BoundedMemo(size=0)
