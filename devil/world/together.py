"""Proofs for the clicks of a raft, found together: one exact analysis of their region.

A raft's moves lie close together (a player plays what one view shows), and judging each
alone walks, encodes and solves much the same numbers again for every move.
``prove_together`` reads the region once: every number within ``MARGIN`` cells of the
clicks' bounding box, reduced by its flagged mines, in one holed window (the encoding of
``devil.world.window``: known cells are holes, unknown ones covered), and asks the exact
solver about every click in one analysis.

Why a proof found here is the verdict the rule gives alone (``devil.world.rule``):

- a cell safe (a mine) in every layout of some of the numbers is safe (a mine) in every
  layout of the whole knowledge, and knowledge only grows while a raft is played, so a
  proof found before the raft holds for each of its moves;
- the rule judges a click on the numbers within ``WINDOW_RADIUS`` of it (the part of
  them connected to the click, which decides it as they all do). ``Proofs.settles``
  takes a proof only for a click with every number of the region that close, so the
  rule, given more of the numbers than this analysis, proves the same.

Whatever is not proved here is judged alone, as before. The region is bounded
(``MAX_SIDE``), the reading and the analysis are charged to a budget like a judgement's,
and a region that fits no layout or spends its budget proves nothing (the moves are then
judged alone, which reports it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from devil.analysis import Verdict
from devil.budget import Budget, Meter
from devil.errors import BudgetExceeded
from devil.world.cells import MAX_COORD, XY, neighbours
from devil.world.component import InconsistentKnowledge
from devil.world.knowledge import DIGITS, MINE, UNKNOWN, Knowledge
from devil.world.rule import WINDOW_CELLS_PER_UNIT, WINDOW_RADIUS
from devil.world.shares import start
from devil.world.window import Box, analyse, build

MARGIN = 3
"""Numbers up to this many cells beyond the clicks' bounding box are read (fewer when the
clicks span nearly ``WINDOW_RADIUS``: every number read must be within reach of every
click)."""

MAX_SIDE = WINDOW_RADIUS + 1
"""The widest spread of clicks analysed together (beyond it no number of the region would
be within ``WINDOW_RADIUS`` of every click)."""


@dataclass(frozen=True)
class Proofs:
    """Clicks proved safe and proved mines by one analysis of ``box``'s numbers."""

    box: Box
    safe: frozenset[XY]
    mines: frozenset[XY]

    def settles(self, x: int, y: int, mine: bool) -> bool:
        """Whether the click is proved safe (``mine``: a reveal, the devil wanting a mine)
        or a mine (a flag), on numbers all within ``WINDOW_RADIUS`` of it."""
        b = self.box
        if not (
            x - WINDOW_RADIUS <= b.x0
            and b.x0 + b.width - 1 <= x + WINDOW_RADIUS
            and y - WINDOW_RADIUS <= b.y0
            and b.y0 + b.height - 1 <= y + WINDOW_RADIUS
        ):
            return False
        return (x, y) in (self.safe if mine else self.mines)


NONE = Proofs(Box(0, 0, 0, 0), frozenset(), frozenset())


def prove_together(
    k: Knowledge, colour: int, clicks: Iterable[XY], budget: Budget | None = None
) -> Proofs:
    """The clicks (unknown cells of board ``colour``) every layout keeps safe, and those
    it mines, from the numbers around them all; ``NONE`` when they spread wider than
    ``MAX_SIDE`` or near the world's edge, when the budget runs out, or when the numbers
    fit no layout."""
    cells = list(dict.fromkeys(clicks))
    if not cells:
        return NONE
    spread = Box.around(cells)
    if spread.width > MAX_SIDE or spread.height > MAX_SIDE:
        return NONE
    mx = min(MARGIN, WINDOW_RADIUS + 1 - spread.width)
    my = min(MARGIN, WINDOW_RADIUS + 1 - spread.height)
    box = Box(spread.x0 - mx, spread.y0 - my, spread.width + 2 * mx, spread.height + 2 * my)
    if max(abs(box.x0), abs(box.y0), abs(box.x0 + box.width), abs(box.y0 + box.height)) >= (
        MAX_COORD - 1
    ):
        return NONE  # the ring around the box would leave the world: not worth a case
    meter = start(budget)
    try:
        return _prove(k, colour, cells, box, meter)
    except (BudgetExceeded, InconsistentKnowledge):
        return NONE


def _prove(k: Knowledge, colour: int, cells: list[XY], box: Box, meter: Meter | None) -> Proofs:
    ring = Box(box.x0 - 1, box.y0 - 1, box.width + 2, box.height + 2)
    if meter is not None:
        meter.charge(ring.area + ring.area // WINDOW_CELLS_PER_UNIT + 1)
    symbol = k.symbol
    numbers: dict[XY, int] = {}
    holes: list[XY] = []
    flagged: list[XY] = []
    for y in range(ring.y0, ring.y0 + ring.height):
        for x in range(ring.x0, ring.x0 + ring.width):
            sym = symbol(colour, x, y)
            if sym == UNKNOWN:
                continue
            if sym in DIGITS and box.holds(x, y):
                numbers[x, y] = int(sym)
            else:
                holes.append((x, y))  # known: safe, a mine taken out of the numbers, or a
                if sym == MINE:  # number outside the box (not one of the constraints)
                    flagged.append((x, y))
    for cell in flagged:
        for n in neighbours(*cell):
            if n in numbers:
                numbers[n] -= 1
    if any(v < 0 for v in numbers.values()):
        return NONE
    unknown = [c for c in cells if symbol(colour, *c) == UNKNOWN]
    if not numbers or not unknown:
        return NONE
    window = build(ring, numbers, holes)
    analysis = analyse(window, meter)
    safe: list[XY] = []
    mines: list[XY] = []
    for c in unknown:
        verdict = analysis.verdict(window.cell(c))
        if verdict is Verdict.SAFE:
            safe.append(c)
        elif verdict is Verdict.MINE:
            mines.append(c)
    return Proofs(box, frozenset(safe), frozenset(mines))
