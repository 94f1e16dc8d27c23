"""The engines of pieces that are not small: ``SweptEngine`` when the programme fits, else
``WideEngine``.

- ``SweptEngine``: a narrow piece's totals, windows and witnesses' totals by the
  path-decomposition programme (``devil.solve._dp``) swept along the board. How many
  states it needs is only found out by running it: past ``DP_LIMIT`` states per layer
  the engine hands the piece over, once, to a ``WideEngine`` that keeps what was learnt
  (the piece keeps the wide engine from then on).
- ``WideEngine``: a piece too wide for the programme (a 2-D lattice) answers by the plain
  search (``devil.solve._search``), clause learning when it thrashes
  (``devil.solve._cdcl``), conditioning on cuts (``devil.solve._cut``) and, when a click
  asks one cell, one group at a time (``devil.solve._ask``).

Both decide the backbone by the searches (the programme is no faster at it): the plain search
(on a piece of ``MIXED_GROUPS`` or more, its first solution only, the later questions by
clause learning: ``_mixed``), clause learning when it thrashes, or clause learning at once on
a dense big piece (``learns``).
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Sequence

from devil.solve import _cut, _dp, bits
from devil.solve._ask import CdclBackbone, Questions, cdcl_backbone
from devil.solve._cdcl import Cdcl
from devil.solve._engine import (
    WITNESS_BUDGET,
    Engine,
    learnt_within,
    plain_within,
    unpinned,
    wide_within,
)
from devil.solve._pieces import Piece
from devil.solve._search import Backbone, GroupProblem, Search, TooHard, TotalWindow
from devil.solve._search import backbone as search_backbone

__all__ = ["DP_LIMIT", "SweptEngine", "WideEngine"]

DP_LIMIT = 20_000
"""States per layer of the programme for totals and windows, past which the piece goes to
the wide engine (whose searches decide wide pieces faster than the programme counts them)."""

SEARCH_BUDGET = 3_000
"""Values the plain search may try per query before a piece goes to clause learning."""

LEARN_GROUPS = 96
"""Groups from which a dense piece (``learns``) decides its backbone by clause learning at
once rather than after the plain search's budget runs out."""

MIXED_GROUPS = 32
"""Groups from which a piece the plain search decides asks its backbone questions after the
first solution by clause learning (``_mixed``): a search per question from scratch grows with
the piece, a guided repair of the last solution does not (a 160-group rhombille piece: 4.7 ->
1.6 ms). The first solution stays the plain search's."""

LEARN_CELLS = 6.0
"""Covered cells per number (on average over the piece) from which a piece is dense."""

ASK_GROUPS = 128
"""Groups from which a piece answers a click's question under a window on its total
group by group (a search or two, the cuts) rather than by the programme's two sweeps
over every group (40 ms on a 16x30 lattice)."""


def cpsat_installed() -> bool:
    """Whether OR-Tools can be imported (looked up, not imported: only ``devil.cpsat`` does)."""
    return importlib.util.find_spec("ortools") is not None


WINDOW_CONFLICTS: int | None = 1_000 if cpsat_installed() else None
"""A window on a piece's total (counted rule, no room in the deep cells) is one
cardinality over every cell, which clause learning handles badly: past this many
conflicts the position goes to ``devil.cpsat`` when it is installed. Without it the
pure-Python search carries on to the exact answer, however long it takes."""


def learns(problem: GroupProblem) -> bool:
    """Whether the plain search would thrash on the piece, so clause learning decides its
    backbone and answers a click's question: a big piece whose numbers each see many
    cells (a geodesic sphere's 12-neighbour triangles wrap the frontier round the sphere;
    the plain search spent 20-70 ms there before clause learning took over, which then
    decides the piece in 3-20 ms). On squares and other sparse lattices the plain search
    is as fast and stays."""
    if problem.n < LEARN_GROUPS:
        return False
    sizes = problem.sizes
    cells = sum(sum(sizes[g] for g in groups) for groups, _ in problem.cons)
    return cells >= LEARN_CELLS * len(problem.cons)


