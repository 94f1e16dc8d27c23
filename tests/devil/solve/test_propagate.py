"""The local rules (``devil.solve._propagate.Frontier``) leave nothing they could deduce.

``Frontier`` skips comparing two constraints again while neither has changed since one of
them was compared with all its neighbours; that may skip only comparisons that would change
nothing. Checked by brute force over every pair of residual constraints: after a run none
of the rules (counting, subset, overlap) applies, on fresh positions and on a solver
updated click by click (its incremental path), so a skip that missed a change would leave
a pair the rules still fire on.
"""

from __future__ import annotations

import random

import pytest

from devil.board import Board, Cell, Topology
from devil.graphs.positions import midgame
from devil.graphs.tilings import tiling, tiling_board
from devil.position import Position
from devil.solve._propagate import Frontier
from devil.solver import Solver


def assert_closed(frontier: Frontier) -> None:
    """No rule applies to any constraint or pair of constraints sharing a cell."""
    cons = frontier.cons
    for s, (cells, need) in cons.items():
        assert 0 < need < len(cells), (s, sorted(cells), need)
        for c in cells:
            assert c not in frontier.known
            assert s in frontier.sources_of[c]
        for t, (t_cells, t_need) in cons.items():
            if t == s or cells.isdisjoint(t_cells):
                continue
            assert not cells <= t_cells, ("subset", s, t)
            assert need - t_need != len(cells - t_cells), ("overlap", s, t)


def closed_frontier(solver: Solver) -> Frontier:
    frontier = solver._frontier
    assert frontier is not None
    assert_closed(frontier)
    return frontier


@pytest.mark.parametrize("name", ["geodesic", "triangle", "penrose", "square"])
def test_a_fresh_frontier_is_closed(name: str) -> None:
    preset = tiling(name).preset("expert")
    board = tiling_board(name, preset.size)
    mines = preset.mines(board.cell_count)
    for seed in range(2):
        solver = Solver()
        solver.analyse(midgame(board, mines, seed))
        assert closed_frontier(solver).cons


@pytest.mark.parametrize("seed", range(4))
def test_an_updated_frontier_is_closed(seed: int) -> None:
    rng = random.Random(seed)
    board = Board(12, 14, [Topology.SQUARE, Topology.HEX][seed % 2])
    cells = list(board.cells())
    mines = frozenset(rng.sample(cells, 34))
    safe = [c for c in cells if c not in mines]
    rng.shuffle(safe)
    grid = bytearray(b"." * board.size)
    solver = Solver()
    for step in range(14):
        changed: list[Cell] = []
        for c in safe[step * 5 : step * 5 + 5]:
            grid[c] = ord("0") + sum(n in mines for n in board.neighbours(c))
            changed.append(c)
        solver.analyse(Position(board, bytes(grid), len(mines)), changed)
        closed_frontier(solver)
