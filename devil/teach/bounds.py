"""Bounds on mines and the exact search over them: the logic core of proofs and levels.

A ``Bound`` says "between ``lo`` and ``hi`` of these covered cells are mines": one per
revealed number (``number_bounds``, exact); the counted rule adds the total (``Totals``).
A small exact search (``_System``: depth-first with unit propagation) sees only the bounds it
is given, which is what a proof needs: ``forces(bounds, cell, mine)`` asks whether those
bounds alone decide the cell.

Finding minimal proofs: ``smallest_forcing_set`` tries every connected set of one, two and
three numbers around the cell (``BoundGraph``: bounds that share a cell touch), then grows a
ball of numbers and shrinks the first one that works (``shrink``); ``smallest_counted_set``
does the same with the total count kept (``count_mask``: which totals a set of bounds
allows, by a dynamic programme). ``devil.teach.proof`` builds proofs and their levels from these,
``devil.teach.levels`` the step-by-step deducer; ``devil.teach.wording`` puts both into English.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from devil.board import Cell
from devil.budget import current
from devil.errors import InconsistentPosition
from devil.position import Position

__all__ = [
    "EXHAUSTIVE_SIZE",
    "Bound",
    "BoundGraph",
    "Totals",
    "count_mask",
    "counted_allows",
    "counted_forces",
    "feasible",
    "forces",
    "inside_outside",
    "mask_counts",
    "number_bounds",
    "shrink",
    "smallest_counted_set",
    "smallest_forcing_set",
    "solve",
]


EXHAUSTIVE_SIZE = 3
"""Every connected set of up to this many numbers is tried before growing a ball."""


@dataclass(frozen=True)
class Bound:
    """Between ``lo`` and ``hi`` of ``cells`` are mines.

    ``source`` is the revealed number the bound comes from (None for the total mine count);
    ``value`` is that number as shown, ``known`` how many mines around it were already taken
    away (deduction steps subtract mines they found).
    """

    source: Cell | None
    cells: frozenset[Cell]
    lo: int
    hi: int
    value: int = 0
    known: int = 0
    known_at: tuple[Cell, ...] = ()

    @property
    def exact(self) -> int:
        return self.lo


def number_bounds(position: Position, known: frozenset[Cell] = frozenset()) -> tuple[Bound, ...]:
    """One exact bound per revealed number that touches a covered cell (flags ignored).

    ``known``: mines already found; they are taken out of the bounds (a number next to one
    needs one mine fewer among its other cells). Raises InconsistentPosition when a number
    has more known mines around it than its value.
    """
    out = []
    for con in position.constraints:
        around = tuple(sorted(con.cells & known))
        need = con.mines - len(around)
        if need < 0:
            raise InconsistentPosition(
                f"the {con.mines} at {position.where(con.source)} has {len(around)} known mines "
                "around it",
                con.source,
            )
        cells = con.cells - known
        if not cells and need:
            raise InconsistentPosition(
                f"the {con.mines} at {position.where(con.source)} needs {need} more mines but "
                "only known "
                "mines are left around it",
                con.source,
            )
        if cells:
            out.append(Bound(con.source, cells, need, need, con.mines, len(around), around))
    return tuple(out)


@dataclass(frozen=True)
class Totals:
    """What the counted rule needs: mines left to find and covered cells left to hold them."""

    mines: int
    covered: int

    @classmethod
    def of(cls, position: Position, known: frozenset[Cell] = frozenset()) -> Totals:
        if position.mines is None:
            raise ValueError("the counted rule needs the total number of mines (position.mines)")
        covered = sum(1 for _ in position.covered_cells())
        return cls(position.mines - len(known), covered - len(known))


class _System:
    """Bounds indexed for a depth-first search with unit propagation."""

    def __init__(self, bounds: Sequence[Bound]) -> None:
        order: list[Cell] = []
        seen: set[Cell] = set()
        for bound in bounds:  # bound order keeps neighbouring cells close: early conflicts
            for c in sorted(bound.cells):
                if c not in seen:
                    seen.add(c)
                    order.append(c)
        self.cells = order
        self.index = {c: i for i, c in enumerate(order)}
        self.bound_vars = [tuple(self.index[c] for c in r.cells) for r in bounds]
        self.lo = [r.lo for r in bounds]
        self.hi = [r.hi for r in bounds]
        self.var_bounds: list[list[int]] = [[] for _ in order]
        for bi, vs in enumerate(self.bound_vars):
            for v in vs:
                self.var_bounds[v].append(bi)

    def solve(self, fixed: Mapping[Cell, bool]) -> dict[Cell, bool] | None:
        """A mine assignment of every cell satisfying all bounds and ``fixed``, or None."""
        n = len(self.cells)
        value = [-1] * n
        ones = [0] * len(self.bound_vars)
        free = [len(vs) for vs in self.bound_vars]
        trail: list[int] = []
        lo, hi, bound_vars, var_bounds = self.lo, self.hi, self.bound_vars, self.var_bounds

        def assign(v: int, val: int, queue: list[int]) -> bool:
            value[v] = val
            trail.append(v)
            ok = True
            for r in var_bounds[v]:
                free[r] -= 1
                ones[r] += val
                if ones[r] > hi[r] or ones[r] + free[r] < lo[r]:
                    ok = False
                elif free[r] and (ones[r] == hi[r] or ones[r] + free[r] == lo[r]):
                    queue.append(r)
            return ok

        def propagate(queue: list[int]) -> bool:
            while queue:
                r = queue.pop()
                if not free[r]:
                    continue
                val = 0 if ones[r] == hi[r] else 1 if ones[r] + free[r] == lo[r] else -1
                if val < 0:
                    continue
                for v in bound_vars[r]:
                    if value[v] < 0 and not assign(v, val, queue):
                        return False
            return True

        def undo(to: int) -> None:
            while len(trail) > to:
                v = trail.pop()
                val = value[v]
                value[v] = -1
                for r in var_bounds[v]:
                    free[r] += 1
                    ones[r] -= val

        queue: list[int] = []
        for r in range(len(bound_vars)):
            if lo[r] > free[r] or hi[r] < 0:
                return None
            if free[r] and (hi[r] == 0 or free[r] == lo[r]):
                queue.append(r)
        for cell, mine in fixed.items():
            v = self.index.get(cell)
            if v is None:
                continue
            if value[v] >= 0:
                if value[v] != int(mine):
                    return None
                continue
            if not assign(v, int(mine), queue):
                return None
        if not propagate(queue):
            return None

        stack: list[tuple[int, int, int]] = []  # (trail length, var, value still to try or -1)
        cursor = 0
        meter = current()  # a caller's devil.budget (the web pages bound proofs and steps)
        while True:
            if meter is not None:
                meter.charge()
            while cursor < n and value[cursor] >= 0:
                cursor += 1
            if cursor == n:
                return {self.cells[i]: bool(value[i]) for i in range(n)}
            v = cursor
            stack.append((len(trail), v, 1))
            q: list[int] = []
            ok = assign(v, 0, q) and propagate(q)
            while not ok:
                if not stack:
                    return None
                mark, v2, alt = stack.pop()
                undo(mark)
                cursor = min(cursor, v2)
                if alt < 0:
                    continue
                stack.append((mark, v2, -1))
                q = []
                ok = assign(v2, alt, q) and propagate(q)
            cursor = 0


def feasible(bounds: Sequence[Bound], fixed: Mapping[Cell, bool] | None = None) -> bool:
    """Whether some assignment satisfies every bound and ``fixed``."""
    return _System(bounds).solve(fixed or {}) is not None


def solve(
    bounds: Sequence[Bound], fixed: Mapping[Cell, bool] | None = None
) -> dict[Cell, bool] | None:
    """One assignment of the cells the bounds touch satisfying them and ``fixed``, or None."""
    return _System(bounds).solve(fixed or {})


def forces(bounds: Sequence[Bound], cell: Cell, mine: bool) -> bool:
    """Whether ``bounds`` alone force ``cell`` to be a mine (``mine``) or safe (not ``mine``)."""
    return _System(bounds).solve({cell: not mine}) is None


class BoundGraph:
    """Bounds as a graph: two bounds touch when they share a covered cell."""

    def __init__(self, bounds: Sequence[Bound]) -> None:
        self.bounds = tuple(bounds)
        self.by_cell: dict[Cell, list[int]] = {}
        for i, r in enumerate(self.bounds):
            for c in r.cells:
                self.by_cell.setdefault(c, []).append(i)
        self._adj: dict[int, frozenset[int]] = {}

    def adjacent(self, i: int) -> frozenset[int]:
        got = self._adj.get(i)
        if got is None:
            got = frozenset(j for c in self.bounds[i].cells for j in self.by_cell[c] if j != i)
            self._adj[i] = got
        return got

    def touching(self, cell: Cell) -> tuple[int, ...]:
        return tuple(self.by_cell.get(cell, ()))

    def layers(self, cell: Cell) -> list[list[int]]:
        """Bounds by distance from ``cell``: first those touching it, then their neighbours..."""
        return self.layers_from(list(self.touching(cell)))

    def layers_from(self, first: list[int]) -> list[list[int]]:
        """Bounds by distance from the bounds ``first`` (breadth-first over shared cells)."""
        seen = set(first)
        out = [first] if first else []
        frontier = first
        while frontier:
            nxt: list[int] = []
            for i in frontier:
                for j in sorted(self.adjacent(i)):
                    if j not in seen:
                        seen.add(j)
                        nxt.append(j)
            if nxt:
                out.append(nxt)
            frontier = nxt
        return out

    def component(self, cell: Cell) -> list[int]:
        return [i for layer in self.layers(cell) for i in layer]


def _connected_sets(graph: BoundGraph, cell: Cell, size: int) -> Iterable[frozenset[int]]:
    """Connected sets of ``size`` bounds with at least one touching ``cell``, each once."""
    seen: set[frozenset[int]] = set()
    current = {frozenset((i,)) for i in graph.touching(cell)}
    for _ in range(size - 1):
        grown: set[frozenset[int]] = set()
        for group in current:
            around = set().union(*(graph.adjacent(i) for i in group)) - group
            for j in around:
                grown.add(group | {j})
        current = grown
    for group in sorted(current, key=sorted):
        if group not in seen:
            seen.add(group)
            yield group


def shrink(bounds: Sequence[Bound], holds: Any, keep: Sequence[Bound] = ()) -> list[Bound]:
    """Drop bounds one at a time (last first) while ``holds(bounds)`` stays true: a minimal set.

    ``keep`` bounds are always passed along (e.g. the count) and never dropped.
    """
    chosen = list(bounds)
    for bound in reversed(list(bounds)):
        trial = [r for r in chosen if r is not bound]
        if holds([*trial, *keep]):
            chosen = trial
    return chosen


def smallest_forcing_set(
    graph: BoundGraph, cell: Cell, mine: bool, max_exhaustive: int = EXHAUSTIVE_SIZE
) -> list[Bound] | None:
    """A minimal set of bounds forcing ``cell`` (fewest numbers when at most ``max_exhaustive``)."""
    for size in range(1, max_exhaustive + 1):
        for group in _connected_sets(graph, cell, size):
            bounds = [graph.bounds[i] for i in sorted(group)]
            if forces(bounds, cell, mine):
                return bounds
    ball: list[int] = []
    for layer in graph.layers(cell):
        ball.extend(layer)
        if len(ball) <= max_exhaustive:
            continue
        bounds = [graph.bounds[i] for i in ball]
        if forces(bounds, cell, mine):
            return shrink(bounds, lambda rs: forces(rs, cell, mine))
    return None


def count_mask(bounds: Sequence[Bound], fixed: Mapping[Cell, bool]) -> int:
    """Which totals of mines, over the cells ``bounds`` (and ``fixed``) touch, some assignment
    allows: bit ``k`` is set when some assignment satisfying every bound and ``fixed`` has ``k``.

    A dynamic programme along the cells in breadth-first order: the state is how many mines each
    bound that is still open (some cells decided, some not) has received, so a long thin frontier
    costs time linear in its length.
    """
    order: list[Cell] = []
    seen: set[Cell] = set()
    by_cell: dict[Cell, list[int]] = {}
    for i, r in enumerate(bounds):
        for c in r.cells:
            by_cell.setdefault(c, []).append(i)
    for start in sorted(by_cell):
        if start in seen:
            continue
        seen.add(start)
        queue = [start]
        while queue:
            c = queue.pop(0)
            order.append(c)
            for bi in by_cell[c]:
                for d in sorted(bounds[bi].cells):
                    if d not in seen:
                        seen.add(d)
                        queue.append(d)
    extra = sorted(c for c in fixed if c not in by_cell)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for pos, c in enumerate(order):
        for bi in by_cell[c]:
            first.setdefault(bi, pos)
            last[bi] = pos
    for bi in range(len(bounds)):
        if bounds[bi].lo > len(bounds[bi].cells) or bounds[bi].hi < 0:
            return 0
    left = [len(r.cells) for r in bounds]

    open_bounds: list[int] = []
    states: dict[tuple[int, ...], int] = {(): 1}
    meter = current()
    for pos, c in enumerate(order):
        if meter is not None:
            meter.charge(len(states))
        touching = by_cell[c]
        new_open = open_bounds + [bi for bi in touching if first[bi] == pos]
        slot = {bi: k for k, bi in enumerate(new_open)}
        for bi in touching:
            left[bi] -= 1
        keep = [bi for bi in new_open if last[bi] != pos]
        keep_slots = [slot[bi] for bi in keep]
        values = (0, 1) if c not in fixed else (int(fixed[c]),)
        nxt: dict[tuple[int, ...], int] = {}
        grow = len(new_open) - len(open_bounds)
        for state, mask in states.items():
            base = list(state) + [0] * grow
            for v in values:
                cur = base
                if v:
                    cur = base.copy()
                    for bi in touching:
                        cur[slot[bi]] += 1
                ok = True
                for bi in touching:
                    got = cur[slot[bi]]
                    if got > bounds[bi].hi or got + left[bi] < bounds[bi].lo:
                        ok = False
                        break
                if not ok:
                    continue
                key = tuple(cur[k] for k in keep_slots)
                nxt[key] = nxt.get(key, 0) | (mask << v)
        states = nxt
        open_bounds = keep
        if not states:
            return 0
    total = 0
    for mask in states.values():
        total |= mask
    for c in extra:
        total = total << 1 if fixed[c] else total
    return total


def mask_counts(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def inside_outside(totals: Totals, bounds: Sequence[Bound], cell: Cell) -> tuple[int, int]:
    """(cells the bounds and ``cell`` touch, covered cells outside them)."""
    inside = len(frozenset(c for r in bounds for c in r.cells) | {cell})
    return inside, totals.covered - inside


def counted_allows(totals: Totals, bounds: Sequence[Bound], cell: Cell, mine: bool) -> bool:
    """Whether ``bounds`` plus the total count allow ``cell`` to be a mine (``mine``) or safe."""
    _, outside = inside_outside(totals, bounds, cell)
    mask = count_mask(bounds, {cell: mine})
    low = max(0, totals.mines - outside)
    return any(low <= k <= totals.mines for k in mask_counts(mask))


def counted_forces(totals: Totals, bounds: Sequence[Bound], cell: Cell, mine: bool) -> bool:
    """Whether ``bounds`` plus the total count force ``cell`` (``mine``: to be a mine)."""
    return not counted_allows(totals, bounds, cell, not mine)


def smallest_counted_set(
    position: Position, cell: Cell, mine: bool, bounds: Sequence[Bound], totals: Totals
) -> list[Bound]:
    """A minimal set of numbers that, with the count, forces ``cell``.

    Whole groups of touching numbers are dropped first (cheap), then single numbers.
    """
    graph = BoundGraph(bounds)
    groups: list[list[Bound]] = []
    placed: set[int] = set()
    for i in range(len(bounds)):
        if i in placed:
            continue
        comp = [j for layer in graph.layers_from([i]) for j in layer]
        placed.update(comp)
        groups.append([bounds[j] for j in comp])
    # nearest groups last, so they are the last candidates to drop
    groups.sort(key=lambda g: -min(_distance(position, cell, c) for r in g for c in r.cells))

    def holds(rs: Sequence[Bound]) -> bool:
        return counted_forces(totals, rs, cell, mine)

    kept: list[list[Bound]] = []
    for gi, group in enumerate(groups):
        rest = [r for g in kept for r in g] + [r for g in groups[gi + 1 :] for r in g]
        if not holds(rest):
            kept.append(group)
    return shrink([r for g in kept for r in g], holds)


def _distance(position: Position, a: Cell, b: Cell) -> int:
    ra, ca = position.board.coord(a)
    rb, cb = position.board.coord(b)
    return max(abs(ra - rb), abs(ca - cb))
