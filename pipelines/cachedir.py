"""The folder where rulings keeps what it computed once: embeddings, card-name indexes."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_DIR_ENV = "RULINGS_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$RULINGS_CACHE_DIR`` if set, else the platform's user cache folder for rulings."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_cache_dir("rulings"))


def cache_root(configured: Path | None) -> Path:
    return configured.expanduser() if configured is not None else default_cache_dir()
