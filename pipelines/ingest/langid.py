"""Language identification of a ruling's text, and of the runs of each language inside it.

Two backends, chosen by measurement (benchmarks/results/langid.md): ``lingua`` restricted to
the candidate languages (default: best accuracy, and it finds mixed-language runs) and
``langdetect`` (the classic; kept swappable, spans by clause). Both return ISO 639-1 codes.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from ..registry import Registry

DEFAULT_LANGUAGES = ("en", "es", "zh")
HAN_WEIGHT = 3
"""A Han character carries about as much text as three Latin letters (CR en/zh ratio: 3.2)."""

MIN_SPAN_LETTERS = 6
"""Runs of another language shorter than this (in weighted letters) are not reported."""


@dataclass(frozen=True, slots=True)
class Identification:
    lang: str | None
    spans: tuple[tuple[str, int, int], ...]
    """(lang, start, end) runs when the text mixes languages, else empty."""


class LanguageIdentifier:
    """Common logic: letter weighting, script shortcuts, span clean-up, caching by text."""

    name = "base"

    def __init__(self, languages: Iterable[str] = DEFAULT_LANGUAGES) -> None:
        self.languages = tuple(languages)
        self.identify = lru_cache(maxsize=200_000)(self._identify)
        self._detected: dict[str, str | None] = {}

    def prefetch(self, texts: Iterable[str]) -> None:
        """Detect many texts ahead, as ``identify`` will ask for them (after blanking
        symbols, and leaving out the Chinese-only ones that need no detector)."""
        todo = set()
        for text in texts:
            blanked = blank_symbols(text)
            scripts = script_profile(blanked)
            if scripts.get("latin") and blanked not in self._detected:
                todo.add(blanked)
        if todo:
            ordered = sorted(todo)
            self._detected.update(zip(ordered, self._detect_many(ordered), strict=True))

    def _detect_many(self, texts: list[str]) -> list[str | None]:
        return [self._detect_one(text) for text in texts]

    def _detect(self, text: str) -> str | None:
        if text not in self._detected:
            self._detected[text] = self._detect_one(text)
        return self._detected[text]

    def _detect_one(self, text: str) -> str | None:
        raise NotImplementedError

    def _identify(self, text: str) -> Identification:
        text = blank_symbols(text)
        letters = weighted_letters(text)
        if letters == 0:
            return Identification(None, ())
        scripts = script_profile(text)
        only_han = scripts.get("han", 0) and not scripts.get("latin", 0)
        if only_han and "zh" in self.languages and not scripts.get("kana"):
            return Identification("zh", ())
        runs = self._runs(text) if self._may_mix(text, scripts) else []
        runs = clean_runs(text, runs)
        if len({lang for lang, _, _ in runs}) >= 2:
            totals: Counter[str] = Counter()
            for lang, start, end in runs:
                totals[lang] += weighted_letters(text[start:end])
            return Identification(totals.most_common(1)[0][0], tuple(runs))
        return Identification(self._detect(text), ())

    def _may_mix(self, text: str, scripts: dict[str, int]) -> bool:
        """Whether it is worth looking for runs: two scripts, or a non-English Latin text."""
        if scripts.get("han", 0) and scripts.get("latin", 0) >= MIN_SPAN_LETTERS:
            return True
        return self._detect(text) not in (None, "en")

    def _runs(self, text: str) -> list[tuple[str, int, int]]:
        raise NotImplementedError


IDENTIFIERS: Registry[Callable[..., LanguageIdentifier]] = Registry("language identifier")


@IDENTIFIERS.register("lingua")
class LinguaIdentifier(LanguageIdentifier):
    """lingua-language-detector restricted to the candidate languages, with mixed runs."""

    name = "lingua"

    def __init__(self, languages: Iterable[str] = DEFAULT_LANGUAGES) -> None:
        super().__init__(languages)
        from lingua import IsoCode639_1, LanguageDetectorBuilder

        codes = [getattr(IsoCode639_1, code.upper()) for code in self.languages]
        self._detector = LanguageDetectorBuilder.from_iso_codes_639_1(*codes).build()

    def _detect_one(self, text: str) -> str | None:
        return _code(self._detector.detect_language_of(text))

    def _detect_many(self, texts: list[str]) -> list[str | None]:
        """All cores at once (lingua's parallel API)."""
        return [_code(found) for found in self._detector.detect_languages_in_parallel_of(texts)]

    def _runs(self, text: str) -> list[tuple[str, int, int]]:
        return [
            (_code(r.language), r.start_index, r.end_index)
            for r in self._detector.detect_multiple_languages_of(text)
        ]


def _code(language) -> str | None:
    return language.iso_code_639_1.name.lower() if language is not None else None


@IDENTIFIERS.register("langdetect")
class LangdetectIdentifier(LanguageIdentifier):
    """langdetect (a port of Google's language-detection), seeded, with only the candidate
    languages' profiles loaded (with all 55, short texts fall below its cut-off for every
    candidate and come out with no language)."""

    name = "langdetect"

    def __init__(self, languages: Iterable[str] = DEFAULT_LANGUAGES) -> None:
        super().__init__(languages)
        from langdetect import DetectorFactory

        self._aliases = {"zh-cn": "zh", "zh-tw": "zh"}
        profiles = _langdetect_profiles()
        wanted = [
            name
            for name in sorted(os.listdir(profiles))
            if self._aliases.get(name, name) in self.languages
        ]
        self._factory = DetectorFactory()
        self._factory.load_json_profile(
            [(Path(profiles) / name).read_text(encoding="utf-8") for name in wanted]
        )
        self._factory.set_seed(0)

    def _detect_one(self, text: str) -> str | None:
        from langdetect.lang_detect_exception import LangDetectException

        detector = self._factory.create()
        detector.append(text)
        try:
            ranked = detector.get_probabilities()
        except LangDetectException:
            return None
        for guess in ranked:
            lang = self._aliases.get(guess.lang, guess.lang)
            if lang in self.languages:
                return lang
        return None

    def _runs(self, text: str) -> list[tuple[str, int, int]]:
        runs = []
        for match in CLAUSE.finditer(text):
            lang = self._detect(match.group(0))
            if lang:
                runs.append((lang, match.start(), match.end()))
        return runs


@cache
def _langdetect_profiles() -> str:
    import langdetect

    return os.path.join(os.path.dirname(langdetect.__file__), "profiles")


CLAUSE = re.compile(r"[^,;:.!?()（），；：。！？“”\"«»]+[,;:.!?()（），；：。！？“”\"«»]*")


NON_LINGUISTIC = re.compile(
    r"\{[^{}\s]{1,8}\}|https?://[!-~]+|[A-Za-z0-9.-]+\.(?:com|org|net)\b(?:/[!-~]*)?", re.IGNORECASE
)
"""Mana and tap symbols ({G/W}, {T}) and web addresses: letters that belong to no language."""


def blank_symbols(text: str) -> str:
    """The text with symbols blanked out by spaces, so that offsets stay the same."""
    return NON_LINGUISTIC.sub(lambda match: " " * len(match.group()), text)


def script_of(char: str) -> str | None:
    if not char.isalpha():
        return None
    code = ord(char)
    if 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF:
        return "han"
    if 0x3040 <= code <= 0x30FF:
        return "kana"
    if 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
        return "hangul"
    if code < 0x250 or unicodedata.name(char, "").startswith("LATIN"):
        return "latin"
    return "other"


def script_profile(text: str) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for char in text:
        script = script_of(char)
        if script:
            counts[script] += 1
    return counts


def weighted_letters(text: str) -> int:
    total = 0
    for char in text:
        script = script_of(char)
        if script in ("han", "kana", "hangul"):
            total += HAN_WEIGHT
        elif script:
            total += 1
    return total


def clean_runs(text: str, runs: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Trim runs to their letters, fold runs too short to matter into their neighbours.

    Detectors split on every token; a ruling only "mixes" languages when a run of the other
    language is long enough for a reader to notice (``MIN_SPAN_LETTERS`` weighted letters,
    and for Latin runs two words or one capitalised name of two parts).
    """
    trimmed = []
    for lang, start, end in runs:
        while start < end and not text[start].isalpha():
            start += 1
        while end > start and not text[end - 1].isalpha() and text[end - 1] not in ".!?。":
            end -= 1
        if start < end:
            trimmed.append([lang, start, end])
    if not trimmed:
        return []
    keep = [run for run in trimmed if _substantial(text[run[1] : run[2]])]
    if not keep:
        return []
    merged: list[list] = []
    for run in keep:
        if merged and merged[-1][0] == run[0]:
            merged[-1][2] = run[2]
        else:
            merged.append(run)
    if len(merged) < 2:
        return []
    return [(lang, start, end) for lang, start, end in merged]


def _substantial(segment: str) -> bool:
    if weighted_letters(segment) < MIN_SPAN_LETTERS:
        return False
    scripts = script_profile(segment)
    if scripts.get("han"):
        return True
    return len(re.findall(r"[^\W\d_]{2,}", segment)) >= 2


def build(name: str = "lingua", languages: Iterable[str] = DEFAULT_LANGUAGES) -> LanguageIdentifier:
    return IDENTIFIERS[name].target(languages)
