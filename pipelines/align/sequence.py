"""Monotonic alignment of two ordered texts (a rules document and its translation).

Pairs fixed by rule numbers come first (the longest chain of them that keeps the order).
Between consecutive fixed pairs a dynamic programme pairs the rest: a 1-1 pair, a unit left
alone (deleted or inserted), or two neighbouring entries swapped (a glossary sorted
differently). A pair is worth its similarity plus its margin, how much it stands out from
both units' nearest neighbours, so that in a run of near-identical rules (the Role tokens,
111.10i-q) each rule pairs with its own translation and not with its neighbour's. Last,
units the order left apart but that clearly translate each other are paired out of order.

Mutual nearest neighbours are not forced as anchors before the programme: one wrong but
confident pair (the Chinese "Scheme" rules read as "Conspiracy") would cut the document
there and cost a dozen pairs, where the programme weighs it against the units it would
leave out. They only cut gaps too large for the programme (MAX_GAP_CELLS). Each row of the
programme is vectorised: the whole Comprehensive Rules (4,000 x 4,000 units) take a second.

The scores come from a ``Scores`` (margin.py): the whole matrix for a pair of ordinary size,
or blocks computed on demand for a long document. Every step asks only for the rectangles
it reads (the gaps between fixed pairs, consecutive small gaps sharing one rectangle), so
that a long document whose rule numbers fix most pairs costs memory in its length; the
answers are the same either way.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from .margin import MatrixScores, Scores, Tile

ANCHOR_MIN_SIMILARITY = 0.35
ANCHOR_MIN_MARGIN = 0.04
SKIP_COST = 0.62
"""Cost of leaving a unit unpaired; a 1-1 pair costs 1 - (similarity + margin). Two skips
(1.24) are cheaper than a pair scoring below -0.24, which no pair of related texts does: a
pair of the order is kept unless a better path leaves it out."""
MARGIN_WEIGHT = 1.0
"""Weight of the margin in a pair's score (similarity + weight x margin)."""
MAX_GAP_CELLS = 25_000_000
"""Larger gaps (two documents of more than 5,000 units each, with no rule numbers in
common) are first cut at mutual nearest neighbours: the back-pointers take a byte a cell."""
REORDER_MIN_SIMILARITY = 0.5

_UP, _LEFT, _DIAGONAL, _SWAP = 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class Pair:
    source: int
    target: int
    similarity: float
    margin: float
    anchored_by: str
    """"key" (rule number), "gap" (paired by the dynamic programme), "anchor" (a mutual
    nearest neighbour cutting a gap too large for it) or "reorder" (paired out of order)."""


def align_ordered(
    similarity: np.ndarray | Scores, fixed: list[tuple[int, int]] | None = None
) -> list[Pair]:
    """1-1 pairs (in order, but for swaps and reorders) between sources (rows) and targets
    (columns) of a similarity matrix or of ``Scores``; ``fixed`` are pairs known by their
    rule numbers."""
    scores = MatrixScores(similarity) if isinstance(similarity, np.ndarray) else similarity
    n_source, n_target = scores.shape
    if not n_source or not n_target:
        return []
    keys = sorted(set(fixed or []))
    chain = _weighted_chain(keys, [1] * len(keys)) if keys else []
    pairs = _pairs(scores, chain, "key")
    bounds = [(-1, -1), *chain, (n_source, n_target)]
    gaps = [(s0 + 1, s1, t0 + 1, t1) for (s0, t0), (s1, t1) in itertools.pairwise(bounds)]
    pairs.extend(_fill_gaps(scores, gaps))
    pairs.extend(_reordered(scores, pairs))
    return sorted(pairs, key=lambda p: (p.source, p.target))


