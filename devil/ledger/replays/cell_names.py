"""Naming cells in a move list (``docs/annotations.md``): a graph board's cell by its id, a
JSON string on one line (``"t17"``, ``"North pole"``), beside the grid's ``ROW COL``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import NamedTuple

from devil.board import Board, Cell
from devil.graphs.ids import quote_id
from devil.ledger.replays.model import ReplayFormatError


@dataclass(frozen=True)
class OnBoard:
    """The board a file's cells are read on, and the error a ROW COL on it raises when its
    cells sit on another virtual grid than the file's board line says (``movelist``)."""

    board: Board
    misplaced: ReplayFormatError | None = None

    def slot(self, row: int, col: int, line: int, column: int, token: str = "") -> Cell:
        """The cell at ``row``, ``col`` (written ``token``, else ``ROW COL``); on a graph
        board it must be one of its cells."""
        board = self.board
        if row >= board.height or col >= board.width:
            raise ReplayFormatError(
                f"cell {token or f'{row} {col}'!r} is off the {board.height}x{board.width} board",
                line=line,
                column=column,
            )
        cell = board.cell(row, col)
        if board.graph is not None:
            if self.misplaced is not None:
                raise self.misplaced
            if not board.exists(cell):
                raise ReplayFormatError(
                    f"cell {token or f'{row} {col}'!r} is not a cell of the graph board (its grid "
                    "has no cell there)",
                    line=line,
                    column=column,
                )
        return cell

    def named(self, cell_id: str, line: int, column: int, grid_form: str) -> Cell:
        """The cell of a quoted id (exact, else without the spaces around it)."""
        graph = self.board.graph
        if graph is None:
            raise ReplayFormatError(
                f"cell {quote_id(cell_id)}: cells are named by id on graph boards only; a "
                f"grid board's cell is {grid_form}",
                line=line,
                column=column,
            )
        cell = graph.find(cell_id)
        if cell is None:
            raise ReplayFormatError(
                f"unknown cell id {cell_id!r}: the graph board has no cell with that id",
                line=line,
                column=column,
            )
        return cell


class Word(NamedTuple):
    """One word of a line (a tuple: a long move list makes one per word)."""

    text: str
    column: int
    quoted: bool
    """A JSON string (a cell id): ``text`` is the string it stands for."""


_NEXT = re.compile(r"\s*(\S)")
_WORD = re.compile(r"\S+")
_DECODER = json.JSONDecoder()


def words(text: str, column: int, line: int) -> list[Word]:
    """The words of ``text`` (whose first character is at ``column``); a JSON string
    (``"North pole"``) is one word whatever it holds."""
    if '"' not in text:  # the usual line: no quoted id
        return [Word(m.group(), column + m.start(), False) for m in _WORD.finditer(text)]
    out: list[Word] = []
    pos = 0
    while (match := _NEXT.match(text, pos)) is not None:
        start = match.start(1)
        if text[start] != '"':
            word = _WORD.match(text, start)
            assert word is not None
            out.append(Word(word.group(), column + start, False))
            pos = word.end()
            continue
        try:
            value, pos = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as e:
            raise ReplayFormatError(
                f"cell id {text[start : start + 24]!r}: not a JSON string ({e.msg})",
                line=line,
                column=column + e.pos,
            ) from None
        if pos < len(text) and not text[pos].isspace():
            raise ReplayFormatError(
                "expected a space after the cell id's closing quote",
                line=line,
                column=column + pos,
            )
        out.append(Word(value, column + start, True))
    return out
