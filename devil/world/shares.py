"""A budget spent inside another one: a judgement's solver calls, a raft's moves.

``Share(seconds=..., nodes=..., within=meter)`` is a ``devil.budget.Budget`` whose running
meter also charges ``within`` (an enclosing call's meter), so the enclosing limit stops the
inner work too and the inner work is counted against it. The solver starts a meter from
the budget it is given; a ``Share`` is how a world judgement hands it "what is left of
mine" without the solver knowing about judgements, and how the server gives each move of
a raft its own limit inside the raft's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from devil.budget import Budget, Meter


@dataclass(frozen=True, slots=True)
class Share(Budget):
    """Its own ``seconds`` / ``nodes`` (None: only the enclosing ones) inside ``within``;
    ``clock``: what its seconds count (None: the caller's, wall-clock by default; the
    server counts this thread's CPU time, ``time.thread_time``)."""

    within: Meter | None = field(default=None, compare=False, repr=False)
    clock: Callable[[], float] | None = field(default=None, compare=False, repr=False)

    @property
    def unbounded(self) -> bool:
        return self.seconds is None and self.nodes is None and self.within is None

    def start(self, clock: Callable[[], float] = time.monotonic) -> Meter:
        return Meter(self, self.clock or clock, parent=self.within)


def start(budget: Budget | None) -> Meter | None:
    """The running meter of ``budget`` (None for no budget or an unbounded one)."""
    return None if budget is None or budget.unbounded else budget.start()


def inside(meter: Meter | None) -> Share | None:
    """A budget for an inner call that spends ``meter`` (None: no limit)."""
    return None if meter is None else Share(within=meter)


__all__ = ["Share", "inside", "start"]
