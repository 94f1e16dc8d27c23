"""A solid board (cells with ``polygon3d``: the cube, the geodesic sphere) seen from outside:
an orthographic projection after a rotation, back faces hidden.

The server draws the first view (``DEFAULT_TURN``) and writes each cell's 3-D corners, already
centred and scaled (``solid_corners``), so ``static/graph-solid.js`` turns the same numbers
with the same matrix; the PNG export draws the same view.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from devil.graphs.cells import Point, Point3
from devil.position import Position

Matrix = tuple[float, float, float, float, float, float, float, float, float]
"""A 3x3 rotation, row by row."""


def _turn(about_x: float, about_y: float) -> Matrix:
    """Turn by ``about_y`` radians about the vertical axis, then ``about_x`` about the
    horizontal one (as the page's drag does)."""
    cx, sx, cy, sy = math.cos(about_x), math.sin(about_x), math.cos(about_y), math.sin(about_y)
    # Rx(about_x) @ Ry(about_y)
    return (cy, 0.0, sy, sx * sy, cx, -sx * cy, -cx * sy, sx, cx * cy)


DEFAULT_TURN: Matrix = _turn(math.radians(-65), math.radians(20))
"""The first view: the sphere's north pole tipped towards the viewer, a little turned."""


@dataclass(frozen=True)
class SolidCell:
    """One cell in model space: ``corners`` centred on the solid and scaled so a cell is
    about 1 across (like the flat drawings), ``normal`` pointing outwards."""

    corners: tuple[Point3, ...]
    normal: Point3


def is_solid(position: Position) -> bool:
    """Whether every cell of a graph board has 3-D corners (it can be drawn as a solid)."""
    layout = position.board.graph
    return layout is not None and all(c.polygon3d for c in layout.graph.cells)


def solid_corners(position: Position) -> list[SolidCell]:
    """Every cell's corners and outward normal, in the file's order (``is_solid`` first)."""
    layout = position.board.graph
    assert layout is not None
    polys = [c.polygon3d or () for c in layout.graph.cells]
    points = [p for poly in polys for p in poly]
    mid = tuple(sum(p[d] for p in points) / len(points) for d in range(3))
    sizes = sorted(max(_distance(a, b) for a in poly for b in poly) for poly in polys)
    scale = 1 / (sizes[len(sizes) // 2] or 1.0)
    out = []
    for poly in polys:
        corners = tuple(
            (
                round((p[0] - mid[0]) * scale, 3),
                round((p[1] - mid[1]) * scale, 3),
                round((p[2] - mid[2]) * scale, 3),
            )
            for p in poly
        )
        out.append(SolidCell(corners, _outward(corners)))
    return out


def _distance(a: Point3, b: Point3) -> float:
    return math.dist(a, b)


def _outward(corners: Sequence[Point3]) -> Point3:
    """The polygon's unit normal, turned to point away from the solid's centre (the origin)."""
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = corners[0], corners[1], corners[2]
    ux, uy, uz, vx, vy, vz = bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az
    n = (uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx)
    k = len(corners)
    centre = tuple(sum(p[d] for p in corners) / k for d in range(3))
    length = math.sqrt(sum(v * v for v in n)) or 1.0
    sign = 1.0 if sum(n[d] * centre[d] for d in range(3)) >= 0 else -1.0
    return (sign * n[0] / length, sign * n[1] / length, sign * n[2] / length)


def rotate(m: Matrix, p: Point3) -> Point3:
    x, y, z = p
    return (
        m[0] * x + m[1] * y + m[2] * z,
        m[3] * x + m[4] * y + m[5] * z,
        m[6] * x + m[7] * y + m[8] * z,
    )


FACING = 0.02
"""A face is drawn when the cosine between its normal and the line of sight is above this."""


def facing_cosine(m: Matrix, cell: SolidCell) -> float:
    """How far the cell faces the viewer (who looks from +z) after the turn ``m``: the
    cosine of the angle between its outward normal and the line of sight."""
    return rotate(m, cell.normal)[2]


def facing(m: Matrix, cell: SolidCell) -> bool:
    """Whether the cell faces the viewer after the turn ``m`` (it is drawn)."""
    return facing_cosine(m, cell) > FACING


def projected(m: Matrix, cell: SolidCell) -> tuple[Point, ...]:
    """The cell's outline on the page (x right, y down) after the turn ``m``."""
    out = []
    for p in cell.corners:
        x, y, _ = rotate(m, p)
        out.append((x, -y))
    return tuple(out)


def radius(cells: Sequence[SolidCell]) -> float:
    """The farthest corner from the centre: the projection fits in a square of this radius."""
    return max(math.sqrt(x * x + y * y + z * z) for c in cells for x, y, z in c.corners)
