"""Documents in a language outside ``--languages``: told apart, not relabelled.

The language identifier chooses among the run's candidate languages only, so a French
document would be read as the nearest candidate (English: then a source!). Before a document
is given a kind, its text is identified once more among the candidates and the other
languages cards are printed in (``mtgjson_languages.tsv``); a document clearly in one of
those others is reported (DOC002) and left out of alignment and checks.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from ..memo import digest
from ..model import Ruling
from ..resources import read_tsv, resource_path
from ..work import Cache, kind, no_cache
from .identified import identifier_versions

SAMPLE_CHARS = 3000
"""Enough of the document's text to tell its language, little enough to stay fast."""
MIN_CONFIDENCE = 0.65
MIN_LETTERS = 40
"""The other language must be this sure (lingua's relative confidence, 0 to 1), on at least
this many letters: a Spanish card of one short line ("Envolver en vigor / Regenera cada
criatura que controlas.") reads as Portuguese at 0.6. Measured on the TSP, PLC and FUT card
texts of MTGJSON: no English, Spanish or Chinese document of 1,571 is taken for another
language, and
98% of the 3,528 French, German, Italian, Portuguese, Japanese and Russian ones are told."""
MIN_MARGIN = 0.4
"""And this much surer than of any candidate language (repetitive Spanish such as "La la
habilidad habilidad suspender." is Portuguese at 0.6 against Spanish at 0.4)."""
OWN_SCRIPT = re.compile(r"[\u3040-\u30ff\uac00-\ud7af\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff]")
"""Kana, Hangul, Cyrillic, Hebrew, Arabic: scripts none of the usual candidates is written
in, so a few letters are evidence enough."""
SCRIPT_LETTERS = 4
SYMBOL = re.compile(r"\{[^{}]*\}")


def foreign_language(members: list[Ruling], languages: tuple[str, ...]) -> str | None:
    """The language of a document when it is clearly none of ``languages``, else None."""
    return _identify(_sample_of(_head(members)), languages)


FOREIGN_ANSWERS = kind(
    "foreign-language",
    "documents' foreign languages told",
    str,
    version="1",
    share=False,
)
"""Whether a document is in a language outside the candidates, and which ("" if not): keyed
by the answers' version (``_answers_digest``), the candidate languages and the digest of the
document's head, the text its sample is made from."""


class ForeignLanguages:
    """``foreign_language`` with the answers of earlier runs, kept in the work cache
    ``work`` (a catalogue of 17,000 documents costs lingua about 10 s; a nightly run asks
    again only for new samples). ``answers`` reads the answers kept for the documents a run
    asks about, in one go: a run reads those of the files it passes again, not every answer
    kept (a million-unit corpus's were a 6.4 MB file read whole on every run and
    written again whole when one was new)."""

    def __init__(self, work: Cache | None, languages: tuple[str, ...]) -> None:
        self.languages = languages
        self.work = work or no_cache()
        self.setting = digest([_answers_digest(), *sorted(languages)])
        self.known: dict[str, str] = {}
        self.new: dict[str, str] = {}

    def answers(self, documents: list[list[Ruling]]) -> list[str | None]:
        """Each document's foreign language, or None: the answers kept for them read in
        one go, the others worked out. Keyed by the document's head, the text its sample is
        made from, so that a known document costs a digest and not a sample."""
        heads = [_head(members) for members in documents]
        keys = [_digest(head) for head in heads]
        unknown = {key: None for key in keys if key not in self.known and key not in self.new}
        if unknown and self.work.keeps:
            of_key = {self._key(key): key for key in unknown}
            kept = self.work.records(FOREIGN_ANSWERS, list(of_key))
            self.known.update({of_key[key]: answer for key, answer in kept.items()})
        found = []
        for head, key in zip(heads, keys, strict=True):
            answer = self.known.get(key, self.new.get(key))
            if answer is None:
                answer = self.new[key] = _identify(_sample_of(head), self.languages) or ""
            found.append(answer or None)
        return found

    def save(self) -> None:
        """Keep the new answers (a failure to write costs recomputing them next time)."""
        self.work.put_records(
            FOREIGN_ANSWERS, {self._key(key): answer for key, answer in self.new.items()}
        )

    def _key(self, head_key: str) -> str:
        return self.work.key(FOREIGN_ANSWERS, [self.setting, head_key])


