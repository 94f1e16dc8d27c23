"""A board as a cell graph: the cells (id, label, drawing) and the pairs that touch.

``CellGraph`` is what a graph-board file describes, in the file's order and nothing
more: it knows no positions, slots or solver. ``devil.graphs.layout`` places it on a
``Board``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from operator import attrgetter, itemgetter
from typing import NamedTuple, Protocol, TypeAlias, cast

from devil.solve.graph_lists import neighbour_lists, polygon_placement

Point: TypeAlias = tuple[float, float]
"""A drawing coordinate ``(x, y)``; y grows downwards, as on a page."""

Point3: TypeAlias = tuple[float, float, float]
"""A corner on a solid's surface ``(x, y, z)`` (drawing only: a rotatable projection)."""

MAX_ID_LENGTH = 40
"""Longest cell id (and label) a file may use."""
MAX_COORDINATE = 1e9
"""Largest size of a drawing coordinate (a far-flung drawing's spans overflowed to inf)."""


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


class Placement(NamedTuple):
    """What the layout needs of a drawing: every cell's centre (``xs[i]``, ``ys[i]``) and,
    when every cell has a polygon, each polygon's height (``heights``, else None)."""

    xs: list[float]
    ys: list[float]
    heights: list[float] | None


def placement(
    polygons: Sequence[Sequence[Point] | None], at: Sequence[Point | None]
) -> Placement | None:
    """The centres (``GraphCell.centre``) and polygon heights of the cells whose drawing
    members are ``polygons[i]`` and ``at[i]``; None when a cell has no centre.

    Computed on whole columns (a 100,000-cell file has no ``GraphCell`` to ask), with
    the same arithmetic as ``polygon_centre``, so the layout is the same either way."""
    if at.count(None) == len(at) and polygons.count(None) == len(polygons):
        return None  # no drawing at all
    shapes = cast("Sequence[Sequence[Point]]", polygons)  # when ``drawn``
    drawn = all(polygons)
    if drawn and at.count(None) == len(at):
        computed = polygon_placement(shapes)  # compiled: one loop, floats only
        if computed is not None:
            return Placement(*computed)
        xs = [sum(map(_X, p)) / len(p) for p in shapes]
        ys = [sum(map(_Y, p)) / len(p) for p in shapes]
    else:
        centres = [
            a if a is not None else polygon_centre(p) if p else None
            for p, a in zip(polygons, at, strict=True)
        ]
        if None in centres:
            return None
        points = cast("list[Point]", centres)
        xs, ys = list(map(_X, points)), list(map(_Y, points))
    heights = [max(map(_Y, p)) - min(map(_Y, p)) for p in shapes] if drawn else None
    return Placement(xs, ys, heights)


class CellSource(Protocol):
    """Makes the cells of a graph read from columns (the file reader's ``Drawing``)."""

    def __call__(self) -> tuple[GraphCell, ...]: ...


class CellGraph:
    """The cells (in file order) and the neighbour pairs (indices into ``cells``).

    ``CellGraph(cells, edges)`` builds one from its cells and pairs (the tilings, tests).
    The file reader builds one from columns (``CellGraph.from_columns``): the ids, labels,
    the pairs' two ends and the drawing's ``Placement``, with ``cells`` and ``edges`` made
    on first use (drawing, writing a file) rather than one Python object per cell and per
    pair up front. The layout and the engine read only the columns. Immutable; equal when
    the cells and edges are.
    """

    def __init__(self, cells: Sequence[GraphCell], edges: Sequence[tuple[int, int]]) -> None:
        self.__dict__.update(cells=tuple(cells), edges=tuple(edges))

    @classmethod
    def from_columns(
        cls,
        ids: Sequence[str],
        labels: Sequence[str | None],
        ends: tuple[Sequence[int], Sequence[int]],
        where: Placement | None,
        source: CellSource,
    ) -> CellGraph:
        """The graph of cells ``ids[i]`` (``labels[i]``), pairs ``ends[0][k]``, ``ends[1][k]``;
        ``where`` is the drawing's placement; ``source()`` makes the cells when asked."""
        graph = cls.__new__(cls)
        graph.__dict__.update(ids=ids, labels=labels, ends=ends, placement=where, _source=source)
        return graph

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a CellGraph is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a CellGraph is immutable (cannot delete {name!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CellGraph):
            return NotImplemented
        return self is other or (
            len(self.ids) == len(other.ids)
            and len(self.ends[0]) == len(other.ends[0])
            and self.cells == other.cells
            and self.edges == other.edges
        )

    def __hash__(self) -> int:
        return hash((len(self.ids), len(self.ends[0])))

    def __repr__(self) -> str:
        return f"CellGraph({len(self.ids):,} cells, {len(self.ends[0]):,} edges)"

    @cached_property
    def cells(self) -> tuple[GraphCell, ...]:
        source: CellSource = self.__dict__["_source"]
        return source()

    @cached_property
    def edges(self) -> tuple[tuple[int, int], ...]:
        return tuple(zip(*self.ends, strict=True))

    @cached_property
    def ids(self) -> Sequence[str]:
        """Per cell (by index), its id."""
        return tuple(map(_ID, self.cells))

    @cached_property
    def labels(self) -> Sequence[str | None]:
        """Per cell (by index), its label (None: named by its id)."""
        return tuple(map(_LABEL, self.cells))

    @cached_property
    def ends(self) -> tuple[Sequence[int], Sequence[int]]:
        """The pairs' first and second cells: ``edges[k] == (ends[0][k], ends[1][k])``."""
        return list(map(_X, self.edges)), list(map(_Y, self.edges))

    @cached_property
    def placement(self) -> Placement | None:
        """Where the cells are drawn, as the layout needs it (None: some cell is not)."""
        cells = self.cells
        return placement(list(map(_POLYGON, cells)), list(map(_AT, cells)))

    @cached_property
    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """Per cell (by index), the indices of its neighbours, in the order of ``edges``."""
        n = len(self.ids)
        return neighbour_lists(n, *self.ends, range(n))

    @cached_property
    def index(self) -> dict[str, int]:
        """Cell index by id."""
        return dict(zip(self.ids, range(len(self.ids)), strict=True))

    def name(self, i: int) -> str:
        """How messages and proofs name cell ``i``: its label, else its id."""
        label = self.labels[i]
        return label if label is not None else self.ids[i]


_ID = attrgetter("id")
_LABEL = attrgetter("label")
_POLYGON = attrgetter("polygon")
_AT = attrgetter("at")


def from_neighbours(cells: Sequence[GraphCell], neighbours: Sequence[Sequence[int]]) -> CellGraph:
    """The graph whose edges are the pairs ``i < j`` with ``j`` in ``neighbours[i]``.

    ``neighbours`` must be symmetric (as the tilings build it); each pair is kept once.
    """
    edges = tuple((i, j) for i, near in enumerate(neighbours) for j in sorted(set(near)) if i < j)
    return CellGraph(tuple(cells), edges)
