"""The board as text: one glyph and one style name per cell, two columns a cell.

Hex boards draw odd rows one column (half a cell) to the right, as the web board does. After
a loss the devil's witness is drawn: its mines as ``*``, the clicked cell as ``X``, a flag the
witness does not back as ``x``. After a win the remaining mines show as flags.
"""

from __future__ import annotations

from dataclasses import dataclass

from devil.board import Cell, Topology
from devil.game import Game, Status

CELL_WIDTH = 2
"""Terminal columns per cell."""


@dataclass(frozen=True)
class Glyph:
    text: str
    style: str
    """One of ``covered flag number-N empty hole witness-mine loss wrong-flag``."""


def row_shift(game: Game, row: int) -> int:
    """Terminal columns row ``row`` starts to the right (half a cell on odd hex rows)."""
    return 1 if game.params.topology is Topology.HEX and row % 2 else 0


def glyph(game: Game, cell: Cell) -> Glyph:
    position = game.position
    board = position.board
    if cell in board.holes:
        return Glyph(" ", "hole")
    number = position.number(cell)
    if number is not None:
        return Glyph(str(number) if number else " ", f"number-{number}" if number else "empty")
    flagged = position.is_flagged(cell)
    if game.status is Status.LOST and game.witness is not None:
        if cell == game.loss:
            return Glyph("X", "loss")
        mine = cell in game.witness
        if flagged:
            return Glyph("F", "flag") if mine else Glyph("x", "wrong-flag")
        if mine:
            return Glyph("*", "witness-mine")
    if game.status is Status.WON:
        return Glyph("F", "flag")
    return Glyph("F", "flag") if flagged else Glyph("·", "covered")


def board_lines(game: Game) -> list[str]:
    """The board as plain text lines (what the terminal shows, without colours)."""
    board = game.position.board
    lines = []
    for row in range(board.height):
        cells = [glyph(game, board.cell(row, col)).text for col in range(board.width)]
        lines.append(" " * row_shift(game, row) + " ".join(cells))
    return lines


def cell_at(game: Game, x: int, y: int) -> tuple[int, int] | None:
    """The (row, col) drawn at terminal column ``x`` of line ``y``, or None (between cells or
    off the board)."""
    board = game.position.board
    if not 0 <= y < board.height:
        return None
    offset = x - row_shift(game, y)
    if offset < 0:
        return None
    col, rest = divmod(offset, CELL_WIDTH)
    if rest or col >= board.width:
        return None
    return y, col
