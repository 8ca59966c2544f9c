"""Quotes and spacing made plain (``text.plain_quotes``): every quotation mark straight,
every run of white space one space, whatever shortcut a text takes."""

from __future__ import annotations

from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.model import Ruling
from pipelines.text import QUOTE_MARKS, plain_quotes, template_text

TEXTS = st.text(alphabet=" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u3000ab.{}“”‘’«»「」é中", max_size=30)
"""ASCII and other white space, curly and angled quotes, ASCII, Latin and Han letters."""


def by_definition(text: str) -> str:
    return " ".join(text.translate(QUOTE_MARKS).split())


@settings(max_examples=examples(3000), deadline=None)
@given(TEXTS)
def test_quotes_and_spaces_are_plain_as_their_definition_says(text: str):
    assert plain_quotes(text) == by_definition(text)


def test_an_ascii_text_spaced_as_it_should_be_is_given_back_itself():
    text = "Draw a card. Then discard a card."
    assert plain_quotes(text) is text
    assert plain_quotes(" Draw  a\tcard.\n") == "Draw a card."


def test_the_template_of_a_ruling_names_no_card_and_folds_its_case():
    ruling = Ruling(
        "en/shock.txt:2", "en/shock.txt", 2, "plain-dated", "Shock", "Shock", None, "en", "en",
        [], None, None, "Shock deals 2 damage to “any target”.",
    )  # fmt: skip
    assert template_text(ruling) == '\u2063card\u2063 deals 2 damage to "any target".'
