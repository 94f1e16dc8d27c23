"""Surfaces of solids: the cube (``n x n`` squares a face) and the geodesic sphere.

Cells touch by their 3-D corners (so a cell on one face touches the cells across the
solid's edges and corners); each is drawn on a net of the solid, unfolded flat.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence

from devil.graphs.tilings.build import key

Faces = tuple[list[str], list[Sequence[Hashable]], list[list[tuple[float, float]]]]
Point3 = tuple[float, float, float]

# the cross-shaped net: (face name, net offset in faces, (p, q) on the net -> 3-D corner)
_Corner = Callable[[int, int, int], tuple[int, int, int]]
_CUBE_NET: tuple[tuple[str, tuple[int, int], _Corner], ...] = (
    ("top", (1, 0), lambda p, q, n: (p, n, q)),
    ("left", (0, 1), lambda p, q, n: (0, n - q, p)),
    ("front", (1, 1), lambda p, q, n: (p, n - q, n)),
    ("right", (2, 1), lambda p, q, n: (n, n - q, n - p)),
    ("back", (3, 1), lambda p, q, n: (n - p, n - q, 0)),
    ("bottom", (1, 2), lambda p, q, n: (p, 0, n - q)),
)  # fmt: skip


def cube(n: int) -> Faces:
    """The six ``n x n`` faces of a cube, drawn as a cross; ids ``{face}{row}-{col}``."""
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    for name, (fx, fy), corner in _CUBE_NET:
        for q in range(n):
            for p in range(n):
                square = [(p, q), (p + 1, q), (p + 1, q + 1), (p, q + 1)]
                ids.append(f"{name}{q}-{p}")
                faces.append([corner(a, b, n) for a, b in square])
                polys.append([(fx * n + a, fy * n + b) for a, b in square])
    return ids, faces, polys


def geodesic(frequency: int) -> Faces:
    """An icosahedron whose 20 faces are cut into ``frequency**2`` triangles each, pushed
    out onto the sphere; drawn as the icosahedron's net (a strip of 20 triangles)."""
    h = math.sqrt(3) / 2
    ring = 2 / math.sqrt(5)
    z = 1 / math.sqrt(5)

    def upper(i: int) -> Point3:
        a = 2 * math.pi * (i % 5) / 5
        return (ring * math.cos(a), ring * math.sin(a), z)

    def lower(i: int) -> Point3:
        a = 2 * math.pi * (i % 5) / 5 + math.pi / 5
        return (ring * math.cos(a), ring * math.sin(a), -z)

    north: Point3 = (0.0, 0.0, 1.0)
    south: Point3 = (0.0, 0.0, -1.0)
    big: list[tuple[tuple[Point3, Point3, Point3], tuple[tuple[float, float], ...]]] = []
    for i in range(5):
        big.append(((north, upper(i), upper(i + 1)), ((i + 0.5, 0), (i, h), (i + 1, h))))
        big.append(((upper(i), upper(i + 1), lower(i)), ((i, h), (i + 1, h), (i + 0.5, 2 * h))))
        low = 2 * h
        big.append(
            ((upper(i + 1), lower(i), lower(i + 1)), ((i + 1, h), (i + 0.5, low), (i + 1.5, low)))
        )
        big.append(
            ((lower(i), lower(i + 1), south), ((i + 0.5, 2 * h), (i + 1.5, 2 * h), (i + 1, 3 * h)))
        )
    f = frequency
    ids: list[str] = []
    faces: list[Sequence[Hashable]] = []
    polys: list[list[tuple[float, float]]] = []
    for k, (solid, flat) in enumerate(big):
        n = 0
        for b in range(f):
            for c in range(f - b):
                tris = [((b, c), (b + 1, c), (b, c + 1))]
                if b + c < f - 1:
                    tris.append(((b + 1, c), (b + 1, c + 1), (b, c + 1)))
                for tri in tris:
                    got = [_subdivided(solid, flat, f, *bc) for bc in tri]
                    ids.append(f"f{k}-{n}")
                    n += 1
                    faces.append([g[0] for g in got])
                    polys.append([g[1] for g in got])
    return ids, faces, polys


def _subdivided(
    solid: tuple[Point3, Point3, Point3],
    flat: tuple[tuple[float, float], ...],
    f: int,
    b: int,
    c: int,
) -> tuple[Hashable, tuple[float, float]]:
    """The corner ``(f - b - c, b, c) / f`` of a big triangle: its key on the sphere and
    its place on the net (small triangles of side 1)."""
    weights = (f - b - c, b, c)
    x, y, w = (sum(m * v[d] for m, v in zip(weights, solid, strict=True)) for d in range(3))
    norm = math.sqrt(x * x + y * y + w * w)
    px = sum(m * v[0] for m, v in zip(weights, flat, strict=True))
    py = sum(m * v[1] for m, v in zip(weights, flat, strict=True))
    return key(x / norm, y / norm, w / norm), (px, py)