def _mixed(problem: GroupProblem) -> Backbone | None:
    """The backbone with the plain search's first solution (``devil.solve._search.backbone``
    finds the same one first), every later question by clause learning guided by the last
    solution (``CdclBackbone``). Raises ``TooHard`` when the first search thrashes."""
    sizes = problem.sizes
    first = Search(problem).solve([0] * problem.n, sizes, budget=SEARCH_BUDGET)
    if first is None:
        return None
    got = CdclBackbone(problem, first=first).finish()
    assert got is not None
    return Backbone(*got)


class WideEngine(Engine):
    """A piece too wide for the programme: searches, clause learning, cuts, and one group
    at a time when a click asks one cell (``devil.solve._ask``)."""

    def __init__(self, piece: Piece, width: int, plan: _dp.Plan | None = None) -> None:
        super().__init__(piece, width, plan)
        self._asked: Questions | None = None
        """The piece's groups, decided one at a time when asked."""
        self._first: tuple[list[int] | None] | None = None
        """A big piece's first solution (or None), when asked before its backbone."""
        self._learns = learns(piece.problem)
        """Whether clause learning decides the backbone at once (``learns``)."""

    def adopt(self, other: WideEngine) -> None:
        """Keep what ``other`` (the engine handing the piece over) learnt."""
        self._plan = other._plan
        self._backbone = other._backbone
        self._windowed = other._windowed
        self._range = other._range
        self._totals = other._totals
        self._counts = other._counts
        self._asked = other._asked
        self._first = other._first
        self._learns = other._learns

    def wide(self) -> bool:
        return True

    # -- one group at a time (a click asks one cell) -------------------------------------

    def _questions(self, windowed: bool = False) -> Questions | None:
        """The piece's questions answered group by group (``devil.solve._ask``), or None: a
        wide piece whose backbone is not known yet; with ``windowed`` (a window on the
        total), also a piece of ``ASK_GROUPS`` groups or more whose totals the programme
        found, which would decide all its groups at once in two more sweeps."""
        if self._asked is None:
            n = self.piece.problem.n
            big = windowed and n >= ASK_GROUPS and self._totals is not None
            alone = self.wide() or (self._learns and n >= ASK_GROUPS)
            if not big and (self._backbone is not None or not alone):
                return None
            self._asked = Questions(self.piece, self.width)
        return self._asked

    def answers_alone(self, window: TotalWindow | None) -> bool:
        return self._questions(window is not None) is not None

    def can_hold(self, g: int, mine: bool, window: TotalWindow | None = None) -> bool:
        asked = self._questions(window is not None)
        if asked is not None:
            if window is None and self._backbone is None:
                return asked.can_hold(g, mine)
            if window is not None and window not in self._windowed:
                got = asked.window_can_hold(window.mask(), g, mine, self._seed_within)
                if got is not None:
                    return got
        return super().can_hold(g, mine, window)

    def has_window_solution(self, window: TotalWindow) -> bool:
        """Answering alone: the cuts first."""
        asked = self._questions(windowed=True)
        if (
            asked is not None
            and window not in self._windowed
            and asked.window_seen(window.mask()) is not None
        ):
            return True
        return self.windowed(window) is not None

    def solution(self) -> list[int] | None:
        """One search, not the backbone, when the piece answers alone or is big."""
        asked = self._questions()
        if asked is not None and self._backbone is None:
            return asked.first
        if self._backbone is None and self.piece.problem.n >= ASK_GROUPS:
            if self._first is None:  # a big piece: under a window it may never need its backbone
                problem = self.piece.problem
                try:
                    got = Search(problem).solve(
                        [0] * problem.n, problem.sizes, budget=SEARCH_BUDGET
                    )
                except TooHard:
                    got = Cdcl(problem).solve()
                self._first = (got,)
            return self._first[0]
        return super().solution()

    def _seed_within(self, lo: list[int], hi: list[int]) -> list[int] | None:
        """A seed for the cuts (``devil.solve._cut``) with one group pinned, by clause
        learning: the plain search thrashes on wide pieces."""
        return learnt_within(self.piece.problem, lo, hi)

    # -- the backbone ----------------------------------------------------------------------

    def backbone(self) -> Backbone | None:
        if self._backbone is None:
            if self._asked is not None:  # finish what the questions began
                got = self._asked.backbone.finish()
                self._backbone = None if got is None else Backbone(*got)
            else:
                self._backbone = self._searched(None)
        return self._backbone

    def _searched(
        self, window: TotalWindow | None, max_conflicts: int | None = None
    ) -> Backbone | None:
        """The backbone (within a window on the total) by the plain search, by clause
        learning when it thrashes. Inside a window, groups the backbone proves all-safe or
        all-mine stay so (a window only removes solutions), which spares proving them again."""
        problem = self.piece.problem
        lo: list[int] | None = None
        hi: list[int] | None = None
        base = self._backbone if window is not None else None
        if base is not None:
            sizes = problem.sizes
            lo = [sizes[g] if base.low[g] == sizes[g] else 0 for g in range(problem.n)]
            hi = [0 if base.high[g] == 0 else sizes[g] for g in range(problem.n)]
        if window is not None or not self._learns:
            try:
                if window is None and problem.n >= MIXED_GROUPS:
                    return _mixed(problem)
                return search_backbone(problem, window, lo, hi, budget=SEARCH_BUDGET)
            except TooHard:
                pass
        got = cdcl_backbone(problem, window, lo, hi, max_conflicts)
        return None if got is None else Backbone(*got)

    def windowed(self, window: TotalWindow) -> Backbone | None:
        """Conditioning on cuts first (``devil.solve._cut``), else one search per run of
        allowed totals (raises ``TooHard`` when CP-SAT is installed and clause learning
        struggles)."""
        if window not in self._windowed:
            allowed = window.mask()
            got: tuple[list[int], list[int]] | None = None
            base = self.backbone()
            if base is not None:
                got = _cut.window_bounds(self.piece, self.width, allowed, base, self._seed_within)
            if got is not None:
                low, high = got
                ok = all(h >= 0 for h in high)
                self._windowed[window] = Backbone(low, high, []) if ok else None
            else:
                self._windowed[window] = self._by_runs(allowed)
        return self._windowed[window]

    def _by_runs(self, allowed: int) -> Backbone | None:
        """The backbone among solutions whose total is in ``allowed``, one search per run
        of set bits."""
        self.backbone()  # the base the searches start from
        merged: Backbone | None = None
        for low, high in bits.runs(allowed):
            got = self._searched(TotalWindow(low, high), WINDOW_CONFLICTS)
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

    # -- totals ----------------------------------------------------------------------------

    def mine_range(self) -> tuple[int, int]:
        if self._range is None:
            mask = self._totals
            if mask is not None:
                self._range = (bits.lowest(mask), mask.bit_length() - 1)
            else:
                self._range = (self._extreme(lowest=True), self._extreme(lowest=False))
        return self._range

    def _extreme(self, lowest: bool) -> int:
        """The fewest (or most) mines of a solution: improve one until none is better."""
        problem = self.piece.problem
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

    def has_total(self, low: int, high: int) -> bool:
        if high < low:
            return False
        mask = self._totals
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
        """One clause-learning search per total between the fewest and most mines."""
        if self._totals is None:
            low, high = self.mine_range()
            problem = self.piece.problem
            mask = 0
            for k in range(low, high + 1):
                if Cdcl(problem, TotalWindow(k, k)).solve() is not None:
                    mask |= 1 << k
            self._totals = mask
        return self._totals

    def totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        if unpinned(self.piece.problem.sizes, lo, hi):
            return self.totals()
        search = Search(self.piece.problem)
        mask = 0
        for k in range(sum(lo), sum(hi) + 1):
            if search.solve(lo, hi, TotalWindow(k, k)) is not None:
                mask |= 1 << k
        return mask

    # -- witnesses -------------------------------------------------------------------------

    def solve_within(
        self, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
    ) -> list[int] | None:
        return wide_within(self.piece.problem, lo, hi, rng)


