"""One reader per input format, chosen from each file's content, never from its name.

A reader is a generator function registered with ``@reader(name, detect=...)``: ``detect``
scores how well the reader recognises a file (0 = not at all, 1 = certainly) and the best
score wins; ties go to the higher ``priority``. ``ceiling`` is the highest score ``detect``
ever gives: a reader that could not beat the best score found so far is not asked (a large
rules file is not scanned by every other reader's detector).

The reader yields ``Ruling`` records (with ``lang``, ``date`` and ``card`` left for the ingest
stage to fill in), ``Finding`` records for what it could not read, and ``CardName`` entries
for the card-name index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache

from ...model import CardName, Finding, Ruling
from ...registry import Entry, Registry
from ..source import SourceFile

Output = Ruling | Finding | CardName
ReadFunction = Callable[[SourceFile], Iterator[Output]]

READERS: Registry[ReadFunction] = Registry("reader", package=__name__)


def reader(
    name: str,
    *,
    detect: Callable[[SourceFile], float],
    priority: int = 0,
    ceiling: float = 1.0,
) -> Callable[[ReadFunction], ReadFunction]:
    return READERS.register(name, detect=detect, priority=priority, ceiling=ceiling)


def at_most(score: float) -> float:
    """The ceiling of a detector that returns ``score`` times a share (at most 1): a hair
    over ``score``, since the product and the division round (0.95 * 19 / 19 is above
    0.95)."""
    return score + 1e-9


def choose(doc: SourceFile) -> str | None:
    """The name of the reader that recognises the file best (highest score, then priority,
    then name), or None. Readers are asked from the highest ceiling down, and no further
    once the best found beats what any reader left could score."""
    best = None
    for entry in _by_ceiling():
        priority = entry.meta["priority"]
        if best is not None and (entry.meta["ceiling"], priority, entry.name) < best:
            break
        score = entry.meta["detect"](doc)
        if score > 0 and (best is None or (score, priority, entry.name) > best):
            best = (score, priority, entry.name)
    return best[2] if best else None


@cache
def _by_ceiling() -> tuple[Entry[ReadFunction], ...]:
    """The readers from the highest (ceiling, priority, name) down, sorted once per process
    (``choose`` runs on every file)."""
    return tuple(
        sorted(
            READERS,
            key=lambda entry: (entry.meta["ceiling"], entry.meta["priority"], entry.name),
            reverse=True,
        )
    )
