"""Language identifications kept between runs, one entry per text in the work store.

An identification depends on the text, the identifier and its version, the candidate
languages and the source language (a Latin text in the source language is not searched for
runs of other languages). A run looks up the texts it is about to identify, the texts of the
files it passes again, instead of reading every identification kept (a million-unit corpus
kept 237,869 of them in one JSON file: 0.46 s to read on every run, and 1.09 s to write
again whole on a run that identified one new text; ``benchmarks/results/work_layer.md``).
Kept in the store, they are shown, pruned and cleared with the rest of the work cache
(``rulings cache``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from ..memo import digest
from ..vocabulary import DEFAULT_SOURCE_LANG
from ..work import Cache, kind
from .langid import Identification

LANGUAGES_IDENTIFIED = kind(
    "langid",
    "texts' languages identified",
    Identification,
    version="1",
    share=False,
)
"""A text's language and its runs of other languages (``langid.Identification``), keyed by the
identifier, the installed identifier packages' versions, the candidate and source languages,
and the text's digest (``languages.text_key``)."""


class IdentificationStore:
    """The identifications of a run's identifier, candidate languages and source language
    in the work cache ``work`` (a cache that keeps nothing finds none and keeps none)."""

    def __init__(
        self,
        work: Cache,
        identifier: str,
        languages: tuple[str, ...],
        source_lang: str = DEFAULT_SOURCE_LANG,
    ) -> None:
        self.work = work
        self.setting = digest([identifier, *languages, source_lang, *identifier_versions()])

    def load(self, text_keys: Iterable[str]) -> dict[str, Identification]:
        """The identifications kept for these texts' keys (an entry that is not today's
        record is left out: its text is identified again)."""
        of_key = {self._key(text_key): text_key for text_key in text_keys}
        found = self.work.records(LANGUAGES_IDENTIFIED, list(of_key))
        return {of_key[key]: identification for key, identification in found.items()}

    def add(self, new: dict[str, Identification]) -> None:
        """Keep new identifications, by their texts' keys."""
        self.work.put_records(
            LANGUAGES_IDENTIFIED, {self._key(text_key): found for text_key, found in new.items()}
        )

    def _key(self, text_key: str) -> str:
        return self.work.key(LANGUAGES_IDENTIFIED, [self.setting, text_key])


@cache
def identifier_versions() -> tuple[str, ...]:
    """The identifier packages' versions (lingua, langdetect; "-" for one not installed):
    another version may answer otherwise."""
    from importlib.metadata import PackageNotFoundError, version

    def installed(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "-"

    return installed("lingua-language-detector"), installed("langdetect")


OLD_FOLDER = "langid"
"""The cache folder's folder where identifications and foreign-language answers were kept as
JSON files before they moved into the work store (``rulings cache prune`` and ``clear``
remove it)."""


def drop_old_files(cache_root: Path) -> bool:
    """Remove the files identifications were kept in before; whether there were any."""
    folder = cache_root / OLD_FOLDER
    if not folder.is_dir():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True
