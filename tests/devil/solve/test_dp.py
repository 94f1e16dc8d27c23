"""The path-decomposition programme (``devil.solve._dp``) against brute force.

Two independent references:

- on random problems in group form, every assignment of the groups is enumerated
  (``itertools.product``): totals, exact counts per total and per group, window bounds
  and sampled solutions must match, whatever order the plan picks;
- on random small boards of every topology, the solver's exact probabilities (which
  come from this programme) equal the brute-force oracle's as exact fractions, under
  both count rules.
"""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle, solver
from devil.rules import Count
from devil.solve import _dp, counted
from devil.solve._search import GroupProblem, make_problem
from tests.helpers.problems import problems, solutions
from tests.helpers.strategies import Scenario, profile, scenarios


def weight(problem: GroupProblem, values: tuple[int, ...]) -> int:
    out = 1
    for s, a in zip(problem.sizes, values, strict=True):
        out *= comb(s, a)
    return out


@profile()
@given(problems(), st.booleans())
def test_counts_and_totals_match_enumeration(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], sweep: bool
) -> None:
    problem, where = drawn
    plan = _dp.plan(problem, where if sweep else None)
    sols = solutions(problem)
    top = sum(problem.sizes) + 1
    total = [0] * top
    mined = [[0] * top for _ in range(problem.n)]
    mask = 0
    for values in sols:
        k = sum(values)
        w = weight(problem, values)
        total[k] += w
        mask |= 1 << k
        for g, a in enumerate(values):
            mined[g][k] += w * a
    assert _dp.totals(plan) == mask
    got = _dp.counts(plan)
    assert got.total == total
    assert got.mined == mined


@profile()
@given(problems())
def test_orders_are_the_graph_order_and_the_two_board_sweeps(
    drawn: tuple[GroupProblem, list[tuple[int, int]]],
) -> None:
    """The candidate orders: breadth-first from a peripheral group (a plain reference
    walk), then the groups sorted by (row, column) and by (column, row), ties by index."""
    problem, where = drawn

    def walk(start: int) -> list[int]:
        out = [start]
        for v in out:
            for c in problem.var_cons[v]:
                out += [w for w in problem.cons[c][0] if w not in out]
        return out + [v for v in range(problem.n) if v not in out]

    n = problem.n
    assert list(problem.order) == walk(walk(0)[-1])
    orders = _dp._orders(problem, where)
    assert list(orders[1]) == sorted(range(n), key=lambda g: where[g])
    assert list(orders[2]) == sorted(range(n), key=lambda g: (where[g][1], where[g][0]))


@profile()
@given(problems(), st.randoms(use_true_random=False))
def test_open_most_counts_the_open_constraints_of_any_order(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], rng: random.Random
) -> None:
    """``open_most`` (how ``plan`` picks its order without building the steps) is the most
    constraints with a group placed and a group still to come, counted step by step."""
    problem, _ = drawn
    order = list(range(problem.n))
    rng.shuffle(order)
    most = 0
    for i in range(len(order)):
        placed, after = set(order[: i + 1]), set(order[i:])
        spans = [vs for vs, _ in problem.cons if placed & set(vs) and after & set(vs)]
        most = max(most, len(spans))
    assert _dp.open_most(problem, order) == most
    assert _dp.Plan(problem, order).open_max == most


@profile()
@given(problems(), st.booleans())
def test_fewest_open_is_the_open_max_of_the_plan(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], sweep: bool
) -> None:
    """Choosing an engine reads ``fewest_open`` and builds the plan only when a question
    needs it: the two must agree, counted step by step over every candidate order."""
    problem, where = drawn
    at = where if sweep else None
    plan = _dp.plan(problem, at)
    fewest = min(
        max(
            (
                sum(
                    1
                    for vs, _ in problem.cons
                    if set(order[: i + 1]) & set(vs) and set(order[i:]) & set(vs)
                )
                for i in range(len(order))
            ),
            default=0,
        )
        for order in _dp._orders(problem, at)
    )
    assert _dp.fewest_open(problem, at) == plan.open_max == fewest


@profile()
@given(problems(), st.integers(0, 2**12 - 1), st.integers(0, 2**32))
def test_window_bounds_and_samples_match_enumeration(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], allowed: int, seed: int
) -> None:
    problem, where = drawn
    plan = _dp.plan(problem, where)
    fitting = [v for v in solutions(problem) if (allowed >> sum(v)) & 1]
    low, high = _dp.window_bounds(plan, allowed)
    for g, size in enumerate(problem.sizes):
        seen = [v[g] for v in fitting]
        assert low[g] == (min(seen) if seen else size + 1)
        assert high[g] == (max(seen) if seen else -1)
    for rng in (None, random.Random(seed)):
        got = _dp.sample(plan, allowed, None, rng)
        if not fitting:
            assert got is None
        else:
            assert got is not None and tuple(got) in fitting


@profile()
@given(problems(), st.data())
def test_sample_respects_domains(
    drawn: tuple[GroupProblem, list[tuple[int, int]]], data: st.DataObject
) -> None:
    problem, where = drawn
    plan = _dp.plan(problem, where)
    lo = [data.draw(st.integers(0, s)) for s in problem.sizes]
    hi = [data.draw(st.integers(a, s)) for a, s in zip(lo, problem.sizes, strict=True)]
    allowed = (1 << (sum(problem.sizes) + 1)) - 1
    fitting = [
        v for v in solutions(problem) if all(a <= x <= b for a, x, b in zip(lo, v, hi, strict=True))
    ]
    got = _dp.sample(plan, allowed, (lo, hi), random.Random(1))
    assert (got is None) == (not fitting)
    if got is not None:
        assert tuple(got) in fitting


def test_too_wide_is_raised_past_the_limit() -> None:
    sizes = [1] * 12
    cons = [((i, (i + 1) % 12), 1) for i in range(12)]
    problem = make_problem(sizes, cons)
    with pytest.raises(_dp.TooWide):
        _dp.totals(_dp.plan(problem), limit=1)
    assert _dp.totals(_dp.plan(problem)) == 1 << 6


RULES = st.sampled_from((Count.CLASSIC, Count.COUNTED))


@profile()
@given(scenarios(), RULES)
def test_exact_probabilities_equal_the_oracle(scenario: Scenario, count: Count) -> None:
    position = scenario.position
    assert solver.exact_probabilities(position, count) == oracle.probabilities(position, count)


@given(st.integers(0, 60), st.integers(0, 80), st.integers(0, 90))
def test_scaled_binomials_are_proportional_to_the_binomials(d: int, m: int, count: int) -> None:
    exact = [comb(d, m - x) if 0 <= m - x <= d else 0 for x in range(count)]
    scaled = counted.binomials_scaled(d, m, count)
    assert [x > 0 for x in scaled] == [x > 0 for x in exact]
    ratios = {Fraction(a, b) for a, b in zip(exact, scaled, strict=True) if b}
    assert len(ratios) <= 1
