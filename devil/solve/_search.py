"""Exact search on one piece in *group form*.

A piece's cells are condensed into groups (cells that lie in exactly the same
constraints). A group of ``size`` cells is one integer variable ``0..size``: how
many of its cells are mines; which ones does not matter to any constraint. Each
constraint says: the values of its groups sum to ``need``.

``Search.solve`` is a depth-first search with propagation on those sums (a sum
already at its cap or floor fixes every open variable in it; a sum with one open
variable fixes that one) plus an optional window on the piece's total, in a
static variable order that follows the constraint graph. The search is iterative
(no recursion limit), all state in flat lists of ints.

``backbone`` decides, for every group, whether it can hold a mine and whether it
can hold a safe cell: one solution first, then for each group a search for the
value not seen yet; a failed search proves the group forced and tightens its
domain for every later search.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from devil.solve.bits import interval
from devil.solve.budget import current


class TotalWindow(NamedTuple):
    """Which mine totals a piece may take: between ``low`` and ``high`` and, when
    ``allowed`` is given, a set bit of that bitmask (counted rule; witnesses' totals)."""

    low: int
    high: int
    allowed: int | None = None

    def mask(self) -> int:
        """The allowed totals as a bitmask."""
        return interval(self.low, self.high) if self.allowed is None else self.allowed


@dataclass(frozen=True, slots=True)
class GroupProblem:
    """A piece in group form."""

    sizes: tuple[int, ...]
    cons: tuple[tuple[tuple[int, ...], int], ...]
    """``(group indices, need)`` per constraint."""
    var_cons: tuple[tuple[int, ...], ...]
    """Constraint indices per group."""
    order: tuple[int, ...]
    """Branching order (follows the constraint graph)."""

    @property
    def n(self) -> int:
        return len(self.sizes)


def make_problem(sizes: Sequence[int], cons: Sequence[tuple[tuple[int, ...], int]]) -> GroupProblem:
    var_cons: list[list[int]] = [[] for _ in range(len(sizes))]
    for ci, (vs, _) in enumerate(cons):
        for v in vs:
            var_cons[v].append(ci)
    return problem_of(list(sizes), list(cons), var_cons)


def problem_of(
    sizes: list[int], cons: list[tuple[tuple[int, ...], int]], var_cons: list[list[int]]
) -> GroupProblem:
    """``make_problem`` when the caller has each group's constraints (``var_cons``, in
    increasing order) already."""
    members = [vs for vs, _ in cons]
    order = graph_order(len(sizes), members, var_cons)
    return GroupProblem(
        tuple(sizes), tuple(cons), tuple([tuple(x) for x in var_cons]), tuple(order)
    )


def graph_order(n: int, members: list[tuple[int, ...]], var_cons: list[list[int]]) -> list[int]:
    """A breadth-first order of the groups from a peripheral one (Cuthill-McKee style).

    Keeps each constraint's groups close together in the order, so a chain or a
    ring is walked along its length and the search fails early. ``members``: each
    constraint's groups; ``var_cons``: each group's constraints.
    """
    if n == 0:
        return []
    first = _bfs(n, members, var_cons, 0)
    return _bfs(n, members, var_cons, first[-1])


def _bfs(
    n: int, members: list[tuple[int, ...]], var_cons: list[list[int]], start: int
) -> list[int]:
    """The groups in breadth-first order from ``start`` through shared constraints, then
    any group not reached (in no constraint, or disconnected) in index order. A constraint
    is walked once: after that every one of its groups is seen (the order is the same)."""
    seen = [False] * n
    walked = [False] * len(members)
    seen[start] = True
    out = [start]
    i = 0
    while i < len(out):
        v = out[i]
        i += 1
        for c in var_cons[v]:
            if walked[c]:
                continue
            walked[c] = True
            for w in members[c]:
                if not seen[w]:
                    seen[w] = True
                    out.append(w)
    if len(out) < n:
        for v in range(n):
            if not seen[v]:
                seen[v] = True
                out.append(v)
    return out


class TooHard(Exception):
    """The search used up its node budget (the caller switches to ``devil.solve._cdcl``)."""


class Search:
    """Depth-first search over one ``GroupProblem`` with given domains."""

    def __init__(self, problem: GroupProblem) -> None:
        self.p = problem

    def solve(
        self,
        lo: Sequence[int],
        hi: Sequence[int],
        window: TotalWindow | None = None,
        prefer: Sequence[int] | None = None,
        rng: random.Random | None = None,
        on_solution: Callable[[list[int]], bool] | None = None,
        budget: int | None = None,
    ) -> list[int] | None:
        """A solution with ``lo[v] <= value[v] <= hi[v]``, or None.

        ``prefer[v]`` (or -1) is tried first for group ``v``. With ``on_solution`` the
        search visits every solution, calling it for each; it returns True to stop.
        ``budget``: most values tried before raising ``TooHard``.
        """
        p = self.p
        meter = current()
        n = p.n
        cons = p.cons
        var_cons = p.var_cons
        order = p.order
        m = len(cons)
        val = [-1] * n
        need = [c[1] for c in cons]
        cap = [0] * m
        floor = [0] * m
        free = [0] * m
        for ci, (vs, _) in enumerate(cons):
            cap[ci] = sum(hi[v] for v in vs)
            floor[ci] = sum(lo[v] for v in vs)
            free[ci] = len(vs)
        if window is not None:
            w_lo, w_hi, w_allowed = window
        else:
            w_lo, w_hi, w_allowed = 0, sum(hi), None
        # window state as one-element lists: [assigned sum], cap, floor of the open groups
        w_state = [0, sum(hi), sum(lo)]
        trail: list[int] = []

        # ``x[i] = x[i] - a``, not ``x[i] -= a``: mypyc compiles an augmented assignment to
        # a list item as a generic in-place operation, the plain form as native arithmetic
        def assign(v: int, a: int, queue: list[int]) -> None:
            val[v] = a
            trail.append(v)
            hv = hi[v]
            lv = lo[v]
            for c in var_cons[v]:
                need[c] = need[c] - a
                cap[c] = cap[c] - hv
                floor[c] = floor[c] - lv
                free[c] = free[c] - 1
                queue.append(c)
            w_state[0] = w_state[0] + a
            w_state[1] = w_state[1] - hv
            w_state[2] = w_state[2] - lv

        def undo(mark: int) -> None:
            while len(trail) > mark:
                v = trail.pop()
                a = val[v]
                val[v] = -1
                hv = hi[v]
                lv = lo[v]
                for c in var_cons[v]:
                    need[c] = need[c] + a
                    cap[c] = cap[c] + hv
                    floor[c] = floor[c] + lv
                    free[c] = free[c] + 1
                w_state[0] = w_state[0] - a
                w_state[1] = w_state[1] + hv
                w_state[2] = w_state[2] + lv

        # ``put`` is ``assign`` passed in, not captured: under mypyc a closure that captures
        # another one keeps it in the shared environment, a reference cycle per call
        def propagate(queue: list[int], put: Callable[[int, int, list[int]], None]) -> bool:
            while True:
                while queue:
                    c = queue.pop()
                    r = need[c]
                    if r < floor[c] or r > cap[c]:
                        return False
                    f = free[c]
                    if f == 0:
                        continue
                    if r == cap[c]:
                        for v in cons[c][0]:
                            if val[v] < 0:
                                put(v, hi[v], queue)
                    elif r == floor[c]:
                        for v in cons[c][0]:
                            if val[v] < 0:
                                put(v, lo[v], queue)
                    elif f == 1:
                        for v in cons[c][0]:
                            if val[v] < 0:
                                put(v, r, queue)
                                break
                if window is None:
                    return True
                done, wcap, wfloor = w_state
                r_lo = w_lo - done
                r_hi = w_hi - done
                if r_hi < wfloor or r_lo > wcap:
                    return False
                if wcap == wfloor:
                    return True
                if r_hi == wfloor:
                    for v in range(n):
                        if val[v] < 0:
                            put(v, lo[v], queue)
                elif r_lo == wcap:
                    for v in range(n):
                        if val[v] < 0:
                            put(v, hi[v], queue)
                else:
                    return True

        def values_for(v: int) -> list[int]:
            vals = list(range(lo[v], hi[v] + 1))
            if rng is not None:
                rng.shuffle(vals)
            if prefer is not None:
                pv = prefer[v]
                if pv >= 0 and pv in vals and vals[0] != pv:
                    vals.remove(pv)
                    vals.insert(0, pv)
            return vals

        def leaf_ok() -> bool:
            return w_allowed is None or bool((w_allowed >> w_state[0]) & 1)

        if not propagate(list(range(m)), assign):
            return None
        # frames: [trail mark, order position, group, values, next index]
        stack: list[list[object]] = []
        pos = 0
        while True:
            # descend: find the next open group
            while pos < n and val[order[pos]] >= 0:
                pos += 1
            if pos == n:
                if leaf_ok():
                    if on_solution is None:
                        return list(val)
                    if on_solution(list(val)):
                        return list(val)
                # backtrack into the last frame
            else:
                v = order[pos]
                stack.append([len(trail), pos, v, values_for(v), 0])
            # advance the top frame to its next value that propagates
            while stack:
                frame = stack[-1]
                mark = frame[0]
                assert isinstance(mark, int)
                undo(mark)
                vals = frame[3]
                i = frame[4]
                assert isinstance(vals, list) and isinstance(i, int)
                if i >= len(vals):
                    stack.pop()
                    continue
                frame[4] = i + 1
                if budget is not None:
                    budget -= 1
                    if budget < 0:
                        raise TooHard
                if meter is not None:
                    meter.charge()
                fv = frame[2]
                assert isinstance(fv, int)
                queue: list[int] = []
                assign(fv, vals[i], queue)
                if propagate(queue, assign):
                    fpos = frame[1]
                    assert isinstance(fpos, int)
                    pos = fpos
                    break
            else:
                undo(0)
                return None


@dataclass(slots=True)
class Backbone:
    """Per group: the smallest and largest value seen in some solution, and a solution."""

    low: list[int]
    high: list[int]
    solution: list[int]


def backbone(
    problem: GroupProblem,
    window: TotalWindow | None = None,
    lo: Sequence[int] | None = None,
    hi: Sequence[int] | None = None,
    budget: int | None = None,
) -> Backbone | None:
    """Which groups can hold a mine (``high > 0``) and a safe cell (``low < size``).

    None when the piece has no solution (within ``window``). Raises ``TooHard`` when
    one search tries more than ``budget`` values.
    """
    sizes = problem.sizes
    n = problem.n
    lo_d = list(lo) if lo is not None else [0] * n
    hi_d = list(hi) if hi is not None else list(sizes)
    search = Search(problem)
    first = search.solve(lo_d, hi_d, window, budget=budget)
    if first is None:
        return None
    low = list(first)
    high = list(first)
    prefer = [-1] * n

    def absorb(sol: list[int]) -> None:
        for v in range(n):
            a = sol[v]
            if a < low[v]:
                low[v] = a
            if a > high[v]:
                high[v] = a

    def set_prefer() -> None:
        for v in range(n):
            if high[v] == 0:
                prefer[v] = hi_d[v]
            elif low[v] == sizes[v]:
                prefer[v] = lo_d[v]
            else:
                prefer[v] = -1

    for v in problem.order:
        if high[v] == 0 and hi_d[v] >= 1:
            set_prefer()
            old = lo_d[v]
            lo_d[v] = max(old, 1)
            sol = search.solve(lo_d, hi_d, window, prefer, budget=budget)
            lo_d[v] = old
            if sol is None:
                hi_d[v] = 0
            else:
                absorb(sol)
        size = sizes[v]
        if low[v] == size and lo_d[v] <= size - 1:
            set_prefer()
            old = hi_d[v]
            hi_d[v] = min(old, size - 1)
            sol = search.solve(lo_d, hi_d, window, prefer, budget=budget)
            hi_d[v] = old
            if sol is None:
                lo_d[v] = size
            else:
                absorb(sol)
    return Backbone(low, high, first)
