"""Wide pieces under a window on their total, by conditioning on cuts across the board.

A piece too wide for the path-decomposition programme (``devil.solve._dp``: a 2-D lattice 40
cells across keeps some 20 constraints open, and its layers grow past millions of
states) falls apart once the groups on a few board lines keep fixed values: fix every
group with a cell on the cut lines to its value in a known solution (the *seed*) and
what is left are bands, each as narrow as the distance between two cuts, which the
programme sweeps along their length. The bands are independent given the cut, so their
achievable totals combine exactly (sumsets) and each band's window follows as under
the counted rule.

Everything found this way belongs to a real solution of the whole piece (the seed's
values on the cut, a solution of each band, band totals that add up to an allowed
total): values seen are certificates, never guesses. What no conditioning shows is left
to the caller's exact engines. Two families of cuts, half a band apart, leave every
group free in one of them, and a second pair runs the other way (a change that crosses
several bands of one pair may fit in a band of the other); the seed moves towards the
allowed totals band by band (each conditioning picks the nearest total it can reach),
then serves the others. A question no family answers around the shared seed gets a
seed of its own from the caller (``certify``'s ``seed_for``).

- ``Cut``: one conditioning (the fixed groups, the bands and their plans).
- ``solve``: a solution within domains whose total is allowed (witnesses).
- ``certify``: per group, the lowest and highest value seen in solutions whose total is
  allowed, and which mine/safe questions the base backbone leaves open that no solution
  seen answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from devil.solve import _dp
from devil.solve._pieces import Piece
from devil.solve._search import Backbone, GroupProblem, make_problem
from devil.solve.bits import lowest, members, sumset

__all__ = ["BAND", "Cut", "certify", "cuts", "solve"]

BAND = 8
"""Board lines between two cuts: a band keeps about ``BAND / 2`` numbers of a lattice
open at once (a few hundred states per layer)."""

ROUNDS = 32
"""Conditionings ``solve`` tries while the seed walks towards the allowed totals."""

TARGETED = 400
"""Open mine/safe questions ``certify`` tries to answer with a seed of their own."""

LIMIT = 20_000
"""States per layer of a band's programme (past it the cut family is given up)."""

Domains = tuple[Sequence[int], Sequence[int]]


class Family:
    """One family of cuts: the groups held fixed and the bands the rest falls into, with
    each band's constraints (its groups as local indices, the fixed groups each takes
    from its need) and the order of the programme; shared by every seed."""

    __slots__ = ("_held", "bands", "fixed", "ok", "orders", "parts", "problem", "where")

    def __init__(
        self, problem: GroupProblem, where: Sequence[tuple[int, int]], fixed: frozenset[int]
    ) -> None:
        self.problem = problem
        self.where = where
        self.fixed = fixed
        self.bands: list[list[int]] = []
        self.parts: list[list[tuple[tuple[int, ...], int, tuple[int, ...]]]] = []
        """Per band, per constraint: (local groups, index of the constraint, fixed groups)."""
        self.orders: list[tuple[int, ...] | None] = []
        self.ok = True
        n = problem.n
        parent = list(range(n))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        split: list[tuple[list[int], int, tuple[int, ...]]] = []
        for ci, (vs, _) in enumerate(problem.cons):
            free = [v for v in vs if v not in fixed]
            held = tuple(v for v in vs if v in fixed)
            if free:
                root = find(free[0])
                for v in free[1:]:
                    other = find(v)
                    if other != root:
                        parent[other] = root
            split.append((free, ci, held))
        index: dict[int, int] = {}
        for g in range(n):
            if g not in fixed:
                root = find(g)
                if root not in index:
                    index[root] = len(self.bands)
                    self.bands.append([])
                self.bands[index[root]].append(g)
        local = {g: i for band in self.bands for i, g in enumerate(band)}
        self.parts = [[] for _ in self.bands]
        self.orders = [None] * len(self.bands)
        self._held: list[tuple[int, tuple[int, ...]]] = []
        for free, ci, held in split:
            if free:
                b = index[find(free[0])]
                self.parts[b].append((tuple(local[v] for v in free), ci, held))
            else:
                self._held.append((ci, held))

    def needs(self, seed: Sequence[int]) -> list[int] | None:
        """Per constraint, its need less the fixed groups' values; None when some
        constraint cannot be met (or is broken outright) with these values."""
        sizes = self.problem.sizes
        out = [need for _, need in self.problem.cons]
        for ci, held in self._held:
            if sum(seed[v] for v in held) != out[ci]:
                return None
        for band, parts in zip(self.bands, self.parts, strict=True):
            for free, ci, held in parts:
                rest = out[ci] - sum(seed[v] for v in held)
                if rest < 0 or rest > sum(sizes[band[v]] for v in free):
                    return None
                out[ci] = rest
        return out

    def plan(self, b: int, needs: Sequence[int]) -> _dp.Plan:
        """Band ``b``'s programme with the constraints' needs ``needs``."""
        sizes = [self.problem.sizes[g] for g in self.bands[b]]
        cons = [(free, needs[ci]) for free, ci, _ in self.parts[b]]
        sub = make_problem(sizes, cons)
        order = self.orders[b]
        if order is None:
            got = _dp.plan(sub, [self.where[g] for g in self.bands[b]])
            self.orders[b] = got.order
            return got
        return _dp.Plan(sub, order)


