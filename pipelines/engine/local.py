"""The local engine: every partition in this process, one after the other."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from . import ENGINES


@ENGINES.register("local")
class LocalEngine:
    """Runs everything in this process (the default); numeric work uses up to two cores."""

    name = "local"
    workers = 1
    threads_per_worker = min(2, os.cpu_count() or 1)

    def __init__(self, address: str | None = None) -> None:
        if address:
            raise ValueError("the local engine takes no scheduler address")

    def map(
        self,
        function: Callable,
        items: Sequence,
        *,
        shared: dict[str, Any] | None = None,
        setup: Callable[..., Any] | None = None,
        context: Any = None,
    ) -> list:
        if setup is None:
            return [function(item, **(shared or {})) for item in items]
        if not items:
            return []
        if context is None:
            context = setup(**(shared or {}))
        return [function(item, context) for item in items]

    def close(self) -> None:
        """Nothing to release."""
