"""Memory the process has freed, handed back to the system between stages."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None on another C library."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None


def give_back() -> None:
    """Return the free pages inside the C heap to the system. A stage frees most of what it
    built when it ends (a file's reading, a document's intermediate rows), but glibc keeps
    the pages of freed blocks that sit below blocks still alive, so the next stage started
    from the last one's peak instead of from what is alive."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
