"""MBF, the Minesweeper board format (a board, no moves; read only).

Byte 0 the width (columns), byte 1 the height (rows), bytes 2-3 the mine count (big-endian),
then one byte pair per mine: column, row (counting from 0).
"""

from __future__ import annotations

from devil.game import GameParams
from devil.ledger.replays.model import Replay, ReplayFormatError


class MbfError(ReplayFormatError):
    """An MBF file that cannot be read."""


def read_mbf(data: bytes) -> Replay:
    """Read an MBF board: a replay with its layout and no moves."""
    if len(data) < 4:
        raise MbfError("the file ends inside the header (4 bytes)", offset=len(data))
    cols, rows = data[0], data[1]
    mines = data[2] * 256 + data[3]
    if len(data) != 4 + 2 * mines:
        raise MbfError(
            f"{mines} mines need {4 + 2 * mines} bytes, the file has {len(data)}", offset=2
        )
    layout: set[int] = set()
    for i in range(mines):
        at = 4 + 2 * i
        col, row = data[at], data[at + 1]
        if row >= rows or col >= cols:
            raise MbfError(
                f"mine {i + 1} at row {row}, col {col} is off the {rows}x{cols} board", offset=at
            )
        if row * cols + col in layout:
            raise MbfError(f"mine {i + 1} at row {row}, col {col} is given twice", offset=at)
        layout.add(row * cols + col)
    try:
        params = GameParams(rows, cols, mines, no_guess=False)
    except ValueError as e:
        raise MbfError(str(e), offset=0) from None
    return Replay(params, frozenset(layout), (), ())
