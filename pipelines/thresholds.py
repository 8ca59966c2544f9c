"""Named thresholds: the numbers the checks and the aligner decide by, reachable from a
project file (``[thresholds]`` in ``rulings.toml``) under a stable name.

A module declares its threshold where it uses it (``SHORT_RATIO = threshold(
"truncation.short-ratio", 0.5, ...)``) and reads the run's value from its context
(``ctx.threshold(SHORT_RATIO)``): the default unless the project file sets it. A run's
values are part of the cache keys of the stage that reads them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from .registry import Registry

ALIGN, CHECK = "align", "check"


@dataclass(frozen=True, slots=True)
class Threshold:
    name: str
    default: float
    doc: str
    stage: str
    minimum: float | None = None
    maximum: float | None = None
    integer: bool = False

    def of(self, values: Mapping[str, float]) -> float:
        """This threshold's value in a run's ``values`` (its default when they lack it)."""
        return values.get(self.name, self.default)

    def problem(self, value: object) -> str | None:
        """Why ``value`` cannot be this threshold's, or None."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            kind = "a whole number" if self.integer else "a number"
            return f"must be {kind}, not {type(value).__name__} {value!r}"
        if self.integer and not float(value).is_integer():
            return f"must be a whole number, not {value!r}"
        if self.minimum is not None and value < self.minimum:
            return f"must be at least {self.minimum:g}, not {value!r}"
        if self.maximum is not None and value > self.maximum:
            return f"must be at most {self.maximum:g}, not {value!r}"
        return None


THRESHOLDS: Registry[Threshold] = Registry("threshold")
"""Filled as the modules that declare thresholds are imported (the checks, the aligner)."""


def threshold(
    name: str,
    default: float,
    doc: str,
    *,
    stage: str,
    minimum: float | None = None,
    maximum: float | None = None,
    integer: bool = False,
) -> Threshold:
    """Declare a named threshold (``doc``: what it decides, one or two sentences)."""
    declared = Threshold(name, default, " ".join(doc.split()), stage, minimum, maximum, integer)
    if declared.problem(default):
        raise ValueError(f"threshold {name}: its default {declared.problem(default)}")
    THRESHOLDS.register(name, threshold=declared)(declared)
    return declared


def stage_digest(values: Mapping[str, float], stage: str) -> str:
    """The values a stage reads, for its cache keys ("" when all are the defaults)."""
    own = {
        name: value
        for name, value in sorted(values.items())
        if name in THRESHOLDS and THRESHOLDS[name].target.stage == stage
    }
    return json.dumps(own, sort_keys=True) if own else ""
