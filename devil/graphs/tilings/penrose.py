"""Penrose rhombs (P3) by deflation.

Start from a sun of ten Robinson triangles, cut every triangle into smaller ones
``generations`` times (each deflation shrinks the tiles by the golden ratio, so their
number grows by its square), then join each pair of mirror triangles that share a
base into one rhomb, thick (72 degrees) or thin (36 degrees). Triangles left without
their mirror at the rim are dropped, so every cell is a whole rhomb.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Hashable, Sequence

from devil.graphs.tilings.build import key

PHI = (1 + math.sqrt(5)) / 2
Triangle = tuple[int, complex, complex, complex]
"""(0 thin, 1 thick; apex A, base corners B and C)."""


def _sun() -> list[Triangle]:
    out: list[Triangle] = []
    for i in range(10):
        b = cmath.rect(1, (2 * i - 1) * math.pi / 10)
        c = cmath.rect(1, (2 * i + 1) * math.pi / 10)
        if i % 2 == 0:
            b, c = c, b
        out.append((0, 0j, b, c))
    return out


def _deflate(triangles: list[Triangle]) -> list[Triangle]:
    out: list[Triangle] = []
    for colour, a, b, c in triangles:
        if colour == 0:
            p = a + (b - a) / PHI
            out += [(0, c, p, b), (1, p, c, a)]
        else:
            q = b + (a - b) / PHI
            r = b + (c - b) / PHI
            out += [(1, r, c, a), (1, q, r, b), (0, r, q, a)]
    return out


def rhombs(generations: int) -> list[tuple[int, list[complex]]]:
    """The whole rhombs after ``generations`` deflations of the sun, (kind, 4 corners);
    kind 0 thin, 1 thick. The sun's radius stays 1 (tiles shrink)."""
    triangles = _sun()
    for _ in range(generations):
        triangles = _deflate(triangles)
    halves: dict[tuple[int, Hashable], list[Triangle]] = {}
    for tri in triangles:
        colour, _, b, c = tri
        base = frozenset((key(b.real, b.imag), key(c.real, c.imag)))
        halves.setdefault((colour, base), []).append(tri)
    out = []
    for (colour, _), pair in halves.items():
        if len(pair) != 2:
            continue
        (_, a1, b, c), (_, a2, _, _) = pair
        out.append((colour, [a1, b, a2, c]))
    return out


def penrose(
    cells: int | None = None, generations: int | None = None
) -> tuple[list[str], list[Sequence[Hashable]], list[list[tuple[float, float]]]]:
    """``generations`` deflations (all of it), or the ``cells`` rhombs nearest the centre
    of the first generation with enough of them. Drawn with edge length 1."""
    if generations is None:
        generations = 0
        while len(rhombs(generations)) < (cells or 0):
            generations += 1
    tiles = rhombs(generations)
    scale = PHI**generations
    tiles.sort(key=lambda t: abs(sum(t[1]) / 4))
    if cells is not None:
        tiles = tiles[:cells]
    polys = [[(z.real * scale, -z.imag * scale) for z in corners] for _, corners in tiles]
    order = sorted(range(len(tiles)), key=lambda i: _reading(polys[i]))
    ids = [f"{'tk'[tiles[i][0]]}{n}" for n, i in enumerate(order)]
    polys = [polys[i] for i in order]
    return ids, [[key(*p) for p in poly] for poly in polys], polys


def _reading(poly: list[tuple[float, float]]) -> tuple[float, float]:
    cx = sum(p[0] for p in poly) / 4
    cy = sum(p[1] for p in poly) / 4
    return (round(cy, 3), round(cx, 3))
