"""A budget spent inside another one: a judgement's solver calls, a raft's moves.

``Share(seconds=..., nodes=..., within=meter)`` is a ``devil.budget.Budget`` whose running
meter also charges ``within`` (an enclosing call's meter), so the enclosing limit stops the
inner work too and the inner work is counted against it. The solver starts a meter from
the budget it is given; a ``Share`` is how a world judgement hands it "what is left of
mine" without the solver knowing about judgements, and how the server gives each move of
a raft its own limit inside the raft's. ``Share`` itself is defined with ``Budget`` in the
compiled ``devil.solve.budget`` (an interpreted class cannot inherit from a compiled one);
this module keeps the world's helpers around it.
"""

from __future__ import annotations

from devil.budget import Budget, Meter, Share


def start(budget: Budget | None) -> Meter | None:
    """The running meter of ``budget`` (None for no budget or an unbounded one)."""
    return None if budget is None or budget.unbounded else budget.start()


def inside(meter: Meter | None) -> Share | None:
    """A budget for an inner call that spends ``meter`` (None: no limit)."""
    return None if meter is None else Share(within=meter)


__all__ = ["Share", "inside", "start"]
