"""The counting programme's own order (``devil.solve.count_order``) on geodesic spheres.

Probabilities come from ``devil.solve._dp.counts`` swept in ``counting_order``, which may
differ from the order the other questions share. On a small sphere (80 cells, whose
frontier wraps round it like the expert sphere's) the exact probabilities equal the
brute-force oracle's, and the positions checked include pieces counted in another order
(every order is tried there: ``QUICK_STATES`` 0, as the expert sphere's big pieces are); on
the expert sphere of issue 20 the counting order keeps the programme narrow.
"""

from __future__ import annotations

import pytest

from devil import oracle
from devil.graphs.positions import midgame
from devil.graphs.tilings import tiling_board
from devil.position import Position
from devil.rules import Count
from devil.solve import _dp, count_order
from devil.solve._small import SMALL_LAYOUTS, layouts_at_most
from devil.solve.count_order import counting_order, estimated_states
from devil.solver import Solver

SMALL_SPHERE = tiling_board("geodesic", (2,), False)
EDGE_LIMIT = oracle.MAX_EDGE
"""Edge cells of the small positions checked (the oracle enumerates their layouts)."""


def reordered_pieces(position: Position) -> int:
    """How many of the position's counted pieces (not small) are counted in an order other
    than the shared plan's."""
    analysis = Solver(Count.CLASSIC).analyse(position)
    out = 0
    for i in range(len(analysis.pieces)):
        info = analysis.facts(i)
        problem = info.piece.problem
        if layouts_at_most(problem.sizes, SMALL_LAYOUTS):
            continue
        shared = info.engine().plan().order
        if counting_order(problem, shared) is not shared:
            out += 1
    return out


def edge_cells(position: Position) -> int:
    """The covered cells next to a revealed number (what the oracle enumerates)."""
    board = position.board
    return sum(
        1
        for c in position.covered_cells()
        if any(not position.is_covered(n) for n in board.neighbours(c))
    )


def small_sphere_positions() -> list[Position]:
    out = []
    for mines in (12, 16, 20):
        for fraction in (0.2, 0.3):
            for seed in range(60):
                position = midgame(SMALL_SPHERE, mines, seed, fraction)
                if edge_cells(position) <= EDGE_LIMIT:
                    out.append(position)
    return out


POSITIONS = small_sphere_positions()


@pytest.fixture
def every_order_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    """The small sphere's pieces are cheap in the shared order, which counting keeps
    (``QUICK_STATES``); here other orders are tried on every piece."""
    monkeypatch.setattr(count_order, "QUICK_STATES", 0)


@pytest.mark.usefixtures("every_order_tried")
def test_the_small_sphere_positions_count_pieces_in_another_order() -> None:
    assert sum(reordered_pieces(p) for p in POSITIONS) >= 5


@pytest.mark.usefixtures("every_order_tried")
@pytest.mark.parametrize("count", list(Count))
def test_probabilities_on_a_small_sphere_match_the_oracle(count: Count) -> None:
    for position in POSITIONS:
        truth = oracle.probabilities(position, count)
        got = Solver(count).analyse(position).exact_probabilities()
        assert not got.undecided
        for cell, p in truth.items():
            assert got[cell] == p, position.where(cell)


@pytest.mark.parametrize("count", list(Count))
@pytest.mark.parametrize("seed", [1, 3, 5])
def test_the_expert_sphere_is_counted_narrow(seed: int, count: Count) -> None:
    """Issue 20: the shared plan keeps 16-21 numbers open on these positions (19 and 21 are
    past ``MAX_OPEN``: the counts enumerated every solution, for minutes; 16 took 4 s); the
    counting order keeps it narrow and estimates at least 50 times fewer states."""
    board = tiling_board("geodesic", (5,), False)
    position = midgame(board, 103, seed)
    analysis = Solver(count).analyse(position)  # counted: here one piece, merged
    info = max(
        (analysis.facts(i) for i in range(len(analysis.pieces))), key=lambda f: f.piece.cell_count
    )
    problem = info.piece.problem
    shared = info.engine().plan()
    counting = info.engine().counting_plan()
    assert shared.open_max >= 16
    assert counting.open_max <= _dp.MAX_OPEN
    ratio = estimated_states(problem, shared.order) / estimated_states(problem, counting.order)
    assert ratio >= 50
