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
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, groupby, repeat
from math import floor
from operator import add, sub, truediv

from devil.board import Board, Cell, Topology
from devil.graphs.cells import CellGraph
from devil.graphs.ids import shown_id
from devil.solve.graph_lists import Lists, levels, neighbour_lists, placed

_MAX_SPREAD = 4
"""A levels layout may use at most this many slots per cell (else one row)."""


@dataclass(frozen=True, eq=False)
class GraphLayout:
    """A ``CellGraph`` on a virtual grid: ``slots[i]`` is the board cell of ``graph.cells[i]``."""

    graph: CellGraph
    slots: tuple[Cell, ...]
    size: int
    adjacency: tuple[tuple[Cell, ...], ...]
    """Per board cell (slot), its neighbours' slots (in the graph's order); () for holes."""

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
        """Computed on first use; the slots and the graph's size, not its million edges
        (equal layouts still hash alike: ``__eq__`` compares the rest)."""
        return hash((self.size, self.slots, self.graph))

    @cached_property
    def _index_of_slot(self) -> dict[Cell, int]:
        return dict(zip(self.slots, range(len(self.slots)), strict=True))

    @cached_property
    def _slot_of_id(self) -> dict[str, Cell]:
        return dict(zip(self.graph.ids, self.slots, strict=True))

    def cell(self, cell_id: str) -> Cell:
        """The board cell of an id; ``KeyError`` for an unknown one."""
        return self._slot_of_id[cell_id]

    def has(self, cell_id: str) -> bool:
        return cell_id in self._slot_of_id

    def find(self, text: str) -> Cell | None:
        """The cell a typed id names: the exact id first (an id may start or end with
        spaces), else the id without the spaces around it (typed in a form or a shell);
        None when neither is an id. Every place an id comes in (the game form, the API,
        ``devil-check --cell``, the analysis board) asks this, so they agree."""
        slot = self._slot_of_id.get(text)
        if slot is None:
            stripped = text.strip()
            if stripped != text:
                slot = self._slot_of_id.get(stripped)
        return slot

    def index(self, cell: Cell) -> int:
        """The file index of a board cell."""
        return self._index_of_slot[cell]

    def id(self, cell: Cell) -> str:
        return self.graph.ids[self._index_of_slot[cell]]

    def label(self, cell: Cell) -> str:
        return self.graph.name(self._index_of_slot[cell])

    def where(self, cell: Cell) -> str:
        """``cell t17`` (``cell North pole (id v0)`` when the label differs from the id); an
        id with a space, a quote or an invisible character is quoted (``cell "b "``:
        ``shown_id``), as every message quotes it."""
        i = self._index_of_slot[cell]
        cell_id, label = self.graph.ids[i], self.graph.labels[i]
        if label is None or label == cell_id:
            return f"cell {shown_id(cell_id)}"
        return f"cell {label} (id {shown_id(cell_id)})"


def graph_board(graph: CellGraph) -> Board:
    """The board of a graph, its cells laid out on a virtual grid (see the module doc)."""
    n = len(graph.ids)
    if n == 0:
        raise ValueError("a graph board needs at least one cell")
    drawn = graph.placement
    neighbours = None
    if drawn is not None:
        heights = drawn.heights
        pitch = sorted(heights)[n // 2] if heights is not None else 0.0
        if pitch > 0 and math.isfinite((max(drawn.ys) - min(drawn.ys)) / pitch):
            rows = _rows_of_height(drawn.xs, drawn.ys, pitch)
        else:
            rows = _bands_by_drawing(drawn.xs, drawn.ys)
    else:
        neighbours = neighbour_lists(n, *graph.ends, range(n))  # not kept: the board's are
        rows = cuthill_mckee(neighbours)
    width = max(map(len, rows))
    if len(rows) * width > _MAX_SPREAD * n + 64:
        rows = [list(chain.from_iterable(rows))]
        width = n
    size = len(rows) * width
    starts = range(0, size, width)  # row r's cells take the slots r * width + 0, 1, ...
    places = chain.from_iterable(map(range, starts, map(add, starts, map(len, rows))))
    slot_of_index = dict(zip(chain.from_iterable(rows), places, strict=True))
    slots = tuple(map(slot_of_index.__getitem__, range(n)))
    holes = frozenset(range(size)).difference(slots)
    if neighbours is None:
        adjacency = neighbour_lists(size, *graph.ends, slots)
    else:
        adjacency = placed(size, neighbours, slots)
    layout = GraphLayout(graph, slots, size, adjacency)
    return Board(len(rows), width, Topology.GRAPH, holes, layout)


def _rows_of_height(xs: list[float], ys: list[float], pitch: float) -> list[list[int]]:
    """Bands ``pitch`` high from the top of the drawing, each ordered by ``x``, then ``y``
    (two stable sorts: the cells of one centre keep their file order)."""
    top = min(ys)
    bands = list(
        map(floor, map(add, map(truediv, map(sub, ys, repeat(top)), repeat(pitch)), repeat(1e-9)))
    )
    by_band = sorted(range(len(ys)), key=bands.__getitem__)
    by_y, by_x = ys.__getitem__, xs.__getitem__
    return [
        sorted(sorted(row, key=by_y), key=by_x)
        for _, row in groupby(by_band, key=bands.__getitem__)
    ]


def _bands_by_drawing(xs: list[float], ys: list[float]) -> list[list[int]]:
    """As many bands as the drawing's aspect asks for, by ``y`` then ``x``, each ordered
    by ``x`` then ``y``."""
    n = len(xs)
    span_x = max(xs) - min(xs)
    span_y = max(ys) - min(ys)
    if span_y <= 0:
        bands = 1
    elif span_x <= 0:
        bands = n
    else:  # a far-flung drawing (spans of 1e308, or of 1e-320): one cell a band
        aspect = n * span_y / span_x
        bands = max(1, min(n, round(math.sqrt(aspect)))) if math.isfinite(aspect) else n
    per_band = math.ceil(n / bands)
    by_x, by_y = xs.__getitem__, ys.__getitem__
    order = sorted(sorted(range(n), key=by_x), key=by_y)
    return [
        sorted(sorted(order[k : k + per_band], key=by_y), key=by_x) for k in range(0, n, per_band)
    ]


def cuthill_mckee(neighbours: Lists) -> list[list[int]]:
    """The breadth-first levels of every piece in turn, each walk started from a cell of
    least degree (a cheap Cuthill-McKee), the levels and their contents reversed.

    A level lists its cells in the order a walk finds them (each the first time one of
    the previous level's cells names it); the walk is compiled (``levels``): a million
    pairs is the file's bound."""
    degree = list(map(len, neighbours))
    starts = sorted(range(len(neighbours)), key=degree.__getitem__)
    return [level[::-1] for level in reversed(levels(neighbours, starts))]
