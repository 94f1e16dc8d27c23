"""What is known about one piece of the frontier, asked of the one engine that fits it.

A piece (``devil.solve._pieces.Piece``) is an independent part of the residual constraints.
``PieceInfo`` answers every question about it (the backbone, the backbone inside a window
on its total, its fewest and most mines, its achievable totals, its layout counts, a
solution within domains or with a given total) by asking its engine, chosen once when the
piece is built (``choose``; ``devil.solve._engine`` states the interface): its solution
list when small, the programme swept along the board when narrow, searches, clause
learning and cuts when wide. A swept engine
that finds the piece too wide hands it over to a wide one, once; the piece keeps it.

``PieceCache`` keeps them by content (the piece's residual constraints), so a ``Solver``
shared by successive positions only recomputes the pieces a click touched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from devil.board import Cell
from devil.solve._count import PieceCounts
from devil.solve._engine import WIDE_OPEN, Engine, plan_open
from devil.solve._pieces import Piece, PieceKey, make_piece, piece_key
from devil.solve._propagate import Frontier
from devil.solve._search import Backbone, TotalWindow
from devil.solve._small import SMALL_LAYOUTS, SmallEngine, layouts_at_most
from devil.solve._wide import SweptEngine, WideEngine

__all__ = ["PieceCache", "PieceInfo", "choose", "piece_from"]

CACHE_LIMIT = 50_000
"""Pieces a cache holds before it starts again (a bound on memory)."""


def choose(piece: Piece, width: int, wide: bool) -> Engine:
    """The engine that fits the piece, chosen once: its solution list when small
    (``devil.solve._small``), else the programme when its plan is narrow, else the wide
    engine (``devil.solve._wide``). ``wide``: known already to be too wide (a piece merged
    from one that was)."""
    if layouts_at_most(piece.problem.sizes, SMALL_LAYOUTS):
        return SmallEngine(piece, width, wide)
    if not wide and len(piece.problem.cons) > WIDE_OPEN:  # else it cannot keep more open
        wide = plan_open(piece, width) > WIDE_OPEN
    if wide:
        return WideEngine(piece, width)
    return SweptEngine(piece, width, None)


class PieceInfo:
    """One piece and its engine; every fact is computed on first use and kept.

    ``width``: the board's width, to place each group on the board (row, column) so the
    programme can sweep along the board; 0 when unknown. ``wide``: known already to be too
    wide for the programme (a piece merged from one that was).
    """

    __slots__ = ("_engine", "_group_index", "piece", "width")

    def __init__(self, piece: Piece, width: int = 0, wide: bool = False) -> None:
        self.piece = piece
        self.width = width
        self._group_index: dict[Cell, int] | None = None
        self._engine = choose(piece, width, wide)

    def engine(self) -> Engine:
        """The piece's engine: the one chosen when it was built, or the one that engine
        handed the piece over to (``Engine.handed_to``), kept from then on."""
        engine = self._engine
        handed = engine.handed_to
        if handed is not None:
            self._engine = engine = handed
        return engine

    def group_index(self) -> dict[Cell, int]:
        """The group of every cell of the piece (do not change it: it is shared)."""
        if self._group_index is None:
            self._group_index = {c: g for g, cells in enumerate(self.piece.groups) for c in cells}
        return self._group_index

    def wide(self) -> bool:
        """Whether the piece is too wide for the programme."""
        return self.engine().wide()

    # -- the backbone ----------------------------------------------------------------------

    def backbone(self) -> Backbone | None:
        """Per group the lowest and highest value of a solution; None: there is none."""
        return self.engine().backbone()

    def known_backbone(self) -> Backbone | None:
        """The backbone if it is known already (costs nothing), else None."""
        return self.engine().known_backbone()

    def windowed(self, window: TotalWindow) -> Backbone | None:
        """The backbone among solutions whose total lies in the window."""
        return self.engine().windowed(window)

    def has_window_solution(self, window: TotalWindow) -> bool:
        """Whether some solution has a total in ``window``."""
        return self.engine().has_window_solution(window)

    def answers_alone(self, window: TotalWindow | None) -> bool:
        """Whether ``can_hold`` answers one group's question without deciding them all."""
        return self.engine().answers_alone(window)

    def can_hold(self, g: int, mine: bool, window: TotalWindow | None = None) -> bool:
        """Whether some solution (with a total in ``window``) has a mine (``mine``) or a
        safe cell in group ``g``."""
        return self.engine().can_hold(g, mine, window)

    def solution(self) -> list[int] | None:
        """A solution of the piece (None: it has none)."""
        return self.engine().solution()

    # -- totals ----------------------------------------------------------------------------

    def cheap_totals(self) -> int | None:
        """The achievable totals when known without a search per total, else None (the
        piece is too wide for the programme)."""
        return self.engine().cheap_totals()

    def totals(self) -> int:
        """Bitmask of the achievable mine totals of the piece."""
        return self.engine().totals()

    def mine_range(self) -> tuple[int, int]:
        """The fewest and most mines a solution of the piece can have."""
        return self.engine().mine_range()

    def has_total(self, low: int, high: int) -> bool:
        """Whether some solution of the piece has between ``low`` and ``high`` mines."""
        return self.engine().has_total(low, high)

    def cheap_totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int | None:
        """``totals_within`` when the programme or the solution list answers it, else None
        (the piece is too wide: known now, if it was not before)."""
        return self.engine().cheap_totals_within(lo, hi)

    def totals_within(self, lo: Sequence[int], hi: Sequence[int]) -> int:
        """Bitmask of the totals of the solutions with ``lo[g] <= value[g] <= hi[g]``
        (witnesses: the clicked cell's group pinned)."""
        return self.engine().totals_within(lo, hi)

    def counts(self) -> PieceCounts:
        """Cell layouts per mine total and the mines per group summed over them."""
        return self.engine().counts()

    # -- witnesses -------------------------------------------------------------------------

    def solve_within(
        self, lo: Sequence[int], hi: Sequence[int], rng: random.Random | None
    ) -> list[int] | None:
        """A solution within the domains (witnesses: at most one group pinned to "a mine"
        or "a safe cell"), or None."""
        return self.engine().solve_within(lo, hi, rng)

    def solve_total(
        self, lo: Sequence[int], hi: Sequence[int], total: int, rng: random.Random | None
    ) -> list[int] | None:
        """A solution within the domains with exactly ``total`` mines, or None."""
        return self.engine().solve_total(lo, hi, total, rng)


def piece_from(constraints: Sequence[tuple[frozenset[Cell], int]], width: int = 0) -> PieceInfo:
    """A piece made of ``(cells, mines among them)`` constraints that share cells (a
    proof's bounds, ``devil.teach.bounds``), with its engine."""
    cons = dict(enumerate(constraints))
    return PieceInfo(make_piece(list(cons), cons), width)


class PieceCache:
    """Piece facts by content, shared by every position a ``Solver`` sees."""

    def __init__(self) -> None:
        self.pieces: dict[PieceKey, PieceInfo] = {}

    def info(self, sources: list[Cell], frontier: Frontier) -> PieceInfo:
        cons = frontier.cons
        key = piece_key(sources, cons)
        got = self.pieces.get(key)
        if got is None:
            if len(self.pieces) > CACHE_LIMIT:
                self.pieces.clear()
            width = frontier.position.board.width
            got = self.pieces[key] = PieceInfo(make_piece(sources, cons, key), width)
        return got
