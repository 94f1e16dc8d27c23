"""A board as a cell graph: the cells (id, label, drawing) and the pairs that touch.

``CellGraph`` is what a graph-board file describes, in the file's order and nothing
more: it knows no positions, slots or solver. ``devil.graphs.layout`` places it on a
``Board``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import call, itemgetter
from typing import NamedTuple, TypeAlias

Point: TypeAlias = tuple[float, float]
"""A drawing coordinate ``(x, y)``; y grows downwards, as on a page."""

Point3: TypeAlias = tuple[float, float, float]
"""A corner on a solid's surface ``(x, y, z)`` (drawing only: a rotatable projection)."""

MAX_ID_LENGTH = 40
"""Longest cell id (and label) a file may use."""


class GraphCell(NamedTuple):
    """One cell: its ``id`` (unique), optional ``label`` (messages), optional drawing:
    ``polygon`` / ``at`` on the page, ``polygon3d`` its corners on a solid in 3-D.

    A named tuple, not a dataclass: a 100,000-cell file makes 100,000 of them, and a
    tuple is made about five times faster than a frozen dataclass."""

    id: str
    label: str | None = None
    polygon: tuple[Point, ...] | None = None
    at: Point | None = None
    polygon3d: tuple[Point3, ...] | None = None

    @property
    def name(self) -> str:
        """How messages and proofs name the cell: its label, else its id."""
        return self.label if self.label is not None else self.id

    def centre(self) -> Point | None:
        """Where the cell is drawn: ``at``, else the mean of its polygon's corners."""
        if self.at is not None:
            return self.at
        if self.polygon:
            return polygon_centre(self.polygon)
        return None


_X = itemgetter(0)
_Y = itemgetter(1)


def polygon_centre(polygon: Sequence[Point]) -> Point:
    """The mean of a polygon's corners."""
    n = len(polygon)
    return (sum(map(_X, polygon)) / n, sum(map(_Y, polygon)) / n)


@dataclass(frozen=True)
class CellGraph:
    """The cells (in file order) and the neighbour pairs (indices into ``cells``)."""

    cells: tuple[GraphCell, ...]
    edges: tuple[tuple[int, int], ...]

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell (by index), the indices of its neighbours, in the order of ``edges``."""
        firsts = list(map(_X, self.edges))
        seconds = list(map(_Y, self.edges))
        return adjacency_lists(len(self.cells), firsts, seconds, range(len(self.cells)))

    @cached_property
    def index(self) -> dict[str, int]:
        """Cell index by id."""
        return {cell.id: i for i, cell in enumerate(self.cells)}


def from_neighbours(cells: Sequence[GraphCell], neighbours: Sequence[Sequence[int]]) -> CellGraph:
    """The graph whose edges are the pairs ``i < j`` with ``j`` in ``neighbours[i]``.

    ``neighbours`` must be symmetric (as the tilings build it); each pair is kept once.
    """
    edges = tuple((i, j) for i, near in enumerate(neighbours) for j in sorted(set(near)) if i < j)
    return CellGraph(tuple(cells), edges)


def adjacency_lists(
    size: int, firsts: Sequence[int], seconds: Sequence[int], places: Sequence[int]
) -> tuple[tuple[int, ...], ...]:
    """Per place ``0 .. size-1``, the neighbours' places, for the pairs ``firsts[k]``,
    ``seconds[k]`` of indices mapped through ``places``, in the order of the pairs.

    Built without a Python loop per pair (a million pairs is the file's bound): the
    appends are called by ``map``; only the per-place lists are a Python-level loop."""
    out: list[list[int]] = [[] for _ in range(size)]
    append = [near.append for near in out]
    at = places.__getitem__
    a = list(map(at, firsts))
    b = list(map(at, seconds))
    sources = map(append.__getitem__, chain.from_iterable(zip(a, b, strict=True)))
    deque(map(call, sources, chain.from_iterable(zip(b, a, strict=True))), maxlen=0)
    return tuple(map(tuple, out))
