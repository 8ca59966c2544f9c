"""Language identification of a ruling's text, and of the runs of each language inside it.

Two backends, chosen by measurement (benchmarks/results/langid.md): ``lingua`` restricted to
the candidate languages (default: best accuracy, and it finds mixed-language runs) and
``langdetect`` (the classic; kept swappable, spans by clause). Both return ISO 639-1 codes.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from pathlib import Path

from ..registry import Registry
from ..text.scripts import script_profile, weighted_letters
from ..vocabulary import DEFAULT_LANGUAGES, DEFAULT_SOURCE_LANG

MIN_SPAN_LETTERS = 6
"""Runs of another language shorter than this (in weighted letters) are not reported."""


@dataclass(frozen=True, slots=True)
class Identification:
    lang: str | None
    spans: tuple[tuple[str, int, int], ...]
    """(lang, start, end) runs when the text mixes languages, else empty."""


class LanguageIdentifier:
    """Common logic: letter weighting, script shortcuts, span clean-up, caching by text.
    ``source_lang`` is the run's source language: a Latin text in it is not searched for
    runs of other languages."""

    name = "base"

    def __init__(
        self, languages: Iterable[str] = DEFAULT_LANGUAGES, source_lang: str = DEFAULT_SOURCE_LANG
    ) -> None:
        self.languages = tuple(languages)
        self.source_lang = source_lang
        self.identify = lru_cache(maxsize=200_000)(self._identify)
        self._detected: dict[str, str | None] = {}
        self._found_runs: dict[str, list[tuple[str, int, int]]] = {}

    def prefetch(self, texts: Iterable[str]) -> None:
        """Detect many texts ahead, as ``identify`` will ask for them (after blanking
        symbols, and leaving out the Chinese-only ones that need no detector), then the
        runs of those that may mix languages; a backend may do each batch in parallel."""
        todo: dict[str, dict[str, int]] = {}
        for text in texts:
            blanked = blank_symbols(text)
            if blanked not in todo:
                scripts = script_profile(blanked)
                if scripts.get("latin"):
                    todo[blanked] = scripts
        unknown = sorted(t for t in todo if t not in self._detected)
        if unknown:
            self._detected.update(zip(unknown, self._detect_many(unknown), strict=True))
        mixing = sorted(
            t
            for t, scripts in todo.items()
            if t not in self._found_runs and self._may_mix(t, scripts)
        )
        if mixing:
            self._found_runs.update(zip(mixing, self._runs_many(mixing), strict=True))

    def _detect_many(self, texts: list[str]) -> list[str | None]:
        return [self._detect_one(text) for text in texts]

    def _runs_many(self, texts: list[str]) -> list[list[tuple[str, int, int]]]:
        return [self._runs(text) for text in texts]

    def _runs_cached(self, text: str) -> list[tuple[str, int, int]]:
        if text not in self._found_runs:
            self._found_runs[text] = self._runs(text)
        return self._found_runs[text]

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
        runs = self._runs_cached(text) if self._may_mix(text, scripts) else []
        runs = clean_runs(text, runs)
        if len({lang for lang, _, _ in runs}) >= 2:
            totals: Counter[str] = Counter()
            for lang, start, end in runs:
                totals[lang] += weighted_letters(text[start:end])
            return Identification(totals.most_common(1)[0][0], tuple(runs))
        return Identification(self._detect(text), ())

    def _may_mix(self, text: str, scripts: dict[str, int]) -> bool:
        """Whether it is worth looking for runs: two scripts, or a Latin text not in the
        source language."""
        if scripts.get("han", 0) and scripts.get("latin", 0) >= MIN_SPAN_LETTERS:
            return True
        return self._detect(text) not in (None, self.source_lang)

    def _runs(self, text: str) -> list[tuple[str, int, int]]:
        raise NotImplementedError


IDENTIFIERS: Registry[Callable[..., LanguageIdentifier]] = Registry("language identifier")


@IDENTIFIERS.register("lingua")
class LinguaIdentifier(LanguageIdentifier):
    """lingua-language-detector restricted to the candidate languages, with mixed runs."""

    name = "lingua"

    @staticmethod
    def supported() -> frozenset[str]:
        from lingua import Language

        return frozenset(language.iso_code_639_1.name.lower() for language in Language.all())

    def __init__(
        self, languages: Iterable[str] = DEFAULT_LANGUAGES, source_lang: str = DEFAULT_SOURCE_LANG
    ) -> None:
        super().__init__(languages, source_lang)
        from lingua import IsoCode639_1

        self._codes = [getattr(IsoCode639_1, code.upper()) for code in self.languages]

    @cached_property
    def _detector(self):
        """The detector, built on the first text to detect with every model of the candidate
        languages read at once: lingua reads a model on the first detection that needs it
        otherwise, and keeps each for the process either way. Read at once, English,
        Spanish and Chinese took 0.15-0.18 s against 0.25-0.32 s one by one (an edited run
        identifies a few new texts, and paid the slower reading for them); a detector built
        after the first finds them read."""
        from lingua import LanguageDetectorBuilder

        builder = LanguageDetectorBuilder.from_iso_codes_639_1(*self._codes)
        return builder.with_preloaded_language_models().build()

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

    def _runs_many(self, texts: list[str]) -> list[list[tuple[str, int, int]]]:
        """All cores at once (lingua's parallel API)."""
        return [
            [(_code(r.language), r.start_index, r.end_index) for r in found]
            for found in self._detector.detect_multiple_languages_in_parallel_of(texts)
        ]


def _code(language) -> str | None:
    return language.iso_code_639_1.name.lower() if language is not None else None


@IDENTIFIERS.register("langdetect")
class LangdetectIdentifier(LanguageIdentifier):
    """langdetect (a port of Google's language-detection), seeded, with only the candidate
    languages' profiles loaded (with all 55, short texts fall below its cut-off for every
    candidate and come out with no language)."""

    name = "langdetect"

    @staticmethod
    def supported() -> frozenset[str]:
        aliases = {"zh-cn": "zh", "zh-tw": "zh"}
        return frozenset(aliases.get(name, name) for name in os.listdir(_langdetect_profiles()))

    def __init__(
        self, languages: Iterable[str] = DEFAULT_LANGUAGES, source_lang: str = DEFAULT_SOURCE_LANG
    ) -> None:
        super().__init__(languages, source_lang)
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


def supported_languages(name: str) -> frozenset[str]:
    """The ISO 639-1 codes a backend can tell apart."""
    return IDENTIFIERS[name].target.supported()


def build(
    name: str = "lingua",
    languages: Iterable[str] = DEFAULT_LANGUAGES,
    source_lang: str = DEFAULT_SOURCE_LANG,
) -> LanguageIdentifier:
    return IDENTIFIERS[name].target(languages, source_lang)
