"""Small pieces: every solution by visiting every group assignment.

A piece whose groups have at most ``SMALL_LAYOUTS`` assignments (``prod(size + 1)``; most
pieces of an ordinary game) gets its engine here (``SmallEngine``): its facts (backbone,
totals, windows, layout counts) come from the list of its solutions, a few microseconds,
less than setting up one search or one programme.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from devil.solve import bits
from devil.solve._count import PieceCounts, Tally
from devil.solve._engine import WIDE_OPEN, Engine, unpinned, wide_within
from devil.solve._pieces import Piece
from devil.solve._search import Backbone, GroupProblem, TotalWindow

__all__ = [
    "SMALL_LAYOUTS",
    "SmallEngine",
    "bounds_of",
    "layouts_at_most",
    "small_backbone",
    "small_counts",
    "small_solutions",
]

SMALL_LAYOUTS = 64
"""Pieces with at most this many group assignments get their backbone by enumerating
them all (a few microseconds; the search's set-up alone costs more on such pieces)."""


def layouts_at_most(sizes: Sequence[int], limit: int) -> bool:
    """Whether ``prod(size + 1)``, the group assignments of a piece, is at most ``limit``."""
    total = 1
    for size in sizes:
        total *= size + 1
        if total > limit:
            return False
    return True


def small_solutions(problem: GroupProblem) -> list[list[int]]:
    """Every solution, by visiting every group assignment in odometer order (the sums of
    the constraints kept up to date). For pieces ``layouts_at_most`` allows."""
    sizes = problem.sizes
    n = problem.n
    needs = [need for _, need in problem.cons]
    m = len(needs)
    var_cons = problem.var_cons
    sums = [0] * m
    val = [0] * n
    out: list[list[int]] = []
    while True:
        c = 0
        while c < m and sums[c] == needs[c]:
            c += 1
        if c == m:
            out.append(list(val))
        v = 0
        while v < n:  # the next assignment
            a = val[v]
            if a < sizes[v]:
                val[v] = a + 1
                for c in var_cons[v]:
                    sums[c] = sums[c] + 1
                break
            val[v] = 0
            for c in var_cons[v]:
                sums[c] = sums[c] - a
            v += 1
        if v == n:
            return out


def bounds_of(solutions: list[list[int]], allowed: int | None) -> Backbone | None:
    """Per group the lowest and highest value over the solutions whose total is a set bit
    of ``allowed`` (None: every solution); None when there is none."""
    low: list[int] = []
    high: list[int] = []
    first: list[int] | None = None
    for sol in solutions:
        if allowed is not None and not (allowed >> sum(sol)) & 1:
            continue
        if first is None:
            first = sol
            low = list(sol)
            high = list(sol)
            continue
        for v in range(len(sol)):
            a = sol[v]
            if a < low[v]:
                low[v] = a
            if a > high[v]:
                high[v] = a
    if first is None:
        return None
    return Backbone(low, high, list(first))


def small_backbone(problem: GroupProblem) -> Backbone | None:
    """The backbone from ``small_solutions``: per group the exact lowest and highest value
    of a solution; None when there is none."""
    return bounds_of(small_solutions(problem), None)


def small_counts(problem: GroupProblem, solutions: list[list[int]] | None = None) -> PieceCounts:
    """The layout counts from ``small_solutions`` (cell layouts per mine total, and per
    group the mines it holds summed over them), as ``devil.solve._count.count_by_search``."""
    tally = Tally(problem.sizes)
    for sol in small_solutions(problem) if solutions is None else solutions:
        tally.add(sol)
    return tally.counts()


class SmallEngine(Engine):
    """A piece answered from the list of its solutions (``devil.solve._small``)."""

    def __init__(self, piece: Piece, width: int, wide: bool) -> None:
        super().__init__(piece, width)
        self._solutions = small_solutions(piece.problem)
        self._wide: bool | None = True if wide else None
        """Its plan keeps too many constraints open (only with more constraints than any
        small piece of a game has): witnesses as a wide piece's. None: not known yet (the
        plan is made when asked, which a small piece's other facts never need)."""

    def wide(self) -> bool:
        if self._wide is None:
            cons = len(self.piece.problem.cons)
            self._wide = cons > WIDE_OPEN and self.open_max() > WIDE_OPEN
        return self._wide

    def backbone(self) -> Backbone | None:
        if self._backbone is None:
            self._backbone = bounds_of(self._solutions, None)
        return self._backbone

    def windowed(self, window: TotalWindow) -> Backbone | None:
        if window not in self._windowed:
            self._windowed[window] = bounds_of(self._solutions, window.mask())
        return self._windowed[window]

    def cheap_totals(self) -> int | None:
        return self.totals()

    def totals(self) -> int:
        if self._totals is None:
            mask = 0
            for sol in self._solutions:
                mask |= 1 << sum(sol)
            self._totals = mask
        return self._totals

    def mine_range(self) -> tuple[int, int]:
        mask = self.totals()
        return (bits.lowest(mask), mask.bit_length() - 1)

    def has_total(self, low: int, high: int) -> bool:
        return high >= low and bool(self.totals() & bits.interval(low, high))

    def cheap_totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int | None:
        return self.totals_within(lo, hi)

    def totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        if unpinned(self.piece.problem.sizes, lo, hi):
            return self.totals()
        mask = 0
        for sol in self._solutions:
            if all(lo[g] <= a <= hi[g] for g, a in enumerate(sol)):
                mask |= 1 << sum(sol)
        return mask

    def solve_within(
        self, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
    ) -> list[int] | None:
        if self.piece.problem.n > 1 and self.wide():
            return wide_within(self.piece.problem, lo, hi, rng)
        return super().solve_within(lo, hi, rng)

    def counts(self) -> PieceCounts:
        if self._counts is None:
            self._counts = small_counts(self.piece.problem, self._solutions)
        return self._counts
