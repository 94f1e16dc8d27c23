"""``devil.solve._bulk.settle`` (the counting rules on the whole board at once, in big-integer
bit operations) against the counting rules written out number by number.

The reference below is deliberately plain: every revealed number, again and again, until
nothing changes; need 0 frees its unknown neighbours, need equal to its unknown neighbours
mines them all; any number whose need is negative or larger than its unknown neighbours
makes the position inconsistent (``settle`` then returns None and the solver falls back to
the path that names the number). The fixpoint of these rules is unique, so ``settle`` must
give exactly the same decided cells and the same residual ``(cells, need)`` per number.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from devil.board import Board, Cell, Topology
from devil.position import Position
from devil.solve._bulk import settle
from devil.solve._frontier import one_positions
from tests.helpers.strategies import Scenario, boards, inconsistent_positions, profile, scenarios

Residual = dict[Cell, tuple[frozenset[Cell], int]]


def counting_rules(position: Position) -> tuple[dict[Cell, int], Residual] | None:
    board = position.board
    numbers = [c for c in board.cells() if position.number(c) is not None]
    known: dict[Cell, int] = {}
    changed = True
    while changed:
        changed = False
        for s in numbers:
            value = position.number(s)
            assert value is not None
            cells = [n for n in board.neighbours(s) if position.is_covered(n)]
            unknown = [c for c in cells if c not in known]
            need = value - sum(known.get(c, 0) for c in cells)
            if need < 0 or need > len(unknown):
                return None
            if unknown and need in (0, len(unknown)):
                for c in unknown:
                    known[c] = 1 if need else 0
                changed = True
    residual: Residual = {}
    for s in numbers:
        value = position.number(s)
        assert value is not None
        cells = [n for n in board.neighbours(s) if position.is_covered(n)]
        left = frozenset(c for c in cells if c not in known)
        if left:
            residual[s] = (left, value - sum(known.get(c, 0) for c in cells))
    return known, residual


def square_boards() -> st.SearchStrategy[Board]:
    return boards(max_height=9, max_width=11, topologies=(Topology.SQUARE,))


def check(position: Position) -> None:
    got = settle(position)
    want = counting_rules(position)
    if want is None:
        assert got is None
        return
    assert got is not None
    known, residual = got
    assert known == want[0]
    assert residual == want[1]
    # mines first, then safe cells, each in board order (the solver's dict order)
    mines = sorted(c for c, v in known.items() if v)
    safe = sorted(c for c, v in known.items() if not v)
    assert list(known) == mines + safe
    assert list(residual) == sorted(residual)


@profile()
@given(scenarios(square_boards(), max_edge=10**9))
def test_settle_is_the_counting_rules_fixpoint(scenario: Scenario) -> None:
    check(scenario.position)


@profile()
@given(inconsistent_positions(max_edge=10**9))
def test_settle_on_perturbed_numbers(position: Position) -> None:
    if position.board.topology is Topology.SQUARE:
        check(position)
    else:
        assert settle(position) is None


@profile()
@given(st.lists(st.sampled_from([0, 0, 0, 1]), max_size=300))
def test_one_positions_are_the_set_bytes_in_order(values: list[int]) -> None:
    data = bytes(values)
    assert one_positions(data) == [i for i, b in enumerate(data) if b]
