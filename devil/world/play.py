"""Moves on the world: reveal (with its zero cascade), flag, drop.

Each move reads the team's knowledge (``Knowledge``) and, only once a cell is proved safe,
its true colour through ``truth(x, y)``: the one door to the keyed hash. A move returns
what it opened; recording it (``MemoryKnowledge.apply`` or the server's store) is the
caller's job, so these functions are pure given their two callbacks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from devil.budget import Budget
from devil.errors import BudgetExceeded
from devil.world.cells import XY, check, inside, neighbours
from devil.world.knowledge import DIGITS, MINE, SAFE, UNKNOWN, Knowledge
from devil.world.rule import Settled, Witness, WorldVerdict, judge_flag, judge_reveal

Truth = Callable[[int, int], int]
"""The colour of a cell (the server's ``Colouring.colour``)."""

Outcome = Literal["revealed", "flagged", "devil", "undecided", "dropped", "none"]
OpenCell = tuple[int, int, str]
"""A cell a move opened: ``(x, y, symbol)``, a digit for a reveal, ``"F"`` for a flag."""

CASCADE_LIMIT = 10_000
"""Most cells one reveal opens; the rest of a cascade waits for later clicks."""

DROP_RADIUS = 32

_OPENABLE = frozenset((UNKNOWN, SAFE))
"""What a cascade opens: unknown cells and cells flagged another colour (known safe)."""


class UnsoundKnowledge(RuntimeError):
    """The truth contradicts a proof: the knowledge was not derived from this world."""


@dataclass(frozen=True)
class MoveResult:
    """What a move did.

    ``outcome``: ``revealed`` / ``flagged`` (also when nothing new was opened), ``devil``
    (a devil error: ``witness`` shows why), ``undecided`` (the judgement could not decide
    within its window or its budget: nothing happened, not an error; ``reason`` says why),
    ``dropped``, ``none`` (a drop that found no cell; ``reason`` says why).
    ``cells``: what was opened, in opening order.
    ``truncated``: the cascade stopped at its limit with cells still to open. ``at``: the
    cell the move opened first (the dropped-on cell for a drop), None when nothing opened.
    """

    outcome: Outcome
    cells: tuple[OpenCell, ...] = ()
    witness: Witness | None = None
    truncated: bool = False
    at: XY | None = None
    reason: str | None = None


class Colours:
    """``truth`` memoised: a cascade asks about each cell up to nine times, and the moves
    of one raft, next to each other, about many of the same cells again. A move builds one
    for itself; a caller playing several moves can build one (``Colours(truth)``) and pass
    it as each move's ``truth`` to share it. It asks ``truth`` only what the moves ask."""

    __slots__ = ("seen", "truth")

    def __init__(self, truth: Truth):
        self.truth = truth
        self.seen: dict[XY, int] = {}

    def __call__(self, x: int, y: int) -> int:
        return self.of((x, y))

    def of(self, cell: XY) -> int:
        c = self.seen.get(cell)
        if c is None:
            c = self.seen[cell] = self.truth(cell[0], cell[1])
        return c

    def number(self, cell: XY, colour: int) -> int:
        of = self.of
        return sum(1 for n in neighbours(*cell) if of(n) == colour)


def _colours(truth: Truth) -> Colours:
    return truth if isinstance(truth, Colours) else Colours(truth)


def reveal(
    k: Knowledge,
    truth: Truth,
    colour: int,
    x: int,
    y: int,
    limit: int = CASCADE_LIMIT,
    budget: Budget | None = None,
    proofs: Settled | None = None,
) -> MoveResult:
    """Reveal ``(x, y)`` on board ``colour`` if the team's knowledge proves it safe.

    A cell already revealed answers ``revealed`` with no cells. A proved cell opens with
    its cascade (``_cascade``); a judgement that could not decide (its window, or
    ``budget`` spent) is ``undecided``; anything else is a devil error with the witness.
    ``proofs``: as for ``judge_reveal``.
    """
    check(x, y)
    symbol = k.symbol(colour, x, y)
    if symbol in DIGITS:
        return MoveResult("revealed")
    try:
        verdict = judge_reveal(k, colour, x, y, budget, proofs)
    except BudgetExceeded as spent:
        return _spent(spent)
    if not verdict.proved:
        return _refused(verdict)
    cells, truncated = _cascade(k, _colours(truth), colour, (x, y), limit)
    return MoveResult("revealed", cells, None, truncated, (x, y))


def _cascade(
    k: Knowledge, col: Colours, colour: int, start: XY, limit: int
) -> tuple[tuple[OpenCell, ...], bool]:
    """Open ``start`` (proved safe) and, breadth-first, every neighbour of an opened 0.

    Only unknown cells and cells flagged another colour open (revealed ones are skipped).
    At most ``limit`` cells open; the second value says whether some were left. Raises
    ``UnsoundKnowledge`` if the truth puts a mine on a cell the knowledge proved safe.
    """
    if limit < 1:
        raise ValueError(f"cascade limit {limit} must be at least 1")
    if col.of(start) == colour:
        raise UnsoundKnowledge(f"cell {start} was proved safe on board {colour} but is a mine")
    opened: list[OpenCell] = []
    seen = {start}  # queued, or known not to open
    todo: deque[XY] = deque([start])
    while todo:
        if len(opened) == limit:
            return tuple(opened), True
        cell = todo.popleft()
        n = col.number(cell, colour)
        opened.append((cell[0], cell[1], str(n)))
        if n:
            continue
        for nb in neighbours(*cell):
            if nb not in seen:
                seen.add(nb)
                if k.symbol(colour, nb[0], nb[1]) in _OPENABLE:
                    todo.append(nb)
    return tuple(opened), False


def flag(
    k: Knowledge,
    colour: int,
    x: int,
    y: int,
    budget: Budget | None = None,
    proofs: Settled | None = None,
) -> MoveResult:
    """Flag ``(x, y)`` as colour ``colour`` if every consistent layout mines it
    (``undecided``, devil errors and ``proofs`` as for ``reveal``)."""
    check(x, y)
    if k.symbol(colour, x, y) == MINE:
        return MoveResult("flagged")
    try:
        verdict = judge_flag(k, colour, x, y, budget, proofs)
    except BudgetExceeded as spent:
        return _spent(spent)
    if not verdict.proved:
        return _refused(verdict)
    return MoveResult("flagged", ((x, y, MINE),), at=(x, y))


def _refused(verdict: WorldVerdict) -> MoveResult:
    if verdict.undecided is not None:
        return MoveResult("undecided", reason=verdict.undecided)
    return MoveResult("devil", witness=verdict.witness)


def _spent(spent: BudgetExceeded) -> MoveResult:
    return MoveResult(
        "undecided", reason=f"not decided within the server's judging budget ({spent.limit})"
    )


def ring(x: int, y: int, radius: int) -> list[XY]:
    """The cells at Chebyshev distance exactly ``radius`` from ``(x, y)``, clockwise from
    the top-left corner (the drop's search order within one distance)."""
    if radius == 0:
        return [(x, y)]
    r = radius
    top = [(x + d, y - r) for d in range(-r, r)]
    right = [(x + r, y + d) for d in range(-r, r)]
    bottom = [(x - d, y + r) for d in range(-r, r)]
    left = [(x - r, y - d) for d in range(-r, r)]
    return top + right + bottom + left


def drop(
    k: Knowledge,
    truth: Truth,
    colour: int,
    x: int,
    y: int,
    radius: int = DROP_RADIUS,
    limit: int = CASCADE_LIMIT,
) -> MoveResult:
    """Open the nearest unknown cell to ``(x, y)`` that is safe with no mine around it.

    Distance is Chebyshev (rings of growing size), ties broken by ``ring`` order, up to
    ``radius``. The cell opens with its cascade (it is a 0, so its neighbours open too).
    ``none`` with a reason when no such cell exists within the radius.
    """
    check(x, y)
    if radius < 0:
        raise ValueError(f"drop radius {radius} must not be negative")
    col = _colours(truth)
    for r in range(radius + 1):
        for cell in ring(x, y, r):
            if not inside(*cell) or k.symbol(colour, cell[0], cell[1]) != UNKNOWN:
                continue
            if col.of(cell) == colour or col.number(cell, colour):
                continue
            cells, truncated = _cascade(k, col, colour, cell, limit)
            return MoveResult("dropped", cells, None, truncated, cell)
    return MoveResult(
        "none",
        reason=f"no unknown cell within {radius} of ({x}, {y}) is free of mines around it",
    )
