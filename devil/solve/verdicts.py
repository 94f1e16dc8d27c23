"""Per-cell verdicts and probabilities of a solved position, kept compact.

``Verdicts`` maps covered cells to their verdict without a dict entry per deep cell;
``spread`` turns a piece's weighted layout counts into per-cell probabilities;
``verdict_of`` names the verdict of a cell from whether it can be a mine and/or safe.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction

from devil.analysis import Verdict
from devil.board import Cell
from devil.position import Position
from devil.solve._count import PieceCounts
from devil.solve._frontier import covered_list
from devil.solve._pieces import Piece

__all__ = ["COVERED_BYTES", "Verdicts", "spread", "verdict_of"]

COVERED_BYTES = frozenset(b".F")
"""The grid bytes of covered cells (covered, flagged)."""


class Verdicts(Mapping[Cell, Verdict]):
    """Verdicts of a classification without a dict entry per deep cell: the frontier's
    verdicts, and one verdict shared by every other covered cell (huge boards are mostly
    deep cells; most callers look at a few cells or only at the frontier)."""

    __slots__ = ("_count", "_deep", "_frontier", "_grid", "_undecided")

    def __init__(
        self,
        position: Position,
        frontier: dict[Cell, Verdict],
        undecided: frozenset[Cell],
        deep: Verdict | None,
    ) -> None:
        self._grid = position.grid
        self._frontier = frontier
        self._undecided = undecided
        self._deep = deep
        self._count = -1

    def __getitem__(self, cell: Cell) -> Verdict:
        got = self._frontier.get(cell)
        if got is not None:
            return got
        deep = self._deep
        if (
            deep is None
            or cell in self._undecided
            or not 0 <= cell < len(self._grid)
            or self._grid[cell] not in COVERED_BYTES
        ):
            raise KeyError(cell)
        return deep

    def __iter__(self) -> Iterator[Cell]:
        frontier, undecided, deep = self._frontier, self._undecided, self._deep
        for c in covered_list(self._grid):
            if c in frontier or (deep is not None and c not in undecided):
                yield c

    def __len__(self) -> int:
        if self._count < 0:
            self._count = sum(1 for _ in self)
        return self._count


def spread(
    out: dict[Cell, Fraction],
    piece: Piece,
    counts: PieceCounts,
    weights: Sequence[int],
    norm: int,
) -> None:
    sizes = piece.problem.sizes
    for g, cells in enumerate(piece.groups):
        mined = counts.mined[g]
        num = sum(w * x for w, x in zip(weights, mined, strict=False))
        p = Fraction(num, norm * sizes[g])
        for c in cells:
            out[c] = p


def verdict_of(can_mine: bool, can_safe: bool) -> Verdict:
    if can_mine and can_safe:
        return Verdict.EITHER
    if can_mine:
        return Verdict.MINE
    if can_safe:
        return Verdict.SAFE
    raise AssertionError("a consistent position has a value for every cell")