class SweptEngine(WideEngine):
    """A narrow piece: the programme (``devil.solve._dp``) swept along the board answers
    its totals, windows and witnesses' totals; the backbone and the questions asked one
    group at a time are the searches' (as the wide engine's). When the programme finds
    the piece too wide, the engine hands it over to a ``WideEngine`` (``_hand_over``), once."""

    def __init__(self, piece: Piece, width: int, plan: _dp.Plan | None) -> None:
        super().__init__(piece, width, plan)
        self._last_forward: (
            tuple[tuple[tuple[int, ...], tuple[int, ...]], list[dict[int, int]]] | None
        ) = None

    def wide(self) -> bool:
        return False

    def _hand_over(self) -> Engine:
        """The piece is too wide for the programme: a wide engine takes it, with what this
        one learnt (``handed_to``: the piece keeps it from its next question on)."""
        if self.handed_to is None:
            engine = WideEngine(self.piece, self.width)
            engine.adopt(self)
            self.handed_to = engine
        return self.handed_to

    def _swept_totals(self) -> int:
        """The achievable totals by the programme (raises ``TooWide``)."""
        if self._totals is None:
            self._totals = _dp.totals(self.plan(), DP_LIMIT)
        return self._totals

    def cheap_totals(self) -> int | None:
        try:
            return self._swept_totals()
        except _dp.TooWide:
            return self._hand_over().cheap_totals()

    def totals(self) -> int:
        try:
            return self._swept_totals()
        except _dp.TooWide:
            return self._hand_over().totals()

    def mine_range(self) -> tuple[int, int]:
        if self._range is None:
            try:
                mask = self._swept_totals()
            except _dp.TooWide:
                return self._hand_over().mine_range()
            self._range = (bits.lowest(mask), mask.bit_length() - 1)
        return self._range

    def has_total(self, low: int, high: int) -> bool:
        if high < low:
            return False
        try:
            mask = self._swept_totals()
        except _dp.TooWide:
            return self._hand_over().has_total(low, high)
        return bool(mask & bits.interval(low, high))

    def windowed(self, window: TotalWindow) -> Backbone | None:
        if window not in self._windowed:
            try:
                low, high = _dp.window_bounds(self.plan(), window.mask(), DP_LIMIT)
            except _dp.TooWide:
                return self._hand_over().windowed(window)
            ok = all(h >= 0 for h in high)
            self._windowed[window] = Backbone(low, high, []) if ok else None
        return self._windowed[window]

    def totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        if unpinned(self.piece.problem.sizes, lo, hi):
            return self.totals()  # no group pinned: the piece's own totals, cached
        found = self._swept_within(lo, hi)
        return found if found is not None else self._hand_over().totals_within(lo, hi)

    def cheap_totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int | None:
        if unpinned(self.piece.problem.sizes, lo, hi):
            return self.cheap_totals()
        found = self._swept_within(lo, hi)
        if found is None:
            self._hand_over()
        return found

    def _swept_within(self, lo: Sequence[int], hi: Sequence[int]) -> int | None:
        """The totals within the domains (a group pinned) by the programme; None when it
        finds the piece too wide (the caller hands it over)."""
        if not self.plan().steps:
            return 1
        try:
            return self._forward(lo, hi)[-1].get(0, 0)
        except _dp.TooWide:
            return None

    def solve_within(
        self, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
    ) -> list[int] | None:
        return plain_within(self.piece.problem, lo, hi, rng)

    def solve_total(
        self, lo: Sequence[int], hi: Sequence[int], total: int, rng: random.Random | None
    ) -> list[int] | None:
        """The programme's draw only where the search thrashes (which ordinary games never
        see); the search's draw, unbounded, when the programme finds the piece too wide."""
        search = Search(self.piece.problem)
        window = TotalWindow(total, total)
        try:
            return search.solve(lo, hi, window, None, rng, budget=WITNESS_BUDGET)
        except TooHard:
            pass
        try:
            forward = self._forward(lo, hi)
            return _dp.sample(self.plan(), 1 << total, (lo, hi), rng, DP_LIMIT, forward)
        except _dp.TooWide:
            self._hand_over()
        return search.solve(lo, hi, window, None, rng)

    def _forward(self, lo: Sequence[int], hi: Sequence[int]) -> list[dict[int, int]]:
        """The programme's forward layers within the domains (the last ones are kept: a
        witness asks for the totals, then for a solution, within the same domains)."""
        key = (tuple(lo), tuple(hi))
        if self._last_forward is None or self._last_forward[0] != key:
            layers = _dp.forward_masks(self.plan(), (lo, hi), DP_LIMIT)
            self._last_forward = (key, layers)
        return self._last_forward[1]
