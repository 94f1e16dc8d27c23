"""One group's verdict in a piece too wide for the programme, decided when it is asked.

A click needs the verdict of one cell. On a piece the programme cannot sweep (a 2-D
lattice) the whole backbone costs a search per group (some 700 on a 40x40 lattice, about
150 ms), and under a window on the piece's total (counted rule) certifying every group by
conditioning on cuts costs as much again. ``Questions`` answers one group at a time:

- without a window: by one clause-learning solver kept for the piece
  (``CdclBackbone``, below): at most one search per answer, and what it learns
  serves the later questions;
- inside a window (a set of allowed totals): "no" when no solution of the piece at all
  has it (a window only removes solutions); "yes" when a solution seen with an allowed
  total shows it, or when conditioning on cuts around the group (``devil.solve._cut``) finds
  one. Anything else is left to the caller's exact path: cuts that find nothing prove
  nothing.

Every "yes" is a certificate (a real solution), every "no" a search that found none, so
the answers are exact; only the work differs from deciding every group at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from devil.solve import _cut
from devil.solve._cdcl import Cdcl
from devil.solve._pieces import Piece
from devil.solve._search import GroupProblem, TooHard, TotalWindow

__all__ = ["GUIDED_CONFLICTS", "CdclBackbone", "Questions", "cdcl_backbone"]

GUIDED_CONFLICTS: Final = 100
"""Conflicts a guided question may have before its instance stops guiding (the geodesic
bench's guided questions have at most about 30)."""

SeedFor = Callable[[list[int], list[int]], "list[int] | None"]
"""A solution within domains ``(lo, hi)``, ignoring any window (None: there is none)."""


class Seen:
    """Per group, the lowest and highest value seen in a solution with an allowed total,
    and one such solution (the seed the cuts walk from)."""

    __slots__ = ("high", "low", "seed")

    def __init__(self, seed: list[int]) -> None:
        self.seed = seed
        self.low = list(seed)
        self.high = list(seed)

    def absorb(self, solution: list[int]) -> None:
        low, high = self.low, self.high
        for g, a in enumerate(solution):
            if a < low[g]:
                low[g] = a
            if a > high[g]:
                high[g] = a

    def absorb_groups(self, solution: list[int], groups: list[int]) -> None:
        """``absorb`` when only ``groups`` can hold values not seen yet (a guided solution:
        the others keep the guide's values, a solution absorbed already)."""
        low, high = self.low, self.high
        for g in groups:
            a = solution[g]
            if a < low[g]:
                low[g] = a
            if a > high[g]:
                high[g] = a


class Questions:
    """Mine and safe questions about single groups of one wide piece (see the module
    docstring). ``width``: the board's width (the cuts need it; 0: no cuts)."""

    __slots__ = ("backbone", "piece", "seen", "width")

    def __init__(self, piece: Piece, width: int) -> None:
        self.piece = piece
        self.width = width
        self.backbone = CdclBackbone(piece.problem)
        self.seen: dict[int, Seen | None] = {}
        """Per allowed set of totals: what solutions with such a total showed (None: the
        cuts found none)."""

    @property
    def first(self) -> list[int] | None:
        """A solution of the piece; None when it has none."""
        return self.backbone.first

    def can_hold(self, g: int, mine: bool) -> bool:
        """Whether some solution has a mine (``mine``) or a safe cell in group ``g``."""
        return self.backbone.can_mine(g) if mine else self.backbone.can_be_safe(g)

    def window_seen(self, allowed: int) -> Seen | None:
        """What is known of the solutions whose total is in ``allowed``: None when the
        cuts find none (which proves nothing: ask the exact path)."""
        if allowed not in self.seen:
            first = self.first
            got = None
            if first is not None and self.width > 0:
                n = self.piece.problem.n
                full = ([0] * n, list(self.piece.problem.sizes))
                got = _cut.solve(self.piece, self.width, full, allowed, first)
            self.seen[allowed] = None if got is None else Seen(got)
        return self.seen[allowed]

    def window_can_hold(
        self, allowed: int, g: int, mine: bool, seed_for: SeedFor | None = None
    ) -> bool | None:
        """Whether some solution with a total in ``allowed`` has a mine (``mine``) or a
        safe cell in group ``g``; None when neither a search nor the cuts settle it."""
        size = self.piece.problem.sizes[g]
        if not self.can_hold(g, mine):
            return False
        seen = self.window_seen(allowed)
        if seen is None:
            return None
        if (seen.high[g] >= 1) if mine else (seen.low[g] <= size - 1):
            return True
        every = _cut.cuts(self.piece, self.width)
        if every is None:
            return None
        n = self.piece.problem.n
        lo, hi = [0] * n, list(self.piece.problem.sizes)
        if mine:
            lo[g] = 1
        else:
            hi[g] = size - 1
        own = _cut.solve(
            self.piece, self.width, (lo, hi), allowed, seen.seed, None, every.around(g)
        )
        if own is None and seed_for is not None:
            start = seed_for(lo, hi)
            if start is not None:
                own = _cut.solve(self.piece, self.width, (lo, hi), allowed, start)
        if own is None:
            return None
        seen.absorb(own)
        return True


class CdclBackbone:
    """The backbone of a piece by one CDCL solver, asked one group at a time.

    ``seen``: per group the lowest and highest value seen in a solution so far (a value
    seen answers a question without a search); ``first``: the first solution, None
    when the piece has none (within ``window``). Each question a search answers "no" is
    fixed in the solver for good, and its learned clauses serve every later question, so
    asking every group (``finish``) costs what one backbone run does, and a click that
    asks one group pays for at most two searches. Each search after the first is guided by
    the last solution found (``Cdcl.set_guide``), so ``seen`` may differ from an
    unguided run's, but only their ends (0 and the group's size) mean anything. A guided
    question past ``guided_conflicts`` conflicts is asked again unguided, and so is every
    later one (``guiding``).

    ``lo``/``hi``: group values already proven impossible outside these bounds (only the
    all-safe ``hi == 0`` and all-mine ``lo == size`` cases are used). Raises ``TooHard``
    after ``max_conflicts`` conflicts in one search. ``first``: a solution found already
    (within ``window`` and the bounds), taken as the first instead of a search.
    """

    __slots__ = (
        "first",
        "guided_conflicts",
        "guiding",
        "max_conflicts",
        "problem",
        "seen",
        "solver",
    )

    def __init__(
        self,
        problem: GroupProblem,
        window: TotalWindow | None = None,
        lo: Sequence[int] | None = None,
        hi: Sequence[int] | None = None,
        max_conflicts: int | None = None,
        guided_conflicts: int = GUIDED_CONFLICTS,
        first: list[int] | None = None,
    ) -> None:
        self.problem = problem
        self.max_conflicts = max_conflicts
        self.guided_conflicts = guided_conflicts
        solver = self.solver = Cdcl(problem, window)
        for g, size in enumerate(problem.sizes):
            base = solver.first[g]
            if hi is not None and hi[g] == 0:
                for i in range(size):
                    solver.fix(2 * (base + i) + 1)
            if lo is not None and lo[g] == size:
                for i in range(size):
                    solver.fix(2 * (base + i))
        self.first = solver.solve((), max_conflicts) if first is None else first
        self.seen = Seen(self.first if self.first is not None else [0] * problem.n)
        self.guiding = True

    def can_mine(self, g: int) -> bool:
        """Whether some solution has a mine in group ``g``."""
        if self.first is None:
            return False
        if self.seen.high[g] >= 1:
            return True
        return self._ask(self.solver.group_literal(g, True))

    def can_be_safe(self, g: int) -> bool:
        """Whether some solution has a safe cell in group ``g``."""
        if self.first is None:
            return False
        if self.seen.low[g] <= self.problem.sizes[g] - 1:
            return True
        return self._ask(self.solver.group_literal(g, False))

    def finish(self) -> tuple[list[int], list[int], list[int]] | None:
        """Every group asked: (low, high, first solution), as ``cdcl_backbone``."""
        if self.first is None:
            return None
        for g in self.problem.order:
            self.can_mine(g)
            self.can_be_safe(g)
        return self.seen.low, self.seen.high, self.first

    def _ask(self, lit: int) -> bool:
        """Whether some solution makes ``lit`` true: a search from the last solution found,
        repaired around ``lit`` (``Cdcl.set_guide``), within ``guided_conflicts``; past
        them (and from then on) a search in the graph order."""
        solver = self.solver
        sol: list[int] | None = None
        if self.guiding:
            if not solver.guided and self.first is not None:
                solver.set_guide(self.first)
                self._mark_unseen(range(self.problem.n))
            cap = self.guided_conflicts
            if self.max_conflicts is not None and self.max_conflicts < cap:
                cap = self.max_conflicts
            try:
                sol = solver.solve([lit], cap)
            except TooHard:
                self.guiding = False
                solver.unguide()
        if not self.guiding:
            self._steer()
            sol = solver.solve([lit], self.max_conflicts)
        if sol is None:
            solver.fix(lit ^ 1)
            return False
        if self.guiding:  # the guide was the last solution, absorbed already
            self.seen.absorb_groups(sol, solver.moved)
            self._mark_unseen(solver.moved)
        else:
            self.seen.absorb(sol)
        return True

    def _mark_unseen(self, groups: Iterable[int]) -> None:
        """Tell the solver which of ``groups`` show a value no solution seen so far has
        (``Cdcl.unseen_mine``/``unseen_safe``: guided repairs prefer to show them)."""
        sizes = self.problem.sizes
        low, high = self.seen.low, self.seen.high
        mine, safe = self.solver.unseen_mine, self.solver.unseen_safe
        for g in groups:
            mine[g] = 1 if high[g] == 0 else 0
            safe[g] = 1 if low[g] == sizes[g] else 0

    def _steer(self) -> None:
        """Unguided: try the values not seen yet first, so each solution shows many new ones."""
        solver = self.solver
        low, high = self.seen.low, self.seen.high
        for g, size in enumerate(self.problem.sizes):
            base = solver.first[g]
            if high[g] == 0:
                for i in range(size):
                    solver.set_phase(base + i, 0)
            elif low[g] == size:
                for i in range(size):
                    solver.set_phase(base + i, 1)


def cdcl_backbone(
    problem: GroupProblem,
    window: TotalWindow | None = None,
    lo: Sequence[int] | None = None,
    hi: Sequence[int] | None = None,
    max_conflicts: int | None = None,
) -> tuple[list[int], list[int], list[int]] | None:
    """Like ``devil.solve._search.backbone``: per group lowest and highest value, and a solution
    (``CdclBackbone`` with every group asked)."""
    return CdclBackbone(problem, window, lo, hi, max_conflicts).finish()
