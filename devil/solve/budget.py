"""How much work one engine call may do: a deadline and/or a node budget.

``Budget(seconds=..., nodes=...)`` is an immutable spec (``None`` = no limit on that
axis). ``budget.start()`` gives a running ``Meter``; the engine's loops that can blow up
(search, clause learning, counting) charge it as they go, and it raises
``devil.errors.BudgetExceeded`` once either limit is passed. The public entry points
(``classify``, ``probabilities``, ``Solver.analyse``, ``prove``) catch it and answer
partially, naming the cells they left undecided and why.

The loops find the running meter through ``current()`` (a context variable set by
``metering``), so a budget reaches every loop without threading a parameter through
every helper, and two threads each running their own analysis never share a meter.
Charging is cheap: a counter is bumped and the clock is read only every
``CLOCK_EVERY`` units of work.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from devil.errors import BudgetExceeded

__all__ = [
    "Budget",
    "BudgetExceeded",
    "Meter",
    "Share",
    "bounded",
    "charge",
    "current",
    "metering",
    "outer_exceeded",
]

CLOCK_EVERY = 256
"""Units of work between two reads of the clock."""


@dataclass(frozen=True, slots=True)
class Budget:
    """At most ``seconds`` of wall-clock time and at most ``nodes`` units of work."""

    seconds: float | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and not (self.seconds > 0 and math.isfinite(self.seconds)):
            raise ValueError(f"budget seconds must be a positive number, not {self.seconds!r}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"budget nodes must be a positive integer, not {self.nodes!r}")

    @property
    def unbounded(self) -> bool:
        return self.seconds is None and self.nodes is None

    def describe(self) -> str:
        """``"0.5 s"``, ``"10000 nodes"`` or ``"0.5 s / 10000 nodes"``."""
        parts = []
        if self.seconds is not None:
            parts.append(f"{self.seconds:g} s")
        if self.nodes is not None:
            parts.append(f"{self.nodes} nodes")
        return " / ".join(parts) or "no limit"

    def start(self, clock: Callable[[], float] = time.monotonic) -> Meter:
        return Meter(self, clock)


class Meter:
    """A running budget. ``charge`` raises ``BudgetExceeded`` once a limit is passed.

    Once exceeded it stays exceeded: every later ``charge`` raises again, so a caller
    that catches the exception and carries on with other work stops at the next loop.
    """

    __slots__ = ("_clock", "_deadline", "_limit", "_next_clock", "budget", "parent", "used")

    def __init__(
        self,
        budget: Budget,
        clock: Callable[[], float] = time.monotonic,
        parent: Meter | None = None,
    ) -> None:
        self.budget = budget
        self.parent = parent
        """A meter charged with everything this one is (a bounded step inside a call)."""
        self.used = 0
        self._clock = clock
        self._deadline = math.inf if budget.seconds is None else clock() + budget.seconds
        self._limit = budget.nodes if budget.nodes is not None else -1
        self._next_clock = CLOCK_EVERY

    def charge(self, units: int = 1) -> None:
        """Count ``units`` of work; raise ``BudgetExceeded`` when over a limit."""
        self.used += units
        if self.parent is not None:
            self.parent.charge(units)
        if self._limit >= 0 and self.used > self._limit:
            raise self._exceeded()
        if self.used >= self._next_clock:
            self._next_clock = self.used + CLOCK_EVERY
            if self._clock() > self._deadline:
                raise self._exceeded()

    def spend(self, units: int = 1) -> bool:
        """Count ``units`` of work; True (instead of raising) when over a limit.

        For loops that must tidy up before ``check()`` raises.
        """
        self.used += units
        if self.parent is not None and self.parent.spend(units):
            return True
        if self._limit >= 0 and self.used > self._limit:
            return True
        if self.used >= self._next_clock:
            self._next_clock = self.used + CLOCK_EVERY
            return self._clock() > self._deadline
        return False

    def check(self) -> None:
        """Raise ``BudgetExceeded`` if a limit is already passed (reads the clock)."""
        if self.parent is not None:
            self.parent.check()
        if (self._limit >= 0 and self.used > self._limit) or self._clock() > self._deadline:
            raise self._exceeded()

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None without one; never negative)."""
        if self.budget.seconds is None:
            return None
        return max(0.0, self._deadline - self._clock())

    @property
    def exceeded(self) -> bool:
        return (self._limit >= 0 and self.used > self._limit) or self._clock() > self._deadline

    def _exceeded(self) -> BudgetExceeded:
        return BudgetExceeded(
            f"too hard within the budget ({self.budget.describe()})", self.budget.describe()
        )


_CURRENT: ContextVar[Meter | None] = ContextVar("devil_meter", default=None)


def current() -> Meter | None:
    """The meter of the engine call running in this thread/context, if it has one."""
    return _CURRENT.get()


@dataclass(frozen=True, slots=True)
class Share(Budget):
    """A budget spent inside another one: its own ``seconds`` / ``nodes`` (None: only the
    enclosing ones) inside ``within``, an enclosing call's running meter, which every unit
    of this one also charges (a world judgement's solver calls, a raft's moves). ``clock``:
    what its seconds count (None: the caller's, wall-clock by default; the world server
    counts this thread's CPU time, ``time.thread_time``).

    It lives here, with ``Budget``, because the class is compiled with it: an interpreted
    class cannot inherit from a compiled one."""

    within: Meter | None = field(default=None, compare=False, repr=False)
    clock: Callable[[], float] | None = field(default=None, compare=False, repr=False)

    @property
    def unbounded(self) -> bool:
        return self.seconds is None and self.nodes is None and self.within is None

    def start(self, clock: Callable[[], float] = time.monotonic) -> Meter:
        return Meter(self, self.clock or clock, parent=self.within)


class _Metering:
    """``metering``'s context manager (a class: a generator-based one costs a microsecond
    per use, and the solver enters one per query)."""

    __slots__ = ("_meter", "_token")

    def __init__(self, meter: Meter | None) -> None:
        self._meter = meter
        self._token: Token[Meter | None] | None = None

    def __enter__(self) -> Meter | None:
        self._token = _CURRENT.set(self._meter)
        return self._meter

    def __exit__(self, *exc: object) -> None:
        token = self._token
        assert token is not None
        self._token = None
        _CURRENT.reset(token)


def metering(meter: Meter | None) -> _Metering:
    """Run the block with ``meter`` as ``current()`` (None: unbounded)."""
    return _Metering(meter)


@contextmanager
def bounded(nodes: int) -> Iterator[Meter]:
    """Run the block with at most ``nodes`` units of work (deterministic, unlike a deadline)
    on top of the current meter, which is charged too and still stops the block."""
    meter = Meter(Budget(nodes=nodes), parent=_CURRENT.get())
    with metering(meter):
        yield meter


def outer_exceeded(meter: Meter) -> bool:
    """Whether a meter from ``bounded`` stopped because of an enclosing budget."""
    parent = meter.parent
    return parent is not None and parent.exceeded


def charge(units: int = 1) -> None:
    """Charge the current meter, if any (for loops that run rarely; hot loops hold the meter)."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.charge(units)
