"""The incremental solver and the engine's entry points (``classify``, ``probabilities``,
``exact_probabilities``, ``witness``).

``Solver.analyse`` turns a position into a ``devil.solve.position_analysis.PositionAnalysis``
(the pipeline is described there); a ``Solver`` shared by successive positions of a game
only recomputes the pieces a click touched.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from fractions import Fraction

from devil.analysis import Classification, Layout, Probabilities
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import IS_NUMBER, Position
from devil.rules import Count
from devil.solve._bulk import settle
from devil.solve._frontier import (
    covered_count,
    frontier_sources,
    read_number,
)
from devil.solve._pieces import connected_sources
from devil.solve._propagate import Frontier
from devil.solve.budget import Budget
from devil.solve.grid import NeighbourFn, changed_cells, neighbour_fn
from devil.solve.piece_facts import PieceCache, PieceInfo
from devil.solve.position_analysis import PositionAnalysis
from devil.solve.verdicts import COVERED_BYTES

__all__ = [
    "BACKENDS",
    "PositionAnalysis",
    "Solver",
    "classify",
    "exact_probabilities",
    "probabilities",
    "witness",
]

BACKENDS = ("search", "cpsat")


# -- the solver ------------------------------------------------------------------------


def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")


class Solver:
    """The incremental solver used by games; caches piece results by content.

    It remembers the last position it analysed. When the next one only reveals
    cells (the normal course of a game), ``analyse`` updates the residual
    constraints around the changed cells, re-propagates from there and rebuilds
    only the pieces that changed; anything else (cells covered again, another
    board) falls back to a full build. Every ``PositionAnalysis`` it returns is an
    independent value: later calls do not change it.
    """

    def __init__(self, count: Count = Count.CLASSIC, backend: str = "search") -> None:
        _check_backend(backend)
        self.count = count
        self.backend = backend
        self._cache = PieceCache()
        self._last: Position | None = None
        self._frontier: Frontier | None = None
        self._piece_of: dict[Cell, int] = {}
        self._pieces: dict[int, tuple[list[Cell], PieceInfo]] = {}
        self._next_id = 0
        self._covered = 0
        self._nb: NeighbourFn | None = None

    def analyse(
        self,
        position: Position,
        changed: Iterable[Cell] | None = None,
        budget: Budget | None = None,
    ) -> PositionAnalysis:
        """The analysis of ``position``; ``changed``: cells that differ from the last one.

        ``budget``: the most work the analysis and every later query on it may do (its
        clock starts now); None for the exact answer however long it takes.
        """
        if self.count is Count.COUNTED:
            position.check_total()  # before any number, in plain words
        if self.backend == "cpsat":
            return self._analyse_cpsat(position)
        meter = None if budget is None or budget.unbounded else budget.start()
        if not self._update(position, changed):
            self._rebuild(position)
        assert self._frontier is not None
        infos = [info for _, info in self._pieces.values()]
        return PositionAnalysis(
            position, self.count, dict(self._frontier.known), infos, self._covered, meter
        )

    def _analyse_cpsat(self, position: Position) -> PositionAnalysis:
        """The cpsat backend: verdicts from ``devil.cpsat``, the rest from the search."""
        from devil import cpsat

        self._rebuild(position)
        assert self._frontier is not None
        infos = [info for _, info in self._pieces.values()]
        analysis = PositionAnalysis(
            position, self.count, dict(self._frontier.known), infos, self._covered
        )
        analysis._override = cpsat.classify(position, self.count)
        return analysis

    # -- full build --------------------------------------------------------------------

    def _rebuild(self, position: Position) -> None:
        self._last = None
        frontier = Frontier(position)
        settled = settle(position)
        if settled is not None:
            known, residual = settled
            frontier.known = known
            for s in sorted(residual):
                cells, need = residual[s]
                frontier.add(s, cells, need)
        else:
            nb = neighbour_fn(position.board)
            for s in frontier_sources(position):
                cells, need = read_number(position, s, nb)
                frontier.add(s, cells, need)
        frontier.run()
        frontier.take_dirty()
        self._frontier = frontier
        self._piece_of = {}
        self._pieces = {}
        self._register(connected_sources(sorted(frontier.cons), frontier.cons, frontier.sources_of))
        self._covered = covered_count(position)
        self._nb = neighbour_fn(position.board)
        self._last = position

    def _register(self, comps: list[list[Cell]]) -> None:
        assert self._frontier is not None
        piece_of = self._piece_of
        for comp in comps:
            pid = self._next_id
            self._next_id += 1
            for src in comp:
                old = piece_of.get(src)
                if old is not None:  # an untouched piece merged into this one
                    self._pieces.pop(old, None)
                piece_of[src] = pid
            self._pieces[pid] = (comp, self._cache.info(comp, self._frontier))

    # -- incremental update ------------------------------------------------------------

    def _update(self, position: Position, changed: Iterable[Cell] | None) -> bool:
        """Apply the difference from the last position; False when a full build is needed."""
        last = self._last
        frontier = self._frontier
        if last is None or frontier is None:
            return False
        if last.board is not position.board and last.board != position.board:
            return False
        if changed is None:
            changed = changed_cells(last.grid, position.grid)
        cells = list(changed)
        if len(cells) * 4 > position.board.size:
            return False
        old, new = last.grid, position.grid
        revealed: list[Cell] = []
        for c in cells:
            a, b = old[c], new[c]
            if a == b:
                continue
            if a in COVERED_BYTES and b in COVERED_BYTES:
                continue  # a flag placed or removed: not a constraint
            if a in COVERED_BYTES and IS_NUMBER[b]:
                revealed.append(c)
                continue
            return False
        self._last = None  # until the update succeeds
        try:
            frontier.position = position
            for c in revealed:
                frontier.reveal(c)
            nb = self._nb or neighbour_fn(position.board)
            for c in revealed:
                got, need = read_number(position, c, nb)
                if got:
                    frontier.add(c, got, need)
            frontier.run()
        except InconsistentPosition:
            return False  # the full build names the unsatisfiable number
        self._refresh_pieces(frontier.take_dirty())
        self._covered -= len(revealed)
        self._last = position
        return True

    def _refresh_pieces(self, dirty: set[Cell]) -> None:
        frontier = self._frontier
        assert frontier is not None
        starts: set[Cell] = set()
        for src in dirty:
            pid = self._piece_of.pop(src, None)
            if pid is not None and pid in self._pieces:
                comp, _ = self._pieces.pop(pid)
                starts.update(comp)
            starts.add(src)
        for src in starts:
            self._piece_of.pop(src, None)
        live = sorted(s for s in starts if s in frontier.cons)
        self._register(connected_sources(live, frontier.cons, frontier.sources_of))


# -- module functions ------------------------------------------------------------------


def classify(
    position: Position,
    count: Count = Count.CLASSIC,
    backend: str = "search",
    budget: Budget | None = None,
) -> Classification:
    """The verdict for every covered cell (flags are ignored).

    Raises ``InconsistentPosition`` naming an unsatisfiable number, ``ValueError`` for the
    counted rule without a mine total or an unknown backend. With a ``budget`` the
    answer may be partial (``Classification.undecided``, ``reason``).
    """
    _check_backend(backend)
    if backend == "cpsat":
        from devil import cpsat

        return cpsat.classify(position, count)
    return Solver(count).analyse(position, budget=budget).classification()


def probabilities(
    position: Position, count: Count = Count.CLASSIC, budget: Budget | None = None
) -> Probabilities[float]:
    """The exact mine probability of every covered cell (see ARCHITECTURE.md); partial
    under a ``budget`` (``Probabilities.undecided``, ``reason``)."""
    return Solver(count).analyse(position, budget=budget).probabilities()


def exact_probabilities(
    position: Position, count: Count = Count.CLASSIC, budget: Budget | None = None
) -> Probabilities[Fraction]:
    """``probabilities`` as exact fractions."""
    return Solver(count).analyse(position, budget=budget).exact_probabilities()


def witness(
    position: Position,
    cell: Cell,
    mine: bool = True,
    count: Count = Count.CLASSIC,
    rng: random.Random | None = None,
    budget: Budget | None = None,
) -> Layout | None:
    """A full consistent layout with ``cell`` mined (or safe); None when none exists.

    Raises ``BudgetExceeded`` when the ``budget`` runs out first."""
    return Solver(count).analyse(position, budget=budget).witness(cell, mine, rng)
