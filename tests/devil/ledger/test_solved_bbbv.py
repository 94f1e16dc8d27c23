"""Issue 11 follow-up: a lost game's metrics count only the 3BV it solved.

The oracle here is independent of ``devil.ledger.metrics``: 3BV is the least number of left
clicks that clear a board, so the 3BV a position has solved is the board's least clicks from
nothing minus its least clicks from that position, both found by trying every set of clicks
(tiny boards)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.board import Board
from devil.game import GameParams, Move
from devil.ledger.annotate import annotate
from devil.ledger.metrics import Metrics, bbbv, solved_bbbv
from tests.helpers.strategies import profile


def cascade(board: Board, layout: frozenset[int], cell: int) -> set[int]:
    """The cells one left click on safe ``cell`` opens (a zero opens its neighbours)."""
    opened, todo = {cell}, [cell]
    while todo:
        c = todo.pop()
        near = board.neighbours(c)
        if any(n in layout for n in near):
            continue
        for n in near:
            if n not in opened:
                opened.add(n)
                todo.append(n)
    return opened


def least_clicks(board: Board, layout: frozenset[int], revealed: set[int]) -> int:
    """The fewest left clicks that open every safe cell not in ``revealed`` (brute force)."""
    rest = [c for c in board.cells() if c not in layout and c not in revealed]
    for k in range(len(rest) + 1):
        for clicks in combinations(rest, k):
            opened = set(revealed)
            for c in clicks:
                opened |= cascade(board, layout, c)
            if all(c in opened for c in rest):
                return k
    raise AssertionError("unreachable: clicking every cell opens every cell")


@st.composite
def played(draw: st.DrawFn) -> tuple[Board, frozenset[int], set[int]]:
    """A tiny board, its mines, and what some left clicks on safe cells opened."""
    board = Board(draw(st.integers(1, 3)), draw(st.integers(1, 4)))
    cells = list(board.cells())
    layout = frozenset(draw(st.lists(st.sampled_from(cells), max_size=len(cells), unique=True)))
    safe = [c for c in cells if c not in layout]
    clicks = draw(st.lists(st.sampled_from(safe), unique=True)) if safe else []
    revealed: set[int] = set()
    for c in clicks:
        revealed |= cascade(board, layout, c)
    return board, layout, revealed


@profile()
@given(played())
def test_solved_3bv_is_the_clicks_the_position_saved(
    game: tuple[Board, frozenset[int], set[int]],
) -> None:
    board, layout, revealed = game
    whole = least_clicks(board, layout, set())
    assert bbbv(board, layout) == whole
    solved = solved_bbbv(board, layout, revealed)
    assert solved == whole - least_clicks(board, layout, revealed)
    assert solved_bbbv(board, layout, revealed | set(layout)) == solved  # mines solve nothing


def test_a_lost_game_is_rated_on_what_it_solved() -> None:
    """1x12, a mine at column 5: two openings (3BV 2). The left one is cleared, then the
    mine is clicked: 1 of 2 solved, and 3BV/s and efficiency count that 1."""
    params = GameParams(1, 12, 1, no_guess=False)
    layout = frozenset({5})
    moves = [Move.reveal(0, 0), Move.reveal(0, 5)]
    metrics = annotate(params, moves, layout, seconds=4.0, devil=False).metrics
    assert (metrics.bbbv, metrics.solved_bbbv, metrics.clicks) == (2, 1, 2)
    assert metrics.bbbv_per_s == pytest.approx(1 / 4)
    assert metrics.efficiency == pytest.approx(1 / 2)
    data = metrics.to_json()
    assert (data["3bv"], data["solved_3bv"], data["3bv_per_s"]) == (2, 1, 0.25)
    won = annotate(params, [Move.reveal(0, 0), Move.reveal(0, 11)], layout, seconds=4.0).metrics
    assert (won.bbbv, won.solved_bbbv, won.bbbv_per_s) == (2, 2, pytest.approx(2 / 4))


def test_solved_3bv_must_fit_the_3bv() -> None:
    with pytest.raises(ValueError, match=r"solved 3BV must be 0\.\.2"):
        Metrics(2, 1, None, 0, None, 0.0, solved=3)
