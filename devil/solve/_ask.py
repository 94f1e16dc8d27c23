"""One group's verdict in a piece too wide for the programme, decided when it is asked.

A click needs the verdict of one cell. On a piece the programme cannot sweep (a 2-D
lattice) the whole backbone costs a search per group (some 700 on a 40x40 lattice, about
150 ms), and under a window on the piece's total (counted rule) certifying every group by
conditioning on cuts costs as much again. ``Questions`` answers one group at a time:

- without a window: by one clause-learning solver kept for the piece
  (``devil.solve._cdcl.CdclBackbone``): at most one search per answer, and what it learns
  serves the later questions;
- inside a window (a set of allowed totals): "no" when no solution of the piece at all
  has it (a window only removes solutions); "yes" when a solution seen with an allowed
  total shows it, or when conditioning on cuts around the group (``devil.solve._cut``) finds
  one. Anything else is left to the caller's exact path: cuts that find nothing prove
  nothing.

Every "yes" is a certificate (a real solution), every "no" a search that found none, so
the answers are exact; only the work differs from deciding every group at once.
"""

from __future__ import annotations

from collections.abc import Callable

from devil.solve import _cut
from devil.solve._cdcl import CdclBackbone
from devil.solve._pieces import Piece

__all__ = ["Questions"]

SeedFor = Callable[[list[int], list[int]], "list[int] | None"]
"""A solution within domains ``(lo, hi)``, ignoring any window (None: there is none)."""


class Seen:
    """Per group, the lowest and highest value seen in a solution with an allowed total,
    and one such solution (the seed the cuts walk from)."""

    __slots__ = ("high", "low", "seed")

    def __init__(self, seed: list[int]) -> None:
        self.seed = seed
        self.low = list(seed)
        self.high = list(seed)

    def absorb(self, solution: list[int]) -> None:
        low, high = self.low, self.high
        for g, a in enumerate(solution):
            if a < low[g]:
                low[g] = a
            if a > high[g]:
                high[g] = a


class Questions:
    """Mine and safe questions about single groups of one wide piece (see the module
    docstring). ``width``: the board's width (the cuts need it; 0: no cuts)."""

    __slots__ = ("backbone", "piece", "seen", "width")

    def __init__(self, piece: Piece, width: int) -> None:
        self.piece = piece
        self.width = width
        self.backbone = CdclBackbone(piece.problem)
        self.seen: dict[int, Seen | None] = {}
        """Per allowed set of totals: what solutions with such a total showed (None: the
        cuts found none)."""

    @property
    def first(self) -> list[int] | None:
        """A solution of the piece; None when it has none."""
        return self.backbone.first

    def can_hold(self, g: int, mine: bool) -> bool:
        """Whether some solution has a mine (``mine``) or a safe cell in group ``g``."""
        return self.backbone.can_mine(g) if mine else self.backbone.can_be_safe(g)

    def window_seen(self, allowed: int) -> Seen | None:
        """What is known of the solutions whose total is in ``allowed``: None when the
        cuts find none (which proves nothing: ask the exact path)."""
        if allowed not in self.seen:
            first = self.first
            got = None
            if first is not None and self.width > 0:
                n = self.piece.problem.n
                full = ([0] * n, list(self.piece.problem.sizes))
                got = _cut.solve(self.piece, self.width, full, allowed, first)
            self.seen[allowed] = None if got is None else Seen(got)
        return self.seen[allowed]

    def window_can_hold(
        self, allowed: int, g: int, mine: bool, seed_for: SeedFor | None = None
    ) -> bool | None:
        """Whether some solution with a total in ``allowed`` has a mine (``mine``) or a
        safe cell in group ``g``; None when neither a search nor the cuts settle it."""
        size = self.piece.problem.sizes[g]
        if not self.can_hold(g, mine):
            return False
        seen = self.window_seen(allowed)
        if seen is None:
            return None
        if (seen.high[g] >= 1) if mine else (seen.low[g] <= size - 1):
            return True
        every = _cut.cuts(self.piece, self.width)
        if every is None:
            return None
        n = self.piece.problem.n
        lo, hi = [0] * n, list(self.piece.problem.sizes)
        if mine:
            lo[g] = 1
        else:
            hi[g] = size - 1
        own = _cut.solve(
            self.piece, self.width, (lo, hi), allowed, seen.seed, None, every.around(g)
        )
        if own is None and seed_for is not None:
            start = seed_for(lo, hi)
            if start is not None:
                own = _cut.solve(self.piece, self.width, (lo, hi), allowed, start)
        if own is None:
            return None
        seen.absorb(own)
        return True
