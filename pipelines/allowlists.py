"""Allow lists: words a team lets stay in English in its translations (a product name such
as "Space Sculptor", an acronym) and words never to flag, as TSV files a project file names.

One entry per line, tab-separated, with a header ``lang	text	note``: ``lang`` is the
language of the translations the entry is for, or ``*`` for every language (a word never to
flag); ``text`` is a word or phrase, matched as whole words in any case; ``note`` says why
(optional). Lines starting with ``#`` are comments. The untranslated, mixed-language and
card-name checks do not report what the entries cover.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .memo import digest

HEADER = ("lang", "text")
EVERY_LANGUAGE = "*"
WORD = "A-Za-z0-9_\u00c0-\u024f"
"""The letters of a word an entry must not be part of (a Han character next to a Latin
word is a boundary: Chinese is written without spaces)."""
LANGUAGE_CODE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]+)*")


class AllowListError(ValueError):
    """An allow-list file that cannot be used: one line naming the file and the line."""


@dataclass(frozen=True)
class AllowList:
    entries: tuple[tuple[str, str], ...] = ()
    """(language or "*", word or phrase), in file order."""
    sources: tuple[str, ...] = field(default=(), compare=False)
    """The files the entries came from (for ``rulings config``)."""

    def __bool__(self) -> bool:
        return bool(self.entries)

    @cached_property
    def _patterns(self) -> dict[str, re.Pattern[str]]:
        by_lang: dict[str, list[str]] = {}
        for lang, text in self.entries:
            by_lang.setdefault(lang, []).append(text)
        return {
            lang: re.compile(
                rf"(?<![{WORD}])(?:"
                + "|".join(
                    r"\s+".join(map(re.escape, phrase.split()))
                    for phrase in sorted(set(phrases), key=lambda p: (-len(p), p))
                )
                + rf")(?![{WORD}])",
                re.IGNORECASE,
            )
            for lang, phrases in by_lang.items()
        }

    def spans(self, text: str, lang: str) -> list[tuple[int, int]]:
        """The stretches of ``text`` (a translation into ``lang``) the entries cover."""
        found: list[tuple[int, int]] = []
        for key in dict.fromkeys((lang, lang.split("-")[0], EVERY_LANGUAGE)):
            pattern = self._patterns.get(key)
            if pattern is not None:
                found += [m.span() for m in pattern.finditer(text)]
        return sorted(set(found))

    def digest(self) -> str:
        """What the entries are, for cache keys ("" when there are none)."""
        return digest([f"{lang}\t{text}" for lang, text in self.entries]) if self else ""

    @classmethod
    def load(cls, paths: list[Path] | tuple[Path, ...]) -> AllowList:
        entries: list[tuple[str, str]] = []
        for path in paths:
            entries += read_allow_list(Path(path))
        return cls(tuple(entries), tuple(str(p) for p in paths))


def covered(spans: list[tuple[int, int]], text: str, start: int, end: int) -> bool:
    """Whether every letter of ``text[start:end]`` lies in one of the ``spans`` (and there is
    a letter)."""
    letters = [i for i in range(start, end) if text[i].isalpha()]
    return bool(letters) and all(any(s <= i < e for s, e in spans) for i in letters)


def read_allow_list(path: Path) -> list[tuple[str, str]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise AllowListError(f"{path}: no such allow-list file") from None
    except UnicodeDecodeError:
        raise AllowListError(f"{path}: not UTF-8 text") from None
    except OSError as error:
        raise AllowListError(f"{path}: {error.strerror or error}") from None
    entries: list[tuple[str, str]] = []
    header: list[str] | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = [cell.strip() for cell in line.split("\t")]
        if header is None:
            header = cells
            if tuple(header[:2]) != HEADER:
                raise AllowListError(
                    f"{path}:{number}: the header must start with lang<TAB>text "
                    f"(found {line.strip()!r})"
                )
            continue
        if len(cells) < 2 or not cells[1]:
            raise AllowListError(f"{path}:{number}: a line needs a language and a text")
        lang, text = cells[0], " ".join(cells[1].split())
        if lang != EVERY_LANGUAGE and not LANGUAGE_CODE.fullmatch(lang):
            raise AllowListError(
                f"{path}:{number}: {lang!r} is no language code (es, zh, …) or * for every language"
            )
        entries.append((lang, text))
    if header is None:
        raise AllowListError(f"{path}: empty: no header lang<TAB>text")
    return entries
