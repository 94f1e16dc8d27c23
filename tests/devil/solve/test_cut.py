"""Conditioning on cuts (``devil.solve._cut``) against brute force.

- In group form (random problems, every assignment enumerated by ``itertools.product``):
  every value ``certify`` reports was seen in a solution whose total is allowed, every
  question it closes is answered as the enumeration answers it, and ``solve`` returns
  only solutions within the domains with an allowed total.
- On small boards, end to end against the brute-force oracle (``devil.oracle``) with
  the programme's layer limit at 0, so every piece takes the wide path (cuts, then the
  exact fallback): counted verdicts and exact-total witnesses.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle, solver
from devil.analysis import Verdict
from devil.rules import Count
from devil.solve import _cut, _wide
from devil.solve._pieces import Piece
from devil.solve._search import Backbone, GroupProblem
from tests.helpers.problems import problems, solutions
from tests.helpers.strategies import Scenario, profile, scenarios

WIDTH = 8


def fake_piece(problem: GroupProblem, where: list[tuple[int, int]]) -> Piece:
    """A piece whose groups sit at ``where`` on a board ``WIDTH`` cells across."""
    groups = tuple(
        tuple(r * WIDTH + c for _ in range(size))
        for (r, c), size in zip(where, problem.sizes, strict=True)
    )
    return Piece(frozenset(), (), groups, problem)


def base_of(problem: GroupProblem, sols: list[tuple[int, ...]]) -> Backbone:
    low = [min(v[g] for v in sols) for g in range(problem.n)]
    high = [max(v[g] for v in sols) for g in range(problem.n)]
    return Backbone(low, high, list(sols[0]))


@profile()
@given(problems(), st.integers(0, 2**12 - 1), st.integers(1, 4))
def test_certify_reports_only_what_solutions_show(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], allowed: int, band: int
) -> None:
    problem, where = drawn
    sols = solutions(problem)
    assume(sols)
    fitting = [v for v in sols if (allowed >> sum(v)) & 1]
    piece = fake_piece(problem, where)
    got = _cut.certify(piece, WIDTH, allowed, base_of(problem, sols), None, band)
    if got is None:
        return  # the cuts found nothing: proves nothing, the caller falls back
    assert fitting
    sizes = problem.sizes
    for g, size in enumerate(sizes):
        seen = {v[g] for v in fitting}
        assert got.low[g] in seen and got.high[g] in seen
        if (g, True) not in got.open:
            assert (got.high[g] >= 1) == (max(seen) >= 1)
        if (g, False) not in got.open:
            assert (got.low[g] <= size - 1) == (min(seen) <= size - 1)
    bounds = _cut.window_bounds(piece, WIDTH, allowed, base_of(problem, sols), None, band)
    if bounds is not None:
        for g, size in enumerate(sizes):
            seen = {v[g] for v in fitting}
            assert (bounds[1][g] >= 1) == (max(seen) >= 1)
            assert (bounds[0][g] <= size - 1) == (min(seen) <= size - 1)


@profile()
@given(problems(), st.integers(0, 2**12 - 1), st.integers(1, 4), st.data())
def test_solve_returns_solutions_within_domains_and_allowed_totals(
    drawn: tuple[GroupProblem, list[tuple[int, int]]],
    allowed: int,
    band: int,
    data: st.DataObject,
) -> None:
    problem, where = drawn
    lo = [data.draw(st.integers(0, s)) for s in problem.sizes]
    hi = [data.draw(st.integers(a, s)) for a, s in zip(lo, problem.sizes, strict=True)]
    inside = [
        v for v in solutions(problem) if all(a <= x <= b for a, x, b in zip(lo, v, hi, strict=True))
    ]
    assume(inside)
    seed = list(data.draw(st.sampled_from(inside)))
    rng = data.draw(st.sampled_from([None, random.Random(3)]))
    got = _cut.solve(fake_piece(problem, where), WIDTH, (lo, hi), allowed, seed, rng, None, band)
    if got is not None:
        assert tuple(got) in inside
        assert (allowed >> sum(got)) & 1
    if not any((allowed >> sum(v)) & 1 for v in inside):
        assert got is None


def wide_everywhere(monkeypatch: pytest.MonkeyPatch, band: int) -> None:
    """Every piece too wide for the programme: the solver takes the cuts (bands of
    ``band`` lines), then its exact fallback."""
    monkeypatch.setattr(_wide, "DP_LIMIT", 0)
    monkeypatch.setattr(_cut, "BAND", band)
    monkeypatch.setattr(_cut, "_CUTS", {})


@profile()
@given(scenarios(), st.integers(1, 3))
def test_counted_verdicts_on_the_wide_path_match_the_oracle(scenario: Scenario, band: int) -> None:
    position = scenario.position
    with pytest.MonkeyPatch.context() as mp:
        wide_everywhere(mp, band)
        got = solver.classify(position, Count.COUNTED)
    want = oracle.classify(position, Count.COUNTED)
    assert got.verdicts == want.verdicts


@profile()
@given(scenarios(), st.integers(1, 3), st.integers(0, 2**16))
def test_witnesses_on_the_wide_path_use_the_exact_total(
    scenario: Scenario, band: int, seed: int
) -> None:
    position = scenario.position
    rng = random.Random(seed)
    with pytest.MonkeyPatch.context() as mp:
        wide_everywhere(mp, band)
        analysis = solver.Solver(Count.COUNTED).analyse(position)
        verdicts = analysis.classification().verdicts
        either = sorted(c for c, v in verdicts.items() if v is Verdict.EITHER)
        assume(either)
        cell = rng.choice(either)
        mine = rng.random() < 0.5
        layout = analysis.witness(cell, mine, random.Random(seed))
    assert layout is not None
    assert (cell in layout) is mine
    assert oracle.is_consistent(position, layout, Count.COUNTED)
    assert len(layout) == position.mines
