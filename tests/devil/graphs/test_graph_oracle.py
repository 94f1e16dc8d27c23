"""The solver on graph boards, checked against the brute-force oracle (``devil.oracle``).

Random cell graphs (any degree, numbers above 8, disconnected pieces, isolated cells) and
every built-in tiling at a small size, under both count rules; the devil rule under both
mercies. The oracle reads only ``Board.neighbours`` and the position's numbers.
"""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.devil_rule import judge
from devil.rules import Count, Mercy, Rules
from devil.solver import Solver, classify, probabilities, witness
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.judgements import assert_judged_as_the_oracle_says
from tests.helpers.strategies import Scenario, profile, scenarios

COUNTS = st.sampled_from(Count)
BOARDS = graph_boards() | tiling_boards()


def _check_classification(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    truth = oracle.classify(position, count)
    got = classify(position, count)
    for cell in position.covered_cells():
        assert got.verdict(cell) is truth.verdict(cell), position.where(cell)


@profile()
@given(scenarios(graph_boards()), COUNTS)
def test_classify_matches_the_oracle_on_random_graphs(scenario: Scenario, count: Count) -> None:
    _check_classification(scenario, count)


@profile()
@given(scenarios(tiling_boards()), COUNTS)
def test_classify_matches_the_oracle_on_every_tiling(scenario: Scenario, count: Count) -> None:
    _check_classification(scenario, count)


@profile()
@given(scenarios(BOARDS, max_edge=14), COUNTS)
def test_probabilities_match_the_oracle(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    truth = oracle.probabilities(position, count)
    got = probabilities(position, count)
    for cell, p in truth.items():
        assert abs(float(got[cell]) - float(p)) < 1e-9, position.where(cell)


@profile()
@given(scenarios(BOARDS), COUNTS, st.data())
def test_witnesses_are_layouts_the_oracle_accepts(
    scenario: Scenario, count: Count, data: st.DataObject
) -> None:
    position = scenario.position
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered))
    truth = oracle.classify(position, count).verdict(cell)
    for mine in (True, False):
        layout = witness(position, cell, mine, count)
        possible = truth is Verdict.EITHER or (truth is Verdict.MINE) == mine
        assert (layout is not None) == possible
        if layout is not None:
            assert (cell in layout) == mine
            assert oracle.is_consistent(position, layout, count)


@profile()
@given(scenarios(BOARDS), st.sampled_from(Count), st.sampled_from(Mercy), st.data())
def test_the_devil_rule_on_graph_boards(
    scenario: Scenario, count: Count, mercy: Mercy, data: st.DataObject
) -> None:
    position = scenario.position
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered))
    got = judge(Solver(count).analyse(position), cell, Rules(count, mercy), seed=7)
    assert_judged_as_the_oracle_says(got, position, cell, count, mercy)


def test_a_hub_with_twelve_mined_neighbours_is_read() -> None:
    """A number above 8 is a real constraint: a hub showing 12 of its 12 neighbours."""
    from devil.graphs.cells import CellGraph, GraphCell
    from devil.graphs.layout import graph_board
    from devil.position import Position, number_byte

    cells = tuple(GraphCell(f"c{i}") for i in range(14))
    edges = (*((0, j) for j in range(1, 13)), (12, 13))
    board = graph_board(CellGraph(cells, edges))
    assert board.graph is not None
    hub = board.graph.cell("c0")
    position = Position.covered(board).with_cells({hub: number_byte(12)})
    got = classify(position)
    truth = oracle.classify(position)
    assert board.graph is not None
    for i in range(1, 13):
        assert got.verdict(board.graph.cell(f"c{i}")) is Verdict.MINE
    for cell in position.covered_cells():
        assert got.verdict(cell) is truth.verdict(cell)
    assert got.verdict(board.graph.cell("c13")) is Verdict.EITHER
