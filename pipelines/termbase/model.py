"""The termbase's records: concepts' terms per language, hits in a text, and the errors.

A concept (``triggered-ability``) has rows per language. Each row lists a canonical form
and its inflected forms, a status (``approved``, ``admitted``, ``forbidden``, ``obsolete``),
whether a translation of a source naming the concept must use an approved or admitted
term (``enforce``), and a note for translators. Source-language rows are the source side.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

HEADER = ("concept", "lang", "term", "status", "enforce", "note")
STATUSES = ("approved", "admitted", "forbidden", "obsolete")
USABLE = ("approved", "admitted")
"""Statuses of the terms a translation should use."""
ENFORCE_VALUES = {"yes": True, "no": False}
KEBAB_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
LANG_TAG = re.compile(r"[a-z]{2,3}(?:-[a-z0-9]{1,8})*")
WHITESPACE = re.compile(r"\s+")


class TermbaseError(Exception):
    """A termbase file that cannot be used; the message is ``"<path>:<line>: <problem>"``."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Term:
    """One row: the forms of a concept in a language that share a status and a note."""

    concept: str
    lang: str
    forms: tuple[str, ...]
    status: str
    enforce: bool
    note: str
    origin: str

    @property
    def canonical(self) -> str:
        return self.forms[0]


class TermHit(NamedTuple):
    """A form of a concept found in a text; ``form`` is the text as written there. (A named
    tuple rather than a frozen record: a text has dozens of hits, and tuples are made
    several times faster.)"""

    concept: str
    lang: str
    form: str
    status: str
    start: int
    end: int


@dataclass(slots=True)
class FileTerms:
    """The terms of one file, and the concepts whose ``enforce`` the file states."""

    terms: list[Term] = field(default_factory=list)
    enforce: dict[str, bool] = field(default_factory=dict)


def concept_id(text: str) -> str:
    """Kebab-case id of an English headword: ``City’s Blessing`` -> ``citys-blessing``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = re.sub(r"['’]", "", ascii_text.lower())
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text))


def normalize_lang(tag: str) -> str:
    """Lower-case BCP-47 tag with hyphens: ``zh_Hans`` -> ``zh-hans``."""
    return tag.strip().replace("_", "-").lower()


def languages_related(term_lang: str, query: str) -> bool:
    """``es`` terms serve ``es-MX`` text and ``es-ES`` terms serve ``es`` text."""
    return (
        term_lang == query or term_lang.startswith(query + "-") or query.startswith(term_lang + "-")
    )


def form_key(form: str) -> str:
    """What two spellings of a form share: case, apostrophe style and spacing are ignored."""
    return WHITESPACE.sub(" ", fold(form)).replace("’", "'").strip()


def fold(text: str) -> str:
    """Lower-cased text of the same length, so that offsets stay valid."""
    folded = text.lower()
    if len(folded) == len(text):
        return folded
    return "".join(char.lower() if len(char.lower()) == 1 else char for char in text)


def split_forms(term: str, where: str) -> tuple[str, ...]:
    forms = tuple(WHITESPACE.sub(" ", form).strip() for form in term.split("|"))
    if not term.strip():
        raise TermbaseError(where, "empty term")
    if any(not form for form in forms):
        raise TermbaseError(where, f"empty form in {term!r}")
    return forms


def check_new_forms(
    concept: str,
    lang: str,
    forms: Iterable[str],
    where: str,
    seen: dict[tuple[str, str, str], str],
) -> None:
    """A form may appear once per concept and language within one file."""
    for form in forms:
        key = (concept, lang, form_key(form))
        if key in seen:
            raise TermbaseError(
                where, f"form {form!r} of {concept!r} ({lang}) is already listed at {seen[key]}"
            )
        seen[key] = where
