"""Witnesses: one full mine layout consistent with a position, with a chosen cell mined or safe.

A loss shows one (the devil's proof that the clicked cell could be a mine); fair mercy's redraw
draws the new hidden layout as one with the clicked cell safe. Built from the solver's
analysis (``devil.solver.PositionAnalysis``): a solution of every piece (with the target
cell's group forced), the deep cells (covered cells no number touches) filled to the total.
Under a known total, the pieces' totals are chosen so that the deep cells can hold the
rest exactly (the counted rule requires it; the classic rule prefers it when possible).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from devil.analysis import Layout
from devil.board import Cell
from devil.errors import BudgetExceeded
from devil.rules import Count
from devil.solve import _cut, _dp
from devil.solve.bits import interval, lowest, members, sumset
from devil.solve.budget import bounded, outer_exceeded

if TYPE_CHECKING:
    from devil.solve.position_analysis import PositionAnalysis

__all__ = ["CLASSIC_EXACT_NODES", "build"]

CLASSIC_EXACT_NODES = 2_000
"""Work a classic-rule witness may spend matching the position's total exactly."""


def build(
    analysis: PositionAnalysis,
    cell: Cell,
    mine: bool,
    rng: random.Random | None = None,
    nearest_total: bool = False,
) -> Layout | None:
    """A full consistent layout with ``cell`` mined (or safe); None when none exists.

    ``rng``: None for a deterministic layout (the first solution of each piece, the deep
    mines in the first deep cells); else the random choices it makes: a random solution of
    each piece (values tried in random order), its mines spread uniformly over each group,
    the deep mines spread uniformly over the deep cells.

    ``nearest_total``: under the classic rule with a total that no such layout meets, the
    layout whose mine count is nearest that total (by default: as few deep mines as
    possible).
    """
    return _Builder(analysis, cell, mine, rng, nearest_total).build()


