"""Monotonic alignment of two ordered texts (a rules document and its translation).

Anchors first: pairs fixed by rule numbers, then mutual nearest neighbours by margin score
that keep the order (a longest increasing subsequence). Between consecutive anchors a small
dynamic programme pairs the rest 1-1, or leaves a unit alone when it was deleted or
inserted. The work is near-linear for real documents: only the gaps are searched.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from .margin import margin_scores

ANCHOR_MIN_SIMILARITY = 0.35
ANCHOR_MIN_MARGIN = 0.04
SKIP_COST = 0.62
"""Cost of leaving a unit unpaired; a 1-1 pair costs 1 - similarity, so pairs below ~0.24
similarity are cheaper to leave apart than to join (two skips vs one bad pair)."""
MAX_GAP_CELLS = 250_000
REORDER_MIN_SIMILARITY = 0.5


@dataclass(frozen=True, slots=True)
class Pair:
    source: int
    target: int
    similarity: float
    margin: float
    anchored_by: str
    """"key" (rule number), "anchor" (mutual best), "gap" (filled between anchors) or
    "reorder" (paired out of order)."""


def align_ordered(similarity: np.ndarray, fixed: list[tuple[int, int]] | None = None) -> list[Pair]:
    """1-1 pairs (in order) between sources (rows) and targets (columns)."""
    n_source, n_target = similarity.shape
    if not n_source or not n_target:
        return []
    margin = margin_scores(similarity)
    anchors = {(s, t): "key" for s, t in fixed or []}
    best_target = similarity.argmax(axis=1)
    best_source = similarity.argmax(axis=0)
    for s in range(n_source):
        t = int(best_target[s])
        if (
            best_source[t] == s
            and similarity[s, t] >= ANCHOR_MIN_SIMILARITY
            and margin[s, t] >= ANCHOR_MIN_MARGIN
        ):
            anchors.setdefault((s, t), "anchor")
    chain = _increasing_chain(sorted(anchors), keep={k for k, v in anchors.items() if v == "key"})
    pairs = [
        Pair(s, t, float(similarity[s, t]), float(margin[s, t]), anchors[s, t]) for s, t in chain
    ]
    bounds = [(-1, -1), *chain, (n_source, n_target)]
    for (s0, t0), (s1, t1) in itertools.pairwise(bounds):
        pairs.extend(_fill_gap(similarity, margin, s0 + 1, s1, t0 + 1, t1))
    pairs.extend(_reordered(similarity, margin, pairs))
    return sorted(pairs, key=lambda p: (p.source, p.target))


def _reordered(similarity: np.ndarray, margin: np.ndarray, pairs: list[Pair]) -> list[Pair]:
    """Units the order left apart but that clearly translate each other (entries swapped
    in the translation, such as a glossary sorted differently): mutual best among leftovers."""
    sources = sorted(set(range(similarity.shape[0])) - {p.source for p in pairs})
    targets = sorted(set(range(similarity.shape[1])) - {p.target for p in pairs})
    if not sources or not targets:
        return []
    block = similarity[np.ix_(sources, targets)]
    best_target = block.argmax(axis=1)
    best_source = block.argmax(axis=0)
    found = []
    for row, column in enumerate(best_target):
        s, t = sources[row], targets[int(column)]
        if (
            best_source[column] == row
            and similarity[s, t] >= REORDER_MIN_SIMILARITY
            and margin[s, t] >= ANCHOR_MIN_MARGIN
        ):
            found.append(Pair(s, t, float(similarity[s, t]), float(margin[s, t]), "reorder"))
    return found


def _increasing_chain(
    candidates: list[tuple[int, int]], keep: set[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The longest chain of pairs increasing in both coordinates; rule-number keys weigh most."""
    if not candidates:
        return []
    return _weighted_chain(candidates, [100 if c in keep else 1 for c in candidates])


