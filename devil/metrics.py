"""The standard Minesweeper metrics of a game: 3BV, 3BV/s, clicks, efficiency.

3BV (Bechtel's Board Benchmark Value) is the least number of left clicks that clear a board:
one per opening (a connected region of zeros, which one click opens together with its border)
plus one per safe numbered cell that touches no zero. It depends on the board only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from devil.analysis import Layout
from devil.board import Board
from devil.generate import mine_counts, neighbours_fn


def bbbv(board: Board, layout: Layout) -> int:
    """The 3BV of ``layout`` on ``board``."""
    counts = mine_counts(board, layout)
    nb = neighbours_fn(board)
    cells = [c for c in board.cells() if c not in layout]
    seen = bytearray(board.size)
    total = 0
    for c in cells:
        if counts[c] != 0 or seen[c]:
            continue
        total += 1  # a new opening: flood it and its numbered border
        seen[c] = 1
        stack = [c]
        while stack:
            for n in nb(stack.pop()):
                if not seen[n] and n not in layout:
                    seen[n] = 1
                    if counts[n] == 0:
                        stack.append(n)
    total += sum(1 for c in cells if not seen[c])
    return total


@dataclass(frozen=True)
class Metrics:
    """What a game measured. ``seconds`` is None when the log has no times."""

    bbbv: int
    clicks: int
    seconds: float | None
    hints: int
    max_level: int | None
    bits: float

    @property
    def bbbv_per_s(self) -> float | None:
        if self.seconds is None or self.seconds <= 0:
            return None
        return self.bbbv / self.seconds

    @property
    def efficiency(self) -> float | None:
        """3BV per click (1.0 means no wasted click; flags count as clicks)."""
        return None if self.clicks == 0 else self.bbbv / self.clicks

    def to_json(self) -> dict[str, Any]:
        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "3bv": self.bbbv,
            "3bv_per_s": rounded(self.bbbv_per_s),
            "clicks": self.clicks,
            "efficiency": rounded(self.efficiency),
            "seconds": rounded(self.seconds),
            "hints": self.hints,
            "max_level": self.max_level,
        }
