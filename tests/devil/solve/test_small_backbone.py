"""``devil.solve._small.small_backbone`` and ``small_counts``: the backbone and the layout
counts of a small piece by visiting every group assignment, against ``itertools.product``
over the cells' layouts and against the search (``devil.solve._search.backbone``,
``devil.solve._count.count_by_search``) on random problems and the pieces of random positions.

(The verdicts it leads to are checked against the brute-force oracle by
``tests/test_properties.py``: small boards are made of small pieces.)
"""

from __future__ import annotations

import itertools
from math import comb

from hypothesis import given
from hypothesis import strategies as st

from devil.rules import Count
from devil.solve._count import count_by_search
from devil.solve._search import GroupProblem, backbone, make_problem
from devil.solve._small import (
    SMALL_LAYOUTS,
    bounds_of,
    layouts_at_most,
    small_backbone,
    small_counts,
    small_solutions,
)
from devil.solver import Solver
from tests.helpers.strategies import Scenario, profile, scenarios


def by_product(problem: GroupProblem) -> tuple[list[int], list[int]] | None:
    """Per group the lowest and highest value over every solution (None: no solution)."""
    solutions = [
        values
        for values in itertools.product(*(range(size + 1) for size in problem.sizes))
        if all(sum(values[g] for g in groups) == need for groups, need in problem.cons)
    ]
    if not solutions:
        return None
    return (
        [min(s[g] for s in solutions) for g in range(problem.n)],
        [max(s[g] for s in solutions) for g in range(problem.n)],
    )


def cell_counts(problem: GroupProblem) -> tuple[list[int], list[list[int]]]:
    """Per mine total: the cell layouts, and per group the mines it holds over them (every
    group value weighed by its ways to choose the mined cells, ``comb``)."""
    top = sum(problem.sizes) + 1
    total = [0] * top
    mined = [[0] * top for _ in range(problem.n)]
    for values in itertools.product(*(range(size + 1) for size in problem.sizes)):
        if all(sum(values[g] for g in groups) == need for groups, need in problem.cons):
            ways = 1
            for g, a in enumerate(values):
                ways *= comb(problem.sizes[g], a)
            total[sum(values)] += ways
            for g, a in enumerate(values):
                mined[g][sum(values)] += ways * a
    return total, mined


def check_windows(problem: GroupProblem) -> None:
    """``bounds_of`` under a set of allowed totals: min and max over those solutions."""
    solutions = [
        values
        for values in itertools.product(*(range(size + 1) for size in problem.sizes))
        if all(sum(values[g] for g in groups) == need for groups, need in problem.cons)
    ]
    top = sum(problem.sizes)
    for allowed in [1 << k for k in range(top + 1)] + [0b101, 0b110, (1 << (top + 1)) - 2]:
        fit = [s for s in solutions if (allowed >> sum(s)) & 1]
        got = bounds_of(small_solutions(problem), allowed)
        if not fit:
            assert got is None
            continue
        assert got is not None
        assert got.low == [min(s[g] for s in fit) for g in range(problem.n)]
        assert got.high == [max(s[g] for s in fit) for g in range(problem.n)]


def check(problem: GroupProblem) -> None:
    check_windows(problem)
    counts = small_counts(problem)
    assert (counts.total, counts.mined) == cell_counts(problem)
    searched = count_by_search(problem)
    assert (counts.total, counts.mined) == (searched.total, searched.mined)
    got = small_backbone(problem)
    want = by_product(problem)
    if want is None:
        assert got is None
        assert backbone(problem) is None
        return
    assert got is not None
    assert (got.low, got.high) == want
    assert all(  # the solution it keeps is one
        sum(got.solution[g] for g in groups) == need for groups, need in problem.cons
    )
    search = backbone(problem)
    assert search is not None
    for g, size in enumerate(problem.sizes):
        assert (got.high[g] >= 1) == (search.high[g] >= 1)
        assert (got.low[g] <= size - 1) == (search.low[g] <= size - 1)


@st.composite
def problems(draw: st.DrawFn) -> GroupProblem:
    """Random small group problems, satisfiable or not."""
    n = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    cons = []
    for _ in range(draw(st.integers(1, 4))):
        groups = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n)))
        cap = sum(sizes[g] for g in groups)
        cons.append((tuple(groups), draw(st.integers(0, cap))))
    covered = {g for groups, _ in cons for g in groups}
    sizes = [s for g, s in enumerate(sizes) if g in covered]  # every group in a constraint
    index = {g: i for i, g in enumerate(sorted(covered))}
    cons = [(tuple(index[g] for g in groups), need) for groups, need in cons]
    return make_problem(sizes, cons)


@profile()
@given(problems())
def test_small_backbone_is_every_assignment(problem: GroupProblem) -> None:
    check(problem)


@profile()
@given(scenarios(), st.sampled_from(Count))
def test_small_backbone_on_real_pieces(scenario: Scenario, count: Count) -> None:
    for piece in Solver(count).analyse(scenario.position).pieces:
        if layouts_at_most(piece.problem.sizes, SMALL_LAYOUTS):
            check(piece.problem)


def test_layouts_at_most() -> None:
    assert layouts_at_most((1, 1, 1), 8)
    assert not layouts_at_most((1, 1, 1), 7)
    assert layouts_at_most((), 1)
    assert not layouts_at_most((3, 3, 3, 3), 64)
