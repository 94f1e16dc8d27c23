"""The part of a team's knowledge that can matter to one click: its constraint component.

Under the classic rule two revealed numbers interact only through unknown cells they
both touch, so whether a cell can be a mine depends only on the numbers reachable from
it through shared unknown cells (after known mines and known safe cells are taken out
of the numbers). ``explore`` walks exactly that graph from the click and reads nothing
else: every symbol it asks for is within two cells of a number of the component (or
one of the click), so its cost depends on the component, never on how much of the
world is known.

A judgement may also bound the walk: ``radius`` keeps it to the numbers within that many
cells of the click (Chebyshev distance), and a ``devil.budget.Meter`` is charged one unit
per cell read. A walk that met a number beyond the radius says so (``complete=False``):
what it took is then a subset of the component's numbers, enough to *prove* a cell,
never enough to show that a layout of the whole component exists.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from devil.budget import Meter
from devil.world.cells import XY, neighbours
from devil.world.knowledge import DIGITS, MINE, UNKNOWN, Knowledge


class InconsistentKnowledge(ValueError):
    """Knowledge no layout fits; ``cell`` is the number that cannot be satisfied."""

    def __init__(self, message: str, cell: XY):
        super().__init__(message)
        self.cell = cell


@dataclass(frozen=True)
class Component:
    """The numbers around a click and the cells they touch.

    ``numbers`` maps each number to its value minus the known mines next to it (what
    its unknown neighbours must hold); ``unknown`` are the unknown cells next to those
    numbers (plus the click when it is unknown); ``known`` the other known cells next
    to them (never mines of the board except ``mines``, the known mines among them).
    """

    click: XY
    click_symbol: str
    numbers: Mapping[XY, int]
    unknown: frozenset[XY]
    known: frozenset[XY]
    mines: frozenset[XY]
    reads: int
    """How many distinct cells were read from the knowledge."""
    complete: bool = True
    """False when ``explore`` stopped at its limit or its radius: ``numbers`` are then only
    the first ones reached (each with all its neighbours), a subset of the component's."""
    cut: bool = False
    """True when the component has numbers beyond the radius: no limit will complete it."""


class _Reader:
    """Memoised symbols of one board."""

    def __init__(self, knowledge: Knowledge, colour: int, meter: Meter | None = None):
        self.knowledge = knowledge
        self.colour = colour
        self.meter = meter
        self.seen: dict[XY, str] = {}

    def __call__(self, cell: XY) -> str:
        sym = self.seen.get(cell)
        if sym is None:
            if self.meter is not None:
                self.meter.charge()
            sym = self.seen[cell] = self.knowledge.symbol(self.colour, cell[0], cell[1])
        return sym


def explore(
    knowledge: Knowledge,
    colour: int,
    x: int,
    y: int,
    limit: int | None = None,
    radius: int | None = None,
) -> Component:
    """The component of ``(x, y)`` on board ``colour``: breadth-first through shared unknowns.

    With a ``limit`` it stops after that many numbers (nearest first) and says so
    (``complete=False``): a subset of the constraints, enough to *prove* a cell safe or a
    mine (fewer constraints allow more layouts), never enough for a witness.

    Raises ``InconsistentKnowledge`` for a number with more known mines around it than
    its value, or fewer unknown neighbours than it still needs.
    """
    return Explorer(knowledge, colour, x, y, radius).grow(limit)


class Explorer:
    """``explore`` in steps: ``grow(32)``, then ``grow(512)`` goes on from where it stopped.

    ``radius``: take only numbers within that distance of the click; ``meter``: charged
    a unit per cell read (``BudgetExceeded`` when spent).
    """

    def __init__(
        self,
        knowledge: Knowledge,
        colour: int,
        x: int,
        y: int,
        radius: int | None = None,
        meter: Meter | None = None,
    ):
        self.read = _Reader(knowledge, colour, meter)
        self.radius = radius
        self.cut = False
        self.colour = colour
        self.click = (x, y)
        self.click_symbol = self.read(self.click)
        self.numbers: dict[XY, int] = {}
        self.unknown: set[XY] = set()
        self.known: set[XY] = set()
        self.mines: set[XY] = set()
        self.todo: deque[XY] = deque()
        self.queued: set[XY] = set()
        if self.click_symbol == UNKNOWN:
            self.unknown.add(self.click)
        self._look_around(self.click)

    def _look_around(self, cell: XY) -> None:
        """Queue the numbers touching ``cell``."""
        cx, cy = self.click
        radius = self.radius
        for n in neighbours(*cell):
            if n not in self.queued and self.read(n) in DIGITS:
                self.queued.add(n)
                if radius is None or max(abs(n[0] - cx), abs(n[1] - cy)) <= radius:
                    self.todo.append(n)
                else:
                    self.cut = True

    def _take(self, number: XY) -> None:
        """Read one number's neighbours: its reduced value, its unknown cells."""
        read = self.read
        value = need = int(read(number))
        free = 0
        for n in neighbours(*number):
            sym = read(n)
            if sym == UNKNOWN:
                free += 1
                if n not in self.unknown:
                    self.unknown.add(n)
                    self._look_around(n)
            else:
                self.known.add(n)
                if sym == MINE:
                    self.mines.add(n)
                    need -= 1
        self._check(number, value, need, free)
        self.numbers[number] = need

    def _check(self, number: XY, value: int, need: int, free: int) -> None:
        """Raise ``InconsistentKnowledge`` unless ``number`` can still be satisfied."""
        if not 0 <= need <= free:
            x, y = number
            why = (
                f"{value - need} flagged mines around it"
                if need < 0
                else f"{need} more mines to place but {free} unknown neighbours"
            )
            raise InconsistentKnowledge(
                f"the {value} at ({x}, {y}) on board {self.colour} has {why}", number
            )

    def settled_next_to_the_click(self, mine: bool) -> bool:
        """Whether one number touching the (unknown) click proves it safe (``mine``: the
        devil wants a mine there, so a number with all its mines known, flagged, settles
        it) or a mine (a number needing as many more mines as it has unknown neighbours).

        A proof from one number is a proof (fewer constraints only allow more layouts),
        and the solver, given that number among others, proves the same: this settles
        the commonest move (the one a player sees from a single number) without the
        walk's further numbers, the window or the solver. The numbers are those the walk
        queued first (every number touching the click) and their neighbours are read as
        ``_take`` reads them, each checked the same way; only what the solver would find
        inconsistent among several numbers is left unchecked when one settles the click.
        """
        read = self.read
        settled = False
        for number in self.todo:  # before any grow: exactly the numbers touching the click
            value = need = int(read(number))
            free = 0
            for n in neighbours(*number):
                sym = read(n)
                if sym == UNKNOWN:
                    free += 1
                elif sym == MINE:
                    need -= 1
            self._check(number, value, need, free)
            settled = settled or need == (0 if mine else free)
        return settled

    def grow(self, limit: int | None = None) -> Component:
        """Take numbers until ``limit`` of them (None: all) and describe what was taken."""
        while self.todo and (limit is None or len(self.numbers) < limit):
            self._take(self.todo.popleft())
        return Component(
            self.click,
            self.click_symbol,
            dict(self.numbers),
            frozenset(self.unknown),
            frozenset(self.known.difference(self.numbers)),
            frozenset(self.mines),
            len(self.read.seen),
            not self.todo and not self.cut,
            self.cut,
        )
