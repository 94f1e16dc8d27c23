"""Property tests: the search solver, the CP-SAT backend and the brute-force oracle agree.

On random small boards (square, torus, hex, with holes), random layouts and random
consistent partial reveals (``tests/helpers/strategies.py``), for both count rules:

- ``devil.solver.classify`` (both backends) and ``devil.cpsat.classify`` give the
  oracle's verdict on every covered cell;
- ``devil.solver.probabilities`` equals the oracle's exact probabilities;
- ``devil.solver.witness`` gives a layout the oracle deems consistent, with the asked
  value on the cell, or None exactly when the oracle says that value is impossible;
- positions no layout fits raise ``InconsistentPosition``;
- the incremental ``Solver.analyse`` over a sequence of reveals and flags equals a fresh
  classification by the oracle at every step.

On medium boards (up to 10x12, too big for the oracle) the search solver, incremental or
not, is checked against CP-SAT.

Quick by default; ``HYPOTHESIS_PROFILE=ci`` runs more examples.
"""

from __future__ import annotations

import importlib.util
import random
from types import ModuleType

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil import oracle
from devil.analysis import Classification, Verdict
from devil.board import Cell
from devil.errors import InconsistentPosition
from devil.position import Position
from devil.rules import Count
from tests.helpers.strategies import (
    UNLIMITED,
    Scenario,
    Step,
    inconsistent_positions,
    medium_boards,
    profile,
    reveal_sequences,
    scenarios,
)

if importlib.util.find_spec("devil.solver") is None:
    pytest.skip("devil.solver is not written yet", allow_module_level=True)

from devil import solver

cpsat: ModuleType | None
try:
    from devil import cpsat
except ImportError:
    cpsat = None

TOLERANCE = 1e-9

BACKENDS = st.sampled_from(("search", "cpsat") if cpsat is not None else ("search",))


def verdicts(classification: Classification) -> dict[Cell, Verdict]:
    return dict(classification.verdicts)


RULES = st.sampled_from(("classic", "classic without a total", "counted"))
"""The count rule, and for the classic rule whether the position carries its mine total
(classic probabilities then use the default density 0.2)."""


def under(scenario: Scenario, rule: str) -> tuple[Position, Count]:
    """The scenario's position and count rule for one of ``RULES``."""
    if rule == "counted":
        return scenario.position, Count.COUNTED
    if rule == "classic":
        return scenario.position, Count.CLASSIC
    return scenario.position.with_mines(None), Count.CLASSIC


def impossible(value_is_mine: bool) -> Verdict:
    """The verdict under which a cell cannot take the value: SAFE for a mine, MINE for free."""
    return Verdict.SAFE if value_is_mine else Verdict.MINE


# -- classification ---------------------------------------------------------------------


@profile()
@given(scenarios(), RULES)
def test_backends_agree_with_oracle(scenario: Scenario, rule: str) -> None:
    position, count = under(scenario, rule)
    expected = verdicts(oracle.classify(position, count))
    assert set(expected) == set(position.covered_cells())
    assert verdicts(solver.classify(position, count)) == expected
    if cpsat is not None:
        assert verdicts(cpsat.classify(position, count)) == expected
        assert verdicts(solver.classify(position, count, backend="cpsat")) == expected
    # The true layout is one consistent layout: its mines are never SAFE, its free cells
    # never MINE (a check on the oracle itself).
    for cell, verdict in expected.items():
        assert verdict is not impossible(cell in scenario.layout)


@profile()
@given(scenarios(), RULES)
def test_probabilities_match_oracle(scenario: Scenario, rule: str) -> None:
    position, count = under(scenario, rule)
    expected = oracle.probabilities(position, count)
    got = solver.probabilities(position, count)
    assert set(got) == set(expected)
    for cell, p in expected.items():
        assert abs(got[cell] - float(p)) <= TOLERANCE, (cell, got[cell], p)


# -- witnesses ------------------------------------------------------------------------


@profile()
@given(scenarios(), RULES, st.data())
def test_witness_is_consistent_or_none_exactly_when_impossible(
    scenario: Scenario, rule: str, data: st.DataObject
) -> None:
    position, count = under(scenario, rule)
    covered = sorted(position.covered_cells())
    assume(covered)
    cell = data.draw(st.sampled_from(covered), label="cell")
    mine = data.draw(st.booleans(), label="mine")
    rng = data.draw(st.none() | st.integers(0, 2**32).map(random.Random), label="rng")
    verdict = oracle.classify(position, count).verdict(cell)
    w = solver.witness(position, cell, mine, count, rng)
    if verdict is impossible(mine):
        assert w is None
        return
    assert w is not None, f"no witness though the oracle says {verdict}"
    assert (cell in w) is mine
    assert oracle.is_consistent(position, w, count)
    # Counted: exactly the total. Classic with a total: the total whenever it can be met.
    if position.mines is None:
        return
    exact_possible = oracle.classify(position, Count.COUNTED).verdict(cell) is not impossible(mine)
    if count is Count.COUNTED or exact_possible:
        assert len(w) == position.mines


