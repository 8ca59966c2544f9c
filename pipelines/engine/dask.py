"""The Dask engine: partitions run on a Dask cluster (a LocalCluster by default).

Shared values (the corpus, the vectors, the termbase) are scattered once to every worker;
each partition is a task; results are gathered in input order. A ``setup`` context is built
once per worker process and map call. When the call ends every worker drops it, and the
per-process caches the stages registered (``process_cache``: the embedding model, the
language identifier, the alignment's world), so that a worker's memory holds one stage's
state at a time: a worker of a 100,000-ruling run peaked at 1.85 GB holding the embedding
model and the alignment's world through the check stage.
"""

from __future__ import annotations

import contextlib
import gc
import os
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from . import ENGINES, EngineError, empty_process_caches

THREADS_PER_WORKER = 1


@ENGINES.register("dask")
class DaskEngine:
    """Runs partitions on a Dask scheduler at ``address``, or on a LocalCluster of
    single-threaded worker processes (``workers``, default one per core), each held to
    ``memory_limit`` ("2GB"; default: the machine's memory shared between them)."""

    name = "dask"
    threads_per_worker = THREADS_PER_WORKER

    def __init__(
        self,
        address: str | None = None,
        workers: int | None = None,
        memory_limit: str | None = None,
    ) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as missing:
            raise EngineError("the dask engine needs: pip install 'rulings[dask]'") from missing
        if address:
            self._cluster = None
            self._client = Client(address)
        else:
            self._cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=THREADS_PER_WORKER,
                processes=True,
                dashboard_address=None,
                memory_limit=memory_limit or "auto",
            )
            self._client = Client(self._cluster)
        self.memory_limit = memory_limit

    @property
    def workers(self) -> int:
        return max(1, len(self._client.scheduler_info()["workers"]))

    def map(
        self,
        function: Callable,
        items: Sequence,
        *,
        shared: dict[str, Any] | None = None,
        setup: Callable[..., Any] | None = None,
        context: Any = None,
    ) -> list:
        """As ``Engine.map``; ``context`` is not used: every worker builds its own."""
        if not items:
            return []
        [scattered] = self._client.scatter([shared or {}], broadcast=True, hash=False)
        futures = self._client.map(
            _call,
            list(items),
            pure=False,
            rulings_function=function,
            rulings_shared=scattered,
            rulings_setup=setup,
            rulings_token=uuid.uuid4().hex,
        )
        try:
            return self._client.gather(futures)
        except Exception as error:
            if not _lost_worker(error):
                raise
            limit = f" (--worker-memory {self.memory_limit})" if self.memory_limit else ""
            raise EngineError(
                f"Dask workers were lost while running {function.__name__}: a worker went "
                f"over its memory limit{limit} or died ({type(error).__name__}); give each "
                "worker more memory or use fewer, larger workers"
            ) from error
        finally:
            del futures, scattered
            with contextlib.suppress(Exception):  # a lost worker has nothing to release
                self._client.run(_release)

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def _lost_worker(error: Exception) -> bool:
    """Whether a gather failed because workers died (not because a task raised)."""
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    return isinstance(error, FutureCancelledError | KilledWorker)


_CONTEXT: dict[str, Any] = {}
"""This worker's context of the current map call, under its token (one at a time)."""


def _release() -> None:
    """On a worker: drop the map call's context and the per-process caches."""
    _CONTEXT.clear()
    empty_process_caches()
    gc.collect()


def _call(
    item: Any,
    rulings_function: Callable,
    rulings_shared: dict[str, Any],
    rulings_setup: Callable[..., Any] | None,
    rulings_token: str,
) -> Any:
    """A task: the partition function with the shared values, or with the worker's context
    (names that cannot clash with the keywords of ``Client.map``)."""
    if rulings_setup is None:
        return rulings_function(item, **rulings_shared)
    if rulings_token not in _CONTEXT:
        _CONTEXT.clear()
        _CONTEXT[rulings_token] = rulings_setup(**rulings_shared)
    return rulings_function(item, _CONTEXT[rulings_token])
