"""The Dask engine: partitions run on a Dask cluster (a LocalCluster by default).

Shared values (the corpus, the vectors, the termbase) are scattered once to every worker;
each partition is a task; results are gathered in input order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from . import ENGINES

THREADS_PER_WORKER = 1


@ENGINES.register("dask")
class DaskEngine:
    """Runs partitions on a Dask scheduler at ``address``, or on a LocalCluster of one
    single-threaded worker process per core."""

    name = "dask"

    def __init__(self, address: str | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as missing:
            raise ValueError("the dask engine needs: pip install 'rulings[dask]'") from missing
        os.environ.setdefault("RULINGS_EMBED_THREADS", str(THREADS_PER_WORKER))
        if address:
            self._cluster = None
            self._client = Client(address)
        else:
            self._cluster = LocalCluster(
                n_workers=os.cpu_count() or 1,
                threads_per_worker=THREADS_PER_WORKER,
                processes=True,
                dashboard_address=None,
                env={"RULINGS_EMBED_THREADS": str(THREADS_PER_WORKER)},
            )
            self._client = Client(self._cluster)

    @property
    def workers(self) -> int:
        return max(1, len(self._client.scheduler_info()["workers"]))

    def map(
        self, function: Callable, items: Sequence, shared: dict[str, Any] | None = None
    ) -> list:
        if not items:
            return []
        [scattered] = self._client.scatter([shared or {}], broadcast=True, hash=False)
        futures = self._client.map(
            _call, list(items), pure=False, rulings_function=function, rulings_shared=scattered
        )
        return self._client.gather(futures)

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def _call(item: Any, rulings_function: Callable, rulings_shared: dict[str, Any]) -> Any:
    """A task: the partition function with the shared values (names that cannot clash with
    the keywords of ``Client.map``)."""
    return rulings_function(item, **rulings_shared)
