"""Memory between stages: what the process freed handed back to the system, and what
lives on kept out of the cyclic collector's walks."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
from collections.abc import Iterator


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


YOUNG_OBJECTS = 10_000
"""How many new container objects start a collection of the youngest generation while the
stages run (Python's default is 700). Each such collection also walks the young containers'
items, and a stage's newest list of a million records is young until it survives two:
on the million-unit corpus 1,814 collections of the youngest generation took 6.6 s of an
edited run."""


@contextlib.contextmanager
def stages_in_one_process() -> Iterator[None]:
    """Inside: the youngest generation is collected less often (``YOUNG_OBJECTS``), and
    ``stage_done`` may move the objects a stage leaves alive out of the cyclic collector's
    reach; after, the thresholds are Python's again and those objects back in its reach (an
    API user's later collections see them again)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(YOUNG_OBJECTS, thresholds[0]), *thresholds[1:])
    _RUN.append(True)
    try:
        yield
    finally:
        _RUN.pop()
        gc.set_threshold(*thresholds)
        gc.unfreeze()


_RUN: list[bool] = []
"""Not empty while ``stages_in_one_process`` is."""


def stage_done() -> None:
    """What a stage hands the next (the corpus, the alignment, the findings) lives until the
    run ends and makes no cycles, yet every full collection walked all of it, millions of
    objects, whenever a later step allocated enough: it goes to the collector's permanent
    generation (``gc.freeze``). Reference counting still frees each object the moment the
    run lets it go; only a cycle among them would wait for ``stages_in_one_process`` to
    end."""
    gc.freeze()


def pause_done() -> None:
    """After a pause of the collector (``tables.paused_gc``) inside a run: what the pause
    built (records read back, a stage's tables) is young, so the first allocation after it
    started a collection of the youngest generation that walked all of it, millions of
    objects (0.4 s of a 12 s edited run of the 100k corpus); it goes to the permanent
    generation instead, as ``stage_done`` does with what a stage hands on. Outside a run (a
    Dask worker, the Python API) nothing is frozen."""
    if _RUN:
        gc.freeze()
