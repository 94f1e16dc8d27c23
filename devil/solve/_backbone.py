"""A piece's backbone by the cheapest exact search: the plain search first, clause
learning (``devil.solve._cdcl``) when it thrashes.

- ``backbone_of``: which groups can hold a mine and a safe cell (within a window on the
  total);
- ``windowed_backbone``: the same among the solutions whose total lies in a set;
- ``extreme``: a piece's fewest or most mines.
"""

from __future__ import annotations

import importlib.util

from devil.solve._cdcl import Cdcl, cdcl_backbone
from devil.solve._search import Backbone, GroupProblem, TooHard, TotalWindow, backbone

__all__ = [
    "SEARCH_BUDGET",
    "WINDOW_CONFLICTS",
    "backbone_of",
    "cpsat_installed",
    "extreme",
    "windowed_backbone",
]


def cpsat_installed() -> bool:
    """Whether OR-Tools can be imported (looked up, not imported: only ``devil.cpsat`` does)."""
    return importlib.util.find_spec("ortools") is not None


WINDOW_CONFLICTS: int | None = 1_000 if cpsat_installed() else None
"""A window on a piece's total (counted rule, no room in the deep cells) is one
cardinality over every cell, which clause learning handles badly: past this many
conflicts the position goes to ``devil.cpsat`` when it is installed. Without it the
pure-Python search carries on to the exact answer, however long it takes."""

SEARCH_BUDGET = 3_000
"""Values the plain search may try per query before a piece goes to the CDCL solver."""


def backbone_of(
    problem: GroupProblem,
    window: TotalWindow | None,
    base: Backbone | None = None,
    max_conflicts: int | None = None,
) -> Backbone | None:
    """Plain search first; the conflict-driven solver when it thrashes.

    ``base``: the backbone without the window; groups it proves all-safe or all-mine stay
    so (a window only removes solutions), which spares the searches proving them again.
    """
    lo: list[int] | None = None
    hi: list[int] | None = None
    if base is not None:
        sizes = problem.sizes
        lo = [sizes[g] if base.low[g] == sizes[g] else 0 for g in range(problem.n)]
        hi = [0 if base.high[g] == 0 else sizes[g] for g in range(problem.n)]
    try:
        return backbone(problem, window, lo, hi, budget=SEARCH_BUDGET)
    except TooHard:
        got = cdcl_backbone(problem, window, lo, hi, max_conflicts)
        return None if got is None else Backbone(*got)


def windowed_backbone(
    problem: GroupProblem, allowed: int, base: Backbone | None = None
) -> Backbone | None:
    """The backbone among solutions whose total is in ``allowed`` (one run per run of bits).

    Raises ``TooHard`` when CP-SAT is installed and the CDCL solver struggles."""
    merged: Backbone | None = None
    k = 0
    while allowed >> k:
        if not (allowed >> k) & 1:
            k += 1
            continue
        start = k
        while (allowed >> k) & 1:
            k += 1
        got = backbone_of(problem, TotalWindow(start, k - 1), base, WINDOW_CONFLICTS)
        if got is None:
            continue
        if merged is None:
            merged = got
        else:
            merged = Backbone(
                [min(a, b) for a, b in zip(merged.low, got.low, strict=True)],
                [max(a, b) for a, b in zip(merged.high, got.high, strict=True)],
                merged.solution,
            )
    return merged


def extreme(problem: GroupProblem, lowest: bool) -> int:
    """The fewest (or most) mines of a solution: improve a solution until none is better."""
    best = Cdcl(problem).solve()
    if best is None:
        raise ValueError("piece has no solution")
    value = sum(best)
    total = sum(problem.sizes)
    while True:
        window = TotalWindow(0, value - 1) if lowest else TotalWindow(value + 1, total)
        if window[0] > window[1]:
            return value
        sol = Cdcl(problem, window).solve()
        if sol is None:
            return value
        value = sum(sol)