def _digest(head: str) -> str:
    return hashlib.blake2b(head.encode("utf-8"), digest_size=16).hexdigest()


ANSWERS_VERSION = "2"
"""Bump when what ``_identify`` answers for the same text changes (its thresholds, the
second opinion): the cached answers are keyed by it, the card languages and the
identifiers' versions, not by the whole package, whose every edit would ask lingua again
for every document (ingest three to four times slower on 100k units)."""


@lru_cache(maxsize=1)
def _answers_digest() -> str:
    return digest(
        [
            ANSWERS_VERSION,
            resource_path("mtgjson_languages.tsv").read_bytes(),
            *identifier_versions(),
        ]
    )


def _identify(text: str, languages: tuple[str, ...]) -> str | None:
    own_script = len(OWN_SCRIPT.findall(text)) >= SCRIPT_LETTERS
    if not own_script and sum(character.isalpha() for character in text) < MIN_LETTERS:
        return None
    detector, codes = _detector(tuple(sorted(languages)))
    if detector is None:
        return None
    values = detector.compute_language_confidence_values(text)
    if not values:
        return None
    best = values[0]
    code = codes.get(best.language)
    if code is None or code in languages:
        return None
    candidates = max((v.value for v in values if codes.get(v.language) in languages), default=0.0)
    if not own_script and (best.value < MIN_CONFIDENCE or best.value - candidates < MIN_MARGIN):
        return None
    if not own_script and _second_opinion(text, tuple(sorted(codes.values()))) != code:
        return None
    return code


def _second_opinion(text: str, languages: tuple[str, ...]) -> str | None:
    """langdetect's language for a text in a Latin script, among the same languages: a
    document is another language only when both identifiers say so. Lingua alone is sure
    of Portuguese for plain Spanish card text now and then ("Gana el control de la criatura
    objetivo con coste de maná convertido de 3 o menos…": pt at 0.94, Claim the Firstborn,
    ELD); on every card text of the tuning sets RAV, ISD, KTK, AKH, DOM and ELD (5,375
    English, Spanish and Chinese documents, 13,312 in the other printed languages), the
    agreement takes that one mistake away, and 29 of the 10,821 other-language documents
    lingua tells (0.3%)."""
    identifier = _langdetect(languages)
    return identifier.identify(text).lang if identifier is not None else None


@lru_cache(maxsize=4)
def _langdetect(languages: tuple[str, ...]):
    from .langid import LangdetectIdentifier

    supported = LangdetectIdentifier.supported()
    known = tuple(code for code in languages if code in supported)
    return LangdetectIdentifier(known) if len(known) >= 2 else None


def _head(members: list[Ruling]) -> str:
    """The document's first ``SAMPLE_CHARS`` characters, rulings joined by newlines."""
    parts, size = [], 0
    for item in members:
        parts.append(item.text)
        size += len(item.text)
        if size >= SAMPLE_CHARS:
            break
    return "\n".join(parts)[:SAMPLE_CHARS]


def _sample_of(head: str) -> str:
    """What a document's language is told from: its first words, each once, no symbols."""
    return SYMBOL.sub(" ", _distinct_words(head))


def _distinct_words(text: str) -> str:
    """Each word once: repeated words ("la la la habilidad habilidad") tilt lingua towards
    a neighbouring language; the vocabulary is the evidence."""
    seen: set[str] = set()
    kept = []
    for word in text.split():
        key = word.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(word)
    return " ".join(kept)


@lru_cache(maxsize=4)
def _detector(languages: tuple[str, ...]):
    """A lingua detector over the candidates and the card languages it knows, and the map
    from its languages to our codes."""
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    known = {lang.iso_code_639_1.name.lower(): lang for lang in Language.all()}
    wanted = {row["lang"].split("-")[0] for row in read_tsv("mtgjson_languages.tsv")}
    wanted |= {code.split("-")[0] for code in languages}
    chosen = sorted(code for code in wanted if code in known)
    if len(chosen) < 2:
        return None, {}
    detector = LanguageDetectorBuilder.from_iso_codes_639_1(
        *(getattr(IsoCode639_1, code.upper()) for code in chosen)
    ).build()
    return detector, {known[code]: code for code in chosen}
