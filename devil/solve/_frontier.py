"""Step 1 of the solver: read the revealed numbers that touch covered cells.

The solver never calls ``Position.constraints`` on big boards: that walks every
revealed cell through ``Board.neighbours``, which costs tens of milliseconds at
300x300. Instead:

- ``devil.solve.grid.neighbour_fn(board)`` gives a fast neighbour function (plain
  arithmetic for square boards, a memo of ``Board.neighbours`` for the other topologies);
- ``frontier_sources(position)`` finds the revealed cells with a covered neighbour
  with whole-board big-integer masks (one byte per cell) on square boards, so the
  Python loop only visits the frontier;
- ``read_number(...)`` turns one such cell into ``(cells, need)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final, cast

from devil.board import Cell, Topology
from devil.errors import InconsistentPosition
from devil.position import IS_NUMBER, NUMBER_VALUE, Position
from devil.solve.grid import NeighbourFn, neighbour_fn

_COVERED = frozenset(b".F")
_ZERO: Final = ord("0")

# bytes.translate tables: covered cells -> 1, revealed numbers -> 1, everything else -> 0.
# ``Final``: the compiled loops read them per neighbour, and a Final global is a C static
# (any other global is a dictionary lookup each time).
_COVER_TABLE: Final = bytes(1 if b in _COVERED else 0 for b in range(256))
_NUMBER_TABLE: Final = IS_NUMBER  # 0-8, and above 8 on graph boards (devil.position)
_POSITIVE_TABLE = bytes(1 if IS_NUMBER[b] and NUMBER_VALUE[b] else 0 for b in range(256))
_VALUE: Final = NUMBER_VALUE


@lru_cache(maxsize=16)
def _column_masks(height: int, width: int) -> tuple[int, int, int]:
    """Byte masks over the board: all cells, cells not in the last column, not in the first."""
    row_all = b"\x01" * width
    row_not_last = b"\x01" * (width - 1) + b"\x00"
    row_not_first = b"\x00" + b"\x01" * (width - 1)
    return (
        int.from_bytes(row_all * height, "little") * 0xFF,
        int.from_bytes(row_not_last * height, "little"),
        int.from_bytes(row_not_first * height, "little"),
    )


def _dilate(mask: int, height: int, width: int) -> int:
    """The cells of ``mask`` and every cell touching one (square board, byte per cell)."""
    full, not_last, not_first = _column_masks(height, width)
    row = mask | ((mask & not_last) << 8) | ((mask & not_first) >> 8)
    shift = 8 * width
    return (row | (row << shift) | (row >> shift)) & full


def one_positions(data: bytes) -> list[int]:
    """The offsets of the bytes of ``data`` that are 1, in increasing order; every other
    byte must be 0 (the masks here: a byte per cell, 1 where the cell is in the set).

    One split in C, then the lengths of the runs of zeros between the ones: a regular
    expression made a match object per cell (a sixth of a big board's classification)."""
    runs = data.split(b"\x01")
    out: list[int] = []
    at = -1
    for i in range(len(runs) - 1):
        at += len(runs[i]) + 1
        out.append(at)
    assert data.count(0) + len(out) == len(data), "a byte other than 0 and 1"
    return out


def _byte_positions(mask: int, size: int) -> list[int]:
    return one_positions(mask.to_bytes(size, "little"))


def frontier_sources(position: Position) -> list[Cell]:
    """Revealed cells that touch at least one covered cell, in increasing order.

    Raises ``InconsistentPosition`` for a revealed non-zero number with no covered
    neighbour at all (it can never be satisfied).
    """
    board = position.board
    grid = position.grid
    if board.topology is Topology.SQUARE:
        covered = int.from_bytes(grid.translate(_COVER_TABLE), "little")
        numbers = int.from_bytes(grid.translate(_NUMBER_TABLE), "little")
        near = _dilate(covered, board.height, board.width)
        positive = int.from_bytes(grid.translate(_POSITIVE_TABLE), "little")
        isolated = positive & ~near
        if isolated:
            cell = _byte_positions(isolated, board.size)[0]
            raise InconsistentPosition.too_few(position, cell, NUMBER_VALUE[grid[cell]], 0)
        return _byte_positions(numbers & near, board.size)
    nb = neighbour_fn(board)
    out = []
    for cell in one_positions(grid.translate(_NUMBER_TABLE)):
        for n in nb(cell):
            if _COVER_TABLE[grid[n]]:
                out.append(cell)
                break
        else:
            if grid[cell] != _ZERO:
                raise InconsistentPosition.too_few(position, cell, _VALUE[grid[cell]], 0)
    return out


def covered_count(position: Position) -> int:
    grid = position.grid
    return grid.count(b".") + grid.count(b"F")


def read_number(position: Position, cell: Cell, nb: NeighbourFn) -> tuple[frozenset[Cell], int]:
    """The covered neighbours of the revealed ``cell`` and its value.

    Raises ``InconsistentPosition`` when the value exceeds the covered neighbours.
    """
    grid = position.grid
    value = _VALUE[grid[cell]]
    covered: list[object] = []  # the neighbours as they are (no new int per cell above 256)
    for n in cast("tuple[object, ...]", nb(cell)):
        if _COVER_TABLE[grid[cast(int, n)]]:
            covered.append(n)
    cells = cast("frozenset[Cell]", frozenset(covered))
    if value > len(cells):
        raise InconsistentPosition.too_few(position, cell, value, len(cells))
    return cells, value


def read_numbers(
    position: Position, sources: Iterable[Cell]
) -> dict[Cell, tuple[frozenset[Cell], int]]:
    """``read_number`` for every source."""
    nb = neighbour_fn(position.board)
    return {s: read_number(position, s, nb) for s in sources}


def covered_list(grid: bytes) -> list[Cell]:
    """The covered cells (``.`` or ``F``) of a grid, in board order."""
    data = grid.translate(_COVER_TABLE)
    return [i for i in range(len(data)) if data[i]]


def deep_list(grid: bytes, known: Iterable[Cell], frontier: Iterable[Cell]) -> list[Cell]:
    """The covered cells of a grid outside ``known`` and ``frontier``, in board order."""
    flags = bytearray(grid.translate(_COVER_TABLE))
    for c in known:
        flags[c] = 0
    for c in frontier:
        flags[c] = 0
    data = bytes(flags)
    return [i for i in range(len(data)) if data[i]]
