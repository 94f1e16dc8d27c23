"""How a graph board's cell id is written for a reader: ``quote_id`` (a JSON string on one
line, as a move list writes it), ``shown_id`` (bare when unambiguous) and ``said`` (a move as
messages quote it: ``flag k4``, a grid's ``flag 3 4``)."""

from __future__ import annotations

import json

from devil.board import Board
from devil.game import Move

_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
"""Characters ``str.splitlines`` breaks a line at that JSON leaves as they are."""


def quote_id(cell_id: str) -> str:
    """A cell id as a JSON string on one line (``"t17"``, ``" a"``, ``"say \\"hi\\""``): any
    legal id, spaces and quotes included, reads back the same.

    >>> quote_id("North pole")
    '"North pole"'
    """
    text = json.dumps(cell_id, ensure_ascii=False)
    for char, escape in _LINE_BREAKS.items():
        text = text.replace(char, escape)
    return text


def shown_id(cell_id: str) -> str:
    """A cell id in a table or a sentence: as it is when that is unambiguous (``t17``,
    ``top0-1``, ``é``), else quoted as the move list writes it (``" a"``, ``"North pole"``,
    ``"tab\\there"``): an id with a space, a quote, a backslash or an invisible character
    would otherwise read as another, or break the line.

    >>> shown_id("t17"), shown_id("b ")
    ('t17', '"b "')
    """
    plain = cell_id.isprintable() and not any(c.isspace() or c in '"\\' for c in cell_id)
    return cell_id if plain and cell_id else quote_id(cell_id)


def said(board: Board, move: Move) -> str:
    """``reveal 3 4``; on a graph board ``reveal t17``, its cell by id (``shown_id``), unless
    the move names no cell of the board (its row and column are then all there is)."""
    if board.graph is None or not (move.row < board.height and move.col < board.width):
        return str(move)
    cell = board.cell(move.row, move.col)
    if not board.exists(cell):
        return str(move)
    return f"{move.kind.value} {shown_id(board.cell_id(move.row, move.col))}"
