"""Version-2 witnesses (games with ``GameParams.version >= 2``): the same layouts as
``devil.solve.witness`` promises (consistent, the cell mined or safe, the position's total
under the counted rule, the nearest total under the classic rule with ``nearest_total``),
drawn with time bounded by the engine that fits each piece.

Version 1 (``devil.solve.witness``) draws every piece's part by the plain search with the
game's random generator, then, when the totals do not fit, asks every piece for its
achievable totals, which on a geodesic sphere runs the programme until it finds the big
dense piece too wide: 20-420 ms and 150-260 ms (compiled). Stored games replay that; new
graph games draw here:

1. Each piece's part: a small piece by the plain search (a few values); a *hard* piece
   (too wide for the programme, or big and dense: ``devil.solve._wide.learns``) by clause
   learning with random first values (``draw_learnt``); any other by the plain search
   within a budget, then clause learning.
2. When the parts' total leaves the deep cells a count they cannot hold, the other pieces'
   achievable totals (solution lists, the programme's layers) are combined, the hard pieces
   keep their parts, and the others are re-drawn with totals that fit, by the programme from
   those layers (version 1 searches first, which thrashes to its budget on 12-neighbour
   triangles); failing that, one hard piece at a time is re-drawn by clause learning inside
   the nearest run of totals that fits (a window on its total, first values leaning the way
   the total must move, a bounded number of conflicts).
3. Only when both fail: version 1's exact way (counted rule) or, under the classic rule,
   the total nearest the position's that the drawn parts allow.

Which way a piece goes is decided from the piece alone (its solution count, ``learns``, its
plan), never from what its engine met before (a swept engine hands a piece over to the wide
one when some question finds it too wide), so a replayed game draws the same layouts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from devil.analysis import Layout
from devil.board import Cell
from devil.rules import Count
from devil.solve import _dp
from devil.solve import witness as _witness
from devil.solve._cdcl import Cdcl
from devil.solve._engine import WIDE_OPEN, WITNESS_BUDGET, lone_solution
from devil.solve._search import GroupProblem, Search, TooHard, TotalWindow
from devil.solve._small import SmallEngine
from devil.solve._wide import DP_LIMIT, learns
from devil.solve.bits import interval, members, runs, sumset

if TYPE_CHECKING:
    from devil.solve.position_analysis import PositionAnalysis

__all__ = [
    "DENSITY",
    "EXACT_CONFLICTS",
    "WINDOW_ATTEMPTS",
    "WINDOW_CONFLICTS",
    "WINDOW_TRIES",
    "build",
    "draw_learnt",
]

WINDOW_CONFLICTS = 150
"""Conflicts clause learning may spend on one draw of a hard piece's part inside a window on
its total (a sphere's big piece: most draws finish within 100, a few need over 3,000)."""

WINDOW_TRIES = 4
"""Draws per run of fitting totals, each with other first values."""

WINDOW_ATTEMPTS = 12
"""Draws per hard piece in all before the exact way."""

EXACT_CONFLICTS = 20_000
"""Conflicts per run of the exact way (the counted rule with one hard piece)."""

DENSITY = 0.2
"""Without a known total: the share of mines a hard piece's first values lean to."""

Domains = tuple[list[int], list[int]]


def build(
    analysis: PositionAnalysis,
    cell: Cell,
    mine: bool,
    rng: random.Random | None = None,
    nearest_total: bool = False,
) -> Layout | None:
    """A full consistent layout with ``cell`` mined (or safe); None when none exists
    (``devil.solve.witness.build``'s contract, drawn the version-2 way)."""
    return _Quick(analysis, cell, mine, rng, nearest_total).build()


def draw_learnt(
    problem: GroupProblem,
    lo: Sequence[int],
    hi: Sequence[int],
    rng: random.Random | None,
    density: float,
    window: TotalWindow | None = None,
    max_conflicts: int | None = None,
) -> list[int] | None:
    """A solution within the domains (and the window on its total) by clause learning,
    each cell's first value a mine with probability ``density`` (drawn with ``rng``; None:
    safe first), so that the draw is random yet as quick as deciding the piece; None when
    there is none. Raises ``TooHard`` past ``max_conflicts``."""
    if problem.n == 1 and window is None:
        return lone_solution(problem, lo, hi)
    solver = Cdcl(problem, window)
    if rng is not None:
        solver.set_phases([0 if rng.random() < density else 1 for _ in range(solver.n)])
    assumptions = []
    for g, size in enumerate(problem.sizes):
        if lo[g] >= 1:
            assumptions.append(solver.group_literal(g, True))
        if hi[g] <= size - 1:
            assumptions.append(solver.group_literal(g, False))
    return solver.solve(assumptions, max_conflicts)


def _runs(allowed: int, near: int) -> list[tuple[int, int]]:
    """The runs of set bits of ``allowed`` as ``(low, high)``, nearest ``near`` first."""
    return sorted(runs(allowed), key=lambda run: max(run[0] - near, near - run[1], 0))


class _Quick(_witness._Builder):
    """Builds one version-2 layout for ``build``."""

    density: float = DENSITY
    """The share of mines a hard piece's first values lean to: the mines left over the
    undecided covered cells when the total is known."""

    layers: dict[int, list[dict[int, int]]]
    """The programme's forward layers per piece within its domains (``_cheap_totals``)."""

    def build(self) -> Layout | None:
        a = self.a
        value = a.known.get(self.cell)
        target: tuple[int, int] | None = None
        if value is not None:
            if bool(value) != self.mine:
                return None
        else:
            target = a.group_of(self.cell)
            if target is None:
                a.check_covered(self.cell)
        deep_target = value is None and target is None
        d = a.deep_count
        d_lo = 1 if deep_target and self.mine else 0
        d_hi = d - 1 if deep_target and not self.mine else d
        if d_lo > d_hi:
            return None
        m = a.mines_left
        if a.count is Count.COUNTED and m is None:
            raise ValueError("the counted rule needs the position's total number of mines")
        cells = d + sum(piece.cell_count for piece in a.pieces)
        if m is not None and cells:
            self.density = min(max(m / cells, 0.0), 1.0)
        self.layers = {}
        domains = [self._domains(i, target) for i in range(len(a.pieces))]
        hard = [self._hard(i) for i in range(len(a.pieces))]
        values: list[list[int]] = []
        for i, (lo, hi) in enumerate(domains):
            got = self._draw(i, lo, hi, hard[i])
            if got is None:
                return None
            values.append(got)
        if m is None:
            return self._layout(values, d_lo, deep_target)
        goal = interval(max(m - d_hi, 0), m - d_lo) if m - d_lo >= 0 else 0
        total = sum(sum(v) for v in values)
        if not (goal >> total) & 1:
            fitted = self._fit(domains, hard, values, goal) if goal else None
            if fitted is not None:
                values = fitted
            elif a.count is Count.COUNTED:  # the heuristics found nothing: the exact way
                return _witness.build(a, self.cell, self.mine, self.rng, False)
            else:
                values = self._nearest(domains, hard, values, m - d_hi, m - d_lo)
        total = sum(sum(v) for v in values)
        if self.nearest:
            deep_mines = min(max(m - total, d_lo), d_hi)
        else:
            deep_mines = m - total if d_lo <= m - total <= d_hi else d_lo
        return self._layout(values, deep_mines, deep_target)

    # -- each piece's part ---------------------------------------------------------------

    def _hard(self, i: int) -> bool:
        """Whether piece ``i`` is drawn by clause learning and its totals are not asked of
        the programme: big and dense, or its plan keeps too many numbers open. Known from
        the piece alone, never from what its engine met before (a piece handed over to the
        wide engine by an earlier question), so a replayed game draws the same layouts."""
        info = self.a.facts(i)
        engine = info.engine()
        if isinstance(engine, SmallEngine):
            return False
        return learns(info.piece.problem) or engine.open_max() > WIDE_OPEN

    def _draw(self, i: int, lo: list[int], hi: list[int], hard: bool) -> list[int] | None:
        info = self.a.facts(i)
        problem = info.piece.problem
        if hard:
            return draw_learnt(problem, lo, hi, self.rng, self.density)
        if problem.n == 1:
            return lone_solution(problem, lo, hi)
        try:
            return Search(problem).solve(lo, hi, None, None, self.rng, budget=WITNESS_BUDGET)
        except TooHard:
            return draw_learnt(problem, lo, hi, self.rng, self.density)

    # -- fitting the total ---------------------------------------------------------------

    def _cheap_totals(self, domains: list[Domains], hard: list[bool]) -> dict[int, int]:
        """The achievable totals within the domains of every piece that is not hard, by its
        solution list or the programme's layers (kept for ``_split``'s draws); a piece the
        programme finds too wide becomes hard."""
        out: dict[int, int] = {}
        for i, (lo, hi) in enumerate(domains):
            if hard[i]:
                continue
            info = self.a.facts(i)
            engine = info.engine()
            if isinstance(engine, SmallEngine):
                out[i] = info.totals_within(lo, hi)
                continue
            plan = engine.plan()
            if not plan.steps:
                out[i] = 1
                continue
            try:
                layers = _dp.forward_masks(plan, (lo, hi), DP_LIMIT)
            except _dp.TooWide:
                hard[i] = True
                continue
            self.layers[i] = layers
            out[i] = layers[-1].get(0, 0)
        return out

    def _fit(
        self, domains: list[Domains], hard: list[bool], values: list[list[int]], goal: int
    ) -> list[list[int]] | None:
        """Parts whose total is in ``goal`` (a bitmask), or None when neither re-drawing the
        pieces that are not hard nor one hard piece inside a window finds them."""
        totals = self._cheap_totals(domains, hard)
        cheap = sorted(totals)
        hard_total = sum(sum(values[i]) for i in range(len(values)) if hard[i])
        reach = 1
        for i in cheap:
            reach = sumset(reach, totals[i])
        if reach & (goal >> hard_total):
            return self._split(domains, values, cheap, totals, goal >> hard_total)
        rng = self.rng
        order = [i for i in range(len(values)) if hard[i]]
        if rng is not None:
            rng.shuffle(order)
        # the counted rule with one hard piece: its allowed totals are exactly these, so
        # searching each run to the end finds a part when the bounded draws did not
        passes = [False, True] if len(order) == 1 and self.a.count is Count.COUNTED else [False]
        for exact in passes:
            for h in order:
                rest = hard_total - sum(values[h])
                allowed = _dp._fits(reach, goal >> rest)
                lo, hi = domains[h]
                allowed &= interval(sum(lo), sum(hi))
                got = self._in_window(h, domains[h], allowed, sum(values[h]), exact)
                if got is not None:
                    out = list(values)
                    out[h] = got
                    shifted = goal >> (rest + sum(got))
                    return self._split(domains, out, cheap, totals, shifted)
        return None

    def _in_window(
        self, h: int, domains: Domains, allowed: int, near: int, exact: bool = False
    ) -> list[int] | None:
        """A part of hard piece ``h`` with a total in ``allowed``, by clause learning inside
        each run of allowed totals (a window on its total), nearest ``near`` first, the first
        values leaning the way the total must move: ``WINDOW_TRIES`` fresh draws of
        ``WINDOW_CONFLICTS`` conflicts each per run (restarts with other first values beat
        one long search on these), ``WINDOW_ATTEMPTS`` in all; with ``exact``, one search
        per run of up to ``EXACT_CONFLICTS`` conflicts instead (on a window clause learning
        may struggle: version 1's way takes over then, as when every run was tried)."""
        problem = self.a.facts(h).piece.problem
        lo, hi = domains
        p = self.density
        attempts = 0
        for low, high in _runs(allowed, near):
            lean = p / 2 if high < near else (1 + p) / 2 if low > near else p
            window = TotalWindow(low, high)
            for _ in range(1 if exact else WINDOW_TRIES):
                if not exact and attempts >= WINDOW_ATTEMPTS:
                    return None
                attempts += 1
                limit = EXACT_CONFLICTS if exact else WINDOW_CONFLICTS
                try:
                    got = draw_learnt(problem, lo, hi, self.rng, lean, window, limit)
                except TooHard:
                    continue
                if got is not None:
                    return got
                break  # none in this run: the next
        return None

    def _split(
        self,
        domains: list[Domains],
        values: list[list[int]],
        cheap: list[int],
        totals: dict[int, int],
        goal: int,
    ) -> list[list[int]] | None:
        """``values`` with the pieces in ``cheap`` re-drawn so that their totals sum to a
        member of ``goal`` (chosen with the rng); the parts kept when already fitting."""
        if not cheap:
            return list(values) if goal & 1 else None
        reach = [1]
        for i in cheap:
            reach.append(sumset(reach[-1], totals[i]))
        options = reach[-1] & goal
        if not options:
            return None
        now = sum(sum(values[i]) for i in cheap)
        if (options >> now) & 1:
            return list(values)
        rng = self.rng
        s = min(members(options)) if rng is None else rng.choice(list(members(options)))
        out = list(values)
        for j in range(len(cheap) - 1, -1, -1):
            i = cheap[j]
            picks = [k for k in members(totals[i]) if s >= k and (reach[j] >> (s - k)) & 1]
            k = picks[0] if rng is None else rng.choice(picks)
            if sum(values[i]) != k:
                info = self.a.facts(i)
                layers = self.layers.get(i)
                if layers is not None:  # the programme's layers for these domains
                    plan = info.engine().plan()
                    got = _dp.sample(plan, 1 << k, domains[i], rng, DP_LIMIT, layers)
                else:
                    got = info.solve_total(*domains[i], k, rng)
                assert got is not None
                out[i] = got
            s -= k
        return out

    def _nearest(
        self,
        domains: list[Domains],
        hard: list[bool],
        values: list[list[int]],
        low: int,
        high: int,
    ) -> list[list[int]]:
        """Classic rule, no fitting total found: the parts whose total is nearest the range
        ``low..high`` among those the pieces that are not hard can reach (fewer on a tie),
        the hard pieces keeping their parts."""
        totals = self._cheap_totals(domains, hard)
        cheap = sorted(totals)
        hard_total = sum(sum(values[i]) for i in range(len(values)) if hard[i])
        reach = 1
        for i in cheap:
            reach = sumset(reach, totals[i])
        best = min(
            members(reach),
            key=lambda t: max(low - hard_total - t, hard_total + t - high, 0),
        )
        got = self._split(domains, values, cheap, totals, 1 << best)
        assert got is not None
        return got
