"""Embed a list of texts: each distinct text once, through the cache, in batches.

The same ruling text appears on dozens of cards, so the work is proportional to the number of
distinct texts not yet cached; ``last_stats()`` tells how much of each there was.

Determinism: missing texts are encoded in sorted order, in fixed-size batches, so the vectors
do not depend on the order or the repetitions of the input, and cached vectors are returned
exactly as they were computed. The default backend's vector of a text is the same bits
whatever texts share its batch and however many threads encode it (``usem3.py`` says how),
so a vector cached by a run over other inputs is the one a cold run computes. A
sentence-transformers model pads a batch to its longest text, and BLAS sums differently for
different shapes, so its vectors can come out a float32 rounding step (about 1e-7) apart in
another batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .cache import EmbeddingCache

if TYPE_CHECKING:
    from ...engine import Engine
    from . import Embedder

BATCH_SIZE = 64


@dataclass(frozen=True, slots=True)
class EmbedStats:
    texts: int
    """Texts asked for, repetitions included."""
    distinct: int
    cached: int
    """Distinct texts found in the cache."""
    computed: int
    """Distinct texts the embedder encoded."""
    seconds: float


_last_stats = EmbedStats(0, 0, 0, 0, 0.0)
_stats_lock = threading.Lock()


def last_stats() -> EmbedStats:
    """The counts of the most recent ``embed_texts`` call that finished."""
    with _stats_lock:
        return _last_stats


def embed_texts(
    texts: list[str],
    embedder: Embedder,
    cache: EmbeddingCache | None = None,
    *,
    batch_size: int = BATCH_SIZE,
    on_progress: Callable[[int, int], None] | None = None,
    engine: Engine | None = None,
) -> np.ndarray:
    """One float32 unit vector per text, in input order.

    With a distributed ``engine`` the texts to encode are cut into chunks of whole batches,
    in the same sorted order, so every engine computes the same vectors.

    ``on_progress(done, total)`` counts distinct texts: it is called once after the cache
    lookup (``done`` = texts found) and after every batch encoded.
    """
    global _last_stats
    started = time.perf_counter()
    row_of: dict[str, int] = {}
    rows = np.fromiter(
        (row_of.setdefault(text, len(row_of)) for text in texts), dtype=np.int64, count=len(texts)
    )
    distinct = list(row_of)

    if cache is not None and distinct:
        hits, vectors = cache.get(embedder.name, distinct, every_row=True)  # filled in place
    else:
        hits, vectors = np.zeros(len(distinct), dtype=bool), np.empty((0, 0), dtype=np.float32)
    missing = sorted(np.flatnonzero(~hits).tolist(), key=distinct.__getitem__)
    if on_progress is not None:
        on_progress(len(distinct) - len(missing), len(distinct))

    if engine is not None and engine.name != "local" and len(missing) > batch_size:
        computed = _encode_on(
            engine, [distinct[row] for row in missing], embedder, cache, batch_size
        )
        vectors = _placed(vectors, missing, computed, embedder, cache, len(distinct))
    else:
        vectors = _encode_missing(
            distinct, missing, vectors, embedder, cache, batch_size, on_progress
        )
    result = vectors if len(distinct) == len(texts) else vectors[rows]
    with _stats_lock:
        _last_stats = EmbedStats(
            texts=len(texts),
            distinct=len(distinct),
            cached=int(hits.sum()),
            computed=len(missing),
            seconds=time.perf_counter() - started,
        )
    return result


CHUNKS_PER_WORKER = 4


def _encode_on(
    engine: Engine,
    texts: list[str],
    embedder: Embedder,
    cache: EmbeddingCache | None,
    batch_size: int,
) -> np.ndarray:
    """Encode on the engine's workers, in chunks of whole batches, then store."""
    chunks = max(1, engine.workers * CHUNKS_PER_WORKER)
    size = max(batch_size, -(-len(texts) // chunks // batch_size) * batch_size)
    parts = [texts[start : start + size] for start in range(0, len(texts), size)]
    spec = getattr(embedder, "spec", None)
    if spec is None:
        raise ValueError(f"embedder {embedder.name!r} has no spec to rebuild it on workers")
    cache_dir = getattr(embedder, "cache_dir", None)
    shared = {
        "spec": spec,
        "batch_size": batch_size,
        "threads": engine.threads_per_worker,
        "cache_dir": str(cache_dir) if cache_dir is not None else None,
    }
    encoded = np.concatenate(engine.map(encode_chunk, parts, shared=shared))
    if cache is not None:
        cache.put(embedder.name, texts, encoded)
    return encoded


def encode_chunk(
    texts: list[str], spec: str, batch_size: int, threads: int, cache_dir: str | None = None
) -> np.ndarray:
    """A worker's share: the texts in batches, with an embedder built once per process
    (reading the model's ready copy in ``cache_dir`` where the worker sees that folder)."""
    from . import shared_embedder

    embedder = shared_embedder(spec, threads, cache_dir)
    return np.concatenate(
        [
            embedder.encode(texts[start : start + batch_size])
            for start in range(0, len(texts), batch_size)
        ]
    )


def _placed(
    vectors: np.ndarray,
    missing: list[int],
    computed: np.ndarray,
    embedder: Embedder,
    cache: EmbeddingCache | None,
    total: int,
) -> np.ndarray:
    """The cached vectors (a matrix of every row, or empty) with the computed ones in the
    rows of the missing texts; ``total`` rows in all."""
    if len(computed):
        _same_width(vectors, computed, embedder, cache)
    if not len(vectors):  # no cache, or nothing in it
        width = computed.shape[1] if missing else embedder.dim
        vectors = np.empty((total, width), dtype=np.float32)
    if missing:
        vectors[missing] = computed
    return vectors


def _same_width(
    vectors: np.ndarray, computed: np.ndarray, embedder: Embedder, cache: EmbeddingCache | None
) -> None:
    if len(vectors) and vectors.shape[1] != computed.shape[1]:
        raise ValueError(
            f"the cache holds {vectors.shape[1]}-dimension vectors for {embedder.name!r} but it "
            f"gives {computed.shape[1]}; clear the cache ({cache!r})"
        )


def _encode_missing(
    distinct: list[str],
    missing: list[int],
    vectors: np.ndarray,
    embedder: Embedder,
    cache: EmbeddingCache | None,
    batch_size: int,
    on_progress: Callable[[int, int], None] | None,
) -> np.ndarray:
    """Encode the missing texts in batches, each batch's vectors written into their rows of
    ``vectors`` (the cached vectors, a matrix of every row; allocated at the first batch
    when empty), which is returned. Whatever was encoded is stored even if a later batch
    fails, as one shard written from those rows: no second matrix of the computed vectors
    (on a cold million-unit run, 840 MB, and as much again while they were joined)."""
    total = len(distinct)
    done = total - len(missing)
    encoded = 0
    try:
        for start in range(0, len(missing), batch_size):
            rows = missing[start : start + batch_size]
            batch = [distinct[row] for row in rows]
            computed = embedder.encode(batch)
            if computed.dtype != np.float32 or computed.ndim != 2 or len(computed) != len(batch):
                raise ValueError(
                    f"embedder {embedder.name!r} returned {computed.dtype} {computed.shape} "
                    f"for {len(batch)} texts"
                )
            vectors = _placed(vectors, rows, computed, embedder, cache, total)
            encoded += len(rows)
            done += len(rows)
            if on_progress is not None:
                on_progress(done, total)
    finally:
        if cache is not None and encoded:
            stored = missing[:encoded]
            cache.put(embedder.name, [distinct[row] for row in stored], vectors, rows=stored)
    if not len(vectors):  # nothing to encode and nothing cached
        vectors = np.empty((total, embedder.dim), dtype=np.float32)
    return vectors