def _weighted_chain(candidates: list[tuple[int, int]], weights: list[int]) -> list[tuple[int, int]]:
    """Maximum-weight strictly increasing chain (sources sorted, ties broken by target)."""
    n = len(candidates)
    best = [0] * n
    back = [-1] * n
    # The frontier keeps, by increasing target, the chain ends worth extending: their best
    # weights increase too, so the best predecessor of a pair is found by binary search.
    frontier_targets: list[int] = []
    frontier_index: list[int] = []
    order = sorted(range(n), key=lambda i: (candidates[i][0], -candidates[i][1]))
    for i in order:
        _, t = candidates[i]
        pos = bisect_left(frontier_targets, t)
        previous = frontier_index[pos - 1] if pos else -1
        best[i] = weights[i] + (best[previous] if previous >= 0 else 0)
        back[i] = previous
        while pos < len(frontier_targets) and best[frontier_index[pos]] <= best[i]:
            del frontier_targets[pos]
            del frontier_index[pos]
        if pos == 0 or best[frontier_index[pos - 1]] < best[i]:
            frontier_targets.insert(pos, t)
            frontier_index.insert(pos, i)
    end = max(range(n), key=lambda i: (best[i], -i))
    chain = []
    while end >= 0:
        chain.append(candidates[end])
        end = back[end]
    return chain[::-1]


def _fill_gap(
    similarity: np.ndarray, margin: np.ndarray, s0: int, s1: int, t0: int, t1: int
) -> list[Pair]:
    """Pairs inside a gap between anchors, by dynamic programming (1-1, 1-0, 0-1 moves)."""
    rows, cols = s1 - s0, t1 - t0
    if rows <= 0 or cols <= 0:
        return []
    if rows * cols > MAX_GAP_CELLS:
        return _split_large_gap(similarity, margin, s0, s1, t0, t1)
    block = similarity[s0:s1, t0:t1]
    cost = np.full((rows + 1, cols + 1), np.inf)
    move = np.zeros((rows + 1, cols + 1), dtype=np.int8)
    cost[0, :] = np.arange(cols + 1) * SKIP_COST
    cost[:, 0] = np.arange(rows + 1) * SKIP_COST
    move[0, 1:] = 2
    move[1:, 0] = 1
    for i in range(1, rows + 1):
        diagonal = cost[i - 1, :-1] + (1.0 - block[i - 1])
        up = cost[i - 1, 1:] + SKIP_COST
        row = np.minimum(diagonal, up)
        choice = np.where(diagonal <= up, 3, 1).astype(np.int8)
        for j in range(1, cols + 1):
            left = cost[i, j - 1] + SKIP_COST
            if left < row[j - 1]:
                row[j - 1] = left
                choice[j - 1] = 2
        cost[i, 1:] = row
        move[i, 1:] = choice
    pairs = []
    i, j = rows, cols
    while i > 0 or j > 0:
        step = move[i, j]
        if step == 3:
            s, t = s0 + i - 1, t0 + j - 1
            pairs.append(Pair(s, t, float(similarity[s, t]), float(margin[s, t]), "gap"))
            i, j = i - 1, j - 1
        elif step == 1:
            i -= 1
        else:
            j -= 1
    return pairs


def _split_large_gap(
    similarity: np.ndarray, margin: np.ndarray, s0: int, s1: int, t0: int, t1: int
) -> list[Pair]:
    """A gap too large for the DP: find anchors inside it with a looser test, recurse."""
    sub = similarity[s0:s1, t0:t1]
    best_target = sub.argmax(axis=1)
    best_source = sub.argmax(axis=0)
    candidates = [
        (s, int(best_target[s])) for s in range(sub.shape[0]) if best_source[best_target[s]] == s
    ]
    chain = _weighted_chain(candidates, [1] * len(candidates)) if candidates else []
    if not chain:
        return []
    pairs = [
        Pair(s0 + s, t0 + t, float(sub[s, t]), float(margin[s0 + s, t0 + t]), "anchor")
        for s, t in chain
    ]
    bounds = [(s0 - 1, t0 - 1), *[(s0 + s, t0 + t) for s, t in chain], (s1, t1)]
    for (a0, b0), (a1, b1) in itertools.pairwise(bounds):
        pairs.extend(_fill_gap(similarity, margin, a0 + 1, a1, b0 + 1, b1))
    return pairs
