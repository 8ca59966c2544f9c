"""One reader per input format, chosen from each file's content, never from its name.

A reader is a generator function registered with ``@reader(name, detect=...)``: ``detect``
scores how well the reader recognises a file (0 = not at all, 1 = certainly) and the best
score wins; ties go to the higher ``priority``. The reader yields ``Ruling`` records (with
``lang``, ``date`` and ``card`` left for the ingest stage to fill in), ``Finding`` records for
what it could not read, and ``CardName`` entries for the card-name index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ...model import CardName, Finding, Ruling
from ...registry import Registry
from ..source import SourceFile

Output = Ruling | Finding | CardName
ReadFunction = Callable[[SourceFile], Iterator[Output]]

READERS: Registry[ReadFunction] = Registry("reader", package=__name__)


def reader(
    name: str, *, detect: Callable[[SourceFile], float], priority: int = 0
) -> Callable[[ReadFunction], ReadFunction]:
    return READERS.register(name, detect=detect, priority=priority)


def choose(doc: SourceFile) -> str | None:
    """The name of the reader that recognises the file best, or None."""
    scored = []
    for entry in READERS:
        score = entry.meta["detect"](doc)
        if score > 0:
            scored.append((score, entry.meta["priority"], entry.name))
    if not scored:
        return None
    return max(scored)[2]