class Cut:
    """The piece with the groups of a ``Family`` held at ``seed``'s values.

    ``ok`` is False when the bands are too wide for the programme or the fixed values
    leave some constraint unsatisfiable (a seed outside the domains)."""

    def __init__(self, family: Family, seed: Sequence[int]) -> None:
        self.problem = family.problem
        self.seed = list(seed)
        self.fixed = family.fixed
        self.base = sum(seed[g] for g in family.fixed)
        self.bands = family.bands
        self.plans: list[_dp.Plan] = []
        self.ok = family.ok
        needs = family.needs(seed) if self.ok else None
        if needs is None:
            self.ok = False
            return
        for b in range(len(self.bands)):
            plan = family.plan(b, needs)
            if plan.open_max > _dp.MAX_OPEN:
                self.ok = family.ok = False
                return
            self.plans.append(plan)

    def _domains(self, i: int, domains: Domains | None) -> Domains | None:
        if domains is None:
            return None
        lo, hi = domains
        band = self.bands[i]
        return [lo[g] for g in band], [hi[g] for g in band]

    def forward(self, domains: Domains | None) -> list[list[dict[int, int]]]:
        """Per band: the programme's forward layers within the domains (raises
        ``_dp.TooWide``)."""
        return [
            _dp.forward_masks(plan, self._domains(i, domains), LIMIT)
            for i, plan in enumerate(self.plans)
        ]

    def solve(
        self,
        domains: Domains | None,
        allowed: int,
        rng: random.Random | None,
        nearest: bool = False,
    ) -> list[int] | None:
        """A solution (seed on the cut) within ``domains`` whose total is in ``allowed``;
        with ``nearest``, when none is, the one whose total is nearest to ``allowed``."""
        if domains is not None and any(
            not domains[0][g] <= self.seed[g] <= domains[1][g] for g in self.fixed
        ):
            return None
        layers = self.forward(domains)
        ends = [f[-1].get(0, 0) if f else 1 for f in layers]
        reach = [1]
        for mask in ends:
            reach.append(sumset(reach[-1], mask))
        shifted = allowed >> self.base
        goal = reach[-1] & shifted
        if not goal:
            if not nearest or not reach[-1] or not allowed:
                return None
            goal = 1 << _nearest(reach[-1], allowed, self.base)
        s = lowest(goal) if rng is None else rng.choice(list(members(goal)))
        picks = [0] * len(ends)
        for i in range(len(ends) - 1, -1, -1):
            options = [k for k in members(ends[i]) if s >= k and (reach[i] >> (s - k)) & 1]
            picks[i] = options[0] if rng is None else rng.choice(options)
            s -= picks[i]
        out = list(self.seed)
        for i, plan in enumerate(self.plans):
            part = _dp.sample(plan, 1 << picks[i], self._domains(i, domains), rng, LIMIT, layers[i])
            assert part is not None, "a band total the programme reached has a solution"
            for g, value in zip(self.bands[i], part, strict=True):
                out[g] = value
        return out

    def bounds(self, allowed: int) -> tuple[list[int], list[int]] | None:
        """Per group: lowest and highest value in the solutions (seed on the cut) whose
        total is in ``allowed``; None when there is none."""
        totals = [_dp.totals(plan, LIMIT) for plan in self.plans]
        prefix = [1]
        for mask in totals:
            prefix.append(sumset(prefix[-1], mask))
        suffix = [1] * (len(totals) + 1)
        for i in range(len(totals) - 1, -1, -1):
            suffix[i] = sumset(suffix[i + 1], totals[i])
        shifted = allowed >> self.base
        if not prefix[-1] & shifted:
            return None
        n = self.problem.n
        low = [0] * n
        high = [0] * n
        for g in self.fixed:
            low[g] = high[g] = self.seed[g]
        for i, plan in enumerate(self.plans):
            others = sumset(prefix[i], suffix[i + 1])
            window = totals[i] & _dp._fits(others, shifted)
            got_low, got_high = _dp.window_bounds(plan, window, LIMIT)
            for j, g in enumerate(self.bands[i]):
                low[g] = got_low[j]
                high[g] = got_high[j]
        return low, high


