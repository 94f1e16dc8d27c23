"""What is known about one piece of the frontier, computed on first use and cached by content.

A piece (``devil._components.Piece``) is an independent part of the residual constraints.
``PieceInfo`` holds its facts: the backbone (which groups can hold a mine or a safe cell),
the backbone inside a window on its total (counted rule), its fewest and most mines, its
achievable totals and its layout counts. Each is computed once, by the cheapest engine that
answers exactly: the frontier programme (``devil._count``), then the plain search
(``devil._search``), then clause learning (``devil._cdcl``).

``PieceCache`` keeps them by content (the piece's residual constraints), so a ``Solver``
shared by successive positions only recomputes the pieces a click touched.
"""

from __future__ import annotations

import importlib.util

from devil import bits
from devil._cdcl import Cdcl, cdcl_backbone
from devil._components import Piece, PieceKey, make_piece
from devil._count import (
    PieceCounts,
    count_by_frontier,
    count_by_search,
    totals_by_frontier,
    window_bounds_by_frontier,
)
from devil._propagate import Frontier
from devil._search import Backbone, GroupProblem, TooHard, Window, backbone
from devil.board import Cell

__all__ = ["SEARCH_BUDGET", "PieceCache", "PieceInfo", "dp_totals", "has_total"]

CACHE_LIMIT = 50_000
"""Pieces a cache holds before it starts again (a bound on memory)."""


class PieceInfo:
    """What is known about one piece; every field is filled on first use."""

    __slots__ = ("_backbone", "_counts", "_range", "_totals", "_windowed", "piece")

    def __init__(self, piece: Piece) -> None:
        self.piece = piece
        self._backbone: Backbone | None = None
        self._range: tuple[int, int] | None = None
        self._totals: int | None = None
        self._counts: PieceCounts | None = None
        self._windowed: dict[Window, Backbone | None] = {}

    def backbone(self) -> Backbone | None:
        if self._backbone is None:
            self._backbone = _backbone(self.piece.problem, None)
        return self._backbone

    def windowed(self, window: Window) -> Backbone | None:
        """The backbone among solutions whose total lies in the window."""
        if window not in self._windowed:
            lo, hi, allowed = window
            if allowed is None:
                allowed = bits.interval(lo, hi)
            got = window_bounds_by_frontier(self.piece.problem, allowed)
            if got is not None:
                low, high = got
                ok = all(h >= 0 for h in high)
                self._windowed[window] = Backbone(low, high, []) if ok else None
            else:
                self._windowed[window] = _windowed_backbone(
                    self.piece.problem, allowed, self.backbone()
                )
        return self._windowed[window]

    def mine_range(self) -> tuple[int, int]:
        """The fewest and most mines a solution of the piece can have."""
        if self._range is None:
            problem = self.piece.problem
            if self._totals is None:
                self._totals = totals_by_frontier(problem)
            if self._totals is not None:
                mask = self._totals
                self._range = (bits.lowest(mask), mask.bit_length() - 1)
            else:
                self._range = (_extreme(problem, lowest=True), _extreme(problem, lowest=False))
        return self._range

    def totals(self) -> int:
        """Bitmask of the achievable mine totals of the piece."""
        if self._totals is None:
            self._totals = totals_by_frontier(self.piece.problem)
        if self._totals is None:
            low, high = self.mine_range()
            problem = self.piece.problem
            mask = 0
            for k in range(low, high + 1):
                if Cdcl(problem, (k, k, None)).solve() is not None:
                    mask |= 1 << k
            self._totals = mask
        return self._totals

    def counts(self) -> PieceCounts:
        if self._counts is None:
            problem = self.piece.problem
            self._counts = count_by_frontier(problem) or count_by_search(problem)
        return self._counts


def _extreme(problem: GroupProblem, lowest: bool) -> int:
    """The fewest (or most) mines of a solution: improve a solution until none is better."""
    best = Cdcl(problem).solve()
    if best is None:
        raise ValueError("piece has no solution")
    value = sum(best)
    total = sum(problem.sizes)
    while True:
        window: Window = (0, value - 1, None) if lowest else (value + 1, total, None)
        if window[0] > window[1]:
            return value
        sol = Cdcl(problem, window).solve()
        if sol is None:
            return value
        value = sum(sol)


def dp_totals(info: PieceInfo) -> bool:
    """Whether the piece's achievable totals are known (computing them by the programme)."""
    if info._totals is None:
        info._totals = totals_by_frontier(info.piece.problem)
    return info._totals is not None


def has_total(info: PieceInfo, low: int, high: int) -> bool:
    """Whether some solution of the piece has between ``low`` and ``high`` mines."""
    if high < low:
        return False
    if info._totals is None:
        info._totals = totals_by_frontier(info.piece.problem)
    if info._totals is not None:
        return bool(info._totals & bits.interval(low, high))
    return Cdcl(info.piece.problem, (low, high, None)).solve() is not None


def _cpsat_installed() -> bool:
    """Whether OR-Tools can be imported (looked up, not imported: only ``devil.cpsat`` does)."""
    return importlib.util.find_spec("ortools") is not None


_WINDOW_CONFLICTS: int | None = 1_000 if _cpsat_installed() else None
"""A window on a piece's total (counted rule, no room in the deep cells) is one
cardinality over every cell, which clause learning handles badly: past this many
conflicts the position goes to ``devil.cpsat`` when it is installed. Without it the
pure-Python search carries on to the exact answer, however long it takes."""

SEARCH_BUDGET = 3_000
"""Values the plain search may try per query before a piece goes to the CDCL solver."""


def _backbone(
    problem: GroupProblem,
    window: Window | None,
    base: Backbone | None = None,
    max_conflicts: int | None = None,
) -> Backbone | None:
    """Plain search first; the conflict-driven solver when it thrashes.

    ``base``: the backbone without the window; groups it proves all-safe or all-mine stay
    so (a window only removes solutions), which spares the searches proving them again.
    """
    lo: list[int] | None = None
    hi: list[int] | None = None
    if base is not None:
        sizes = problem.sizes
        lo = [sizes[g] if base.low[g] == sizes[g] else 0 for g in range(problem.n)]
        hi = [0 if base.high[g] == 0 else sizes[g] for g in range(problem.n)]
    try:
        return backbone(problem, window, lo, hi, budget=SEARCH_BUDGET)
    except TooHard:
        got = cdcl_backbone(problem, window, lo, hi, max_conflicts)
        return None if got is None else Backbone(*got)


def _windowed_backbone(
    problem: GroupProblem, allowed: int, base: Backbone | None = None
) -> Backbone | None:
    """The backbone among solutions whose total is in ``allowed`` (one run per run of bits).

    Raises ``TooHard`` when CP-SAT is installed and the CDCL solver struggles."""
    merged: Backbone | None = None
    k = 0
    while allowed >> k:
        if not (allowed >> k) & 1:
            k += 1
            continue
        start = k
        while (allowed >> k) & 1:
            k += 1
        got = _backbone(problem, (start, k - 1, None), base, _WINDOW_CONFLICTS)
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


class PieceCache:
    """Piece facts by content, shared by every position a ``Solver`` sees."""

    def __init__(self) -> None:
        self.pieces: dict[PieceKey, PieceInfo] = {}

    def info(self, sources: list[Cell], frontier: Frontier) -> PieceInfo:
        cons = frontier.cons
        key = frozenset(cons[s] for s in sources)
        got = self.pieces.get(key)
        if got is None:
            if len(self.pieces) > CACHE_LIMIT:
                self.pieces.clear()
            got = self.pieces[key] = PieceInfo(make_piece(sources, cons))
        return got
