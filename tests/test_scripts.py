"""``weighted_letters`` counts what ``script_profile`` counts, a CJK character weighing
HAN_WEIGHT, on any text (its fast paths take fewer passes over the text)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.text.scripts import CJK_SCRIPTS, HAN_WEIGHT, script_profile, weighted_letters

MIXED = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0x20, max_codepoint=0x24F),
        st.characters(min_codepoint=0x3040, max_codepoint=0x30FF),
        st.characters(min_codepoint=0x4E00, max_codepoint=0x4E80),
        st.characters(min_codepoint=0xAC00, max_codepoint=0xAC40),
        st.characters(min_codepoint=0x0370, max_codepoint=0x04FF),
        st.sampled_from("・ー々〇０１２，。：「」—…’“”{}"),
    ),
    max_size=60,
)


def by_profile(text: str) -> int:
    profile = script_profile(text)
    cjk = sum(profile.get(name, 0) for name in CJK_SCRIPTS)
    return cjk * HAN_WEIGHT + sum(profile.values()) - cjk


@settings(max_examples=400, deadline=None)
@given(MIXED)
def test_weighted_letters_are_the_profile_weighted(text):
    assert weighted_letters(text) == by_profile(text)


def test_rules_text_in_three_languages():
    for text in (
        "702.9a Flying is an evasion ability.",
        "702.9a 飞行是躲避异能。",
        "Vuela. (Esta criatura no puede ser bloqueada excepto por criaturas voladoras.)",
        "カードを１枚引く。・ーテスト",
        "",
    ):
        assert weighted_letters(text) == by_profile(text)
