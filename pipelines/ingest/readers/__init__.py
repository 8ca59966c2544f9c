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

from ...model import CardName, Finding, Ruling
from ...registry import Registry
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
    for ceiling, priority, name, detect in _by_ceiling():
        if best is not None and (ceiling, priority, name) < best:
            break
        score = detect(doc)
        if score > 0:
            best = max(best or (score, priority, name), (score, priority, name))
    return best[2] if best else None


def _by_ceiling() -> list[tuple[float, int, str, Callable[[SourceFile], float]]]:
    return sorted(
        (
            (entry.meta["ceiling"], entry.meta["priority"], entry.name, entry.meta["detect"])
            for entry in READERS
        ),
        key=lambda reader: reader[:3],
        reverse=True,
    )
