"""Give every ruling its language (``lang``), mixed runs (``spans``) and ``doc_lang``."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from ..engine import Engine, partitions, process_cache
from ..engine.local import LocalEngine
from ..model import Ruling
from ..text.scripts import script_profile, weighted_letters
from ..vocabulary import DEFAULT_SOURCE_LANG
from ..work import Cache, no_cache
from .identified import IdentificationStore
from .langid import Identification, LanguageIdentifier, build

SHORT_TEXT_LETTERS = 30
"""Below this many letters a detector's guess between two languages of the same script is
noise ("General", "Planes", "Ante" come out as Spanish); the document's language wins."""
CJK_LANGS = {"zh", "ja", "ko"}


DOCUMENTS_PER_TASK = 200


def assign_languages(
    rulings: list[Ruling],
    identifier: str,
    languages: tuple[str, ...],
    engine: Engine | None = None,
    work: Cache | None = None,
    *,
    source_lang: str = DEFAULT_SOURCE_LANG,
    title_langs: dict[str, str] | None = None,
    follow: bool = True,
) -> list[Ruling]:
    """The rulings with ``lang``, ``spans`` and ``doc_lang`` filled, in the same order;
    documents are identified in groups, one task each. With a ``work`` cache that keeps, the
    identifications of earlier runs are reused (texts are identified once, ever:
    ``identified.py``).
    ``title_langs`` gives the language of titles that are card names in one language.
    ``follow``: documents that cannot tell their language take their folder's
    (``follow_folders``); without it, the caller decides that over all the run's folders."""
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    groups = [
        [item for doc in docs for item in by_doc[doc]]
        for docs in partitions(list(by_doc), max(1, -(-len(by_doc) // DOCUMENTS_PER_TASK)))
    ]
    store = IdentificationStore(work or no_cache(), identifier, languages, source_lang)
    known = store.load(_asked(rulings, by_doc))
    engine = engine or LocalEngine()
    shared = {
        "identifier": identifier,
        "languages": languages,
        "known": known,
        "source_lang": source_lang,
        "title_langs": title_langs or {},
    }
    done = engine.map(identify_documents, groups, shared=shared)
    by_id = {item.id: item for group, _ in done for item in group}
    store.add({key: value for _, new in done for key, value in new.items()})
    shared_identifier.cache_clear()
    identified = [by_id[item.id] for item in rulings]
    if follow:
        follow_folders(identified, title_langs or {})
    return identified


FOLDER_MIN_DOCUMENTS = 3
FOLDER_MAJORITY = 0.75
"""A document too short to tell its language takes its folder's, when at least this many
other documents of the folder tell theirs and this share of them agree."""
FOLDER_UNANIMITY = 0.9
FOLDER_UNANIMOUS_DOCUMENTS = 9
"""A document of a folder whose other documents (at least this many) are this much of one
language is a document of that language, however much of it is left in another: a Spanish
card's document whose lines were left in English is an untranslated Spanish document."""


def follow_folders(rulings: list[Ruling], title_langs: dict[str, str]) -> None:
    """A document whose own text cannot tell its language ("Scry 1. / Draw a card.", whose
    words are Spanish words too; "Vigilance") takes the language of its folder, when the
    folder's other documents agree on one: a team keeps each language's documents
    together. A document tells its language when a unit of at least ``SHORT_TEXT_LETTERS``
    letters is in it, or its title is a card name of that language; a file of many documents
    (MTGJSON, the rules) has no vote. A document that tells
    another language than a folder all of one language (``FOLDER_UNANIMITY``) takes the
    folder's (English left in a Spanish document). The units of a document that changes
    language follow it where they are short (``_defer_to_document``)."""
    take_folder_languages(rulings, folder_languages(folder_votes(rulings, title_langs)))


@dataclass
class FolderVote:
    """What a document alone in its file says of its folder's language (``follow_folders``):
    the folder, whether the document tells its own language, and that language."""

    doc: str
    folder: str
    told: bool
    lang: str | None


def folder_votes(rulings: list[Ruling], title_langs: dict[str, str]) -> list[FolderVote]:
    """The votes of the documents alone in their files, in the rulings' order (a document of
    a file of many, MTGJSON or the rules, has no vote and keeps its own language)."""
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    documents_of_file = Counter(members[0].file for members in by_doc.values())
    votes = []
    for doc, members in by_doc.items():
        first = members[0]
        if documents_of_file[first.file] != 1:
            continue
        told = (first.doc_title in title_langs) or any(
            m.lang == first.doc_lang and weighted_letters(m.text) >= SHORT_TEXT_LETTERS
            for m in members
        )
        folder = first.file.replace("\\", "/").rpartition("/")[0]
        votes.append(FolderVote(doc, folder, told, first.doc_lang))
    return votes


def folder_languages(votes: list[FolderVote]) -> dict[str, str]:
    """The documents that take their folder's language (``follow_folders``), and that
    language."""
    languages: dict[str, Counter[str]] = defaultdict(Counter)
    for vote in votes:
        if vote.told and vote.lang:
            languages[vote.folder][vote.lang] += 1
    taken = {}
    for vote in votes:
        others = Counter(languages.get(vote.folder, {}))
        if vote.told and vote.lang:
            others[vote.lang] -= 1  # the other documents' votes
        if sum(others.values()) < FOLDER_MIN_DOCUMENTS:
            continue
        lang, count = max(sorted(others.items()), key=lambda kv: kv[1])
        if lang == vote.lang:
            continue
        share = count / sum(others.values())
        if vote.told and not (share >= FOLDER_UNANIMITY and count >= FOLDER_UNANIMOUS_DOCUMENTS):
            continue
        if share < FOLDER_MAJORITY:
            continue
        taken[vote.doc] = lang
    return taken


def take_folder_languages(rulings: list[Ruling], taken: dict[str, str]) -> None:
    """Give the documents of ``taken`` their folder's language; their units that are short
    follow it (``_defer_to_document``)."""
    for item in rulings:
        lang = taken.get(item.doc)
        if lang is not None:
            item.doc_lang = lang
            if not item.spans and _defer_to_document(item):
                item.lang = lang


def identify_documents(
    rulings: list[Ruling],
    identifier: str,
    languages: tuple[str, ...],
    known: dict[str, Identification],
    source_lang: str = DEFAULT_SOURCE_LANG,
    title_langs: dict[str, str] | None = None,
) -> tuple[list[Ruling], dict[str, Identification]]:
    """Language identification of whole documents (a task of ``assign_languages``); also
    returns the identifications it had to compute."""
    shared = shared_identifier(identifier, languages, source_lang)
    remembering = RememberingIdentifier(shared, known)
    assign_document_languages(rulings, remembering, source_lang, title_langs or {})
    return rulings, remembering.new


def _asked(rulings: list[Ruling], by_doc: dict[str, list[Ruling]]) -> set[str]:
    """The keys of every text identifying these rulings may ask about: those of the rulings
    the reader gave no language, and the documents' titles (``_document_language``)."""
    texts = {item.text for item in rulings if item.lang is None}
    texts.update(members[0].doc_title for members in by_doc.values() if members[0].doc_title)
    return {text_key(text) for text in texts}


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class RememberingIdentifier:
    """An identifier that answers from earlier runs' identifications first."""

    def __init__(self, identifier: LanguageIdentifier, known: dict[str, Identification]):
        self.identifier = identifier
        self.known = known
        self.new: dict[str, Identification] = {}

    def prefetch(self, texts: Iterable[str]) -> None:
        self.identifier.prefetch(t for t in texts if text_key(t) not in self.known)

    def identify(self, text: str) -> Identification:
        key = text_key(text)
        found = self.known.get(key) or self.new.get(key)
        if found is None:
            found = self.new[key] = self.identifier.identify(text)
        return found


@cache
def shared_identifier(
    name: str, languages: tuple[str, ...], source_lang: str = DEFAULT_SOURCE_LANG
) -> LanguageIdentifier:
    """One identifier per process and configuration (its caches are worth keeping)."""
    return build(name, languages, source_lang)


process_cache(shared_identifier.cache_clear)


def assign_document_languages(
    rulings: list[Ruling],
    identifier: LanguageIdentifier | RememberingIdentifier,
    source_lang: str = DEFAULT_SOURCE_LANG,
    title_langs: dict[str, str] | None = None,
) -> None:
    """Fill ``lang``/``spans`` (unless the reader knew them), then ``doc_lang`` per document.

    A document's language is, from the strongest evidence down: the language its title is a
    card name in (the card data's Spanish name of the card: a Spanish document, however
    many English rulings are left in it); its title's own language, when the title can tell
    it and some rulings share it; a language other than the source language that a good
    share of the text is in (English left in a Spanish document leaves it Spanish); else the
    language of most of its text. A ruling that mixes the document's language with another
    is a half-done translation into the document's language, so its ``lang`` is the
    document's, and so is a short one in the document's script.
    """
    identified = {id(r) for r in rulings if r.lang is None}
    identifier.prefetch(r.text for r in rulings if r.lang is None)
    for item in rulings:
        if item.lang is None:
            found = identifier.identify(item.text)
            item.lang = found.lang
            if found.spans or item.spans:  # else the reader's empty list (shared) stays
                item.spans = [{"lang": lang, "start": s, "end": e} for lang, s, e in found.spans]
    by_doc: dict[str, list[Ruling]] = defaultdict(list)
    for item in rulings:
        by_doc[item.doc].append(item)
    for members in by_doc.values():
        if not all(item.doc_lang for item in members):
            doc_lang = _document_language(members, identifier, source_lang, title_langs or {})
            for item in members:
                item.doc_lang = item.doc_lang or doc_lang
        for item in members:
            if id(item) not in identified:
                continue
            span_langs = {span["lang"] for span in item.spans}
            if item.doc_lang in span_langs or _defer_to_document(item):
                item.lang = item.doc_lang


def _defer_to_document(item: Ruling) -> bool:
    """A ruling with no letters, or a short one in the document's script, takes its language."""
    if item.doc_lang is None or item.lang == item.doc_lang or item.spans:
        return False
    letters = weighted_letters(item.text)
    if item.lang is None or letters == 0:
        return True
    han = bool(script_profile(item.text).get("han"))
    same_script = han == (item.doc_lang in CJK_LANGS)
    return same_script and letters < SHORT_TEXT_LETTERS


TRANSLATED_SHARE = 0.25
"""A document with at least this share of its text in one language other than the source
language is a translation into it (a source document holds no translated text)."""


def _document_language(
    members: list[Ruling],
    identifier: LanguageIdentifier | RememberingIdentifier,
    source_lang: str,
    title_langs: dict[str, str],
) -> str | None:
    title = members[0].doc_title
    if title and title in title_langs:
        return title_langs[title]
    langs = sorted({item.lang for item in members if item.lang})
    if title and _title_is_telling(title):
        title_lang = identifier.identify(title).lang
        if title_lang in langs:
            return title_lang
    if len(langs) <= 1:
        return langs[0] if langs else None
    translated = [lang for lang in langs if lang != source_lang]
    weight = _letters_by_language(members, langs, translated)
    if translated:
        best = max(translated, key=weight.__getitem__)
        if weight[best] >= TRANSLATED_SHARE * sum(weight.values()):
            return best
    return max(sorted(weight), key=weight.__getitem__)


def _letters_by_language(
    members: list[Ruling], langs: list[str], translated: list[str]
) -> Counter[str]:
    """The members' letters per language; with one translated language, counted last and
    only until it holds ``TRANSLATED_SHARE`` of them (then it is the document's language,
    whatever the rest: in a long translation, a few of its units decide)."""
    last = translated[0] if len(translated) == 1 else None
    weight: Counter[str] = Counter(dict.fromkeys(langs, 0))
    for item in members:
        if item.lang and item.lang != last:
            weight[item.lang] += weighted_letters(item.text)
    if last is not None:
        others = sum(weight.values())
        for item in members:
            if item.lang == last:
                weight[last] += weighted_letters(item.text)
                if weight[last] >= TRANSLATED_SHARE * (weight[last] + others):
                    break
    return weight


def _title_is_telling(title: str) -> bool:
    """Whether a title's language can be trusted over its rulings': a title in Chinese,
    Japanese or Korean script, or one long enough (a short Latin title such as a card
    name, "Metamorfo vesuvano", is as often guessed wrong as right)."""
    profile = script_profile(title)
    return bool(profile.get("han") or profile.get("kana") or profile.get("hangul")) or (
        weighted_letters(title) >= SHORT_TEXT_LETTERS
    )
