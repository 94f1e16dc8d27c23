"""A game's moves (``Move``: what a click or a key does to one cell, ``MoveKind``) and its
``Status``."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from devil.board import Board
from devil.errors import InvalidMove
from devil.graphs.ids import shown_id


class MoveKind(enum.Enum):
    """What a move does to its cell."""

    REVEAL = "reveal"
    """Uncover a covered, unflagged cell (under the devil rule)."""

    FLAG = "flag"
    """Mark a covered cell. Marks never constrain anything."""

    UNFLAG = "unflag"
    """Remove a mark."""

    CHORD = "chord"
    """On a number whose flagged neighbours equal it: reveal its other covered neighbours."""


@dataclass(frozen=True)
class Move:
    """One move, written ``"reveal 3 4"`` (kind, zero-based row, zero-based column).

    >>> Move.parse("reveal 3 4")
    Move.parse('reveal 3 4')
    >>> str(Move(MoveKind.FLAG, 0, 7))
    'flag 0 7'
    """

    kind: MoveKind
    row: int
    col: int

    def __post_init__(self) -> None:
        if not isinstance(self.kind, MoveKind):
            raise InvalidMove(f"move kind must be a MoveKind, not {self.kind!r}")
        for name in ("row", "col"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise InvalidMove(f"move {name} must be a whole number >= 0, not {value!r}")

    def __str__(self) -> str:
        return f"{self.kind.value} {self.row} {self.col}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``"KIND ROW COL"``; raises ``InvalidMove`` naming what is wrong."""
        parts = text.split()
        if len(parts) != 3:
            raise InvalidMove(f"move {text!r}: expected 'KIND ROW COL', e.g. 'reveal 3 4'")
        word, row, col = parts
        try:
            kind = MoveKind(word.lower())
        except ValueError:
            kinds = ", ".join(k.value for k in MoveKind)
            raise InvalidMove(f"move {text!r}: unknown kind {word!r} (expected {kinds})") from None
        coords = []
        for name, value in (("row", row), ("column", col)):
            if not value.isdigit() or not value.isascii():
                raise InvalidMove(f"move {text!r}: {name} {value!r} is not a whole number >= 0")
            coords.append(int(value))
        return cls(kind, coords[0], coords[1])

    @classmethod
    def reveal(cls, row: int, col: int) -> Move:
        return cls(MoveKind.REVEAL, row, col)

    @classmethod
    def flag(cls, row: int, col: int) -> Move:
        return cls(MoveKind.FLAG, row, col)

    @classmethod
    def unflag(cls, row: int, col: int) -> Move:
        return cls(MoveKind.UNFLAG, row, col)

    @classmethod
    def chord(cls, row: int, col: int) -> Move:
        return cls(MoveKind.CHORD, row, col)


class Status(enum.Enum):
    """Where a game stands."""

    PLAYING = "playing"
    """Moves are accepted."""

    WON = "won"
    """Only mines remain covered."""

    LOST = "lost"
    """A reveal hit a cell that could be a mine; ``Game.witness`` proves it."""


# -- a move in messages ------------------------------------------------------------------


def said(board: Board, move: Move) -> str:
    """``reveal 3 4``; on a graph board ``reveal t17``, its cell by id (``shown_id``), unless
    the move names no cell of the board (its row and column are then all there is)."""
    if board.graph is None or not (move.row < board.height and move.col < board.width):
        return str(move)
    cell = board.cell(move.row, move.col)
    if not board.exists(cell):
        return str(move)
    return f"{move.kind.value} {shown_id(board.cell_id(move.row, move.col))}"
