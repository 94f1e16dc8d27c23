"""The interface every piece engine answers (``Engine``) and what the engines share.

A piece's engine is chosen once, when the piece is built (``devil.solve.piece_facts``):
``devil.solve._small.SmallEngine`` (its solution list), ``devil.solve._wide.SweptEngine``
(the programme swept along the board) or ``devil.solve._wide.WideEngine`` (searches,
clause learning, cuts). Each answers every question below exactly; they differ only in
the work. Witnesses replay: a solution within domains is drawn by the plain search with
the caller's ``random.Random`` on every engine (the wide one gives it a budget, then
clause learning), so stored games redraw the same layouts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from devil.solve import _dp
from devil.solve._cdcl import Cdcl
from devil.solve._count import PieceCounts, count_by_search
from devil.solve._pieces import Piece
from devil.solve._search import Backbone, GroupProblem, Search, TooHard, TotalWindow
from devil.solve.count_order import counting_order

__all__ = [
    "COUNT_LIMIT",
    "WIDE_OPEN",
    "WITNESS_BUDGET",
    "Engine",
    "learnt_within",
    "lone_solution",
    "make_plan",
    "plain_within",
    "plan_open",
    "unpinned",
    "wide_within",
]

WIDE_OPEN = _dp.MAX_OPEN
"""Constraints a piece's plan keeps open at once past which it is too wide for the
programme (known without running it)."""

COUNT_LIMIT = 200_000
"""States per layer for exact counts (the alternative, enumerating, is far slower)."""

WITNESS_BUDGET = 3_000
"""Values the plain search may try for a wide piece's witness before clause learning."""