# -- inconsistent positions -------------------------------------------------------------


def oracle_inconsistent(position: Position, count: Count) -> bool:
    try:
        oracle.classify(position, count)
    except InconsistentPosition:
        return True
    return False


def assert_names_a_number(error: InconsistentPosition, position: Position) -> None:
    if error.cell is not None:
        assert position.number(error.cell) is not None, error.cell


@profile()
@given(inconsistent_positions(), st.sampled_from(Count))
def test_inconsistent_numbers_raise(position: Position, count: Count) -> None:
    assume(oracle_inconsistent(position, count))
    with pytest.raises(InconsistentPosition) as info:
        solver.classify(position, count)
    assert_names_a_number(info.value, position)
    assert str(info.value)
    with pytest.raises(InconsistentPosition):
        solver.probabilities(position, count)


@profile()
@given(scenarios(), st.integers(-3, 6))
def test_wrong_totals_raise_under_counted(scenario: Scenario, shift: int) -> None:
    position = scenario.position
    assert position.mines is not None
    assume(shift != 0 and position.mines + shift >= 0)
    moved = position.with_mines(position.mines + shift)
    if oracle_inconsistent(moved, Count.COUNTED):
        with pytest.raises(InconsistentPosition) as info:
            solver.classify(moved, Count.COUNTED)
        assert_names_a_number(info.value, moved)
    else:
        assert verdicts(solver.classify(moved, Count.COUNTED)) == verdicts(
            oracle.classify(moved, Count.COUNTED)
        )


# -- the incremental solver ------------------------------------------------------------------


def check_analysis(analysis: solver.PositionAnalysis, position: Position, count: Count) -> None:
    expected = verdicts(oracle.classify(position, count))
    assert verdicts(analysis.classification()) == expected
    for cell, verdict in expected.items():
        assert analysis.verdict(cell) is verdict
    assert analysis.any_safe() is (Verdict.SAFE in expected.values())


@profile()
@given(reveal_sequences(), st.sampled_from(Count), BACKENDS, st.data())
def test_incremental_analysis_equals_fresh_classification(
    sequence: tuple[Scenario, list[Step]], count: Count, backend: str, data: st.DataObject
) -> None:
    start, steps = sequence
    incremental = solver.Solver(count, backend=backend)
    check_analysis(incremental.analyse(start.position), start.position, count)
    for step in steps:
        analysis = incremental.analyse(step.position, changed=step.changed)
        check_analysis(analysis, step.position, count)
        covered = sorted(step.position.covered_cells())
        if not covered:
            continue
        cell = data.draw(st.sampled_from(covered), label="witness cell")
        verdict = analysis.verdict(cell)
        w = analysis.witness(cell, mine=True)
        if verdict is Verdict.SAFE:
            assert w is None
        else:
            assert w is not None and cell in w
            assert oracle.is_consistent(step.position, w, count)


@profile()
@given(reveal_sequences(), st.sampled_from(Count))
def test_incremental_without_changed_cells(
    sequence: tuple[Scenario, list[Step]], count: Count
) -> None:
    # changed=None must mean "compare with nothing": a full (cached) analysis.
    start, steps = sequence
    incremental = solver.Solver(count)
    for position in [start.position, *(s.position for s in steps)]:
        check_analysis(incremental.analyse(position), position, count)


# -- medium boards: search against CP-SAT ----------------------------------------------------

needs_cpsat = pytest.mark.skipif(cpsat is None, reason="OR-Tools is not installed")


@needs_cpsat
@profile()
@given(scenarios(medium_boards(), max_edge=UNLIMITED), st.sampled_from(Count))
def test_search_agrees_with_cpsat_on_medium_boards(scenario: Scenario, count: Count) -> None:
    assert cpsat is not None
    position = scenario.position
    expected = verdicts(cpsat.classify(position, count))
    assert verdicts(solver.classify(position, count)) == expected
    for cell, verdict in expected.items():
        assert verdict is not impossible(cell in scenario.layout)


@needs_cpsat
@profile()
@given(reveal_sequences(medium_boards(), max_edge=UNLIMITED, max_steps=8), st.sampled_from(Count))
def test_incremental_agrees_with_cpsat_on_medium_boards(
    sequence: tuple[Scenario, list[Step]], count: Count
) -> None:
    assert cpsat is not None
    start, steps = sequence
    incremental = solver.Solver(count)
    incremental.analyse(start.position)
    for step in steps:
        analysis = incremental.analyse(step.position, changed=step.changed)
        expected = verdicts(cpsat.classify(step.position, count))
        assert verdicts(analysis.classification()) == expected
        assert analysis.any_safe() is (Verdict.SAFE in expected.values())
