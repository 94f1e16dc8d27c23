"""The built-in tilings: name -> generator, with presets like beginner/intermediate/expert.

``tiling_graph(name, size, sides=False)`` builds the ``CellGraph`` (cells with ids and
polygons); ``tiling_board`` puts it on a board. By default two cells are neighbours when
they share a corner (the classic rule: 8 on squares); ``sides=True`` asks for a shared
side instead. ``size`` is the tiling's own measure (``SIZE_NAMES``): rows and columns
for the plane tilings, cells for Penrose, squares per edge for the cube, the frequency
for the geodesic sphere.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from devil.board import Board
from devil.graphs.cells import CellGraph
from devil.graphs.layout import graph_board
from devil.graphs.tilings import planar, solids
from devil.graphs.tilings.build import graph_of_faces
from devil.graphs.tilings.penrose import penrose

Faces = tuple[list[str], list[Sequence[Hashable]], list[list[tuple[float, float]]]]

MAX_TILING_CELLS = 100_000
"""Largest built-in board (the file format's bound)."""


@dataclass(frozen=True)
class Preset:
    name: str
    size: tuple[int, ...]
    density: float

    def mines(self, cells: int) -> int:
        """The preset's density on ``cells`` cells: at least 1 mine, and at least one cell
        free (a one-cell board has none: 1 mine on 1 cell was a 500 on the analysis board
        and a refused ``--mines`` nobody typed in ``devil-graph``)."""
        return min(max(1, round(self.density * cells)), cells - 1)


@dataclass(frozen=True)
class Tiling:
    name: str
    description: str
    size_names: tuple[str, ...]
    make: Callable[..., Faces]
    presets: tuple[Preset, ...]

    @property
    def size_numbers(self) -> str:
        """``2 size numbers`` (``1 size number``): what the size takes, for messages."""
        n = len(self.size_names)
        return f"{n} size number{'' if n == 1 else 's'}"

    def preset(self, name: str) -> Preset:
        for p in self.presets:
            if p.name == name:
                return p
        names = ", ".join(p.name for p in self.presets)
        raise ValueError(f"unknown preset {name!r} for {self.name}: expected one of {names}")


def _presets(
    beginner: tuple[int, ...], intermediate: tuple[int, ...], expert: tuple[int, ...]
) -> tuple[Preset, ...]:
    return (
        Preset("beginner", beginner, 10 / 81),
        Preset("intermediate", intermediate, 40 / 256),
        Preset("expert", expert, 99 / 480),
    )


TILINGS: dict[str, Tiling] = {
    t.name: t
    for t in (
        Tiling("square", "squares", ("rows", "cols"), planar.square,
               _presets((9, 9), (16, 16), (16, 30))),
        Tiling("hex", "hexagons (odd rows shifted right)", ("rows", "cols"), planar.hexagon,
               _presets((9, 9), (16, 16), (16, 30))),
        Tiling("torus", "squares wrapping both ways", ("rows", "cols"), planar.torus,
               _presets((9, 9), (16, 16), (16, 30))),
        Tiling("triangle", "triangles pointing up and down", ("rows", "cols"), planar.triangle,
               _presets((9, 9), (16, 16), (16, 30))),
        Tiling("truncated-square", "4.8.8: octagons and squares", ("rows", "cols"),
               planar.truncated_square, _presets((7, 7), (12, 12), (12, 21))),
        Tiling("rhombille", "rhombs, three to a hexagon", ("rows", "cols"), planar.rhombille,
               _presets((5, 6), (9, 10), (13, 13))),
        Tiling("cairo", "Cairo pentagons", ("rows", "cols"), planar.cairo,
               _presets((7, 7), (12, 12), (16, 17))),
        Tiling("snub-square", "3.3.4.3.4: squares and triangles", ("rows", "cols"),
               planar.snub_square, _presets((5, 5), (9, 9), (13, 13))),
        Tiling("penrose", "Penrose rhombs (P3, by deflation)", ("cells",),
               lambda cells: penrose(cells=cells), _presets((80,), (250,), (480,))),
        Tiling("cube", "the surface of a cube (n x n a face)", ("n",), solids.cube,
               _presets((4,), (6,), (9,))),
        Tiling("geodesic", "a geodesic sphere (an icosahedron cut by a frequency)",
               ("frequency",), solids.geodesic, _presets((2,), (4,), (5,))),
    )
}  # fmt: skip


def tiling(name: str) -> Tiling:
    try:
        return TILINGS[name]
    except KeyError:
        raise ValueError(f"unknown tiling {name!r}: expected one of {', '.join(TILINGS)}") from None


def tiling_graph(
    name: str, size: Sequence[int], sides: bool = False, max_cells: int = MAX_TILING_CELLS
) -> CellGraph:
    """The cell graph of a built-in tiling at ``size`` (see the module doc); ValueError,
    before any is built, when it would have about more than ``max_cells`` cells."""
    spec = tiling(name)
    if len(size) != len(spec.size_names) or any(s < 1 for s in size):
        raise ValueError(
            f"{name} takes {spec.size_numbers} >= 1 "
            f"({', '.join(spec.size_names)}), not {list(size)}"
        )
    estimate = _cells_estimate(name, size)
    if estimate > max_cells:
        raise ValueError(f"{name} at {list(size)} has more than {max_cells:,} cells")
    ids, faces, polys = spec.make(*size)
    if not ids:
        raise ValueError(f"{name} at {list(size)} has no whole cell: make it bigger")
    return graph_of_faces(ids, faces, polys, sides, _solid_scale(name, size))


def _solid_scale(name: str, size: Sequence[int]) -> float | None:
    """How a solid's corner keys become 3-D points (about a unit across); None: a plane."""
    if name == "cube":
        return 1 / size[0]  # integer corners 0..n
    if name == "geodesic":
        return 1e-5  # ``build.key``s on the unit sphere
    return None


def _cells_estimate(name: str, size: Sequence[int]) -> int:
    """About how many cells ``name`` has at ``size`` (before generating it)."""
    if name == "cube":
        return 6 * size[0] ** 2
    if name == "geodesic":
        return 20 * size[0] ** 2
    if name == "penrose":
        return size[0]
    factor = {"rhombille": 3, "snub-square": 3, "cairo": 2, "truncated-square": 2}.get(name, 1)
    return factor * size[0] * size[1]


def tiling_board(
    name: str, size: Sequence[int], sides: bool = False, max_cells: int = MAX_TILING_CELLS
) -> Board:
    return graph_board(tiling_graph(name, size, sides, max_cells))
