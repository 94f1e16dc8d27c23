"""The frontier's propagation (``devil.solve._propagate``) against the brute-force oracle.

On random small positions (grid boards, random graphs with any degree, the built-in
tilings; for the fixed point also the tilings part-way through a game), the frontier is
built as the solver builds it (every revealed number touching a covered cell, then
``Frontier.run``), and:

- what it keeps is exactly the oracle's layouts: every edge layout of the oracle agrees
  with the decided cells and fits every residual constraint, and the residual constraints
  have as many solutions as the oracle has layouts (nothing lost, nothing added);
- it is a fixed point of its rules: no residual constraint is settled by counting, and
  no two sharing a cell are equal, nested or settled by the overlap rule (checked here
  with plain set operations, so a rule the frontier skips fails the test);
- a position no layout fits (by the oracle) raises ``InconsistentPosition`` or keeps
  residual constraints with no solution.
"""

from __future__ import annotations

import contextlib
import itertools

from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle
from devil.errors import InconsistentPosition
from devil.graphs.positions import midgame
from devil.graphs.tilings import TILINGS, tiling, tiling_board
from devil.position import Position
from devil.solve._frontier import frontier_sources, read_number
from devil.solve._pieces import make_piece
from devil.solve._propagate import Frontier
from devil.solve.grid import neighbour_fn
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.strategies import (
    UNLIMITED,
    Scenario,
    boards,
    inconsistent_positions,
    profile,
    scenarios,
)

ANY_BOARD = st.one_of(boards(), graph_boards(), tiling_boards())

MAX_FREE = 16
"""Most undecided cells the test enumerates to count the residual constraints' solutions."""


def built(position: Position) -> Frontier:
    """The frontier of a position, built as ``Solver._rebuild`` builds it on a graph board."""
    frontier = Frontier(position)
    nb = neighbour_fn(position.board)
    for s in frontier_sources(position):
        cells, need = read_number(position, s, nb)
        frontier.add(s, cells, need)
    frontier.run()
    return frontier


def solutions(frontier: Frontier) -> int:
    """How many assignments of the undecided cells fit every residual constraint."""
    free = sorted({c for cells, _ in frontier.cons.values() for c in cells})
    assert len(free) <= MAX_FREE
    count = 0
    for bits in itertools.product((0, 1), repeat=len(free)):
        mined = {c for c, b in zip(free, bits, strict=True) if b}
        if all(len(cells & mined) == need for cells, need in frontier.cons.values()):
            count += 1
    return count


@profile()
@given(scenarios(ANY_BOARD, max_edge=MAX_FREE))
def test_frontier_keeps_exactly_the_oracle_layouts(scenario: Scenario) -> None:
    position = scenario.position
    frontier = built(position)
    layouts = oracle.edge_layouts(position)
    for layout in layouts:
        for c, value in frontier.known.items():
            assert (c in layout) == bool(value), (c, value)
        for s, (cells, need) in frontier.cons.items():
            assert len(cells & layout) == need, s
    assert solutions(frontier) == len(layouts)


@st.composite
def tiling_midgames(draw: st.DrawFn) -> Position:
    """A built-in tiling at its beginner size part-way through a game (too many edge cells
    for the oracle, but the rules fire far more often than on tiny boards)."""
    name = draw(st.sampled_from(sorted(TILINGS)))
    preset = tiling(name).preset("beginner")
    board = tiling_board(name, preset.size, draw(st.booleans()))
    fraction = draw(st.sampled_from((0.2, 0.4, 0.6)))
    return midgame(board, preset.mines(board.cell_count), draw(st.integers(0, 10**6)), fraction)


@profile()
@given(
    st.one_of(scenarios(ANY_BOARD, max_edge=UNLIMITED).map(lambda s: s.position), tiling_midgames())
)
def test_frontier_is_a_fixed_point_of_its_rules(position: Position) -> None:
    frontier = built(position)
    cons = frontier.cons
    for s, (cells, need) in cons.items():
        assert 0 < need < len(cells), s  # else the counting rules settle it
        for c in cells:
            assert s in frontier.sources_of[c]
        for t, (t_cells, t_need) in cons.items():
            if t == s or cells.isdisjoint(t_cells):
                continue
            assert not cells <= t_cells, (s, t)  # equal or nested: the subset rule applies
            only_s = cells - t_cells
            assert need - t_need != len(only_s), (s, t)  # the overlap rule applies


@profile()
@given(inconsistent_positions(max_edge=MAX_FREE))
def test_frontier_never_passes_an_inconsistent_position_as_settled(position: Position) -> None:
    """An inconsistent position either raises or leaves residual constraints with no
    solution (the searches then name it); it is never settled into a layout."""
    with contextlib.suppress(InconsistentPosition):  # the oracle's own reading saw it
        assume(not oracle.edge_layouts(position))
    try:
        frontier = built(position)
    except InconsistentPosition:
        return
    assert frontier.cons and solutions(frontier) == 0


@profile()
@given(
    st.lists(
        st.tuples(st.frozensets(st.integers(0, 600), min_size=1, max_size=6), st.integers(0, 3)),
        min_size=1,
        max_size=12,
    )
)
def test_pieces_group_cells_by_the_constraints_holding_them(
    drawn: list[tuple[frozenset[int], int]],
) -> None:
    """A piece's groups are its cells split by the set of constraints holding them (each
    group's cells in order, the groups in order), and each constraint names its groups in
    order: plain set operations, against ``make_piece``'s numbers."""
    cons = {1000 + i: (cells, need) for i, (cells, need) in enumerate(drawn)}
    sources = sorted(cons)
    holders: dict[int, frozenset[int]] = {}
    for s in sources:
        for c in cons[s][0]:
            holders[c] = holders.get(c, frozenset()) | {s}
    groups = sorted(
        tuple(sorted(c for c in holders if holders[c] == h)) for h in set(holders.values())
    )
    piece = make_piece(sources, cons)
    assert piece.groups == tuple(groups)
    assert piece.sources == tuple(sources)
    assert piece.problem.sizes == tuple(len(g) for g in groups)
    index = {c: g for g, cells in enumerate(groups) for c in cells}
    assert piece.problem.cons == tuple(
        (tuple(sorted({index[c] for c in cons[s][0]})), cons[s][1]) for s in sources
    )
    assert piece.problem.var_cons == tuple(
        tuple(i for i, s in enumerate(sources) if groups[g][0] in cons[s][0])
        for g in range(len(groups))
    )
