"""``devil.budget``: the spec, the running meter and the context it is found through."""

from __future__ import annotations

import threading

import pytest

from devil import budget
from devil.budget import Budget, Meter, metering
from devil.errors import BudgetExceeded


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
