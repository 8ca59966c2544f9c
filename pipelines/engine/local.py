"""The local engine: every partition in this process, one after the other."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import ENGINES


@ENGINES.register("local")
class LocalEngine:
    """Runs everything in this process (the default)."""

    name = "local"
    workers = 1

    def __init__(self, address: str | None = None) -> None:
        if address:
            raise ValueError("the local engine takes no scheduler address")

    def map(
        self, function: Callable, items: Sequence, shared: dict[str, Any] | None = None
    ) -> list:
        return [function(item, **(shared or {})) for item in items]

    def close(self) -> None:
        """Nothing to release."""
