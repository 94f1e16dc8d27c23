"""The standard Minesweeper metrics of a game: 3BV, 3BV/s, clicks, efficiency.

3BV (Bechtel's Board Benchmark Value) is the least number of left clicks that clear a board:
one per opening (a connected region of zeros, which one click opens together with its border)
plus one per safe numbered cell that touches no zero. It depends on the board only.

A game that was lost cleared only part of its board: its **solved 3BV** counts the openings
it opened (one of their zeros is revealed: a zero opens its whole opening) and the lone
numbers it revealed, as Minesweeper players' tools report a lost game ("solved 3BV / 3BV");
its 3BV/s and efficiency are rated on what it solved. A won game solved all of its 3BV.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from devil.analysis import Layout
from devil.board import Board, Cell
from devil.generate import mine_counts
from devil.solve.grid import neighbour_fn


def bbbv(board: Board, layout: Layout) -> int:
    """The 3BV of ``layout`` on ``board``."""
    return _bbbv_units(board, layout, None)


def solved_bbbv(board: Board, layout: Layout, revealed: Iterable[Cell]) -> int:
    """The part of ``layout``'s 3BV that the ``revealed`` cells solved: the openings one of
    whose zeros is revealed, and the revealed numbers that touch no zero (mines in
    ``revealed``, as a losing click's, solve nothing)."""
    return _bbbv_units(board, layout, frozenset(revealed))


def _bbbv_units(board: Board, layout: Layout, revealed: frozenset[Cell] | None) -> int:
    """How many of the board's 3BV units (openings, lone numbers) are solved; every unit
    when ``revealed`` is None."""
    counts = mine_counts(board, layout)
    nb = neighbour_fn(board)
    cells = [c for c in board.cells() if c not in layout]
    seen = bytearray(board.size)
    total = 0
    for c in cells:
        if counts[c] != 0 or seen[c]:
            continue
        solved = revealed is None or c in revealed
        seen[c] = 1  # a new opening: flood it and its numbered border
        stack = [c]
        while stack:
            for n in nb(stack.pop()):
                if not seen[n] and n not in layout:
                    seen[n] = 1
                    if counts[n] == 0:
                        if revealed is not None and n in revealed:
                            solved = True
                        stack.append(n)
        if solved:
            total += 1
    total += sum(1 for c in cells if not seen[c] and (revealed is None or c in revealed))
    return total


@dataclass(frozen=True)
class Metrics:
    """What a game measured. ``seconds`` is None when the log has no times. ``solved``: the
    3BV the game solved (``solved_bbbv``; None means all of it, a won game's)."""

    bbbv: int
    clicks: int
    seconds: float | None
    hints: int
    max_level: int | None
    bits: float
    solved: int | None = None

    def __post_init__(self) -> None:
        if self.solved is not None and not 0 <= self.solved <= self.bbbv:
            raise ValueError(f"solved 3BV must be 0..{self.bbbv} (the 3BV), got {self.solved}")

    @property
    def solved_bbbv(self) -> int:
        return self.bbbv if self.solved is None else self.solved

    @property
    def bbbv_per_s(self) -> float | None:
        """Solved 3BV per second (a lost game is rated on what it solved)."""
        if self.seconds is None or self.seconds <= 0:
            return None
        return self.solved_bbbv / self.seconds

    @property
    def efficiency(self) -> float | None:
        """Solved 3BV per click (1.0 means no wasted click; flags count as clicks)."""
        return None if self.clicks == 0 else self.solved_bbbv / self.clicks

    def to_json(self) -> dict[str, Any]:
        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "3bv": self.bbbv,
            "solved_3bv": self.solved_bbbv,
            "3bv_per_s": rounded(self.bbbv_per_s),
            "clicks": self.clicks,
            "efficiency": rounded(self.efficiency),
            "seconds": rounded(self.seconds),
            "hints": self.hints,
            "max_level": self.max_level,
        }
