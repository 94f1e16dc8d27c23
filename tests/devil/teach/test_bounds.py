"""``devil.teach.bounds`` asks the solver's engines about the bounds a proof chose: every
answer (a layout, a forced cell, the achievable totals) against the brute-force oracle's
layouts of the edge cells (``devil.oracle.edge_layouts``), with some cells fixed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.board import Cell
from devil.teach.bounds import Bound, count_mask, forces, number_bounds, solve
from tests.helpers.strategies import Scenario, profile, scenarios


def agrees(layout: frozenset[Cell], fixed: dict[Cell, bool]) -> bool:
    return all((c in layout) is mine for c, mine in fixed.items())


@profile()
@given(scenarios(), st.data())
def test_bounds_answers_match_the_oracle(scenario: Scenario, data: st.DataObject) -> None:
    position = scenario.position
    bounds = number_bounds(position)
    cells = sorted({c for r in bounds for c in r.cells})
    deep = sorted(c for c in position.covered_cells() if c not in set(cells))
    pool = cells + deep[:2]  # fixed cells outside every bound count in the totals only
    chosen = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=3)) if pool else []
    fixed = {c: data.draw(st.booleans()) for c in chosen}
    inside = {c: m for c, m in fixed.items() if c in set(cells)}
    layouts = [lay for lay in oracle.edge_layouts(position) if agrees(lay, inside)]
    extra = sum(1 for c, m in fixed.items() if m and c not in set(cells))
    want = 0
    for lay in layouts:
        want |= 1 << (len(lay) + extra)
    assert count_mask(bounds, fixed) == want
    got = solve(bounds, fixed)
    assert (got is None) == (not layouts)
    if got is not None:
        assert set(got) == set(cells)
        assert frozenset(c for c, m in got.items() if m) in layouts
    for cell in cells[:4]:
        for mine in (True, False):
            alone = [lay for lay in oracle.edge_layouts(position) if (cell in lay) is not mine]
            assert forces(bounds, cell, mine) == (not alone)


def test_no_bounds_allow_only_the_fixed_mines() -> None:
    assert count_mask([], {}) == 1
    assert count_mask([], {5: True, 6: False}) == 2
    assert solve([], {5: True}) == {}


def test_a_bound_needing_more_than_its_cells_has_no_layout() -> None:
    bound = Bound(0, frozenset({1, 2}), 3, 3, value=3)
    assert solve([bound]) is None
    assert count_mask([bound], {}) == 0
