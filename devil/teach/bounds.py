"""Bounds on mines and the exact questions asked of them: the logic core of proofs and levels.

A ``Bound`` says "between ``lo`` and ``hi`` of these covered cells are mines" (every bound
here is exact, ``lo == hi``): one per revealed number (``number_bounds``); the counted rule
adds the total (``Totals``). The questions go to the solver's engines (``devil.solve``):
the bounds a proof chose are made into the solver's problem (``_Problem``: one piece per
connected set of bounds, each with the engine that fits it), which sees only those bounds,
which is what a proof needs: ``forces(bounds, cell, mine)`` asks whether they alone decide
the cell, ``count_mask`` which totals they allow.

Finding minimal proofs: ``smallest_forcing_set`` tries every connected set of one, two and
three numbers around the cell (``BoundGraph``: bounds that share a cell touch), then grows a
ball of numbers and shrinks the first one that works (``shrink``); ``smallest_counted_set``
does the same with the total count kept (``count_mask``). ``devil.teach.proof`` builds proofs
and their levels from these, ``devil.teach.levels`` the step-by-step deducer;
``devil.teach.wording`` puts both into English.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.solve.bits import sumset
from devil.solve.piece_facts import PieceInfo, piece_from

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


class _Problem:
    """The bounds as the solver's problem (``devil.solve``): one piece per connected set of
    bounds, in group form (cells in exactly the same bounds form one group), each asked
    of the one engine that fits it (``devil.solve.piece_facts.PieceInfo``). Fixed cells
    narrow their group's domain: its fixed mines are its lowest count, its fixed safe
    cells take room off its highest.

    The engines see only these bounds, which is what a proof needs. Bounds are exact (a
    revealed number's count): the solver's constraints are."""

    def __init__(self, bounds: Sequence[Bound]) -> None:
        for bound in bounds:
            if bound.lo != bound.hi:
                raise ValueError(f"a bound must be exact for the solver, not {bound}")
        self.cells = frozenset(c for r in bounds for c in r.cells)
        self.pieces: list[PieceInfo] = []
        for comp in _components(bounds):
            self.pieces.append(piece_from([(bounds[i].cells, bounds[i].lo) for i in comp]))

    def _domains(
        self, info: PieceInfo, fixed: Mapping[Cell, bool]
    ) -> tuple[list[int], list[int]] | None:
        """Each group's count within its fixed cells; None when they contradict."""
        lo = [0] * len(info.piece.groups)
        hi = list(info.piece.problem.sizes)
        if fixed:
            index = info.group_index()
            for cell, mine in fixed.items():
                g = index.get(cell)
                if g is None:
                    continue
                if mine:
                    lo[g] += 1
                else:
                    hi[g] -= 1
                if lo[g] > hi[g]:
                    return None
        return lo, hi

    def solve(self, fixed: Mapping[Cell, bool]) -> dict[Cell, bool] | None:
        """A mine assignment of every cell satisfying all bounds and ``fixed``, or None."""
        out: dict[Cell, bool] = {}
        for info in self.pieces:
            domains = self._domains(info, fixed)
            if domains is None:
                return None
            sol = info.solve_within(*domains, None)
            if sol is None:
                return None
            for cells, k in zip(info.piece.groups, sol, strict=True):
                mined = [c for c in cells if fixed.get(c) is True]  # fixed mines first
                free = [c for c in cells if c not in fixed]
                mined.extend(free[: k - len(mined)])
                out.update((c, c in mined) for c in cells)
        return out

    def totals(self, fixed: Mapping[Cell, bool]) -> int:
        """Bitmask of the mine totals over the bounds' cells (and ``fixed``) of the
        assignments satisfying every bound and ``fixed``."""
        total = 1
        for info in self.pieces:
            domains = self._domains(info, fixed)
            if domains is None:
                return 0
            total = sumset(total, info.totals_within(*domains))
            if not total:
                return 0
        for cell, mine in fixed.items():
            if mine and cell not in self.cells:
                total <<= 1
        return total


def _components(bounds: Sequence[Bound]) -> list[list[int]]:
    """The bounds' indices by connected set (bounds that share a cell), each sorted."""
    parent = list(range(len(bounds)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[Cell, int] = {}
    for i, bound in enumerate(bounds):
        for c in bound.cells:
            j = owner.setdefault(c, i)
            if j != i:
                parent[find(i)] = find(j)
    comps: dict[int, list[int]] = {}
    for i in range(len(bounds)):
        comps.setdefault(find(i), []).append(i)
    return list(comps.values())


def feasible(bounds: Sequence[Bound], fixed: Mapping[Cell, bool] | None = None) -> bool:
    """Whether some assignment satisfies every bound and ``fixed``."""
    return _Problem(bounds).solve(fixed or {}) is not None


def solve(
    bounds: Sequence[Bound], fixed: Mapping[Cell, bool] | None = None
) -> dict[Cell, bool] | None:
    """One assignment of the cells the bounds touch satisfying them and ``fixed``, or None."""
    return _Problem(bounds).solve(fixed or {})


def forces(bounds: Sequence[Bound], cell: Cell, mine: bool) -> bool:
    """Whether ``bounds`` alone force ``cell`` to be a mine (``mine``) or safe (not ``mine``)."""
    return _Problem(bounds).solve({cell: not mine}) is None


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
    allows: bit ``k`` is set when some assignment satisfying every bound and ``fixed`` has ``k``
    (the solver's engines: a long thin frontier costs time linear in its length)."""
    return _Problem(bounds).totals(fixed)


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
