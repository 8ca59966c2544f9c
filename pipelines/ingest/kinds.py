"""What each document is to the run (``doc_kind``) and which version of its text it is
(``doc_version``).

- ``source``: in the source language; only these provide alignment sources.
- ``translation``: in another candidate language; aligned with a source and checked. English
  text inside a translation is untranslated text, never a source.
- ``glossary``: a term list or bilingual glossary (said by its reader, or most of its units
  are glossary entries): offered to the termbase, never aligned.
- ``other``: a document in no candidate language (or no language at all, or clearly in a
  language outside ``--languages``: ``foreign.py``): reported once, not checked.

A rules document's version is its effective date (its front matter: "These rules are
effective as of …"), else a date in its file name (``MagicCompRules_20231013_en.txt``).
"""

from __future__ import annotations

import re
from collections import defaultdict

from ..catalogue import make_finding
from ..model import Finding, Ruling
from ..resources import language_name
from ..vocabulary import DocKind
from .foreign import ForeignLanguages

GLOSSARY_SHARE = 0.6
"""A document is a glossary when at least this share of its units are glossary entries."""
KIND_TEXT = {kind: str(kind) for kind in DocKind}
"""Each kind's text once (``str`` of an enum member makes a new string: one per ruling)."""
FILE_DATE = re.compile(r"(?<!\d)(20\d{2})[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")


def assign_documents(
    rulings: list[Ruling],
    source_lang: str,
    languages: tuple[str, ...],
    foreign: ForeignLanguages | None = None,
) -> list[Finding]:
    """Set ``doc_kind`` and ``doc_version`` on every ruling; report glossaries and documents
    that are not checked, once each. ``foreign``: the answers of earlier runs to ask (and
    keep new ones in, with ``save``; else none are kept)."""
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    findings = []
    foreign_languages = foreign or ForeignLanguages(None, languages)
    documents = list(by_doc.values())
    kinds = [document_kind(members, source_lang, languages) for members in documents]
    asked = [m for m, kind in zip(documents, kinds, strict=True) if kind != DocKind.GLOSSARY]
    answers = iter(foreign_languages.answers(asked))  # in the order of the documents asked
    for members, kind in zip(documents, kinds, strict=True):
        found = next(answers) if kind != DocKind.GLOSSARY else None
        if found:
            kind = DocKind.OTHER
            for item in members:
                item.doc_lang = item.lang = found
        version = document_version(members)
        kind_text = KIND_TEXT[kind]
        for item in members:
            item.doc_kind = kind_text
            item.doc_version = version
        if kind == DocKind.GLOSSARY:
            findings.append(_glossary_finding(members))
        elif kind == DocKind.OTHER:
            findings.append(_other_finding(members, languages))
    return findings


def document_kind(members: list[Ruling], source_lang: str, languages: tuple[str, ...]) -> DocKind:
    preset = {item.doc_kind for item in members if item.doc_kind}
    if len(preset) == 1:
        return DocKind(preset.pop())
    glossary = sum(1 for item in members if item.kind == "glossary")
    if glossary >= GLOSSARY_SHARE * len(members) and glossary >= 2:
        return DocKind.GLOSSARY
    doc_lang = members[0].doc_lang
    if doc_lang is None or doc_lang not in languages:
        return DocKind.OTHER
    return DocKind.SOURCE if doc_lang == source_lang else DocKind.TRANSLATION


def document_version(members: list[Ruling]) -> str | None:
    """The effective date of a rules document, else a date in its file name."""
    rules_dates = {item.date for item in members if item.format == "cr-text" and item.date}
    if len(rules_dates) == 1:
        return rules_dates.pop()
    found = FILE_DATE.search(members[0].file.rsplit("/", 1)[-1])
    if found and members[0].format in ("cr-text", "cr-summary"):
        return "-".join(found.groups())
    return None


def _glossary_finding(members: list[Ruling]) -> Finding:
    first = min(members, key=lambda r: (r.line or 0, r.position))
    entries = len({item.context for item in members if item.context})
    what, it, its = f"{first.file} is a glossary", "it is", "its"
    if first.doc != first.file:  # a term list inside a larger document
        last = max((item.end_line or item.line or 0) for item in members)
        what = f"Lines {first.line}\u2013{last} of {first.file} are a term list"
        it, its = "they are", "their"
    return make_finding(
        "DOC001",
        f"{what} ({entries} entries): {it} not aligned or checked as a "
        f"translation; {its} term pairs are offered as a termbase in glossary-terms.tsv.",
        file=first.file,
        line=first.line,
        lang=first.doc_lang,
        evidence={"document": first.doc, "entries": entries, "units": len(members)},
        anchor=first.doc,
    )


def _other_finding(members: list[Ruling], languages: tuple[str, ...]) -> Finding:
    first = min(members, key=lambda r: (r.line or 0, r.position))
    found = (
        f"{language_name(first.doc_lang)} ({first.doc_lang})" if first.doc_lang else "no language"
    )
    return make_finding(
        "DOC002",
        f"{first.file} is not checked: its text is in {found}, not in one of the languages "
        f"{', '.join(languages)} (see --languages).",
        file=first.file,
        line=first.line,
        lang=first.doc_lang,
        evidence={"document": first.doc, "found_lang": first.doc_lang, "units": len(members)},
        anchor=first.doc,
    )
