"""Version-2 witnesses (``devil.solve.quick_witness``), checked against the brute-force oracle:
a layout exactly when the oracle has one with the cell mined (or safe), consistent with the
position, the position's total under the counted rule; the devil rule at version 2 under both
mercies; on random graphs, every built-in tiling and grids. Pieces are made hard (drawn by
clause learning, totals fitted inside windows) with the thresholds patched, and the windows'
conflicts cut so that the exact pass and version 1's way are reached too; a layout does not
depend on what the solver answered before. Games: version 2 changes graph games' witnesses
only; a grid game of version 2 plays as version 1."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Verdict
from devil.devil_rule import judge
from devil.game import LATEST_VERSION, Game, GameParams, GraphSpec, Move, Status
from devil.position import Position
from devil.rules import Count, Mercy, Rules
from devil.solve import _wide, piece_facts, quick_witness
from devil.solver import Solver
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.judgements import assert_judged_as_the_oracle_says
from tests.helpers.strategies import Scenario, profile, scenarios

BOARDS = st.none() | graph_boards() | tiling_boards()
HARD = st.sampled_from(["plain", "hard", "hard, short windows"])


def make_hard(monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """``hard``: every piece that is not small is drawn as a sphere's big piece; ``short
    windows``: a window's draw gives up at its first conflict."""
    if how == "plain":
        return
    monkeypatch.setattr(piece_facts, "SMALL_LAYOUTS", 0)
    monkeypatch.setattr(_wide, "LEARN_GROUPS", 0)
    monkeypatch.setattr(_wide, "LEARN_CELLS", 0.0)
    if how.endswith("short windows"):
        monkeypatch.setattr(quick_witness, "WINDOW_CONFLICTS", 0)


def draw_click(data: st.DataObject) -> tuple[Position, int]:
    """A position on one of ``BOARDS`` (any graph when None) and a covered cell of it."""
    board = data.draw(BOARDS)
    scenario: Scenario = data.draw(scenarios() if board is None else scenarios(st.just(board)))
    covered = sorted(scenario.position.covered_cells())
    assume(covered)
    return scenario.position, data.draw(st.sampled_from(covered))


@profile()
@given(st.data(), st.sampled_from(Count), HARD, st.booleans())
def test_version_two_witnesses_are_layouts_the_oracle_accepts(
    data: st.DataObject, count: Count, how: str, nearest: bool
) -> None:
    position, cell = draw_click(data)
    truth = oracle.classify(position, count).verdict(cell)
    seed = data.draw(st.integers(0, 2**32))
    with pytest.MonkeyPatch.context() as mp:
        make_hard(mp, how)
        analysis = Solver(count).analyse(position)
        for mine in (True, False):
            rng = random.Random(seed)
            layout = analysis.witness(cell, mine, rng, nearest_total=nearest, version=2)
            possible = truth is Verdict.EITHER or (truth is Verdict.MINE) == mine
            assert (layout is not None) == possible
            if layout is not None:
                assert (cell in layout) == mine
                assert oracle.is_consistent(position, layout, count)
                if how == "plain" and position.mines is not None:  # no hard piece: exact
                    exact = oracle.classify(position, Count.COUNTED).verdict(cell)
                    if exact is Verdict.EITHER or (exact is Verdict.MINE) == mine:
                        assert len(layout) == position.mines


@profile()
@given(st.data(), st.sampled_from(Count), st.sampled_from(Mercy), HARD)
def test_the_devil_rule_at_version_two(
    data: st.DataObject, count: Count, mercy: Mercy, how: str
) -> None:
    position, cell = draw_click(data)
    with pytest.MonkeyPatch.context() as mp:
        make_hard(mp, how)
        got = judge(Solver(count).analyse(position), cell, Rules(count, mercy), 7, version=2)
    assert_judged_as_the_oracle_says(got, position, cell, count, mercy)


@settings(profile(), max_examples=min(profile().max_examples, 30))
@given(st.data(), st.sampled_from(Count), HARD)
def test_a_version_two_witness_does_not_depend_on_what_the_solver_met_before(
    data: st.DataObject, count: Count, how: str
) -> None:
    """A replayed game's solver may have answered other questions first (probabilities,
    version-1 witnesses), which can hand a piece over to another engine: same layouts."""
    position, cell = draw_click(data)
    with pytest.MonkeyPatch.context() as mp:
        make_hard(mp, how)
        fresh = Solver(count).analyse(position)
        used = Solver(count).analyse(position)
        used.exact_probabilities()
        for mine in (True, False):
            used.witness(cell, mine, random.Random(1), nearest_total=True)
        for mine in (True, False):
            want = fresh.witness(cell, mine, random.Random(5), nearest_total=True, version=2)
            got = used.witness(cell, mine, random.Random(5), nearest_total=True, version=2)
            assert got == want


def first_loss(params: GameParams) -> tuple[Game, Game]:
    """Cells revealed in board order until the game ends: the game before the last click
    and after it."""
    board = params.board()
    before = game = Game.new(params)
    for cell in board.cells():
        if game.status is not Status.PLAYING:
            break
        if game.position.is_covered(cell):
            before, game = game, game.play(Move.reveal(*board.coord(cell)))
    return before, game


@pytest.mark.parametrize("count", list(Count))
def test_a_version_two_graph_game_loses_with_a_layout_the_oracle_accepts(count: Count) -> None:
    spec = GraphSpec("triangle", (6, 6))
    params = GameParams(
        mines=8, rules=Rules(count), no_guess=False, seed=3, graph=spec, version=LATEST_VERSION
    )
    before, game = first_loss(params)
    assert game.status is Status.LOST and game.witness is not None
    assert game.loss in game.witness
    assert oracle.is_consistent(before.position, game.witness, count)


def test_a_grid_game_of_version_two_plays_as_version_one() -> None:
    for seed in range(4):
        old = first_loss(GameParams(height=6, width=6, mines=9, no_guess=False, seed=seed))[1]
        new = first_loss(
            GameParams(height=6, width=6, mines=9, no_guess=False, seed=seed, version=2)
        )[1]
        assert (new.status, new.loss, new.witness) == (old.status, old.loss, old.witness)
        assert new.position.line == old.position.line
