"""What is known about one piece of the frontier, computed on first use and cached by content.

A piece (``devil.solve._pieces.Piece``) is an independent part of the residual constraints.
``PieceInfo`` holds its facts: the backbone (which groups can hold a mine or a safe cell),
the backbone inside a window on its total (counted rule), its fewest and most mines, its
achievable totals and its layout counts. Each is computed once, by the cheapest engine that
answers exactly: the path-decomposition programme (``devil.solve._dp``, swept along the board
when the piece knows the board's width), then the plain search (``devil.solve._search``), then
clause learning (``devil.solve._cdcl``).

``PieceCache`` keeps them by content (the piece's residual constraints), so a ``Solver``
shared by successive positions only recomputes the pieces a click touched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from devil.board import Cell
from devil.solve import _cut, _dp, bits
from devil.solve._ask import Questions
from devil.solve._backbone import SEARCH_BUDGET, backbone_of, extreme, windowed_backbone
from devil.solve._cdcl import Cdcl
from devil.solve._count import PieceCounts, count_by_search
from devil.solve._pieces import Piece, PieceKey, make_piece
from devil.solve._propagate import Frontier
from devil.solve._search import Backbone, Search, TooHard, TotalWindow
from devil.solve._small import (
    SMALL_LAYOUTS,
    bounds_of,
    layouts_at_most,
    small_counts,
    small_solutions,
)

__all__ = ["SEARCH_BUDGET", "PieceCache", "PieceInfo"]

CACHE_LIMIT = 50_000
"""Pieces a cache holds before it starts again (a bound on memory)."""

DP_LIMIT = 20_000
"""States per layer of the programme for totals and windows, past which the piece goes to
the search (which decides wide pieces faster than the programme can count them)."""

WITNESS_BUDGET = 3_000
"""Values the plain search may try for a witness piece before the programme draws it."""

WIDE_OPEN = _dp.MAX_OPEN
"""Constraints a piece's plan keeps open at once past which it counts as too wide for the
programme (known without running it)."""

ASK_GROUPS = 128
"""Groups from which a piece answers a click's question under a window on its total
group by group (a search or two, the cuts) rather than by the programme's two sweeps
over every group (40 ms on a 16x30 lattice)."""

COUNT_LIMIT = 200_000
"""States per layer for exact counts (the alternative, enumerating, is far slower)."""


class PieceInfo:
    """What is known about one piece; every field is filled on first use.

    ``width``: the board's width, to place each group on the board (row, column) so the
    programme can sweep along the board; 0 when unknown. ``wide``: known already to be too
    wide for the programme.
    """

    __slots__ = (
        "_asked",
        "_backbone",
        "_counts",
        "_first",
        "_group_index",
        "_last_forward",
        "_plan",
        "_range",
        "_small",
        "_totals",
        "_wide",
        "_windowed",
        "piece",
        "width",
    )

    def __init__(self, piece: Piece, width: int = 0, wide: bool = False) -> None:
        self.piece = piece
        self.width = width
        self._backbone: Backbone | None = None
        self._range: tuple[int, int] | None = None
        self._totals: int | None = None
        self._counts: PieceCounts | None = None
        self._windowed: dict[TotalWindow, Backbone | None] = {}
        self._plan: _dp.Plan | None = None
        self._last_forward: (
            tuple[tuple[tuple[int, ...], tuple[int, ...]], list[dict[int, int]]] | None
        ) = None
        self._wide = wide
        """The programme went past ``DP_LIMIT`` once (on this piece, or on one of the pieces
        merged into it): do not try again."""
        self._group_index: dict[Cell, int] | None = None
        self._first: tuple[list[int] | None] | None = None
        """A big piece's first solution (or None), when asked before its backbone."""
        self._asked: Questions | None = None
        """A wide piece's groups, decided one at a time when asked (``devil.solve._ask``)."""
        self._small: list[list[int]] | None = None
        if layouts_at_most(piece.problem.sizes, SMALL_LAYOUTS):
            self._small = small_solutions(piece.problem)
        """Every solution of a piece with at most ``SMALL_LAYOUTS`` group assignments (its
        facts then come from them: cheaper than setting up a search or a programme)."""

    def group_index(self) -> dict[Cell, int]:
        """The group of every cell of the piece (do not change it: it is shared)."""
        if self._group_index is None:
            self._group_index = {c: g for g, cells in enumerate(self.piece.groups) for c in cells}
        return self._group_index

    def plan(self) -> _dp.Plan:
        if self._plan is None:
            width = self.width
            where = None
            if width > 0:
                where = [divmod(cells[0], width) for cells in self.piece.groups]
            self._plan = _dp.plan(self.piece.problem, where)
        return self._plan

    def wide(self) -> bool:
        """Whether the piece is too wide for the programme (known without running it when
        its plan keeps too many constraints open)."""
        if (
            not self._wide
            and len(self.piece.problem.cons) > WIDE_OPEN  # else it cannot keep more open
            and self.plan().open_max > WIDE_OPEN
        ):
            self._wide = True
        return self._wide

    def dp_totals(self) -> int | None:
        """The achievable totals by the programme; None when it is too wide."""
        if self._totals is None and self._small is not None:
            mask = 0
            for sol in self._small:
                mask |= 1 << sum(sol)
            self._totals = mask
        if self._totals is None and not self._wide:
            try:
                self._totals = _dp.totals(self.plan(), DP_LIMIT)
            except _dp.TooWide:
                self._wide = True
        return self._totals

    def backbone(self) -> Backbone | None:
        if self._backbone is None:
            if self._small is not None:
                self._backbone = bounds_of(self._small, None)
            elif self._asked is not None:  # finish what the questions began
                got = self._asked.backbone.finish()
                self._backbone = None if got is None else Backbone(*got)
            else:
                self._backbone = backbone_of(self.piece.problem, None)
        return self._backbone

    # -- one group at a time (a click asks one cell) -------------------------------------

    def _questions(self, windowed: bool = False) -> Questions | None:
        """The piece's questions answered group by group (``devil.solve._ask``), or None: a wide
        piece whose backbone is not known yet; with ``windowed`` (a window on the total),
        also a piece of ``ASK_GROUPS`` groups or more whose totals the programme found,
        which would decide all its groups at once in two more sweeps. (Only a piece the
        programme is known to sweep: one that it cannot is found wide on the way, and
        its witnesses take the cuts, as stored games replay them.)"""
        if self._asked is None:
            if self._small is not None:
                return None
            big = windowed and self.piece.problem.n >= ASK_GROUPS and self._totals is not None
            if not big and (self._backbone is not None or not self.wide()):
                return None
            self._asked = Questions(self.piece, self.width)
        return self._asked

    def answers_alone(self, window: TotalWindow | None) -> bool:
        """Whether ``can_hold`` answers one group's question without deciding them all."""
        return self._questions(window is not None) is not None

    def solution(self) -> list[int] | None:
        """A solution of the piece (None: it has none); a wide piece needs one search for
        it, not its backbone."""
        asked = self._questions()
        if asked is not None and self._backbone is None:
            return asked.first
        if self._backbone is None and self._small is None and self.piece.problem.n >= ASK_GROUPS:
            if self._first is None:  # a big piece: under a window it may never need its backbone
                problem = self.piece.problem
                sizes = problem.sizes
                try:
                    got = Search(problem).solve([0] * problem.n, sizes, budget=SEARCH_BUDGET)
                except TooHard:
                    got = Cdcl(problem).solve()
                self._first = (got,)
            return self._first[0]
        base = self.backbone()
        return None if base is None else base.solution

    def can_hold(self, g: int, mine: bool, window: TotalWindow | None = None) -> bool:
        """Whether some solution (with a total in ``window``) has a mine (``mine``) or a
        safe cell in group ``g``. A wide piece answers it alone (``devil.solve._ask``) unless
        the facts of every group are known already; only what the questions leave open
        decides every group."""
        size = self.piece.problem.sizes[g]
        asked = self._questions(window is not None)
        if asked is not None:
            if window is None and self._backbone is None:
                return asked.can_hold(g, mine)
            if window is not None and window not in self._windowed:
                got = asked.window_can_hold(window.mask(), g, mine, self._seed_within)
                if got is not None:
                    return got
        bb = self.backbone() if window is None else self.windowed(window)
        if bb is None:
            return False
        return bb.high[g] >= 1 if mine else bb.low[g] <= size - 1

    def has_window_solution(self, window: TotalWindow) -> bool:
        """Whether some solution has a total in ``window`` (a piece answering alone: the
        cuts first)."""
        asked = self._questions(windowed=True)
        if (
            asked is not None
            and window not in self._windowed
            and asked.window_seen(window.mask()) is not None
        ):
            return True
        return self.windowed(window) is not None

    def windowed(self, window: TotalWindow) -> Backbone | None:
        """The backbone among solutions whose total lies in the window."""
        if window not in self._windowed:
            allowed = window.mask()
            got: tuple[list[int], list[int]] | None = None
            if self._small is not None:
                self._windowed[window] = bounds_of(self._small, allowed)
                return self._windowed[window]
            if not self._wide:
                try:
                    got = _dp.window_bounds(self.plan(), allowed, DP_LIMIT)
                except _dp.TooWide:
                    self._wide = True
            if got is None and self._wide:  # conditioning on cuts (devil.solve._cut), else below
                base = self.backbone()
                if base is not None:
                    got = _cut.window_bounds(
                        self.piece, self.width, allowed, base, self._seed_within
                    )
            if got is not None:
                low, high = got
                ok = all(h >= 0 for h in high)
                self._windowed[window] = Backbone(low, high, []) if ok else None
            else:
                self._windowed[window] = windowed_backbone(
                    self.piece.problem, allowed, self.backbone()
                )
        return self._windowed[window]

    def mine_range(self) -> tuple[int, int]:
        """The fewest and most mines a solution of the piece can have."""
        if self._range is None:
            problem = self.piece.problem
            mask = self.dp_totals()
            if mask is not None:
                self._range = (bits.lowest(mask), mask.bit_length() - 1)
            else:
                self._range = (extreme(problem, lowest=True), extreme(problem, lowest=False))
        return self._range

    def has_total(self, low: int, high: int) -> bool:
        """Whether some solution of the piece has between ``low`` and ``high`` mines."""
        if high < low:
            return False
        mask = self.dp_totals()
        if mask is not None:
            return bool(mask & bits.interval(low, high))
        first = self.solution()
        if first is not None:  # a solution found by conditioning on cuts settles it (_cut)
            sizes = self.piece.problem.sizes
            seen = _cut.solve(
                self.piece, self.width, ([0] * len(sizes), list(sizes)),
                bits.interval(low, high), first,
            )  # fmt: skip
            if seen is not None:
                return True
        return Cdcl(self.piece.problem, TotalWindow(low, high)).solve() is not None

    def totals(self) -> int:
        """Bitmask of the achievable mine totals of the piece."""
        got = self.dp_totals()
        if got is None:
            low, high = self.mine_range()
            problem = self.piece.problem
            mask = 0
            for k in range(low, high + 1):
                if Cdcl(problem, TotalWindow(k, k)).solve() is not None:
                    mask |= 1 << k
            self._totals = got = mask
        return got

    def totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        """Bitmask of the totals of the solutions with ``lo[g] <= value[g] <= hi[g]``
        (witnesses: the clicked cell's group pinned)."""
        sizes = self.piece.problem.sizes
        if not any(lo) and list(hi) == list(sizes):
            return self.totals()  # no group pinned: the piece's own totals, cached
        if self._small is not None:
            mask = 0
            for sol in self._small:
                if all(lo[g] <= a <= hi[g] for g, a in enumerate(sol)):
                    mask |= 1 << sum(sol)
            return mask
        if not self._wide:
            plan = self.plan()
            if not plan.steps:
                return 1
            try:
                return self._forward(lo, hi)[-1].get(0, 0)
            except _dp.TooWide:
                self._wide = True
        search = Search(self.piece.problem)
        mask = 0
        for k in range(sum(lo), sum(hi) + 1):
            if search.solve(lo, hi, TotalWindow(k, k)) is not None:
                mask |= 1 << k
        return mask

    def solve_within(
        self, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
    ) -> list[int] | None:
        """A solution within the domains (witnesses: at most one group pinned to "a mine"
        or "a safe cell"), or None. Ordinary pieces: the plain search, as games replay it;
        a piece too wide for the programme: the search within ``WITNESS_BUDGET``, then
        clause learning (which does not thrash on 2-D lattices)."""
        problem = self.piece.problem
        if problem.n == 1:  # what the search finds without branching (no random choice)
            need = problem.cons[0][1]
            if lo[0] <= need <= hi[0] and all(c[1] == need for c in problem.cons):
                return [need]
            return None
        search = Search(problem)
        if not self.wide():
            return search.solve(lo, hi, None, None, rng)
        try:
            return search.solve(lo, hi, None, None, rng, budget=WITNESS_BUDGET)
        except TooHard:
            pass
        solver = Cdcl(problem)
        assumptions = []
        for g, size in enumerate(problem.sizes):
            if lo[g] >= 1:
                assumptions.append(solver.group_literal(g, True))
            if hi[g] <= size - 1:
                assumptions.append(solver.group_literal(g, False))
        return solver.solve(assumptions)

    def _seed_within(self, lo: list[int], hi: list[int]) -> list[int] | None:
        """A solution with a mine in each group with ``lo >= 1`` and a safe cell in each with
        ``hi < size`` (``devil.solve._cut``'s seeds pin one group so), by clause learning: the
        plain search thrashes on wide pieces."""
        solver = Cdcl(self.piece.problem)
        assumptions = []
        for g, size in enumerate(self.piece.problem.sizes):
            if lo[g] >= 1:
                assumptions.append(solver.group_literal(g, True))
            if hi[g] <= size - 1:
                assumptions.append(solver.group_literal(g, False))
        return solver.solve(assumptions)

    def solve_total(
        self, lo: Sequence[int], hi: Sequence[int], total: int, rng: random.Random | None
    ) -> list[int] | None:
        """A solution within the domains with exactly ``total`` mines, or None.

        The plain search first (its choices for a given ``rng`` are what stored games
        replay); the programme's draw only where the search thrashes (wide pieces, which
        ordinary games never have)."""
        search = Search(self.piece.problem)
        window = TotalWindow(total, total)
        try:
            return search.solve(lo, hi, window, None, rng, budget=WITNESS_BUDGET)
        except TooHard:
            pass
        if not self._wide:
            try:
                forward = self._forward(lo, hi)
                return _dp.sample(self.plan(), 1 << total, (lo, hi), rng, DP_LIMIT, forward)
            except _dp.TooWide:
                self._wide = True
        return search.solve(lo, hi, window, None, rng)

    def _forward(self, lo: Sequence[int], hi: Sequence[int]) -> list[dict[int, int]]:
        """The programme's forward layers within the domains (the last ones are kept: a
        witness asks for the totals, then for a solution, within the same domains)."""
        key = (tuple(lo), tuple(hi))
        if self._last_forward is None or self._last_forward[0] != key:
            layers = _dp.forward_masks(self.plan(), (lo, hi), DP_LIMIT)
            self._last_forward = (key, layers)
        return self._last_forward[1]

    def counts(self) -> PieceCounts:
        if self._counts is None and self._small is not None:
            self._counts = small_counts(self.piece.problem, self._small)
        if self._counts is None:
            try:
                got = _dp.counts(self.plan(), COUNT_LIMIT)
                self._counts = PieceCounts(got.total, got.mined)
            except _dp.TooWide:
                self._counts = count_by_search(self.piece.problem)
        return self._counts


class PieceCache:
    """Piece facts by content, shared by every position a ``Solver`` sees."""

    def __init__(self) -> None:
        self.pieces: dict[PieceKey, PieceInfo] = {}

    def info(self, sources: list[Cell], frontier: Frontier) -> PieceInfo:
        cons = frontier.cons
        key = frozenset([cons[s] for s in sources])
        got = self.pieces.get(key)
        if got is None:
            if len(self.pieces) > CACHE_LIMIT:
                self.pieces.clear()
            width = frontier.position.board.width
            got = self.pieces[key] = PieceInfo(make_piece(sources, cons), width)
        return got
