"""Where the partitioned work of the stages runs: in this process, or on a Dask cluster.

The stages cut their work into independent partitions (files, documents, chunks of texts,
cards and rules documents, chunks of rulings) and call ``engine.map``; the engine runs the
function on each partition and returns the results in input order, so that every engine
produces byte-identical output.

Work that needs a large read-only context (the corpus, the vectors, the termbase) passes it
as ``shared`` with a ``setup`` function: the engine builds ``setup(**shared)`` once per worker
process and hands it to every partition that worker runs, so caches inside the context serve
all of them and nothing is rebuilt per task.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from ..registry import Registry

T = TypeVar("T")
R = TypeVar("R")


class Engine(Protocol):
    name: str
    workers: int
    """How many partitions run at once (worker processes, or 1 for the local engine)."""
    threads_per_worker: int
    """BLAS threads a worker's numeric work may use."""

    def map(
        self,
        function: Callable[..., R],
        items: Sequence[T],
        *,
        shared: dict[str, Any] | None = None,
        setup: Callable[..., Any] | None = None,
        context: Any = None,
    ) -> list[R]:
        """``[function(item, **shared) for item in items]``, or with a ``setup``,
        ``[function(item, context) for item in items]`` where ``context = setup(**shared)``
        is built once per worker; however it is computed, results come in input order.
        ``context``, when given, is what ``setup(**shared)`` builds, already built by the
        caller: an engine that runs the work in the caller's process uses it (with what it
        has computed so far) instead of building another."""

    def close(self) -> None: ...


ENGINES: Registry[Callable[..., Engine]] = Registry("engine", package=__name__)

PROCESS_CACHES: list[Callable[[], None]] = []
"""How to empty each cache a worker process keeps between the partitions of one map call
(a loaded model, an alignment's world): a distributed engine empties them when the call
ends, so that a worker holds one stage's state at a time, not every stage's."""


def process_cache(clear: Callable[[], None]) -> Callable[[], None]:
    """Register how to empty a per-process cache (``cached_function.cache_clear``, or a
    module dict's ``clear``)."""
    PROCESS_CACHES.append(clear)
    return clear


def empty_process_caches() -> None:
    for clear in PROCESS_CACHES:
        clear()


class EngineError(RuntimeError):
    """The engine lost work it cannot redo (a Dask worker killed over its memory limit,
    again and again): the run stops with one line saying so (exit 2)."""


def build_engine(name: str = "local", address: str | None = None, **cluster: Any) -> Engine:
    """``local`` or ``dask`` (``address``: a scheduler to connect to; none starts a
    LocalCluster on this machine, sized by ``cluster``: ``workers``, ``memory_limit``)."""
    cluster = {key: value for key, value in cluster.items() if value is not None}
    return ENGINES[name].target(address, **cluster)


def partitions(items: Sequence[T], count: int) -> list[list[T]]:
    """Contiguous, nearly equal slices of the items, in order (empty slices dropped)."""
    if not items:
        return []
    size = -(-len(items) // max(1, count))
    return [list(items[start : start + size]) for start in range(0, len(items), size)]