def _nearest(reach: int, allowed: int, base: int) -> int:
    """The member of ``reach`` nearest to the allowed totals (shifted by ``base``)."""
    lo = lowest(allowed) - base
    hi = allowed.bit_length() - 1 - base
    return min(members(reach), key=lambda t: max(lo - t, t - hi, 0))


class Cuts:
    """The cut families of one piece, built on first use and kept (per band and offset).

    Cut lines run across the piece's longer extent (``axis`` 0: board rows, 1: columns;
    ``axis=None`` in a method: that one), or along it for the crossing families, on
    lines with no number of the piece when there is one next to them (a number on a cut
    line would keep the bands on either side together)."""

    def __init__(self, piece: Piece, width: int) -> None:
        self.piece = piece
        cells = piece.groups
        self.where = [divmod(group[0], width) for group in cells]
        rows = [c // width for group in cells for c in group]
        cols = [c % width for group in cells for c in group]
        self.axis = 0 if max(rows) - min(rows) >= max(cols) - min(cols) else 1
        self.span = ((min(rows), max(rows)), (min(cols), max(cols)))
        self.busy = (
            {s // width for s in piece.sources},
            {s % width for s in piece.sources},
        )
        self.lines_of = (
            [frozenset(c // width for c in group) for group in cells],
            [frozenset(c % width for c in group) for group in cells],
        )
        self._families: dict[tuple[int, int, int], Family] = {}

    def family(self, band: int, offset: int, axis: int | None = None) -> Family:
        axis = self.axis if axis is None else axis
        key = (band, offset, axis)
        got = self._families.get(key)
        if got is None:
            first, last = self.span[axis]
            busy = self.busy[axis]
            lines: set[int] = set()
            line = first + offset
            while line < last:
                for pick in (line, line + 1, line - 1):
                    if pick not in busy:
                        line = pick
                        break
                lines.add(line)
                line += band
            on = self.lines_of[axis]
            fixed = frozenset(g for g in range(len(on)) if on[g] & lines)
            got = self._families[key] = Family(self.piece.problem, self.where, fixed)
        return got

    def pair(self, band: int = BAND, axis: int | None = None) -> list[Family]:
        """Two families half a band apart: every group is free in one of them."""
        return [self.family(band, band // 2, axis), self.family(band, band, axis)]

    def crossing(self, band: int = BAND) -> list[Family]:
        """The pair across the piece, then the pair along it (a change that runs across
        several bands of one pair may fit in a band of the other)."""
        return self.pair(band) + self.pair(band, 1 - self.axis)

    def around(self, group: int, band: int = BAND) -> list[Family]:
        """The family with ``group`` in the middle of a band."""
        at = self.where[group][self.axis]
        first = self.span[self.axis][0]
        return [self.family(band, (at + band // 2 - first) % band or band)]


_CUTS: dict[tuple[object, ...], Cuts] = {}
_CUTS_KEPT = 16


def cuts(piece: Piece, width: int) -> Cuts | None:
    """The piece's ``Cuts`` (kept for the last few pieces); None without a board width."""
    if width <= 0 or not piece.groups:
        return None
    key = (piece.key, piece.groups, piece.problem, width)
    got = _CUTS.get(key)
    if got is None:
        if len(_CUTS) >= _CUTS_KEPT:
            _CUTS.clear()
        got = _CUTS[key] = Cuts(piece, width)
    return got


def solve(
    piece: Piece,
    width: int,
    domains: Domains,
    allowed: int,
    seed: Sequence[int],
    rng: random.Random | None = None,
    families: list[Family] | None = None,
    band: int = BAND,
) -> list[int] | None:
    """A solution of ``piece`` within ``domains`` whose total is in ``allowed``, walking
    from ``seed`` (a solution; within the domains on the cut lines); None when the cuts
    find none (which proves nothing). ``families``: the cuts to use (default: a pair of
    ``band`` lines apart)."""
    if families is None:
        every = cuts(piece, width)
        if every is None:
            return None
        families = every.pair(band)
    current = list(seed)
    stuck = 0  # families in a row that moved nothing: once all have, none will
    for round_ in range(ROUNDS):
        cut = Cut(families[round_ % len(families)], current)
        got: list[int] | None = None
        if cut.ok:
            try:
                got = cut.solve(domains, allowed, rng, nearest=True)
            except _dp.TooWide:
                got = None
        if got is not None and (allowed >> sum(got)) & 1:
            return got
        if got is None or sum(got) == sum(current):
            stuck += 1
            if stuck >= len(families):
                return None
        else:
            stuck = 0
            current = got
    return None


class Certified:
    """What ``certify`` found: per group the lowest and highest value seen in solutions
    whose total is allowed, and the questions still open: (group, mine?) pairs the base
    backbone allows and no solution seen answers."""

    __slots__ = ("high", "low", "open")

    def __init__(self, low: list[int], high: list[int], open_: list[tuple[int, bool]]) -> None:
        self.low = low
        self.high = high
        self.open = open_


def _open(
    sizes: Sequence[int], base: Backbone, low: Sequence[int], high: Sequence[int]
) -> list[tuple[int, bool]]:
    out = []
    for g, size in enumerate(sizes):
        if base.high[g] >= 1 and high[g] < 1:
            out.append((g, True))
        if base.low[g] <= size - 1 and low[g] > size - 1:
            out.append((g, False))
    return out


def certify(
    piece: Piece,
    width: int,
    allowed: int,
    base: Backbone,
    seed_for: Callable[[list[int], list[int]], list[int] | None] | None = None,
    band: int = BAND,
) -> Certified | None:
    """Certified bounds of every group among the solutions whose total is in ``allowed``
    (see ``Certified``); None when the cuts find no such solution at all.

    ``base``: the backbone without the window (its solution is the first seed);
    ``seed_for(lo, hi)``: a solution within domains, for a question the cuts around the
    seed cannot answer (None: such questions stay open)."""
    every = cuts(piece, width)
    if every is None:
        return None
    problem = piece.problem
    sizes = problem.sizes
    n = problem.n
    full: Domains = ([0] * n, list(sizes))
    seed = solve(piece, width, full, allowed, base.solution, None, None, band)
    if seed is None:
        return None
    low = list(seed)
    high = list(seed)

    def absorb(got: tuple[list[int], list[int]] | None) -> None:
        if got is None:
            return
        for g in range(n):
            if got[0][g] < low[g]:
                low[g] = got[0][g]
            if got[1][g] > high[g]:
                high[g] = got[1][g]

    for family in every.crossing(band):
        absorb(_bounds(family, seed, allowed))
    tried = 0
    for g, mine in _open(sizes, base, low, high):
        if tried >= TARGETED:
            break
        if (high[g] >= 1) if mine else (low[g] <= sizes[g] - 1):
            continue  # answered by an earlier question's solutions
        tried += 1
        lo, hi = [0] * n, list(sizes)
        if mine:
            lo[g] = 1
        else:
            hi[g] = sizes[g] - 1
        own = solve(piece, width, (lo, hi), allowed, seed, None, every.around(g, band))
        if own is None and seed_for is not None:
            start = seed_for(lo, hi)
            if start is not None:
                own = solve(piece, width, (lo, hi), allowed, start, None, None, band)
        if own is None:
            continue
        absorb((own, own))
        for family in every.crossing(band):
            if g not in family.fixed:
                absorb(_bounds(family, own, allowed))
    return Certified(low, high, _open(sizes, base, low, high))


def _bounds(
    family: Family, seed: Sequence[int], allowed: int
) -> tuple[list[int], list[int]] | None:
    cut = Cut(family, seed)
    if not cut.ok:
        return None
    try:
        return cut.bounds(allowed)
    except _dp.TooWide:
        return None


def window_bounds(
    piece: Piece,
    width: int,
    allowed: int,
    base: Backbone,
    seed_for: Callable[[list[int], list[int]], list[int] | None] | None = None,
    band: int = BAND,
) -> tuple[list[int], list[int]] | None:
    """``certify``'s bounds when they answer every question (exact then: what the base
    backbone forbids stays forbidden, everything else was seen), else None."""
    got = certify(piece, width, allowed, base, seed_for, band)
    if got is None or got.open:
        return None
    return got.low, got.high
