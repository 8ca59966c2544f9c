"""Where the partitioned work of the stages runs: in this process, or on a Dask cluster.

The stages cut their work into independent partitions (files, documents, chunks of texts,
cards and rules documents, chunks of rulings) and call ``engine.map``; the engine runs the
function on each partition and returns the results in input order, so that every engine
produces byte-identical output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from ..registry import Registry

T = TypeVar("T")
R = TypeVar("R")


class Engine(Protocol):
    name: str

    def map(
        self, function: Callable[..., R], items: Sequence[T], shared: dict[str, Any] | None = None
    ) -> list[R]:
        """``[function(item, **shared) for item in items]``, however it is computed."""

    def close(self) -> None: ...


ENGINES: Registry[Callable[..., Engine]] = Registry("engine", package=__name__)


def build_engine(name: str = "local", address: str | None = None) -> Engine:
    """``local`` or ``dask`` (``address``: a scheduler to connect to; none starts a
    LocalCluster on this machine)."""
    return ENGINES[name].target(address)


def partitions(items: Sequence[T], count: int) -> list[list[T]]:
    """Contiguous, nearly equal slices of the items, in order (empty slices dropped)."""
    if not items:
        return []
    size = -(-len(items) // max(1, count))
    return [list(items[start : start + size]) for start in range(0, len(items), size)]
