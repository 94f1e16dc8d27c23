"""Mine Devil's engine: boards, positions, the exact solver, games. No web imports."""

from devil import native

native.select()  # before anything imports a module that may be compiled

# ruff: noqa: E402

from devil.analysis import Classification, Layout, Verdict
from devil.board import Board, Cell, Coord, Topology
from devil.errors import GameOver, IllegalMove, InconsistentPosition, InvalidMove
from devil.position import Constraint, Position, PositionError
from devil.rules import Count, Mercy, Rules

__all__ = [
    "Board",
    "Cell",
    "Classification",
    "Constraint",
    "Coord",
    "Count",
    "GameOver",
    "IllegalMove",
    "InconsistentPosition",
    "InvalidMove",
    "Layout",
    "Mercy",
    "Position",
    "PositionError",
    "Rules",
    "Topology",
    "Verdict",
]
