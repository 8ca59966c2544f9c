"""A document's language from its units' languages and letters (``ingest.languages``).

The language is decided on the letters per language; a translation is decided as soon as its
own language holds a quarter of them, without counting the rest of a long document. These
tests hold the decision to the plain count of every unit's letters."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest import languages
from pipelines.ingest.langid import Identification
from pipelines.ingest.languages import TRANSLATED_SHARE, _document_language
from pipelines.model import Ruling
from pipelines.text.scripts import weighted_letters

TEXTS = {
    "en": ["The spell is countered.", "Flash", "702.19b", "X"],
    "es": ["El hechizo se contrarresta.", "Destello", "¡Sí!"],
    "zh": ["该咒语被反击。", "闪现", "第702.19b条"],
    "fr": ["Le sort est contrecarré."],
}


def unit(lang: str | None, text: str, title: str | None = None) -> Ruling:
    return Ruling("u", "doc.txt", 1, "cr-text", title, None, None, None, lang, [], None, None, text)


class TitleIdentifier:
    """Says a title is in the language it names (``"zh title"``)."""

    def identify(self, text: str) -> Identification:
        return Identification(text.split()[0], ())


def counted_every_unit(members: list[Ruling], source_lang: str) -> str | None:
    """The decision with every unit's letters counted (the rule the code must keep)."""
    weight: Counter[str] = Counter()
    for item in members:
        if item.lang:
            weight[item.lang] += weighted_letters(item.text)
    if not weight:
        return None
    translated = [lang for lang in sorted(weight) if lang != source_lang]
    if translated:
        best = max(translated, key=weight.__getitem__)
        if weight[best] >= TRANSLATED_SHARE * sum(weight.values()):
            return best
    return max(sorted(weight), key=weight.__getitem__)


LANGS = st.sampled_from([None, "en", "es", "zh", "fr"])
UNITS = st.lists(
    LANGS.flatmap(
        lambda lang: st.tuples(
            st.just(lang),
            st.sampled_from(TEXTS.get(lang or "en", TEXTS["en"])) | st.text(max_size=12),
        )
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=400, deadline=None)
@given(UNITS, st.sampled_from(["en", "es"]))
def test_the_decision_is_that_of_every_unit_counted(units, source_lang):
    members = [unit(lang, text) for lang, text in units]
    expected = counted_every_unit(members, source_lang)
    assert _document_language(members, TitleIdentifier(), source_lang, {}) == expected


def test_a_long_translation_is_decided_after_a_few_of_its_units(monkeypatch):
    """Ten English units left in 4,000 Chinese ones: the document is Chinese, and the
    Chinese units are counted only until they hold a quarter of the letters."""
    members = [unit("en", TEXTS["en"][0]) for _ in range(10)]
    members += [unit("zh", TEXTS["zh"][0]) for _ in range(4000)]
    counted = []

    def counting(text: str) -> int:
        counted.append(text)
        return weighted_letters(text)

    monkeypatch.setattr(languages, "weighted_letters", counting)
    assert _document_language(members, TitleIdentifier(), "en", {}) == "zh"
    assert len(counted) < 20
    counted.clear()
    english = [unit("en", TEXTS["en"][0]) for _ in range(4000)]
    assert _document_language(english, TitleIdentifier(), "en", {}) == "en"
    assert counted == []  # one language: nothing to weigh


def test_a_source_document_with_a_few_translated_units_stays_the_source():
    members = [unit("en", TEXTS["en"][0]) for _ in range(40)] + [unit("es", TEXTS["es"][0])]
    assert _document_language(members, TitleIdentifier(), "en", {}) == "en"
    assert counted_every_unit(members, "en") == "en"


def test_a_telling_title_in_a_language_of_the_units_decides():
    members = [unit("en", TEXTS["en"][0], "zh 标题") for _ in range(40)]
    members.append(unit("zh", TEXTS["zh"][1], "zh 标题"))
    assert _document_language(members, TitleIdentifier(), "en", {}) == "zh"
    assert _document_language(members, TitleIdentifier(), "en", {"zh 标题": "es"}) == "es"
