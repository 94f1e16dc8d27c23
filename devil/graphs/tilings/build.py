"""From faces to a cell graph: two cells touch when they share a corner (or a side).

Every tiling generator describes its cells as faces: the corners of each face as
hashable keys (exact integers, or coordinates rounded by ``key``), which may live in
3-D (the cube, the sphere) while the drawing polygon is 2-D (a net).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import cast

from devil.graphs.cells import CellGraph, GraphCell, Point, Point3, from_neighbours

Corner = Hashable


def key(*coords: float) -> tuple[int, ...]:
    """A corner's key from float coordinates: rounded to 1e-5 (corners computed along two
    routes then meet)."""
    return tuple(round(c * 100_000) for c in coords)


def rounded(polygon: Sequence[Sequence[float]]) -> tuple[Point, ...]:
    """A drawing polygon with coordinates rounded to 4 decimals (the file stays small and
    a written board reads back equal)."""
    return tuple((_r(p[0]), _r(p[1])) for p in polygon)


def rounded3(corners: Sequence[Sequence[float]], scale: float) -> tuple[Point3, ...]:
    """3-D corners (``key``s or exact integers) times ``scale``, rounded like ``rounded``."""
    return tuple((_r(c[0] * scale), _r(c[1] * scale), _r(c[2] * scale)) for c in corners)


def _points(face: Sequence[Corner]) -> Sequence[Sequence[float]]:
    """A solid's face: its corners are 3-D points (``key``s or integer triples)."""
    return cast("Sequence[Sequence[float]]", face)


def _r(v: float) -> float:
    out = round(v, 4)
    return 0.0 if out == 0 else float(out)


def graph_of_faces(
    ids: Sequence[str],
    faces: Sequence[Sequence[Corner]],
    polygons: Sequence[Sequence[Sequence[float]]],
    sides: bool = False,
    solid_scale: float | None = None,
) -> CellGraph:
    """The graph of the faces: neighbours share a corner (``sides``: a whole side).

    ``solid_scale``: the faces' corners are 3-D points (times this scale: ``1e-5`` for
    ``key``s), kept as each cell's ``polygon3d`` so the solid can be drawn in projection."""
    touching: dict[Hashable, list[int]] = defaultdict(list)
    for i, face in enumerate(faces):
        if sides:
            for k, a in enumerate(face):
                b = face[(k + 1) % len(face)]
                touching[frozenset((a, b))].append(i)
        else:
            for a in set(face):
                touching[a].append(i)
    neighbours: list[set[int]] = [set() for _ in faces]
    for group in touching.values():
        for i in group:
            neighbours[i].update(group)
    for i, near in enumerate(neighbours):
        near.discard(i)
    solid = [None if solid_scale is None else rounded3(_points(f), solid_scale) for f in faces]
    cells = [
        GraphCell(cid, None, rounded(poly), None, corners)
        for cid, poly, corners in zip(ids, polygons, solid, strict=True)
    ]
    return from_neighbours(cells, [sorted(n) for n in neighbours])
