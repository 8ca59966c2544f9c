"""Digests: of strings and bytes in order, and of the package's own code and data.

The work cache (units of work, their keys and their store) is ``work`` and ``store``; the
whole-run manifest (``manifest``) still digests every file of the package, since it stands
for everything a run wrote.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@functools.cache
def code_digest() -> str:
    """The package's own code and shipped data: a new version of either recomputes."""
    digest = hashlib.blake2b(digest_size=16)
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def digest(parts: Iterable[str | bytes]) -> str:
    """A digest of strings or bytes in order (each part delimited, so that ("ab", "c") and
    ("a", "bc") differ)."""
    hasher = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()