def _pairs(scores: Scores, points: list[tuple[int, int]], how: str) -> list[Pair]:
    if not points:
        return []
    sources = np.array([s for s, _ in points], dtype=np.intp)
    targets = np.array([t for _, t in points], dtype=np.intp)
    similarity, margin = scores.values(sources, targets)
    return [
        Pair(s, t, float(similarity[i]), float(margin[i]), how) for i, (s, t) in enumerate(points)
    ]


def _reordered(scores: Scores, pairs: list[Pair]) -> list[Pair]:
    """Units the order left apart but that clearly translate each other (entries moved in
    the translation, such as a glossary sorted differently): mutual best among leftovers,
    close enough, and standing out from their neighbours or the best of the whole document
    (three glossary entries about one mechanic stand out little from each other)."""
    n_source, n_target = scores.shape
    sources = sorted(set(range(n_source)) - {p.source for p in pairs})
    targets = sorted(set(range(n_target)) - {p.target for p in pairs})
    if not sources or not targets:
        return []
    best_target, best_source = scores.best_among(sources, targets)
    overall_target, overall_source = scores.nearest()
    mutual = [
        (sources[row], targets[int(column)])
        for row, column in enumerate(best_target)
        if best_source[column] == row
    ]
    if not mutual:
        return []
    similarity, margin = scores.values(
        np.array([s for s, _ in mutual], dtype=np.intp),
        np.array([t for _, t in mutual], dtype=np.intp),
    )
    found = []
    for i, (s, t) in enumerate(mutual):
        # float32 against the thresholds, as the matrix's own cells compare
        if similarity[i] >= REORDER_MIN_SIMILARITY and (
            margin[i] >= ANCHOR_MIN_MARGIN or (overall_target[s] == t and overall_source[t] == s)
        ):
            found.append(Pair(s, t, float(similarity[i]), float(margin[i]), "reorder"))
    return found


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


SHARED_TILE_WASTE = 2
SHARED_TILE_SLACK_CELLS = 1 << 16
"""Consecutive gaps share one rectangle of scores while it holds at most SHARED_TILE_WASTE
times their own cells plus SHARED_TILE_SLACK_CELLS: the cells between them are computed
for nothing. On ten copies of the Comprehensive Rules (72 gaps, 4.7 million cells in
them), rectangles bounded by ``tile_cells`` alone held 38 million cells."""


def _fill_gaps(scores: Scores, gaps: list[tuple[int, int, int, int]]) -> list[Pair]:
    """Pairs inside consecutive gaps (each after the one before, in both orders): runs of
    small gaps share one rectangle of scores; a gap too large for the programme is cut."""
    pairs: list[Pair] = []
    run: list[tuple[int, int, int, int]] = []
    cells = 0  # in the run's gaps

    def flush() -> None:
        nonlocal cells
        if run:
            tile = scores.tile(run[0][0], run[-1][1], run[0][2], run[-1][3])
            for gap in run:
                pairs.extend(_fill_gap(tile, *gap))
            run.clear()
            cells = 0

    for s0, s1, t0, t1 in gaps:
        if s1 <= s0 or t1 <= t0:
            continue
        own = (s1 - s0) * (t1 - t0)
        if own > MAX_GAP_CELLS:
            flush()
            pairs.extend(_split_large_gap(scores, s0, s1, t0, t1))
            continue
        if run:
            shared = (s1 - run[0][0]) * (t1 - run[0][2])
            wasteful = shared > SHARED_TILE_WASTE * (cells + own) + SHARED_TILE_SLACK_CELLS
            if shared > scores.tile_cells or wasteful:
                flush()
        run.append((s0, s1, t0, t1))
        cells += own
    flush()
    return pairs


