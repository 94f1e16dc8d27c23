"""The built-in tilings: cell counts, symmetric neighbours, degrees, connected, Penrose growth."""

from __future__ import annotations

import itertools
import math
from collections import Counter, deque

import pytest

from devil.graphs.cells import CellGraph
from devil.graphs.layout import graph_board
from devil.graphs.tilings import TILINGS, tiling, tiling_graph
from devil.graphs.tilings.penrose import PHI, rhombs


def _degrees(graph: CellGraph, prefix: str = "") -> Counter[int]:
    return Counter(
        len(near)
        for cell, near in zip(graph.cells, graph.neighbours, strict=True)
        if cell.id.startswith(prefix)
    )


def _connected(graph: CellGraph) -> bool:
    seen = {0}
    queue = deque([0])
    while queue:
        for n in graph.neighbours[queue.popleft()]:
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return len(seen) == len(graph.cells)


@pytest.mark.parametrize("name", sorted(TILINGS))
@pytest.mark.parametrize("sides", [False, True])
def test_every_preset_is_symmetric_connected_and_polygonal(name: str, sides: bool) -> None:
    for preset in tiling(name).presets:
        graph = tiling_graph(name, preset.size, sides)
        board = graph_board(graph)
        assert board.cell_count == len(graph.cells) > 0
        assert len({c.id for c in graph.cells}) == len(graph.cells)
        assert all(c.polygon is not None and len(c.polygon) >= 3 for c in graph.cells)
        for cell in board.cells():
            for n in board.neighbours(cell):
                assert cell in board.neighbours(n)
                assert n != cell
        assert _connected(graph), (name, preset.name, sides)


@pytest.mark.parametrize(
    ("name", "size", "cells"),
    [
        ("square", (16, 30), 480),
        ("hex", (9, 9), 81),
        ("torus", (5, 7), 35),
        ("triangle", (6, 10), 60),
        ("truncated-square", (4, 5), 20 + 12),
        ("rhombille", (3, 4), 36),
        ("snub-square", (1, 1), 1),
        ("penrose", (123,), 123),
        ("cube", (5,), 150),
        ("geodesic", (3,), 180),
    ],
)
def test_cell_counts(name: str, size: tuple[int, ...], cells: int) -> None:
    assert len(tiling_graph(name, size).cells) == cells


def test_degrees_sharing_corners() -> None:
    # inner triangles touch 12 cells; 4.8.8: octagons 8, squares 4; squares 8; hexagons 6
    assert _degrees(tiling_graph("triangle", (8, 12)))[12] == 6 * 8
    octo = tiling_graph("truncated-square", (5, 5))
    assert _degrees(octo, "o")[8] == 9  # the inner 3x3 octagons
    assert set(_degrees(octo, "s")) == {4}  # every square lies between four octagons
    assert _degrees(tiling_graph("square", (5, 5)))[8] == 9
    assert _degrees(tiling_graph("hex", (6, 6)))[6] > 0
    assert set(_degrees(tiling_graph("torus", (5, 6)))) == {8}
    # a cube's 8 corner cells x 3 faces touch 7 cells, every other cell 8
    assert _degrees(tiling_graph("cube", (4,))) == Counter({8: 96 - 24, 7: 24})
    # geodesic: triangles at the icosahedron's 12 corners (5 each) touch 11, the rest 12
    assert _degrees(tiling_graph("geodesic", (4,))) == Counter({11: 60, 12: 320 - 60})
    # snub square: an inner square touches 4 squares and 8 triangles
    assert max(_degrees(tiling_graph("snub-square", (5, 5)), "s")) == 12
    # Cairo pentagons: every corner is shared by 3 or 4 of them, so an inner one touches 7
    assert max(_degrees(tiling_graph("cairo", (8, 8)))) == 7


def test_degrees_sharing_sides() -> None:
    assert max(_degrees(tiling_graph("triangle", (6, 8), sides=True))) == 3
    octo = tiling_graph("truncated-square", (5, 5), sides=True)
    assert _degrees(octo, "o")[8] == 9
    assert set(_degrees(octo, "s")) == {4}
    assert set(_degrees(tiling_graph("torus", (5, 6), sides=True))) == {4}
    assert max(_degrees(tiling_graph("cairo", (8, 8), sides=True))) == 5
    assert set(_degrees(tiling_graph("cube", (3,), sides=True))) == {4}
    assert set(_degrees(tiling_graph("geodesic", (3,), sides=True))) == {3}
    assert max(_degrees(tiling_graph("penrose", (300,), sides=True))) == 4


def test_hex_matches_todays_hex_board() -> None:
    from devil.board import Board, Topology

    grid = Board(5, 6, Topology.HEX)
    graph = tiling_graph("hex", (5, 6))
    index = graph.index
    for cell in grid.cells():
        r, c = grid.coord(cell)
        mine = {graph.cells[n].id for n in graph.neighbours[index[f"r{r}c{c}"]]}
        assert mine == {"r{}c{}".format(*grid.coord(n)) for n in grid.neighbours(cell)}


def test_square_and_torus_match_todays_boards() -> None:
    from devil.board import Board, Topology

    for topology, name in ((Topology.SQUARE, "square"), (Topology.TORUS, "torus")):
        grid = Board(4, 5, topology)
        graph = tiling_graph(name, (4, 5))
        index = graph.index
        for cell in grid.cells():
            r, c = grid.coord(cell)
            mine = {graph.cells[n].id for n in graph.neighbours[index[f"r{r}c{c}"]]}
            assert mine == {"r{}c{}".format(*grid.coord(n)) for n in grid.neighbours(cell)}


def test_penrose_generations_grow_by_the_golden_ratio() -> None:
    # a tile's area shrinks by PHI**2 a generation; the rims lose a few halves, less and less
    counts = [len(rhombs(g)) for g in range(5, 9)]
    errors = [abs(b / a - PHI**2) for a, b in itertools.pairwise(counts)]
    assert errors == sorted(errors, reverse=True)
    assert errors[-1] < 0.015
    tiles = rhombs(8)
    thick = sum(1 for kind, _ in tiles if kind == 1)
    assert abs(thick / (len(tiles) - thick) - PHI) < 0.01  # thick to thin: the golden ratio


def test_penrose_rhombs_have_unit_sides_and_the_two_angles() -> None:
    graph = tiling_graph("penrose", (200,))
    for cell in graph.cells:
        assert cell.polygon is not None
        pts = cell.polygon
        for k in range(4):
            assert math.dist(pts[k], pts[(k + 1) % 4]) == pytest.approx(1, abs=1e-3)
        a, b, c = pts[0], pts[1], pts[3]
        angle = math.degrees(
            math.atan2(c[1] - a[1], c[0] - a[0]) - math.atan2(b[1] - a[1], b[0] - a[0])
        )
        assert round(abs(angle) % 180) in (36, 72, 108, 144)
        assert cell.id[0] == ("t" if round(abs(angle) % 180) in (36, 144) else "k")


def test_too_big_or_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="more than 100,000 cells"):
        tiling_graph("square", (400, 400))
    with pytest.raises(ValueError, match="takes 2 size numbers"):
        tiling_graph("square", (4,))
    with pytest.raises(ValueError, match="unknown tiling"):
        tiling_graph("heptagon", (4, 4))