def _where(piece: Piece, width: int) -> list[tuple[int, int]] | None:
    """Each group's place on the board (row, column of a cell), None when ``width`` is 0."""
    if width > 0:
        out: list[tuple[int, int]] = []
        for cells in piece.groups:  # a loop, not divmod (a generic call, compiled)
            c = cells[0]
            out.append((c // width, c % width))
        return out
    return None


def make_plan(piece: Piece, width: int) -> _dp.Plan:
    """The programme's plan for the piece, swept along the board when ``width`` is known."""
    return _dp.plan(piece.problem, _where(piece, width))


def plan_open(piece: Piece, width: int) -> int:
    """``make_plan(piece, width).open_max`` without building the plan."""
    return _dp.fewest_open(piece.problem, _where(piece, width))


def lone_solution(problem: GroupProblem, lo: Sequence[int], hi: Sequence[int]) -> list[int] | None:
    """The solution of a one-group piece within the domains (what the search finds without
    branching, so without a random choice), or None."""
    need = problem.cons[0][1]
    if lo[0] <= need <= hi[0] and all(c[1] == need for c in problem.cons):
        return [need]
    return None


def learnt_within(problem: GroupProblem, lo: Sequence[int], hi: Sequence[int]) -> list[int] | None:
    """A solution with a mine in each group with ``lo >= 1`` and a safe cell in each with
    ``hi < size`` (the domains witnesses and the cuts' seeds pin), by clause learning."""
    solver = Cdcl(problem)
    assumptions = []
    for g, size in enumerate(problem.sizes):
        if lo[g] >= 1:
            assumptions.append(solver.group_literal(g, True))
        if hi[g] <= size - 1:
            assumptions.append(solver.group_literal(g, False))
    return solver.solve(assumptions)


def unpinned(sizes: Sequence[int], lo: Sequence[int], hi: Sequence[int]) -> bool:
    return not any(lo) and list(hi) == list(sizes)


def plain_within(
    problem: GroupProblem, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
) -> list[int] | None:
    """A solution within the domains by the plain search (its choices for a given ``rng``
    are what stored games replay), or None."""
    if problem.n == 1:
        return lone_solution(problem, lo, hi)
    return Search(problem).solve(lo, hi, None, None, rng)


def wide_within(
    problem: GroupProblem, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
) -> list[int] | None:
    """A wide piece's witness: the plain search within ``WITNESS_BUDGET``, then clause
    learning (which does not thrash on 2-D lattices)."""
    if problem.n == 1:
        return lone_solution(problem, lo, hi)
    try:
        return Search(problem).solve(lo, hi, None, None, rng, budget=WITNESS_BUDGET)
    except TooHard:
        pass
    return learnt_within(problem, lo, hi)


class Engine:
    """The questions every engine answers about its piece (each answer exact); facts are
    computed on first use and kept."""

    def __init__(self, piece: Piece, width: int, plan: _dp.Plan | None = None) -> None:
        self.piece = piece
        self.width = width
        """The board's width, to place each group on the board (0: unknown)."""
        self._plan = plan
        self._backbone: Backbone | None = None
        self._windowed: dict[TotalWindow, Backbone | None] = {}
        self._range: tuple[int, int] | None = None
        self._totals: int | None = None
        self._counts: PieceCounts | None = None
        self.handed_to: Engine | None = None
        """The engine this one handed the piece over to (``devil.solve._wide.SweptEngine``
        does when the programme finds the piece too wide); the piece keeps that one. A
        value the piece reads, not a call back into it: an engine holding its piece would
        make a reference cycle per piece, left for the garbage collector."""

    def plan(self) -> _dp.Plan:
        if self._plan is None:
            self._plan = make_plan(self.piece, self.width)
        return self._plan

    def open_max(self) -> int:
        """``plan().open_max``, without building the plan when it is not built yet."""
        if self._plan is not None:
            return self._plan.open_max
        return plan_open(self.piece, self.width)

    def counting_plan(self) -> _dp.Plan:
        """The plan of the counting programme: the shared plan's order or, when it
        estimates fewer states, another (``devil.solve.count_order``; counts do not depend
        on the order, witnesses do, so only counting uses it)."""
        shared = self.plan()
        order = counting_order(self.piece.problem, shared.order)
        return shared if order is shared.order else _dp.Plan(self.piece.problem, order)

    def known_backbone(self) -> Backbone | None:
        """The backbone when it was computed already, else None (costs nothing)."""
        return self._backbone

    def wide(self) -> bool:
        """Whether the piece is too wide for the programme."""
        raise NotImplementedError

    def backbone(self) -> Backbone | None:
        """Per group the lowest and highest value of a solution; None: there is none."""
        raise NotImplementedError

    def windowed(self, window: TotalWindow) -> Backbone | None:
        """The backbone among solutions whose total lies in the window."""
        raise NotImplementedError

    def has_window_solution(self, window: TotalWindow) -> bool:
        """Whether some solution has a total in ``window``."""
        return self.windowed(window) is not None

    def answers_alone(self, window: TotalWindow | None) -> bool:
        """Whether ``can_hold`` answers one group's question without deciding them all."""
        return False

    def can_hold(self, g: int, mine: bool, window: TotalWindow | None = None) -> bool:
        """Whether some solution (with a total in ``window``) has a mine (``mine``) or a
        safe cell in group ``g``."""
        bb = self.backbone() if window is None else self.windowed(window)
        if bb is None:
            return False
        return bb.high[g] >= 1 if mine else bb.low[g] <= self.piece.problem.sizes[g] - 1

    def solution(self) -> list[int] | None:
        """A solution of the piece (None: it has none)."""
        base = self.backbone()
        return None if base is None else base.solution

    def cheap_totals(self) -> int | None:
        """The achievable totals when known without a search per total, else None."""
        return self._totals

    def totals(self) -> int:
        """Bitmask of the achievable mine totals."""
        raise NotImplementedError

    def cheap_totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int | None:
        """``totals_within`` when known without a search per total (a solution list, the
        programme), else None; a swept engine that finds the piece too wide hands it over."""
        return self.cheap_totals() if unpinned(self.piece.problem.sizes, lo, hi) else None

    def mine_range(self) -> tuple[int, int]:
        """The fewest and most mines a solution can have."""
        raise NotImplementedError

    def has_total(self, low: int, high: int) -> bool:
        """Whether some solution has between ``low`` and ``high`` mines."""
        raise NotImplementedError

    def totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        """Bitmask of the totals of the solutions with ``lo[g] <= value[g] <= hi[g]``."""
        raise NotImplementedError

    def solve_within(
        self, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
    ) -> list[int] | None:
        """A solution within the domains (witnesses pin at most one group), or None; the
        plain search's choices for a given ``rng`` are what stored games replay."""
        return plain_within(self.piece.problem, lo, hi, rng)

    def solve_total(
        self, lo: Sequence[int], hi: Sequence[int], total: int, rng: random.Random | None
    ) -> list[int] | None:
        """A solution within the domains with exactly ``total`` mines, or None (the plain
        search first: its choices for a given ``rng`` are what stored games replay)."""
        search = Search(self.piece.problem)
        window = TotalWindow(total, total)
        try:
            return search.solve(lo, hi, window, None, rng, budget=WITNESS_BUDGET)
        except TooHard:
            pass
        return search.solve(lo, hi, window, None, rng)

    def counts(self) -> PieceCounts:
        """Cell layouts per mine total and, per group, the mines it holds summed over them:
        by the programme (with a larger limit than its other questions), else by visiting
        every solution."""
        if self._counts is None:
            try:
                got = _dp.counts(self.counting_plan(), COUNT_LIMIT)
                self._counts = PieceCounts(got.total, got.mined)
            except _dp.TooWide:
                self._counts = count_by_search(self.piece.problem)
        return self._counts
