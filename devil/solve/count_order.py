"""The order in which the counting programme places a piece's groups (probabilities only).

``devil.solve._dp.counts`` sweeps a piece group by group, keeping the residual need of every
open constraint; its cost is the number of distinct states per step. The plan the other
questions share (``devil.solve._dp.plan``: a breadth-first order from one peripheral group or a
board sweep, whichever keeps the fewest constraints open) suits a lattice; on a closed surface
(a geodesic sphere's frontier is a band round the sphere, with 12-neighbour numbers) it keeps
19-21 constraints open, past ``devil.solve._dp.MAX_OPEN``, and the counts fell back to
enumerating every solution (minutes). Counting is free to use another order: its answer does
not depend on the order, only its work does. Verdicts, witnesses and totals keep the shared
plan (a witness's random draw depends on the order).

``counting_order`` tries more orders (breadth-first from up to ``BREADTH_STARTS`` groups
spread over the piece, and greedy orders that place next the group growing the bound on the
states least) and keeps the one with the fewest estimated states (``estimated_states``: per
step, the product over the open constraints of how many residual needs each can still have,
summed over the steps). The number of constraints open at once is a poor guide: on the expert
sphere (seed 1) an order keeping 12 open reached 211,788 states in a step, the shared one
keeping 19 open 20,960; the estimate's pick keeps 11 open and 8,128 states.
"""

from __future__ import annotations

from collections.abc import Sequence

from devil.solve._dp import MAX_OPEN, open_most, spans
from devil.solve._search import GroupProblem, _bfs

__all__ = ["counting_order", "estimated_states", "greedy_order"]

BREADTH_STARTS = 24
"""Groups (spread evenly over the shared order) the breadth-first candidates start from."""

GREEDY_STARTS = 16
"""Groups (spread evenly over the shared order) the greedy candidates start from."""

QUICK_STATES = 20_000
"""A shared order estimated at this many states or fewer (and within ``MAX_OPEN``) is kept
without trying others: counting in it takes milliseconds, and trying the others costs more
than it could save (most pieces of every tiling, squares included)."""

GREEDY_WORK = 4_000
"""Greedy candidates are at most this many divided by the piece's groups (each costs about
the groups times the open constraints' groups): a huge lattice piece tries one."""


def estimated_states(problem: GroupProblem, order: Sequence[int]) -> float:
    """An upper bound on the programme's states, summed over its steps, in ``order``.

    After a step an open constraint with need ``k``, ``placed`` cells placed and ``rest``
    still to come has a residual need between ``max(0, k - placed)`` and ``min(k, rest)``;
    the product of those ranges bounds the step's states (a float: it may be huge)."""
    sizes = problem.sizes
    cons = problem.cons
    last, rest = spans(problem, order)
    placed = [0] * len(cons)
    open_now: set[int] = set()
    total = 0.0
    for i, v in enumerate(order):
        for c in problem.var_cons[v]:
            placed[c] += sizes[v]
            rest[c] -= sizes[v]
            if last[c] == i:
                open_now.discard(c)
            else:
                open_now.add(c)
        states = 1.0
        for c in open_now:
            states *= _needs(cons[c][1], placed[c], rest[c])
        total += states
    return total


def _needs(need: int, placed: int, rest: int) -> int:
    """How many residual needs a constraint with need ``need`` can have once ``placed`` of
    its cells are placed and ``rest`` are still to come."""
    return min(need, rest) - max(0, need - placed) + 1


def greedy_order(problem: GroupProblem, start: int) -> list[int]:
    """From ``start``, repeatedly the unplaced group of an open constraint that multiplies
    the bound on the states (``estimated_states``' product) by the least (then the lowest
    index); when no constraint is open, the lowest unplaced group."""
    n = problem.n
    cons = problem.cons
    sizes = problem.sizes
    var_cons = problem.var_cons
    left = [len(vs) for vs, _ in cons]
    placed_cells = [0] * len(cons)
    rest = [0] * len(cons)
    for c, (vs, _) in enumerate(cons):
        for v in vs:
            rest[c] += sizes[v]
    placed = [False] * n
    open_now: set[int] = set()
    order: list[int] = []
    current = start
    while True:
        placed[current] = True
        order.append(current)
        size = sizes[current]
        for c in var_cons[current]:
            placed_cells[c] += size
            rest[c] -= size
            left[c] -= 1
            if left[c] == 0:
                open_now.discard(c)
            else:
                open_now.add(c)
        if len(order) == n:
            return order
        candidates: set[int] = set()
        for c in open_now:
            for w in cons[c][0]:
                if not placed[w]:
                    candidates.add(w)
        if not candidates:
            current = placed.index(False)
            continue
        best = -1
        best_factor = 0.0
        for v in sorted(candidates):
            factor = 1.0
            size = sizes[v]
            for c in var_cons[v]:
                need = cons[c][1]
                after = 1 if left[c] == 1 else _needs(need, placed_cells[c] + size, rest[c] - size)
                before = _needs(need, placed_cells[c], rest[c]) if c in open_now else 1
                factor *= after / before
            if best < 0 or factor < best_factor:
                best, best_factor = v, factor
        current = best


def counting_order(problem: GroupProblem, shared: Sequence[int]) -> Sequence[int]:
    """The candidate order with the fewest estimated states; ``shared``: the order of the
    plan the other questions use (kept on a tie, and a candidate itself)."""
    n = problem.n
    if n <= 2:
        return shared
    members = [vs for vs, _ in problem.cons]
    var_cons = [list(cs) for cs in problem.var_cons]
    best: Sequence[int] = shared
    fewest = estimated_states(problem, shared)
    if fewest <= QUICK_STATES and open_most(problem, shared) <= MAX_OPEN:
        return shared
    candidates: list[Sequence[int]] = []
    stride = max(1, n // BREADTH_STARTS)
    for i in range(0, n, stride):
        candidates.append(_bfs(n, members, var_cons, shared[i]))
    stride = max(1, n // max(1, min(GREEDY_STARTS, GREEDY_WORK // n)))
    for i in range(0, n, stride):
        candidates.append(greedy_order(problem, shared[i]))
    for order in candidates:
        got = estimated_states(problem, order)
        if got < fewest:
            best, fewest = order, got
    return best
