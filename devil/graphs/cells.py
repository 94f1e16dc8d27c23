"""A board as a cell graph: the cells (id, label, drawing) and the pairs that touch.

``CellGraph`` is what a graph-board file describes, in the file's order and nothing
more: it knows no positions, slots or solver. ``devil.graphs.layout`` places it on a
``Board``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TypeAlias

Point: TypeAlias = tuple[float, float]
"""A drawing coordinate ``(x, y)``; y grows downwards, as on a page."""

Point3: TypeAlias = tuple[float, float, float]
"""A corner on a solid's surface ``(x, y, z)`` (drawing only: a rotatable projection)."""

MAX_ID_LENGTH = 40
"""Longest cell id (and label) a file may use."""


@dataclass(frozen=True)
class GraphCell:
    """One cell: its ``id`` (unique), optional ``label`` (messages), optional drawing:
    ``polygon`` / ``at`` on the page, ``polygon3d`` its corners on a solid in 3-D."""

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
            n = len(self.polygon)
            return (sum(p[0] for p in self.polygon) / n, sum(p[1] for p in self.polygon) / n)
        return None


@dataclass(frozen=True)
class CellGraph:
    """The cells (in file order) and the neighbour pairs (indices into ``cells``)."""

    cells: tuple[GraphCell, ...]
    edges: tuple[tuple[int, int], ...]

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell (by index), the indices of its neighbours, in the order of ``edges``."""
        out: list[list[int]] = [[] for _ in self.cells]
        for a, b in self.edges:
            out[a].append(b)
            out[b].append(a)
        return tuple(map(tuple, out))

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
