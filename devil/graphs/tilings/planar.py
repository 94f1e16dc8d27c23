"""Periodic tilings of the plane, each as faces with corners and drawing polygons.

Every generator returns ``Faces``: cell ids, each face's corners (keys shared by the
faces that touch there) and its drawing polygon, in reading order (rows top to bottom).
Edge length 1 unless said otherwise; y grows downwards.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Sequence

from devil.graphs.tilings.build import key

Faces = tuple[list[str], list[Sequence[Hashable]], list[list[tuple[float, float]]]]
SQRT3 = math.sqrt(3)


def square(rows: int, cols: int) -> Faces:
    """Unit squares, ``rows x cols``; ids ``r{row}c{col}``."""
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    for r in range(rows):
        for c in range(cols):
            ids.append(f"r{r}c{c}")
            faces.append([(r, c), (r, c + 1), (r + 1, c + 1), (r + 1, c)])
            polys.append([(c, r), (c + 1, r), (c + 1, r + 1), (c, r + 1)])
    return ids, faces, polys


def torus(rows: int, cols: int) -> Faces:
    """Unit squares whose corners wrap both ways (drawn flat, as today's torus)."""
    ids, _, polys = square(rows, cols)
    wrapped: list[Sequence[Hashable]] = [
        [(round(y) % rows, round(x) % cols) for x, y in poly] for poly in polys
    ]
    return ids, wrapped, polys


def _hex_corners(cx: float, cy: float) -> list[tuple[float, float]]:
    return [
        (cx + math.cos(math.radians(30 + 60 * k)), cy + math.sin(math.radians(30 + 60 * k)))
        for k in range(6)
    ]


def _hex_centre(r: int, c: int) -> tuple[float, float]:
    return SQRT3 * (c + 0.5 * (r % 2)), 1.5 * r


def hexagon(rows: int, cols: int) -> Faces:
    """Pointy hexagons in today's "odd-r" offset (odd rows half a cell right)."""
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    for r in range(rows):
        for c in range(cols):
            corners = _hex_corners(*_hex_centre(r, c))
            ids.append(f"r{r}c{c}")
            faces.append([key(*p) for p in corners])
            polys.append(corners)
    return ids, faces, polys


def triangle(rows: int, cols: int) -> Faces:
    """Rows of ``cols`` triangles pointing up and down in turn."""
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    h = SQRT3 / 2
    for r in range(rows):
        for k in range(cols):
            if (k + r) % 2 == 0:  # pointing up: apex on the row's top line
                corners = [(k + 1, r), (k + 2, r + 1), (k, r + 1)]
            else:
                corners = [(k, r), (k + 2, r), (k + 1, r + 1)]
            ids.append(f"r{r}c{k}")
            faces.append(corners)
            polys.append([(x / 2, y * h) for x, y in corners])
    return ids, faces, polys


def truncated_square(rows: int, cols: int) -> Faces:
    """4.8.8: ``rows x cols`` octagons, a square in every gap between four of them."""
    s = 1 + math.sqrt(2)
    radius = 1 / (2 * math.sin(math.pi / 8))
    half = math.sqrt(2) / 2
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    for r in range(2 * rows - 1):
        for c in range(2 * cols - 1):
            if r % 2 == 0 and c % 2 == 0:
                cx, cy = c / 2 * s, r / 2 * s
                corners = [
                    (cx + radius * math.cos(math.radians(22.5 + 45 * k)),
                     cy + radius * math.sin(math.radians(22.5 + 45 * k)))
                    for k in range(8)
                ]  # fmt: skip
                ids.append(f"o{r // 2}-{c // 2}")
            elif r % 2 == 1 and c % 2 == 1:
                cx, cy = c / 2 * s, r / 2 * s
                corners = [(cx + half, cy), (cx, cy + half), (cx - half, cy), (cx, cy - half)]
                ids.append(f"s{r // 2}-{c // 2}")
            else:
                continue
            faces.append([key(*p) for p in corners])
            polys.append(corners)
    return ids, faces, polys


def rhombille(rows: int, cols: int) -> Faces:
    """Each hexagon of a ``rows x cols`` hex board cut into three rhombs (the "cubes")."""
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    for r in range(rows):
        for c in range(cols):
            centre = _hex_centre(r, c)
            v = _hex_corners(*centre)
            for part, (a, b, d) in zip("abc", ((0, 1, 2), (2, 3, 4), (4, 5, 0)), strict=True):
                corners = [centre, v[a], v[b], v[d]]
                ids.append(f"r{r}c{c}{part}")
                faces.append([key(*p) for p in corners])
                polys.append(corners)
    return ids, faces, polys


Polygon = list[tuple[float, float]]


def _snub(rows: int, cols: int) -> tuple[list[Polygon], list[Polygon]]:
    """The snub square tiling's squares (``rows x cols`` of them) and the triangles between."""
    d = (1 + SQRT3) / 2
    r = 1 / math.sqrt(2)
    squares = []
    for i in range(rows):
        for j in range(cols):
            phi = 30 if (i + j) % 2 == 0 else -30
            squares.append([
                (j * d + r * math.cos(math.radians(45 + phi + 90 * k)),
                 i * d + r * math.sin(math.radians(45 + phi + 90 * k)))
                for k in range(4)
            ])  # fmt: skip
    points: dict[Hashable, tuple[float, float]] = {}
    for sq in squares:
        for p in sq:
            points.setdefault(key(*p), p)
    buckets: dict[tuple[int, int], list[Hashable]] = defaultdict(list)
    for k, p in points.items():
        buckets[(math.floor(p[0]), math.floor(p[1]))].append(k)

    def near(k: Hashable) -> list[Hashable]:
        x, y = points[k]
        bx, by = math.floor(x), math.floor(y)
        return [
            o
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            for o in buckets.get((bx + dx, by + dy), ())
            if o != k and abs(math.dist(points[o], (x, y)) - 1) < 1e-4
        ]

    unit = {k: set(near(k)) for k in points}
    seen: set[frozenset[Hashable]] = set()
    triangles = []
    for a in sorted(points, key=lambda k: (points[k][1], points[k][0])):
        for b in unit[a]:
            for c in unit[a] & unit[b]:
                tri = frozenset((a, b, c))
                if tri not in seen:
                    seen.add(tri)
                    triangles.append([points[a], points[b], points[c]])
    return squares, triangles


def snub_square(rows: int, cols: int) -> Faces:
    """3.3.4.3.4: ``rows x cols`` squares turned by 30 degrees in turn, triangles between."""
    squares, triangles = _snub(rows, cols)
    polys = squares + [_ccw(t) for t in triangles]
    order = sorted(range(len(polys)), key=lambda i: _reading(polys[i]))
    polys = [polys[i] for i in order]
    kinds = ["s" if order[i] < len(squares) else "t" for i in range(len(order))]
    ids = [f"{kind}{i}" for i, kind in enumerate(kinds)]
    return ids, [[key(*p) for p in poly] for poly in polys], polys


def cairo(rows: int, cols: int) -> Faces:
    """The Cairo pentagonal tiling: the dual of a snub square tiling of ``rows x cols``
    squares (one pentagon around every inner corner of it, through its faces' centres)."""
    squares, triangles = _snub(rows, cols)
    around: dict[Hashable, list[tuple[float, float]]] = defaultdict(list)
    corner_at: dict[Hashable, tuple[float, float]] = {}
    for face in squares + triangles:
        centre = (sum(p[0] for p in face) / len(face), sum(p[1] for p in face) / len(face))
        for p in face:
            around[key(*p)].append(centre)
            corner_at[key(*p)] = p
    polys = []
    for k, centres in around.items():
        if len(centres) != 5:
            continue  # a corner on the boundary: its pentagon is not whole
        x, y = corner_at[k]
        polys.append(sorted(centres, key=lambda c: math.atan2(c[1] - y, c[0] - x)))
    polys.sort(key=_reading)
    ids = [f"p{i}" for i in range(len(polys))]
    return ids, [[key(*p) for p in poly] for poly in polys], polys


def _ccw(poly: list[tuple[float, float]]) -> list[tuple[float, float]]:
    cx = sum(p[0] for p in poly) / len(poly)
    cy = sum(p[1] for p in poly) / len(poly)
    return sorted(poly, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))


def _reading(poly: Sequence[tuple[float, float]]) -> tuple[float, float]:
    cx = sum(p[0] for p in poly) / len(poly)
    cy = sum(p[1] for p in poly) / len(poly)
    return (round(cy, 3), round(cx, 3))
