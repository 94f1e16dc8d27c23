"""Dense big pieces decide their backbone by clause learning at once (``devil.solve._wide.learns``:
a geodesic sphere's 12-neighbour frontier), checked against the brute-force oracle with every
piece that is not small made to take that path: the classification, and one cell's verdict
asked of a fresh analysis (the piece answers that group alone), under both count rules, on
random graphs, every built-in tiling and grids; and, in group form, the guided searches that
answer each question (``devil.solve._ask.CdclBackbone``) against every assignment, also when
a question runs out of guided conflicts and is asked again unguided. The guide must not make
the search blow up: a lattice it once did on is classified within a conflict bound. Pieces the
plain search decides ask their later questions by clause learning too (``_wide._mixed``):
against the oracle with every such piece taking that path, and in group form against every
assignment."""

from __future__ import annotations

import gc
import random
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle, solver
from devil.formats import read_position
from devil.position import Position
from devil.rules import Count
from devil.solve import _wide, piece_facts
from devil.solve._ask import GUIDED_CONFLICTS, CdclBackbone
from devil.solve._cdcl import Cdcl
from devil.solve._search import GroupProblem, Search, TotalWindow
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.problems import assert_answers_every_question, problems, solutions
from tests.helpers.strategies import Scenario, profile, scenarios

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from lattice import lattice

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


@profile()
@given(problems(), st.data(), st.randoms(use_true_random=False))
def test_guided_questions_match_every_assignment(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], data: st.DataObject, rng: random.Random
) -> None:
    """``CdclBackbone`` repairs the last solution it found for each question (a guided
    search): under a window on the total and with groups already proven all-safe or
    all-mine, every answer, asked in any order, is what enumerating every assignment says;
    also when guided questions get few conflicts (-1: none), so that the instance drops the
    guide part-way and asks the rest in the graph order."""
    problem, _ = drawn
    total = sum(problem.sizes)
    window = None
    if data.draw(st.booleans()):
        low = data.draw(st.integers(0, total))
        window = TotalWindow(low, data.draw(st.integers(low, total)))
    sols = [v for v in solutions(problem) if window is None or window.low <= sum(v) <= window.high]
    lo = [problem.sizes[g] if sols and all(v[g] == problem.sizes[g] for v in sols) else 0
          for g in range(problem.n)]  # fmt: skip
    hi = [0 if sols and all(v[g] == 0 for v in sols) else problem.sizes[g]
          for g in range(problem.n)]  # fmt: skip
    proven = data.draw(st.booleans())
    cap = data.draw(st.sampled_from([GUIDED_CONFLICTS, -1, 0, 1, 2]))
    asked = CdclBackbone(
        problem, window, lo if proven else None, hi if proven else None, guided_conflicts=cap
    )
    assert_answers_every_question(asked, problem, sols, rng)


@profile()
@given(st.data(), st.sampled_from(Count))
def test_mixed_backbone_matches_the_oracle(data: st.DataObject, count: Count) -> None:
    """Every piece the plain search would decide (not small, not dense) takes the mixed path:
    the plain search's first solution, every later question by clause learning."""
    board = data.draw(BOARDS)
    scenario: Scenario = data.draw(scenarios() if board is None else scenarios(st.just(board)))
    position = scenario.position
    want = oracle.classify(position, count).verdicts
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(piece_facts, "SMALL_LAYOUTS", 0)
        mp.setattr(_wide, "MIXED_GROUPS", 0)
        got = solver.Solver(count).analyse(position).classification().verdicts
    assert got == want


@profile()
@given(problems())
def test_mixed_backbone_matches_every_assignment(
    drawn: tuple[GroupProblem, list[tuple[int, int]]],
) -> None:
    """Which groups can hold a mine and a safe cell is what enumerating every assignment
    says, and the first solution is the plain search's (a piece's first solution stays what
    it was before the later questions moved to clause learning)."""
    problem, _ = drawn
    sols = solutions(problem)
    got = _wide._mixed(problem)
    if not sols:
        assert got is None
        return
    assert got is not None
    assert got.solution == Search(problem).solve([0] * problem.n, problem.sizes)
    assert tuple(got.solution) in sols
    for g, size in enumerate(problem.sizes):
        assert (got.high[g] >= 1) is any(v[g] >= 1 for v in sols)
        assert (got.low[g] <= size - 1) is any(v[g] <= size - 1 for v in sols)


@profile()
@given(problems(), st.data())
def test_guided_solutions_are_solutions(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], data: st.DataObject
) -> None:
    """Each solution a guided search returns (its groups: the guide's values moved by the
    cells it set) is one of the enumerated solutions and has its assumption, and the groups
    it lists as moved are those whose value differs from the last solution's."""
    problem, _ = drawn
    sols = solutions(problem)
    solver = Cdcl(problem)
    last = solver.solve()
    assert (last is None) == (not sols)
    if last is None:
        return
    solver.set_guide(last)
    for _ in range(data.draw(st.integers(1, 6))):
        g = data.draw(st.integers(0, problem.n - 1))
        mine = data.draw(st.booleans())
        sol = solver.solve([solver.group_literal(g, mine)])
        can = any(v[g] >= 1 if mine else v[g] <= problem.sizes[g] - 1 for v in sols)
        assert (sol is not None) is can
        if sol is None:
            continue
        assert tuple(sol) in sols
        assert set(solver.moved) == {h for h in range(problem.n) if sol[h] != last[h]}
        last = sol


def lattice_conflicts(guided_conflicts: int) -> int:
    """Conflicts of every backbone question, asked by clause learning, of the biggest piece
    of ``lattice(24, 3)`` (numbers on even rows and columns, every other cell covered) as
    the solver builds it: with the guide uncapped 15,185 (10 s in the pure engine), 547
    unguided."""
    position = Position.from_line(read_position(lattice(24, 3)).line)
    pieces = solver.Solver().analyse(position).pieces
    problem = max((piece.problem for piece in pieces), key=lambda p: p.n)
    asked = CdclBackbone(problem, guided_conflicts=guided_conflicts)
    assert asked.finish() is not None
    return asked.solver.conflicts


def test_guided_questions_stay_within_a_bound_on_a_lattice() -> None:
    """The guide changes only the decision order, which can make a complete search
    exponential (a 40x40 lattice took minutes): with the cap, asking every question of a
    lattice piece the uncapped guide blew up on costs at most twice the unguided conflicts
    plus one cap."""
    unguided = lattice_conflicts(-1)
    assert lattice_conflicts(GUIDED_CONFLICTS) <= 2 * unguided + GUIDED_CONFLICTS


@profile()
@given(problems())
def test_a_finished_solver_leaves_nothing_to_the_cycle_collector(
    drawn: tuple[GroupProblem, list[tuple[int, int]]],
) -> None:
    """The cells and cards of a search refer to each other; dropping the solver frees them by
    reference counting (``Cdcl.__del__`` breaks the cycles), so a long-lived server does not
    hold finished searches until a collection of the oldest generation."""
    problem, _ = drawn
    gc.disable()  # the solver's objects stay in the youngest generation until collect(0)
    try:
        gc.collect(0)
        solver = Cdcl(problem, TotalWindow(0, sum(problem.sizes)))
        first = solver.solve()
        if first is not None:
            solver.set_guide(first)
            solver.solve([solver.group_literal(0, first[0] == 0)])
        del solver
        assert gc.collect(0) == 0
    finally:
        gc.enable()