def _fill_gap(tile: Tile, s0: int, s1: int, t0: int, t1: int) -> list[Pair]:
    """Pairs inside a gap between fixed pairs (no larger than MAX_GAP_CELLS, inside the
    tile), by dynamic programming: 1-1, 1-0, 0-1 and 2-2 crosswise (a swap) moves, least
    total cost."""
    rows, cols = s1 - s0, t1 - t0
    move = np.empty((rows + 1, cols + 1), dtype=np.int8)
    move[0, :] = _LEFT
    move[:, 0] = _UP
    skips = np.arange(cols + 1) * SKIP_COST
    before, previous = None, skips.copy()
    cross_before = None
    for i in range(1, rows + 1):
        pair_cost, cross_cost = _row_costs(tile, s0 + i - 1, t0, t1)
        diagonal = previous[:-1] + pair_cost
        up = previous[1:] + SKIP_COST
        current = np.empty(cols + 1)
        current[0] = i * SKIP_COST
        current[1:] = np.minimum(diagonal, up)
        move[i, 1:] = np.where(diagonal <= up, _DIAGONAL, _UP)
        if before is not None and cols >= 2:
            # source i-1 with target j, source i with target j-1 (1-based, j >= 2)
            swap = before[:-2] + cross_before[1:] + cross_cost[:-1]
            better = swap < current[2:]
            current[2:][better] = swap[better]
            move[i, 2:][better] = _SWAP
        # Left moves run along the row: the best way to reach cell j from a cell k <= j of
        # this row, current[k] + (j - k) * SKIP_COST, is a running minimum.
        reached = np.minimum.accumulate(current - skips) + skips
        left = reached < current - 1e-9
        move[i, left] = _LEFT
        before, previous = previous, np.where(left, reached, current)
        cross_before = cross_cost
    return _trace(tile, move, s0, t0)


def _row_costs(tile: Tile, s: int, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """Cost of pairing source s with each target of the gap, in order and out of order: out
    of order a pair must be as close as the reorder pass asks (short headings are close to
    many things), so a swap's two pairs are both that close or it costs too much."""
    row, a, b = s - tile.s0, t0 - tile.t0, t1 - tile.t0
    close = tile.similarity[row, a:b].astype(np.float64)
    cost = 1.0 - (close + MARGIN_WEIGHT * tile.margin[row, a:b])
    return cost, np.where(close >= REORDER_MIN_SIMILARITY, cost, np.inf)


def _trace(tile: Tile, move: np.ndarray, s0: int, t0: int) -> list[Pair]:
    pairs = []

    def pair(s: int, t: int, how: str) -> Pair:
        row, column = s - tile.s0, t - tile.t0
        return Pair(s, t, float(tile.similarity[row, column]), float(tile.margin[row, column]), how)

    i, j = move.shape[0] - 1, move.shape[1] - 1
    while i > 0 or j > 0:
        step = move[i, j]
        if step == _DIAGONAL:
            pairs.append(pair(s0 + i - 1, t0 + j - 1, "gap"))
            i, j = i - 1, j - 1
        elif step == _SWAP:
            pairs.append(pair(s0 + i - 2, t0 + j - 1, "reorder"))
            pairs.append(pair(s0 + i - 1, t0 + j - 2, "reorder"))
            i, j = i - 2, j - 2
        elif step == _UP:
            i -= 1
        else:
            j -= 1
    return pairs


def _split_large_gap(scores: Scores, s0: int, s1: int, t0: int, t1: int) -> list[Pair]:
    """A gap too large for the DP: find anchors inside it with a looser test, recurse."""
    best_target, best_source = scores.best(s0, s1, t0, t1)
    candidates = [
        (s, int(best_target[s])) for s in range(s1 - s0) if best_source[best_target[s]] == s
    ]
    chain = _weighted_chain(candidates, [1] * len(candidates)) if candidates else []
    if not chain:
        return []
    anchors = [(s0 + s, t0 + t) for s, t in chain]
    pairs = _pairs(scores, anchors, "anchor")
    bounds = [(s0 - 1, t0 - 1), *anchors, (s1, t1)]
    gaps = [(a0 + 1, a1, b0 + 1, b1) for (a0, b0), (a1, b1) in itertools.pairwise(bounds)]
    pairs.extend(_fill_gaps(scores, gaps))
    return pairs
