"""Hypothesis strategies for graph boards: random cell graphs and the built-in tilings, small.

Random graphs have any degree (a hub may touch every other cell, so numbers above 8
occur), disconnected pieces and isolated cells; half of them carry drawing points (the
layout by coordinates), the others none (the reverse Cuthill-McKee layout).
"""

from __future__ import annotations

from hypothesis import strategies as st

from devil.board import Board
from devil.graphs.cells import CellGraph, GraphCell
from devil.graphs.layout import graph_board
from devil.graphs.tilings import tiling_board

SMALL_TILINGS: dict[str, tuple[int, ...]] = {
    "square": (3, 4),
    "hex": (3, 4),
    "torus": (3, 4),
    "triangle": (3, 5),
    "truncated-square": (2, 3),
    "rhombille": (2, 2),
    "cairo": (3, 3),
    "snub-square": (2, 3),
    "penrose": (16,),
    "cube": (2,),
    "geodesic": (1,),
}
"""Every built-in tiling at a size the oracle can enumerate (about 12-24 cells)."""


@st.composite
def random_graphs(draw: st.DrawFn, max_cells: int = 12) -> CellGraph:
    n = draw(st.integers(1, max_cells))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    shape = draw(st.sampled_from(("sparse", "dense", "hub")))
    if shape == "hub":
        hub = draw(st.integers(0, n - 1))
        chosen = [p for p in pairs if hub in p]
        chosen += draw(st.lists(st.sampled_from(pairs), max_size=n, unique=True)) if pairs else []
    else:
        density = 0.25 if shape == "sparse" else 0.6
        bits = draw(st.lists(st.floats(0, 1), min_size=len(pairs), max_size=len(pairs)))
        chosen = [p for p, x in zip(pairs, bits, strict=True) if x < density]
    edges = tuple(sorted(set(chosen)))
    drawn = draw(st.booleans())
    cells = []
    for i in range(n):
        at = None
        if drawn:
            at = (draw(st.integers(0, 9)) * 1.0, draw(st.integers(0, 9)) * 1.0)
        cells.append(GraphCell(f"c{i}", None, None, at))
    return CellGraph(tuple(cells), edges)


def graph_boards(max_cells: int = 12) -> st.SearchStrategy[Board]:
    return random_graphs(max_cells).map(graph_board)


def tiling_boards() -> st.SearchStrategy[Board]:
    return st.sampled_from(sorted(SMALL_TILINGS)).flatmap(
        lambda name: st.sampled_from((False, True)).map(
            lambda sides: tiling_board(name, SMALL_TILINGS[name], sides)
        )
    )
