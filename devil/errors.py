"""Errors the engine raises. All are ``ValueError`` so callers can catch bad input broadly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from devil.board import Cell, Coord

if TYPE_CHECKING:
    from devil.position import Position


def do_not_fit(mines: int) -> str:
    """``"3 mines do not fit"``, ``"1 mine does not fit"``: how every message that refuses a
    mine count starts.

    >>> do_not_fit(1), do_not_fit(0)
    ('1 mine does not fit', '0 mines do not fit')
    """
    return f"{mines} mine does not fit" if mines == 1 else f"{mines} mines do not fit"


class InconsistentPosition(ValueError):
    """No mine layout fits the revealed numbers.

    ``cell`` is a revealed number that cannot be satisfied (when one can be named).
    """

    def __init__(self, message: str, cell: Cell | None = None):
        super().__init__(message)
        self.cell = cell

    @classmethod
    def too_few(
        cls, position: Position, cell: Cell, value: int, covered: int
    ) -> InconsistentPosition:
        noun = "neighbour" if covered == 1 else "neighbours"
        return cls(f"the {value} at {position.where(cell)} has only {covered} covered {noun}", cell)

    @classmethod
    def too_many_mines(cls, mines: int, covered: int) -> InconsistentPosition:
        """A total larger than the covered cells (``Position.check_total``)."""
        cells = "covered cell" if covered == 1 else "covered cells"
        return cls(f"{do_not_fit(mines)}: there are only {covered} {cells}")

    @classmethod
    def unsatisfiable(cls, position: Position, cell: Cell) -> InconsistentPosition:
        value = position.number(cell)
        return cls(
            f"the {value} at {position.where(cell)} cannot be satisfied together with the "
            "numbers around it",
            cell,
        )


class MoveError(ValueError):
    """A move that cannot be played. ``coord`` is the (row, col) it named, when it named one.

    Callers that show the error next to the board use ``coord``; they never parse the message.
    """

    def __init__(self, message: str, coord: Coord | None = None):
        super().__init__(message)
        self.coord = coord


class IllegalMove(MoveError):
    """A move that is well formed but not allowed now (game over, cell already revealed...)."""


class InvalidMove(MoveError):
    """A move that cannot be read (bad syntax, coordinates off the board)."""


class GameOver(IllegalMove):
    """A move sent after the game has ended."""


class BudgetExceeded(Exception):
    """An engine call ran out of its ``devil.budget.Budget`` (time or nodes).

    Not a ``ValueError``: the input was fine, the work was too big for the budget.
    ``limit`` describes the budget (``"0.5 s"``, ``"10000 nodes"``).
    """

    def __init__(self, message: str, limit: str = ""):
        super().__init__(message)
        self.limit = limit
