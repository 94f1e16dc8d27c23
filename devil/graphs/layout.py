"""Placing a cell graph on a ``Board``: each cell gets a slot of a virtual grid.

The engine's cells are ints and some of its steps sweep a board along rows or
columns (``cell // width``, ``cell % width``). A graph board therefore numbers its
cells by a virtual ``height x width`` grid that follows the graph's own shape:

- when every cell has a drawing position, the cells are cut into bands by ``y`` and
  ordered by ``x`` inside each band, so a sweep along rows or columns follows the
  drawing: bands one cell high (the median height of the polygons) when every cell has a
  polygon, so a band is a row of the tiling; else as many bands as the drawing's aspect
  asks for (about ``sqrt(n)`` on a square drawing);
- otherwise the bands are the breadth-first levels of every piece from a cell of least
  degree, reversed (a cheap reverse Cuthill-McKee), an order that keeps the frontier
  narrow whatever the graph.

Unused slots are holes. Nothing else in the engine needs to know: ``Board.neighbours``
reads ``GraphLayout.adjacency``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain, filterfalse
from operator import itemgetter
from typing import cast

from devil.board import Board, Cell, Topology
from devil.graphs.cells import CellGraph, adjacency_lists

_MAX_SPREAD = 4
"""A levels layout may use at most this many slots per cell (else one row)."""


@dataclass(frozen=True, eq=False)
class GraphLayout:
    """A ``CellGraph`` on a virtual grid: ``slots[i]`` is the board cell of ``graph.cells[i]``."""

    graph: CellGraph
    slots: tuple[Cell, ...]
    size: int
    adjacency: tuple[tuple[Cell, ...], ...] = field(init=False)
    """Per board cell (slot), its neighbours' slots (in the graph's order); () for holes."""

    def __post_init__(self) -> None:
        graph = self.graph
        slots = self.slots
        if "neighbours" in graph.__dict__:  # already built (a layout by levels): map it
            at = slots.__getitem__
            lists: list[tuple[Cell, ...]] = [()] * self.size
            for i, near in enumerate(graph.neighbours):
                lists[slots[i]] = tuple(map(at, near))
            adjacency = tuple(lists)
        else:
            firsts = list(map(itemgetter(0), graph.edges))
            seconds = list(map(itemgetter(1), graph.edges))
            adjacency = adjacency_lists(self.size, firsts, seconds, slots)
        object.__setattr__(self, "adjacency", adjacency)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GraphLayout):
            return NotImplemented
        return self is other or (
            hash(self) == hash(other)
            and self.size == other.size
            and self.slots == other.slots
            and self.graph == other.graph
        )

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        """Computed on first use (a million edges take a while to hash)."""
        return hash((self.size, self.slots, self.graph.edges))

    @cached_property
    def _index_of_slot(self) -> dict[Cell, int]:
        return {slot: i for i, slot in enumerate(self.slots)}

    @cached_property
    def _slot_of_id(self) -> dict[str, Cell]:
        return {cell.id: self.slots[i] for i, cell in enumerate(self.graph.cells)}

    def cell(self, cell_id: str) -> Cell:
        """The board cell of an id; ``KeyError`` for an unknown one."""
        return self._slot_of_id[cell_id]

    def has(self, cell_id: str) -> bool:
        return cell_id in self._slot_of_id

    def index(self, cell: Cell) -> int:
        """The file index of a board cell."""
        return self._index_of_slot[cell]

    def id(self, cell: Cell) -> str:
        return self.graph.cells[self._index_of_slot[cell]].id

    def label(self, cell: Cell) -> str:
        return self.graph.cells[self._index_of_slot[cell]].name

    def where(self, cell: Cell) -> str:
        """``cell t17`` (``cell North pole (id v0)`` when the label differs from the id)."""
        info = self.graph.cells[self._index_of_slot[cell]]
        if info.label is None or info.label == info.id:
            return f"cell {info.id}"
        return f"cell {info.label} (id {info.id})"


def graph_board(graph: CellGraph) -> Board:
    """The board of a graph, its cells laid out on a virtual grid (see the module doc)."""
    n = len(graph.cells)
    if n == 0:
        raise ValueError("a graph board needs at least one cell")
    centres = [cell.centre() for cell in graph.cells]
    if None not in centres:
        y = itemgetter(1)
        heights = sorted(
            max(map(y, cell.polygon)) - min(map(y, cell.polygon))
            for cell in graph.cells
            if cell.polygon
        )
        pitch = heights[len(heights) // 2] if len(heights) == n else 0.0
        drawn = cast("list[tuple[float, float]]", centres)
        rows = _rows_of_height(drawn, pitch) if pitch > 0 else _bands_by_drawing(drawn)
    else:
        rows = _bands_by_levels(graph)
    width = max(len(row) for row in rows)
    if len(rows) * width > _MAX_SPREAD * n + 64:
        rows = [[i for row in rows for i in row]]
        width = n
    slots = [0] * n
    for r, row in enumerate(rows):
        for c, i in enumerate(row):
            slots[i] = r * width + c
    size = len(rows) * width
    holes = frozenset(range(size)).difference(slots)
    layout = GraphLayout(graph, tuple(slots), size)
    return Board(len(rows), width, Topology.GRAPH, holes, layout)


def _rows_of_height(centres: list[tuple[float, float]], pitch: float) -> list[list[int]]:
    """Bands ``pitch`` high from the top of the drawing, each ordered by ``x``."""
    ys = list(map(itemgetter(1), centres))
    top = min(ys)
    rows: dict[int, list[int]] = {}
    for i, y in enumerate(ys):
        rows.setdefault(math.floor((y - top) / pitch + 1e-9), []).append(i)
    at = centres.__getitem__  # (x, y): ordered by x, then y
    return [sorted(rows[k], key=at) for k in sorted(rows)]


def _bands_by_drawing(centres: list[tuple[float, float]]) -> list[list[int]]:
    n = len(centres)
    xs = [c[0] for c in centres]
    ys = [c[1] for c in centres]
    span_x = max(xs) - min(xs)
    span_y = max(ys) - min(ys)
    if span_y <= 0:
        bands = 1
    elif span_x <= 0:
        bands = n
    else:
        bands = max(1, min(n, round(math.sqrt(n * span_y / span_x))))
    per_band = math.ceil(n / bands)
    by_y = sorted(range(n), key=lambda i: (ys[i], xs[i]))
    return [
        sorted(by_y[k : k + per_band], key=lambda i: (xs[i], ys[i])) for k in range(0, n, per_band)
    ]


def cuthill_mckee(graph: CellGraph) -> list[list[int]]:
    """The breadth-first levels of every piece in turn, each walk started from a cell of
    least degree (a cheap Cuthill-McKee), the levels and their contents reversed.

    A level lists its cells in the order a walk finds them (each the first time one of
    the previous level's cells names it); built with set and dict operations, not a
    Python loop per neighbour (a million pairs is the file's bound)."""
    neighbours = graph.neighbours
    degree = list(map(len, neighbours))
    seen: set[int] = set()
    levels: list[list[int]] = []
    near_of = neighbours.__getitem__
    for start in sorted(range(len(neighbours)), key=degree.__getitem__):
        if start in seen:
            continue
        seen.add(start)
        level = [start]
        while level:
            levels.append(level)
            found = dict.fromkeys(chain.from_iterable(map(near_of, level)))
            level = list(filterfalse(seen.__contains__, found))
            seen.update(level)
    return [level[::-1] for level in reversed(levels)]


def _bands_by_levels(graph: CellGraph) -> list[list[int]]:
    return cuthill_mckee(graph)
