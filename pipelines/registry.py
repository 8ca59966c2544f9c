"""Plain registries filled at import time: readers, checks, writers, embedders, identifiers.

A new input format, check or report writer is one new module that decorates a function;
the CLI asks the registry for names and help text.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Entry(Generic[T]):
    name: str
    target: T
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def doc(self) -> str:
        """The first paragraph of the target's docstring, on one line."""
        text = (getattr(self.target, "__doc__", None) or "").strip()
        return " ".join(text.split("\n\n")[0].split())


class Registry(Generic[T]):
    """Name -> entry, in registration order, with a decorator to register."""

    def __init__(self, kind: str, package: str | None = None) -> None:
        self.kind = kind
        self._package = package
        self._loaded = package is None
        self._entries: dict[str, Entry[T]] = {}

    def register(self, name: str, **meta: Any) -> Callable[[T], T]:
        def decorate(target: T) -> T:
            if name in self._entries:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._entries[name] = Entry(name, target, meta)
            return target

        return decorate

    def _load(self) -> None:
        """Import every module of the registry's package, so that they register themselves."""
        if self._loaded:
            return
        self._loaded = True
        package = importlib.import_module(self._package)
        for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if not module.name.startswith("_"):
                importlib.import_module(f"{self._package}.{module.name}")

    def __getitem__(self, name: str) -> Entry[T]:
        self._load()
        try:
            return self._entries[name]
        except KeyError:
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def __contains__(self, name: str) -> bool:
        self._load()
        return name in self._entries

    def __iter__(self) -> Iterator[Entry[T]]:
        self._load()
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def names(self) -> list[str]:
        """The registered names, sorted (whatever order their modules were imported in)."""
        self._load()
        return sorted(self._entries)
