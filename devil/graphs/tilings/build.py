"""From faces to a cell graph: two cells touch when they share a corner (or a side).

Every tiling generator describes its cells as faces: the corners of each face as
hashable keys (exact integers, or coordinates rounded by ``key``), which may live in
3-D (the cube, the sphere) while the drawing polygon is 2-D (a net).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence

from devil.graphs.cells import CellGraph, GraphCell, Point, from_neighbours

Corner = Hashable


def key(*coords: float) -> tuple[int, ...]:
    """A corner's key from float coordinates: rounded to 1e-5 (corners computed along two
    routes then meet)."""
    return tuple(round(c * 100_000) for c in coords)


def rounded(polygon: Sequence[Sequence[float]]) -> tuple[Point, ...]:
    """A drawing polygon with coordinates rounded to 4 decimals (the file stays small and
    a written board reads back equal)."""
    return tuple((_r(p[0]), _r(p[1])) for p in polygon)


def _r(v: float) -> float:
    out = round(v, 4)
    return 0.0 if out == 0 else float(out)


def graph_of_faces(
    ids: Sequence[str],
    faces: Sequence[Sequence[Corner]],
    polygons: Sequence[Sequence[Sequence[float]]],
    sides: bool = False,
) -> CellGraph:
    """The graph of the faces: neighbours share a corner (``sides``: a whole side)."""
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
    cells = [GraphCell(cid, None, rounded(poly)) for cid, poly in zip(ids, polygons, strict=True)]
    return from_neighbours(cells, [sorted(n) for n in neighbours])
