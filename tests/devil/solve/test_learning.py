"""Dense big pieces decide their backbone by clause learning at once (``devil.solve._wide.learns``:
a geodesic sphere's 12-neighbour frontier), checked against the brute-force oracle with every
piece that is not small made to take that path: the classification, and one cell's verdict
asked of a fresh analysis (the piece answers that group alone), under both count rules, on
random graphs, every built-in tiling and grids."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle, solver
from devil.rules import Count
from devil.solve import _wide, piece_facts
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.strategies import Scenario, profile, scenarios

BOARDS = st.none() | graph_boards() | tiling_boards()


def learning_at_once(monkeypatch: pytest.MonkeyPatch, alone: bool) -> None:
    """Every piece that is not small counts as dense and big (``alone``: big enough to
    answer a click's question group by group, else its whole backbone at once)."""
    monkeypatch.setattr(piece_facts, "SMALL_LAYOUTS", 0)
    monkeypatch.setattr(_wide, "LEARN_GROUPS", 0)
    monkeypatch.setattr(_wide, "LEARN_CELLS", 0.0)
    monkeypatch.setattr(_wide, "ASK_GROUPS", 0 if alone else 1_000_000)


@profile()
@given(st.data(), st.sampled_from(Count), st.booleans())
def test_learning_at_once_matches_the_oracle(
    data: st.DataObject, count: Count, alone: bool
) -> None:
    board = data.draw(BOARDS)
    scenario: Scenario = data.draw(scenarios() if board is None else scenarios(st.just(board)))
    position = scenario.position
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered))
    want = oracle.classify(position, count).verdicts
    with pytest.MonkeyPatch.context() as mp:
        learning_at_once(mp, alone)
        one = solver.Solver(count).analyse(position).verdict(cell)
        whole = solver.Solver(count).analyse(position).classification().verdicts
    assert one is want[cell]
    assert whole == want
