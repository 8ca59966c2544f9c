"""Digests of bytes in bulk: input files, an AllPrintings file's sets, the work cache's
entries, the report files as they are written. BLAKE3 (the ``blake3`` package, which lets
go of the interpreter's lock while it hashes): for the same 16-byte digests, 2.5 times as
fast as BLAKE2b at 4 KB and 5 to 7 times from 16 KB up. The short keys and lines
(``memo``, ``tables``) keep BLAKE2b, as fast or faster under a kilobyte
(``benchmarks/results/work_layer.md``)."""

from __future__ import annotations

from blake3 import blake3

DIGEST_BYTES = 16


class Hasher:
    """A digest of bytes given a piece at a time (``update``); ``context``: a digest of its
    own kind (BLAKE3's key derivation), never equal by chance to one of the same bytes
    made without it."""

    __slots__ = ("_hasher",)

    def __init__(self, context: str | None = None) -> None:
        self._hasher = blake3() if context is None else blake3(derive_key_context=context)

    def update(self, data: bytes | memoryview) -> None:
        self._hasher.update(data)

    def digest(self) -> bytes:
        return self._hasher.digest(DIGEST_BYTES)

    def hexdigest(self) -> str:
        return self._hasher.hexdigest(DIGEST_BYTES)


def digest(data: bytes | memoryview) -> bytes:
    return blake3(data).digest(DIGEST_BYTES)


def hexdigest(data: bytes | memoryview) -> str:
    return blake3(data).hexdigest(DIGEST_BYTES)
