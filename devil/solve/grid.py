"""Fast reads of a board and its grid, shared by the solver, games, generation and the
ledger: one neighbour function per board (``neighbour_fn``) and one grid diff
(``changed_cells``). Compiled with the solver (mypyc): the solver's loops call both."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from devil.board import Board, Cell, Topology

__all__ = ["NeighbourFn", "changed_cells", "neighbour_fn"]

NeighbourFn = Callable[[Cell], tuple[Cell, ...]]


@lru_cache(maxsize=16)
def neighbour_fn(board: Board) -> NeighbourFn:
    """A fast ``cell -> neighbours`` function equal to ``board.neighbours``."""
    if board.topology is Topology.SQUARE and not board.holes:
        return _square_neighbours(board.height, board.width)
    if board.graph is not None:  # its neighbour lists, read directly (no memo to fill)
        return board.graph.adjacency.__getitem__
    memo: dict[Cell, tuple[Cell, ...]] = {}

    def cached(cell: Cell) -> tuple[Cell, ...]:
        out = memo.get(cell)
        if out is None:
            out = memo[cell] = board.neighbours(cell)
        return out

    return cached


def _square_neighbours(height: int, width: int) -> NeighbourFn:
    last_row = (height - 1) * width

    def neighbours(cell: Cell) -> tuple[Cell, ...]:
        col = cell % width
        left = col > 0
        right = col < width - 1
        out: list[Cell] = []
        if cell >= width:
            up = cell - width
            if left:
                out.append(up - 1)
            out.append(up)
            if right:
                out.append(up + 1)
        if left:
            out.append(cell - 1)
        if right:
            out.append(cell + 1)
        if cell < last_row:
            down = cell + width
            if left:
                out.append(down - 1)
            out.append(down)
            if right:
                out.append(down + 1)
        return tuple(out)

    return neighbours


_BLOCKS = (4096, 64)
"""Block sizes for comparing grids: big blocks to skip equal stretches, small ones to find
the changed cells without a Python loop over many equal bytes."""


def changed_cells(a: bytes, b: bytes) -> list[Cell]:
    """Cells whose byte differs between two grids of one board, in order, comparing them
    block by block (fast when few differ)."""
    if len(a) != len(b):
        raise ValueError("grids of different boards cannot be compared")
    big, small = _BLOCKS
    size = len(a)
    out: list[Cell] = []
    for start in range(0, size, big):
        if a[start : start + big] == b[start : start + big]:
            continue
        for sub in range(start, min(start + big, size), small):
            end = min(sub + small, size)
            if a[sub:end] != b[sub:end]:
                out.extend(i for i in range(sub, end) if a[i] != b[i])
    return out
