"""Small solver problems in group form (``devil.solve._search.GroupProblem``) and their
solutions by enumeration, for the kernel tests (programme, cuts, one-group questions)."""

from __future__ import annotations

import itertools
import random

from hypothesis import strategies as st

from devil.solve._ask import CdclBackbone
from devil.solve._search import GroupProblem, make_problem


@st.composite
def problems(draw: st.DrawFn) -> tuple[GroupProblem, list[tuple[int, int]]]:
    """A small problem in group form with a satisfiable-or-not set of sums, and a
    (row, column) per group for the board sweeps."""
    n = draw(st.integers(1, 8))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    m = draw(st.integers(1, 6))
    cons = []
    for _ in range(m):
        groups = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=min(n, 4))))
        cap = sum(sizes[g] for g in groups)
        cons.append((tuple(groups), draw(st.integers(0, cap))))
    used = {g for gs, _ in cons for g in gs}
    missing = [g for g in range(n) if g not in used]
    if missing:  # every group lies in some constraint, as in a piece
        cons.append((tuple(missing), draw(st.integers(0, sum(sizes[g] for g in missing)))))
    where = [(draw(st.integers(0, 5)), draw(st.integers(0, 5))) for _ in range(n)]
    return make_problem(sizes, cons), where


def solutions(problem: GroupProblem) -> list[tuple[int, ...]]:
    ranges = [range(s + 1) for s in problem.sizes]
    return [
        values
        for values in itertools.product(*ranges)
        if all(sum(values[g] for g in gs) == need for gs, need in problem.cons)
    ]


def assert_answers_every_question(
    asked: CdclBackbone,
    problem: GroupProblem,
    sols: list[tuple[int, ...]],
    rng: random.Random,
) -> None:
    """Every group's two questions (can it hold a mine, can it be safe), in ``rng``'s order,
    answered as the enumerated solutions ``sols`` say."""
    assert (asked.first is None) == (not sols)
    questions = [(g, mine) for g in range(problem.n) for mine in (True, False)]
    rng.shuffle(questions)
    for g, mine in questions:
        want = any(v[g] >= 1 if mine else v[g] <= problem.sizes[g] - 1 for v in sols)
        assert (asked.can_mine(g) if mine else asked.can_be_safe(g)) is want, (g, mine)
