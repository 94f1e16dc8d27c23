"""``devil.budget``: the spec, the running meter and the context it is found through."""

from __future__ import annotations

import json
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import budget, oracle, solver
from devil.analysis import Verdict
from devil.budget import Budget, Meter, metering
from devil.errors import BudgetExceeded
from devil.position import Position
from devil.rules import Count
from tests.helpers.paths import POSITIONS
from tests.helpers.strategies import Scenario, profile, scenarios


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"seconds": 0}, "seconds"),
        ({"seconds": -1.0}, "seconds"),
        ({"seconds": float("nan")}, "seconds"),
        ({"seconds": float("inf")}, "seconds"),
        ({"nodes": 0}, "nodes"),
    ],
)
def test_bad_budgets_are_refused_naming_the_field(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Budget(**kwargs)  # type: ignore[arg-type]


def test_describe() -> None:
    assert Budget(seconds=0.5).describe() == "0.5 s"
    assert Budget(nodes=100).describe() == "100 nodes"
    assert Budget(2, 10).describe() == "2 s / 10 nodes"
    assert Budget().unbounded and Budget().describe() == "no limit"


def test_node_budget_raises_on_the_first_unit_past_it() -> None:
    meter = Budget(nodes=10).start()
    meter.charge(10)
    with pytest.raises(BudgetExceeded, match="10 nodes") as caught:
        meter.charge()
    assert caught.value.limit == "10 nodes"
    with pytest.raises(BudgetExceeded):  # stays exceeded
        meter.charge()


def test_deadline_is_read_every_few_units() -> None:
    clock = FakeClock()
    meter = Meter(Budget(seconds=1.0), clock)
    meter.charge(budget.CLOCK_EVERY)
    clock.now += 2.0
    meter.charge(budget.CLOCK_EVERY - 1)  # the clock is not read before the next stride
    with pytest.raises(BudgetExceeded, match="1 s"):
        meter.charge(1)
    assert meter.exceeded
    with pytest.raises(BudgetExceeded):
        meter.check()


def test_spend_reports_instead_of_raising() -> None:
    meter = Budget(nodes=2).start()
    assert not meter.spend(2)
    assert meter.spend(1)


def test_no_budget_never_raises() -> None:
    meter = Budget().start()
    meter.charge(10**9)
    meter.check()
    assert not meter.exceeded


def test_metering_sets_and_restores_the_current_meter() -> None:
    assert budget.current() is None
    meter = Budget(nodes=1).start()
    with metering(meter):
        assert budget.current() is meter
        budget.charge()
        with pytest.raises(BudgetExceeded):
            budget.charge()
    assert budget.current() is None
    budget.charge(10**9)  # no meter: free


def test_each_thread_has_its_own_meter() -> None:
    seen: list[object] = []
    with metering(Budget(nodes=1).start()):
        worker = threading.Thread(target=lambda: seen.append(budget.current()))
        worker.start()
        worker.join()
    assert seen == [None]


def test_budget_exceeded_is_not_a_value_error() -> None:
    # callers catch bad input as ValueError; running out of budget is not bad input
    assert not issubclass(BudgetExceeded, ValueError)


# -- the solver under a budget: partial, never wrong ------------------------------------

LETTER = {Verdict.SAFE: "S", Verdict.MINE: "M", Verdict.EITHER: "?"}


def _lattice(name: str) -> tuple[Position, dict[str, object], list[int]]:
    position = Position.from_text((POSITIONS / f"{name}.txt").read_text())
    truth = json.loads((POSITIONS / f"{name}.truth.json").read_text())
    board = position.board
    frontier = [
        c
        for c in board.cells()
        if position.is_covered(c)
        and any(position.number(n) is not None for n in board.neighbours(c))
    ]
    return position, truth, frontier


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
@pytest.mark.parametrize(
    "limit", [Budget(nodes=300), Budget(nodes=5_000), Budget(seconds=0.05)], ids=str
)
def test_a_lattice_under_a_tiny_budget_answers_partially_and_never_wrongly(
    count: Count, limit: Budget
) -> None:
    position, truth, frontier = _lattice("adv-lattice_40x40")
    expected = truth["local" if count is Count.CLASSIC else "global"]
    assert isinstance(expected, str)
    started = time.perf_counter()
    result = solver.classify(position, count, budget=limit)
    assert time.perf_counter() - started < 10  # stops (generously: a shared machine)
    covered = set(position.covered_cells())
    assert set(result.verdicts) | result.undecided == covered
    assert not set(result.verdicts) & result.undecided
    assert result.undecided and not result.complete
    assert result.reason is not None and "too hard within the budget" in result.reason
    for cell, letter in zip(frontier, expected, strict=True):
        if cell in result.verdicts:
            assert LETTER[result.verdicts[cell]] == letter, cell


def test_no_budget_is_complete() -> None:
    position, truth, frontier = _lattice("adv-lattice_16x16")
    result = solver.classify(position, Count.COUNTED, budget=Budget())
    assert result.complete and result.reason is None
    assert "".join(LETTER[result.verdict(c)] for c in frontier) == truth["global"]


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
def test_probabilities_under_a_tiny_budget_are_partial_and_right(count: Count) -> None:
    position, truth, frontier = _lattice("adv-lattice_16x30")
    letters = truth["local" if count is Count.CLASSIC else "global"]
    assert isinstance(letters, str)
    expected = dict(zip(frontier, letters, strict=True))
    got = solver.exact_probabilities(position, count, budget=Budget(nodes=200))
    assert got.undecided and got.reason is not None
    assert set(got) | got.undecided == set(position.covered_cells())
    for cell, p in got.items():
        letter = expected.get(cell)
        if letter is not None:
            assert {"S": p == 0, "M": p == 1, "?": 0 < p < 1}[letter], (cell, p, letter)
    floats = solver.probabilities(position, count, budget=Budget(nodes=200))
    assert floats.undecided == got.undecided and floats.reason == got.reason


def test_a_witness_out_of_budget_raises() -> None:
    position, _, frontier = _lattice("adv-lattice_40x40")
    analysis = solver.Solver(Count.COUNTED).analyse(position, budget=Budget(nodes=100))
    with pytest.raises(BudgetExceeded):
        analysis.witness(frontier[0], True)


@profile()
@given(scenarios(), st.sampled_from((Count.CLASSIC, Count.COUNTED)), st.integers(1, 60))
def test_every_decided_cell_agrees_with_the_oracle(
    scenario: Scenario, count: Count, nodes: int
) -> None:
    position = scenario.position
    expected = oracle.classify(position, count).verdicts
    result = solver.classify(position, count, budget=Budget(nodes=nodes))
    assert set(result.verdicts) | result.undecided == set(expected)
    for cell, verdict in result.verdicts.items():
        assert verdict is expected[cell]
    assert (result.reason is None) == result.complete
    probs = solver.exact_probabilities(position, count, budget=Budget(nodes=nodes))
    truth = oracle.probabilities(position, count)
    assert set(probs) | probs.undecided == set(truth)
    for cell, p in probs.items():
        assert p == truth[cell]


def test_bounded_steps_charge_the_enclosing_meter_too() -> None:
    outer = Budget(nodes=10).start()
    with metering(outer):
        with budget.bounded(100) as inner:
            budget.charge(5)
            assert not budget.outer_exceeded(inner)
        assert outer.used == 5
        with pytest.raises(BudgetExceeded), budget.bounded(100) as inner:
            budget.charge(6)  # 11 > 10: the enclosing budget stops the step
        assert budget.outer_exceeded(inner)
    with budget.bounded(3) as alone:
        with pytest.raises(BudgetExceeded):
            budget.charge(4)
        assert not budget.outer_exceeded(alone)
