"""Whole-board counting rules on square boards, a byte per cell in one big integer.

On a 300x300 mid-game position some 40,000 revealed numbers touch covered cells,
but nearly all of them are settled by the two counting rules alone. Looping over
them in Python costs hundreds of milliseconds; here every rule is applied to the
whole board at once with big-integer arithmetic (a cell is one byte; shifting by
8 bits moves to the next cell, by ``8 * width`` to the next row):

- ``_neighbour_sum(x)``: per cell, the sum of ``x`` over its neighbours;
- numbers whose remaining need is 0 free their unknown neighbours; numbers whose
  remaining need equals their unknown neighbours mine them all;
- repeat until nothing changes.

What is left (numbers with undecided neighbours) is handed to the Python
propagation (``devil.solve._propagate``) as residual constraints. Any sign of an
inconsistent position makes ``settle`` return None, and the caller falls back to
the plain path, which names the unsatisfiable number.
"""

from __future__ import annotations

from functools import lru_cache

from devil.board import Cell, Topology
from devil.position import Position
from devil.solve._frontier import one_positions

_ZERO = ord("0")
_COVER_TABLE = bytes(1 if b in b".F" else 0 for b in range(256))
_NUMBER_TABLE = bytes(1 if _ZERO <= b <= _ZERO + 8 else 0 for b in range(256))
_VALUE_TABLE = bytes(b - _ZERO if _ZERO <= b <= _ZERO + 8 else 0 for b in range(256))

MAX_ROUNDS = 10_000


@lru_cache(maxsize=64)
def _masks(height: int, width: int) -> tuple[int, int, int, int, int]:
    """Byte patterns over the board: 0x01, 0x7F, 0x10, not-last-col, not-first-col."""
    size = height * width

    def rep(byte: int) -> int:
        return int.from_bytes(bytes([byte]) * size, "little")

    not_last = (b"\x01" * (width - 1) + b"\x00") * height
    not_first = (b"\x00" + b"\x01" * (width - 1)) * height
    return (
        rep(0x01),
        rep(0x7F),
        rep(0x10),
        int.from_bytes(not_last, "little") * 0xFF,
        int.from_bytes(not_first, "little") * 0xFF,
    )


class _Board:
    __slots__ = ("full", "h7f", "h10", "not_first", "not_last", "ones", "shift", "size")

    def __init__(self, height: int, width: int) -> None:
        ones, h7f, h10, not_last, not_first = _masks(height, width)
        self.ones = ones
        self.full = ones * 0xFF
        self.h7f = h7f
        self.h10 = h10
        self.not_last = not_last
        self.not_first = not_first
        self.shift = 8 * width
        self.size = height * width

    def neighbour_sum(self, x: int) -> int:
        """Per cell, the sum of ``x`` over its 8 neighbours (byte values <= 8 stay exact)."""
        row = x + ((x & self.not_last) << 8) + ((x & self.not_first) >> 8)
        s = self.shift
        return ((row + (row << s) + (row >> s)) & self.full) - x

    def dilate(self, x: int) -> int:
        row = x | ((x & self.not_last) << 8) | ((x & self.not_first) >> 8)
        s = self.shift
        return (row | (row << s) | (row >> s)) & self.full

    def positions(self, x: int, offset: int) -> list[Cell]:
        """The cells whose byte is 1 in ``x`` (every byte 0 or 1), plus ``offset``."""
        got = one_positions(x.to_bytes(self.size, "little"))
        if offset:
            return [c + offset for c in got]
        return got


@lru_cache(maxsize=64)
def _board(height: int, width: int) -> _Board:
    return _Board(height, width)


Settled = tuple[dict[Cell, int], dict[Cell, tuple[frozenset[Cell], int]]]


