"""Margin scoring: a pair's similarity relative to each side's nearest neighbours.

As in bitext mining (Artetxe & Schwenk, 2019): near-duplicate rulings all look similar to a
translation, but only the true source stands out from the translation's other neighbours.
"""

from __future__ import annotations

import numpy as np

NEIGHBOURS = 4


def neighbourhood(similarity: np.ndarray, axis: int, k: int = NEIGHBOURS) -> np.ndarray:
    """Mean of the k highest similarities along an axis (k clipped to what exists)."""
    size = similarity.shape[axis]
    if size == 0:
        return np.zeros(similarity.shape[1 - axis], dtype=np.float32)
    k = min(k, size)
    top = -np.partition(-similarity, k - 1, axis=axis)
    top = top[:k] if axis == 0 else top[:, :k]
    return top.mean(axis=axis)


def margin_scores(similarity: np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """similarity - mean(neighbourhood of the row, neighbourhood of the column)."""
    if similarity.size == 0:
        return similarity.copy()
    rows = neighbourhood(similarity, axis=1, k=k)
    cols = neighbourhood(similarity, axis=0, k=k)
    return similarity - (rows[:, None] + cols[None, :]) / 2.0
