"""Board topologies as graphs.

A board is a set of cells with neighbour lists. Cells are plain ints given
meaning by an alias: ``cell = row * width + col``, so a coordinate and a cell
convert in O(1) on every topology. Cells listed in ``holes`` do not exist: they
have no neighbours, are never mines and are never neighbours of anything.

Nothing outside this module may assume a square grid: everything else asks the
board for ``neighbours(cell)``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from devil.graphs.layout import GraphLayout

Cell: TypeAlias = int
"""A cell index, ``row * width + col``."""

Coord: TypeAlias = tuple[int, int]
"""A zero-based ``(row, col)`` pair."""


class Topology(enum.Enum):
    """How cells touch each other."""

    SQUARE = "square"
    """A rectangle; each cell touches up to 8 others."""

    TORUS = "torus"
    """A rectangle that wraps both ways; each cell touches 8 others (fewer on tiny boards)."""

    HEX = "hex"
    """Hexagons in "odd-r" offset: odd rows sit half a cell to the right; 6 neighbours."""

    GRAPH = "graph"
    """Any cell graph (``devil.graphs``): the board's ``graph`` lists each cell's neighbours.
    Not a grid: text forms and ``parse`` never produce it."""

    @classmethod
    def grids(cls) -> tuple[Topology, ...]:
        """The grid topologies (a text position, a form or a flag names one of these)."""
        return (cls.SQUARE, cls.TORUS, cls.HEX)

    @classmethod
    def parse(cls, text: str) -> Topology:
        wanted = text.strip().lower()
        for topology in cls.grids():
            if topology.value == wanted:
                return topology
        names = ", ".join(t.value for t in cls.grids())
        raise ValueError(f"unknown topology {text!r}: expected one of {names}")


_SQUARE_STEPS: tuple[Coord, ...] = (
    (-1, -1), (-1, 0), (-1, 1),
    (0, -1), (0, 1),
    (1, -1), (1, 0), (1, 1),
)  # fmt: skip
_HEX_STEPS_EVEN: tuple[Coord, ...] = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, -1), (1, 0))
_HEX_STEPS_ODD: tuple[Coord, ...] = ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, 0), (1, 1))

MAX_CELLS = 4_000_000
"""Largest board the engine accepts (e.g. 2000x2000)."""


class BoardError(ValueError):
    """A board that cannot exist (bad size, hole outside the board)."""


@dataclass(frozen=True)
class Board:
    """An immutable board: size, topology and holes.

    A graph board (``Topology.GRAPH``, built by ``devil.graphs``) also carries ``graph``:
    its cells sit on a virtual ``height x width`` grid laid out from their drawing
    coordinates (the unused slots are holes), and ``graph`` gives their neighbours,
    ids and labels.

    >>> b = Board(3, 4)
    >>> b.cell(1, 2), b.coord(6)
    (6, (1, 2))
    >>> sorted(b.coord(n) for n in b.neighbours(b.cell(0, 0)))
    [(0, 1), (1, 0), (1, 1)]
    """

    height: int
    width: int
    topology: Topology = Topology.SQUARE
    holes: frozenset[Cell] = field(default_factory=frozenset)
    graph: GraphLayout | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.height < 1 or self.width < 1:
            raise BoardError(f"board size {self.height}x{self.width}: both sides must be >= 1")
        if self.height * self.width > MAX_CELLS:
            raise BoardError(
                f"board size {self.height}x{self.width} has more than {MAX_CELLS} cells"
            )
        bad = [h for h in self.holes if not 0 <= h < self.height * self.width]
        if bad:
            raise BoardError(f"hole {bad[0]} lies outside the {self.height}x{self.width} board")
        if (self.topology is Topology.GRAPH) != (self.graph is not None):
            raise BoardError("a graph board needs its cell graph, and only a graph board has one")

    # -- coordinates -----------------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of cells including holes (the range of valid cell indices)."""
        return self.height * self.width

    def cell(self, row: int, col: int) -> Cell:
        if not (0 <= row < self.height and 0 <= col < self.width):
            raise BoardError(f"cell ({row}, {col}) is outside the {self.height}x{self.width} board")
        return row * self.width + col

    def coord(self, cell: Cell) -> Coord:
        return divmod(cell, self.width)

    def cell_id(self, row: int, col: int) -> str:
        """The id of a graph board's cell at ``row``, ``col`` of its virtual grid (where a
        move names it): the one way a graph move's cell is named to a reader (messages,
        move lists, annotations, the API). ``BoardError`` on a grid board (its cells have
        no ids) or outside the board, ``KeyError`` on an empty slot."""
        if self.graph is None:
            raise BoardError("only a graph board's cells have ids: a grid names row and col")
        return self.graph.id(self.cell(row, col))

    def exists(self, cell: Cell) -> bool:
        return 0 <= cell < self.size and cell not in self.holes

    def cells(self) -> Iterator[Cell]:
        """Every existing cell, in row-major order."""
        holes = self.holes
        return (c for c in range(self.size) if c not in holes)

    @cached_property
    def cell_count(self) -> int:
        """Number of existing cells."""
        return self.size - len(self.holes)

    # -- graph -----------------------------------------------------------------------

    def neighbours(self, cell: Cell) -> tuple[Cell, ...]:
        """The existing cells touching ``cell``, without duplicates, never ``cell`` itself."""
        if self.graph is not None:
            return self.graph.adjacency[cell]
        if cell in self.holes:
            return ()
        row, col = divmod(cell, self.width)
        h, w = self.height, self.width
        if self.topology is Topology.HEX:
            steps = _HEX_STEPS_ODD if row % 2 else _HEX_STEPS_EVEN
        else:
            steps = _SQUARE_STEPS
        wrap = self.topology is Topology.TORUS
        out: list[Cell] = []
        for dr, dc in steps:
            r, c = row + dr, col + dc
            if wrap:
                r %= h
                c %= w
            elif not (0 <= r < h and 0 <= c < w):
                continue
            n = r * w + c
            if n != cell and n not in self.holes and n not in out:
                out.append(n)
        return tuple(out)

    def neighbourhood(self, cell: Cell) -> frozenset[Cell]:
        """``cell`` and its neighbours: the cells the first click keeps free of mines."""
        return frozenset((cell, *self.neighbours(cell)))


def hole_pattern(height: int, width: int) -> list[Coord]:
    """The holes of a "square with holes" board (the web app's and ``devil-play``'s): 2x2 gaps
    spread evenly, about one per 7x7, none on a side shorter than 5."""

    def starts(length: int) -> list[int]:
        if length < 5:
            return []
        blocks = max(1, (length + 1) // 7)
        spacing = length / blocks
        return [int(spacing * i + spacing / 2) - 1 for i in range(blocks)]

    return [
        (r + dr, c + dc)
        for r in starts(height)
        for c in starts(width)
        for dr in (0, 1)
        for dc in (0, 1)
    ]
