"""A finite window of the world as a ``devil.position.Position`` for the exact solver.

The window is a rectangle of the world. Inside it:

- a number of the problem becomes a revealed digit holding its *reduced* value (its value
  minus the known mines next to it);
- a known cell that must not be a mine of the problem (known safe, or a known mine already
  taken out of the numbers) becomes a hole ``#``: never a mine, never counted;
- every other cell is covered ``.``: either an unknown cell next to a number, or a cell no
  number of the problem sees (a deep cell, free under the classic rule).

So the solver's classic verdicts and witnesses in the window are exactly those of the world
problem. The grid costs a byte per cell of the rectangle (filled at C speed); the Python work
is proportional to the numbers and holes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from devil.board import MAX_CELLS, Board, Cell, Topology
from devil.budget import Meter
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count
from devil.solver import PositionAnalysis, Solver
from devil.world.cells import XY
from devil.world.component import InconsistentKnowledge
from devil.world.shares import inside


class WindowTooLarge(RuntimeError):
    """A component whose bounding rectangle exceeds what the solver accepts (more than
    ``devil.board.MAX_CELLS`` cells: a frontier spanning over 2000 cells each way). Not
    bad input: like an exhausted budget, the click cannot be judged within the limits."""


@dataclass(frozen=True)
class Box:
    """A rectangle of the world: ``width`` x ``height`` cells from ``(x0, y0)``."""

    x0: int
    y0: int
    width: int
    height: int

    @classmethod
    def around(cls, cells: Iterable[XY], margin: int = 0) -> Box:
        """The smallest rectangle holding ``cells`` (non-empty), grown by ``margin``."""
        xs: list[int] = []
        ys: list[int] = []
        for x, y in cells:
            xs.append(x)
            ys.append(y)
        x0, y0 = min(xs) - margin, min(ys) - margin
        return cls(x0, y0, max(xs) + margin - x0 + 1, max(ys) + margin - y0 + 1)

    def holds(self, x: int, y: int) -> bool:
        return 0 <= x - self.x0 < self.width and 0 <= y - self.y0 < self.height

    @property
    def area(self) -> int:
        return self.width * self.height


@dataclass(frozen=True)
class Window:
    """A box of the world and the position that encodes a problem inside it."""

    box: Box
    position: Position

    def cell(self, xy: XY) -> Cell:
        return (xy[1] - self.box.y0) * self.box.width + (xy[0] - self.box.x0)

    def xy(self, cell: Cell) -> XY:
        row, col = divmod(cell, self.box.width)
        return self.box.x0 + col, self.box.y0 + row


def build(box: Box, numbers: Mapping[XY, int], holes: Iterable[XY]) -> Window:
    """The window of ``box`` with ``numbers`` (reduced values 0-8) and ``holes``.

    Every number and hole must lie inside ``box``; numbers should have all their
    neighbours inside it too (else the solver sees the missing ones as absent).
    """
    if box.area > MAX_CELLS:
        raise WindowTooLarge(
            f"the problem spans {box.width}x{box.height} cells from ({box.x0}, {box.y0}); "
            f"the solver takes at most {MAX_CELLS}"
        )
    grid = bytearray(b"." * box.area)
    w, x0, y0 = box.width, box.x0, box.y0
    hole_cells = []
    for x, y in holes:
        c = (y - y0) * w + (x - x0)
        grid[c] = ord("#")
        hole_cells.append(c)
    for (x, y), value in numbers.items():
        grid[(y - y0) * w + (x - x0)] = ord("0") + value
    board = Board(box.height, box.width, Topology.SQUARE, frozenset(hole_cells))
    return Window(box, Position(board, bytes(grid)))


def analyse(window: Window, meter: Meter | None = None) -> PositionAnalysis:
    """The exact solver's classic analysis of the window; ``InconsistentKnowledge`` (in
    world coordinates) when its numbers fit no layout. With a ``meter`` the analysis and
    every query on it spend it (``BudgetExceeded`` once it is spent)."""
    try:
        return Solver(Count.CLASSIC).analyse(window.position, budget=inside(meter))
    except InconsistentPosition as e:
        where = window.xy(e.cell) if e.cell is not None else window.xy(0)
        raise InconsistentKnowledge(
            f"the numbers around ({where[0]}, {where[1]}) fit no layout", where
        ) from e