class _Builder:
    """Builds one full layout for ``build``."""

    def __init__(
        self,
        analysis: PositionAnalysis,
        cell: Cell,
        mine: bool,
        rng: random.Random | None,
        nearest_total: bool,
    ) -> None:
        self.a = analysis
        self.cell = cell
        self.mine = mine
        self.rng = rng
        self.nearest = nearest_total and analysis.count is Count.CLASSIC

    def build(self) -> Layout | None:
        a = self.a
        cell, mine = self.cell, self.mine
        value = a.known.get(cell)
        target: tuple[int, int] | None = None
        if value is not None:
            if bool(value) != mine:
                return None
        else:
            target = a.group_of(cell)
            if target is None:
                a.check_covered(cell)
        deep_target = value is None and target is None
        d = a.deep_count
        d_lo = 1 if deep_target and mine else 0
        d_hi = d - 1 if deep_target and not mine else d
        if d_lo > d_hi:
            return None
        domains = [self._domains(i, target) for i in range(len(a.pieces))]
        m = a.mines_left
        exact = m is not None
        if a.count is Count.COUNTED and m is None:
            raise ValueError("the counted rule needs the position's total number of mines")
        values = self._cheap(domains)
        if values is None:
            return None
        if exact and m is not None:
            total = sum(sum(v) for v in values)
            if not d_lo <= m - total <= d_hi:
                better = self._by_cuts(domains, m, d_lo, d_hi, values)
                if better is None:
                    better = self._exact_or_give_up(domains, m, d_lo, d_hi)
                if better is not None:
                    values = better
                    exact = d_lo <= m - sum(sum(v) for v in values) <= d_hi  # else: nearest
                elif a.count is Count.COUNTED:
                    return None
                else:
                    exact = False
        total = sum(sum(v) for v in values)
        if exact and m is not None:
            deep_mines = m - total
        elif self.nearest and m is not None:
            deep_mines = min(max(m - total, d_lo), d_hi)
        else:
            deep_mines = d_lo
        return self._layout(values, deep_mines, deep_target)

    def _domains(self, i: int, target: tuple[int, int] | None) -> tuple[list[int], list[int]]:
        sizes = self.a.pieces[i].problem.sizes
        lo = [0] * len(sizes)
        hi = list(sizes)
        if target is not None and target[0] == i:
            g = target[1]
            if self.mine:
                lo[g] = 1
            else:
                hi[g] = sizes[g] - 1
        return lo, hi

    def _cheap(self, domains: list[tuple[list[int], list[int]]]) -> list[list[int]] | None:
        out = []
        for i in range(len(self.a.pieces)):
            lo, hi = domains[i]
            sol = self.a.facts(i).solve_within(lo, hi, self.rng)
            if sol is None:
                return None
            out.append(sol)
        return out

    def _by_cuts(
        self,
        domains: list[tuple[list[int], list[int]]],
        m: int,
        d_lo: int,
        d_hi: int,
        seeds: list[list[int]],
    ) -> list[list[int]] | None:
        """With one piece too wide for the programme (a 2-D lattice): the other pieces'
        totals by the programme, a solution of the wide one with a total that fits by
        conditioning on cuts (``devil.solve._cut``, walking from its solution in ``seeds``);
        None when there is no such piece or the cuts find no solution (proves nothing)."""
        a = self.a
        count = len(a.pieces)
        wide = [i for i in range(count) if a.facts(i).wide()]
        if len(wide) != 1:
            return None
        w = wide[0]
        others = [i for i in range(count) if i != w]
        totals = {i: a.facts(i).totals_within(*domains[i]) for i in others}
        reach = [1]
        for i in others:
            reach.append(sumset(reach[-1], totals[i]))
        goal = interval(m - d_hi, m - d_lo)
        allowed = _dp._fits(reach[-1], goal)
        if not allowed:
            return None
        info = a.facts(w)
        sol = _cut.solve(info.piece, info.width, domains[w], allowed, seeds[w], self.rng)
        if sol is None:
            return None
        rest = reach[-1] & (goal >> sum(sol))
        s = lowest(rest) if self.rng is None else self.rng.choice(list(members(rest)))
        out: list[list[int]] = [[] for _ in range(count)]
        out[w] = sol
        for j in range(len(others) - 1, -1, -1):
            i = others[j]
            options = [k for k in members(totals[i]) if s >= k and (reach[j] >> (s - k)) & 1]
            k = options[0] if self.rng is None else self.rng.choice(options)
            got = a.facts(i).solve_total(*domains[i], k, self.rng)
            assert got is not None
            out[i] = got
            s -= k
        return out

    def _exact_or_give_up(
        self, domains: list[tuple[list[int], list[int]]], m: int, d_lo: int, d_hi: int
    ) -> list[list[int]] | None:
        """``_exact``; under the classic rule (the total is only a preference) with a piece
        too wide for the programme, within ``CLASSIC_EXACT_NODES`` units of work, else None:
        a 2-D lattice with no deep cells would otherwise spend seconds matching the total.
        A node count, not a clock, so a replayed game makes the same choice. Games whose
        pieces the programme answers (all ordinary ones) are not bounded at all: a piece found
        too wide only here used to search once per total without a bound, for minutes."""
        pieces = range(len(self.a.pieces))
        if self.a.count is Count.COUNTED:
            return self._exact(domains, m, d_lo, d_hi)
        if not any(self.a.facts(i).wide() for i in pieces):
            # a piece the programme finds too wide only now (12-neighbour triangles) is
            # handed over here, and bounded below like one known wide from the start
            cheap = [self.a.facts(i).cheap_totals_within(*domains[i]) for i in pieces]
            known = [t for t in cheap if t is not None]
            if len(known) == len(cheap):
                return self._exact(domains, m, d_lo, d_hi, known)
        with bounded(CLASSIC_EXACT_NODES) as meter:
            try:
                return self._exact(domains, m, d_lo, d_hi)
            except BudgetExceeded:
                if outer_exceeded(meter):
                    raise
                return None

    def _exact(
        self,
        domains: list[tuple[list[int], list[int]]],
        m: int,
        d_lo: int,
        d_hi: int,
        totals: list[int] | None = None,
    ) -> list[list[int]] | None:
        """Solutions per piece whose totals plus some deep count make exactly ``m``.

        None when no totals do; with ``nearest`` (classic rule), the pieces' total nearest
        to the range the deep cells can make up (fewer mines on a tie)."""
        facts = [self.a.facts(i) for i in range(len(self.a.pieces))]
        if totals is None:  # else the pieces' totals within the domains, known already
            totals = [info.totals_within(*domains[i]) for i, info in enumerate(facts)]
        reach = [1]
        for mask in totals:
            reach.append(sumset(reach[-1], mask))
        goal = reach[-1] & interval(m - d_hi, m - d_lo)
        if not goal and self.nearest and reach[-1]:
            goal = 1 << min(members(reach[-1]), key=lambda t: max(m - d_hi - t, t - m + d_lo))
        if not goal:
            return None
        s = lowest(goal) if self.rng is None else self.rng.choice(list(members(goal)))
        picks: list[int] = [0] * len(totals)
        for i in range(len(totals) - 1, -1, -1):
            options = [k for k in members(totals[i]) if s - k >= 0 and (reach[i] >> (s - k)) & 1]
            k = options[0] if self.rng is None else self.rng.choice(options)
            picks[i] = k
            s -= k
        out = []
        for i in range(len(totals)):
            lo, hi = domains[i]
            sol = facts[i].solve_total(lo, hi, picks[i], self.rng)
            assert sol is not None
            out.append(sol)
        return out

    def _layout(self, values: list[list[int]], deep_mines: int, deep_target: bool) -> Layout:
        a = self.a
        mined: set[Cell] = set(a.known_mines())
        rng = self.rng
        for piece, sol in zip(a.pieces, values, strict=True):
            for g, cells in enumerate(piece.groups):
                k = sol[g]
                if not k:
                    continue
                pool = list(cells)
                if self.cell in cells:
                    pool.remove(self.cell)
                    if self.mine:
                        mined.add(self.cell)
                        k -= 1
                if rng is not None:
                    mined.update(rng.sample(pool, k))
                else:
                    mined.update(pool[:k])
        if deep_mines:
            deep = a.deep_cells()
            if deep_target:
                deep.remove(self.cell)
                if self.mine:
                    mined.add(self.cell)
                    deep_mines -= 1
            if rng is not None:
                mined.update(rng.sample(deep, deep_mines))
            else:
                mined.update(deep[:deep_mines])
        return frozenset(mined)