def settle(position: Position) -> Settled | None:
    """Apply the counting rules to the whole board.

    Returns the decided covered cells (``cell -> 0/1``) and, for every revealed number
    that still has undecided neighbours, its residual ``(cells, need)``. None when the
    board is not a square one or something looks inconsistent.
    """
    board = position.board
    if board.topology is not Topology.SQUARE:
        return None
    width = board.width
    grid = position.grid
    marks = grid.translate(_NUMBER_TABLE)
    first = marks.find(1)
    if first < 0:
        return {}, {}  # no revealed number: nothing to settle
    # only the rows from above the first number to below the last one take part (every
    # number's neighbours lie in them): the rest of the board stays out of the big integers
    top = max(first // width - 1, 0)
    bottom = min(marks.rfind(1) // width + 2, board.height)
    if top or bottom < board.height:
        return _settle(grid[top * width : bottom * width], bottom - top, width, top * width)
    return _settle(grid, board.height, width, 0)


def _settle(grid: bytes, height: int, width: int, offset: int) -> Settled | None:
    """``settle`` on the rows of a square board given by ``grid``, whose first cell is the
    board's cell ``offset`` (the cells it returns are the board's)."""
    b = _board(height, width)
    covered = int.from_bytes(grid.translate(_COVER_TABLE), "little")
    numbers = int.from_bytes(grid.translate(_NUMBER_TABLE), "little")
    values = int.from_bytes(grid.translate(_VALUE_TABLE), "little")
    numbers_ff = numbers * 0xFF
    numbers7 = numbers << 7  # 0x80 on number cells
    h10 = b.h10 & numbers_ff  # 16 on number cells
    h7f = b.h7f
    low = b.ones * 0x0F
    # per number: its unknown neighbours and its remaining need + 16 (bit 4 clear: negative)
    near_unknown = b.neighbour_sum(covered) & numbers_ff
    guarded = values + h10
    mines = 0
    safe = 0
    unknown = covered
    remaining = 0
    for _ in range(MAX_ROUNDS):
        remaining = guarded - h10
        # a number with more known mines than its value (bit 4 of its guarded byte clear:
        # then ``remaining`` borrowed and means nothing, but the first term says so), or
        # needing more mines than it has unknown neighbours
        if ((~guarded) | ~((near_unknown | h10) - remaining)) & h10:
            return None
        # every byte here is below 0x80, so adding 0x7F sets bit 7 exactly where a byte is not
        # zero, with no carry into the next byte
        open7 = numbers7 & (near_unknown + h7f)
        all_safe7 = open7 & ~(remaining + h7f)
        all_mines7 = open7 & ~((remaining ^ near_unknown) + h7f)
        if not (all_safe7 | all_mines7):
            break
        # one dilation for both: bit 0 of a byte "safe", bit 1 "mine"
        around = b.dilate((all_safe7 >> 7) | (all_mines7 >> 6))
        new_safe = around & unknown
        new_mines = (around >> 1) & unknown
        if new_safe & new_mines:
            return None
        decided = new_safe | new_mines
        safe |= new_safe
        mines |= new_mines
        unknown ^= decided
        # one neighbour sum for both: low nibble newly decided, high nibble new mines
        near = b.neighbour_sum(decided | (new_mines << 4)) & numbers_ff
        near_unknown -= near & low
        guarded -= (near >> 4) & low
    else:
        return None
    known = dict.fromkeys(b.positions(mines, offset), 1)
    known.update(dict.fromkeys(b.positions(safe, offset), 0))
    residual: dict[Cell, tuple[frozenset[Cell], int]] = {}
    open_numbers = (numbers7 & (near_unknown + h7f)) >> 7
    if open_numbers:
        rem_bytes = remaining.to_bytes(b.size, "little")
        unknown_bytes = unknown.to_bytes(b.size, "little")
        for cell in b.positions(open_numbers, 0):
            row, col = divmod(cell, width)
            cells = []
            for r in range(max(row - 1, 0), min(row + 2, height)):  # ranges: native loops
                base = r * width
                for c in range(max(col - 1, 0), min(col + 2, width)):
                    if unknown_bytes[base + c]:
                        cells.append(base + c + offset)
            residual[cell + offset] = (frozenset(cells), rem_bytes[cell])
    return known, residual
