"""Language identification on realistic ruling text (seed rulings, CR lines, card lines).

Fast and offline: the texts are inlined. benchmarks/langid.py measures the same backends on
the full corpora.
"""

from __future__ import annotations

import pytest

from pipelines.ingest.langid import build

ENGLISH = (
    "If the second triggered ability is countered, the card can't be cast. It remains exiled "
    "with no time counters on it, and it's no longer suspended."
)
SPANISH = (
    "Si la segunda habilidad disparada es contrarrestada, la carta no puede lanzarse. "
    "Permanece exiliada sin contadores de tiempo y deja de estar suspendida."
)
CHINESE = "使用延缓放逐一张牌并不等于施放该牌。此动作不使用堆叠，且不能被回应。"
HALF_TRANSLATED = (  # seed 002, line 53: two English clauses left inside a Chinese ruling
    "你可以在任何能够施放手牌中该牌的时机使用延缓放逐它。你必须考虑它的牌类别、任何改变你能够"
    "施放它的时机的效应（such as flash），以及任何阻止你施放它的其他效应（such as from Meddling "
    "Mage’s ability），以确定你能否以及何时能如此作。你是否实际上能够完成施放该牌的所有步骤并不"
    "重要。例如，即使当时没有合法目标可用，你仍可以放逐一张没有法术力费用或需要目标的延缓牌。"
)
HALF_TRANSLATED_TAIL = (  # seed 002, line 49: the ruling's second half is still English
    "如果某个效应提及“延缓牌”，意指一张(1) has suspend, (2) is in exile, and (3) has one or "
    "more time counters on it."
)
SPANISH_WITH_ENGLISH_NAME = (  # seed 001, line 49 (abridged)
    "Considera su tipo de carta, cualquier efecto que modifique cuándo podrías lanzarla (como "
    "destello) y cualquier otro efecto que te impida lanzarla (como el de la habilidad de "
    "Meddling Mage) para determinar si puedes hacer esto y cuándo."
)


@pytest.fixture(scope="module")
def lingua():
    return build("lingua")


@pytest.mark.parametrize(
    ("text", "lang"),
    [(ENGLISH, "en"), (SPANISH, "es"), (CHINESE, "zh")],
    ids=["en", "es", "zh"],
)
@pytest.mark.parametrize("backend", ["lingua", "langdetect"])
def test_whole_rulings_get_their_language_and_no_spans(backend, text, lang):
    found = build(backend).identify(text)
    assert found.lang == lang
    assert found.spans == ()


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("参见规则702.19c，“践踏”。", "zh"),  # rule reference letters are not English
        ("一张牌（Exchange of Words）指示牌手交换两个生物的文字栏。", "zh"),
        ("Creatures you control get +1/+0 until end of turn.", "en"),
        ("Destruye la criatura objetivo girada.", "es"),
        ("Encantar criatura.", "es"),
    ],
)
def test_short_and_card_lines(lingua, text, lang):
    assert lingua.identify(text).lang == lang


@pytest.mark.parametrize(
    "text",
    [
        "延缓2～{2}{B}{B}",  # Suspend 2—{2}{B}{B}: the symbols' letters are not English
        "例如：{G/W}{G/W}可以使用{G}{G}、{G}{W}或{W}{W}来支付。",
        "牌手可以使用在Wizards.com/Locator的万智牌店家和赛事定位器来寻找其所在地区的比赛。",
    ],
)
def test_chinese_with_symbols_or_addresses_is_chinese(lingua, text):
    assert lingua.identify(text).lang == "zh"


@pytest.mark.parametrize("text", ["", "   ", "{2}{U}", "1/1", "—"])
def test_no_letters_no_language(lingua, text):
    assert lingua.identify(text).lang is None


def test_half_translated_ruling_reports_both_runs(lingua):
    found = lingua.identify(HALF_TRANSLATED)
    assert found.lang == "zh"
    assert {lang for lang, _, _ in found.spans} == {"zh", "en"}
    english = [HALF_TRANSLATED[s:e] for lang, s, e in found.spans if lang == "en"]
    assert "such as flash" in english
    assert any("Meddling Mage" in part for part in english)


def test_english_tail_of_a_chinese_ruling_is_a_run(lingua):
    found = lingua.identify(HALF_TRANSLATED_TAIL)
    assert {lang for lang, _, _ in found.spans} == {"zh", "en"}
    runs = {lang: HALF_TRANSLATED_TAIL[s:e] for lang, s, e in found.spans}
    assert runs["zh"].startswith("如果某个效应")
    assert runs["en"].endswith("time counters on it.")


def test_spans_are_ordered_disjoint_and_trimmed(lingua):
    found = lingua.identify(HALF_TRANSLATED)
    ends = [0]
    for _, start, end in found.spans:
        assert ends[-1] <= start < end <= len(HALF_TRANSLATED)
        segment = HALF_TRANSLATED[start:end]
        assert segment[0].isalpha() and segment == segment.strip()
        ends.append(end)


def test_spanish_ruling_naming_an_english_card_stays_spanish(lingua):
    found = lingua.identify(SPANISH_WITH_ENGLISH_NAME)
    assert found.lang == "es"
    if found.spans:  # an English run, if any, is the card name and nothing more
        english = [SPANISH_WITH_ENGLISH_NAME[s:e] for lang, s, e in found.spans if lang == "en"]
        assert english == ["Meddling Mage"]


def test_prefetch_does_not_change_answers():
    texts = [ENGLISH, SPANISH, CHINESE, HALF_TRANSLATED, "延缓2～{2}{B}{B}", "Encantar criatura."]
    cold = build("lingua")
    warm = build("lingua")
    warm.prefetch(texts)
    assert [warm.identify(t) for t in texts] == [cold.identify(t) for t in texts]


def test_lingua_builds_its_detector_on_the_first_text_it_must_detect():
    """The detector (and lingua's models, read at once when it is built) comes with the
    first text that needs it: Chinese-only text is told by its script, and an identifier
    that only meets such text reads no model."""
    identifier = build("lingua", ("en", "es", "zh"))
    assert "_detector" not in vars(identifier)
    assert identifier.identify(CHINESE).lang == "zh"
    assert "_detector" not in vars(identifier)
    assert identifier.identify(SPANISH).lang == "es"
    assert "_detector" in vars(identifier)
