"""A click's question answered for one group alone (``devil.solve._ask``, wide pieces), against
brute force.

- In group form: ``CdclBackbone``'s answers, asked one group at a time in any order, are
  what enumerating every assignment (``itertools.product``) answers.
- End to end against the brute-force oracle (``devil.oracle``), with every piece made to
  answer alone (none kept as a list of solutions, every piece counted as too wide for the
  programme, and under a window on the total whatever its number of groups): the
  verdict of one cell asked of a fresh analysis, and every cell asked of one analysis in
  a random order (later answers build on earlier ones), under both count rules; a
  witness drawn after such a verdict uses exactly the total (counted rule).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle, solver
from devil.analysis import Verdict
from devil.rules import Count
from devil.solve import _cut, _wide, piece_facts
from devil.solve._ask import CdclBackbone
from devil.solve._search import GroupProblem, TotalWindow
from tests.helpers.problems import assert_answers_every_question, problems, solutions
from tests.helpers.strategies import Scenario, profile, scenarios


@profile()
@given(problems(), st.randoms(use_true_random=False))
def test_group_questions_match_every_assignment(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], rng: random.Random
) -> None:
    problem, _ = drawn
    sols = solutions(problem)
    asked = CdclBackbone(problem)
    assert_answers_every_question(asked, problem, sols, rng)


def answering_alone(monkeypatch: pytest.MonkeyPatch, band: int, wide: bool = True) -> None:
    """Pieces answer a click's question group by group (cuts ``band`` lines apart): every
    piece (``wide``: each counts as too wide for the programme), else every piece under a
    window on the total (whatever its number of groups; the programme still sweeps it)."""
    monkeypatch.setattr(piece_facts, "SMALL_LAYOUTS", 0)
    if wide:
        monkeypatch.setattr(piece_facts, "WIDE_OPEN", 0)
    monkeypatch.setattr(_wide, "ASK_GROUPS", 0)
    monkeypatch.setattr(_cut, "BAND", band)
    monkeypatch.setattr(_cut, "_CUTS", {})


def asks_alone(analysis: solver.PositionAnalysis, wide: bool = True) -> bool:
    """Whether some piece answers alone (``wide``: without a window; else under one on the
    position's total, the whole total: the programme knows the piece's totals then)."""
    window = None
    if not wide:
        if analysis.mines_left is None:
            return False
        window = TotalWindow(0, analysis.mines_left)
    pieces = range(len(analysis.pieces))
    return any(analysis.facts(i).answers_alone(window) for i in pieces)


counts = st.sampled_from([Count.CLASSIC, Count.COUNTED])


@profile()
@given(scenarios(), counts, st.integers(1, 3), st.booleans(), st.data())
def test_one_verdict_from_a_fresh_analysis_matches_the_oracle(
    scenario: Scenario, count: Count, band: int, wide: bool, data: st.DataObject
) -> None:
    position = scenario.position
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered))
    want = oracle.classify(position, count).verdicts[cell]
    with pytest.MonkeyPatch.context() as mp:
        answering_alone(mp, band, wide)
        analysis = solver.Solver(count).analyse(position)
        assume(asks_alone(analysis, wide))  # the patch took: pieces answer alone
        got = analysis.verdict(cell)
        layout = analysis.witness(cell, True, random.Random(band)) if got.could_be_mine else None
    assert got is want
    if layout is not None:
        assert cell in layout
        assert oracle.is_consistent(position, layout, count)
        if count is Count.COUNTED:
            assert len(layout) == position.mines


@profile()
@given(scenarios(), counts, st.integers(1, 3), st.booleans(), st.randoms(use_true_random=False))
def test_every_verdict_asked_of_one_analysis_matches_the_oracle(
    scenario: Scenario, count: Count, band: int, wide: bool, rng: random.Random
) -> None:
    position = scenario.position
    covered = sorted(position.covered_cells())
    rng.shuffle(covered)
    want = oracle.classify(position, count).verdicts
    with pytest.MonkeyPatch.context() as mp:
        answering_alone(mp, band, wide)
        analysis = solver.Solver(count).analyse(position)
        got = {cell: analysis.verdict(cell) for cell in covered}
        whole = analysis.classification().verdicts  # every group, after the questions
    assert got == {cell: want[cell] for cell in covered}
    assert whole == want


def test_the_patch_reaches_the_engine() -> None:
    """The knobs the tests above turn are read when a piece is made, on either engine (a
    compiled module that folded them into constants would make those tests vacuous)."""
    from devil.position import Position

    position = Position.from_line("...#/11##")  # one piece: (0,0) and (0,1), one mine
    want = oracle.classify(position, Count.CLASSIC).verdicts
    with pytest.MonkeyPatch.context() as mp:
        answering_alone(mp, 2)
        analysis = solver.Solver(Count.CLASSIC).analyse(position)
        assert asks_alone(analysis)
        assert {c: analysis.verdict(c) for c in want} == want
    assert not asks_alone(solver.Solver(Count.CLASSIC).analyse(position))
    assert Verdict.EITHER in want.values()
