"""The part of a team's knowledge that can matter to one click: its constraint component.

Under the classic rule two revealed numbers interact only through unknown cells they
both touch, so whether a cell can be a mine depends only on the numbers reachable from
it through shared unknown cells (after known mines and known safe cells are taken out
of the numbers). ``explore`` walks exactly that graph from the click and reads nothing
else: every symbol it asks for is within two cells of a number of the component (or
one of the click), so its cost depends on the component, never on how much of the
world is known.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

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


class _Reader:
    """Memoised symbols of one board."""

    def __init__(self, knowledge: Knowledge, colour: int):
        self.knowledge = knowledge
        self.colour = colour
        self.seen: dict[XY, str] = {}

    def __call__(self, cell: XY) -> str:
        sym = self.seen.get(cell)
        if sym is None:
            sym = self.seen[cell] = self.knowledge.symbol(self.colour, cell[0], cell[1])
        return sym


def explore(knowledge: Knowledge, colour: int, x: int, y: int) -> Component:
    """The component of ``(x, y)`` on board ``colour``: breadth-first through shared unknowns.

    Raises ``InconsistentKnowledge`` for a number with more known mines around it than
    its value, or fewer unknown neighbours than it still needs.
    """
    read = _Reader(knowledge, colour)
    click = (x, y)
    click_symbol = read(click)
    numbers: dict[XY, int] = {}
    unknown: set[XY] = set()
    known: set[XY] = set()
    mines: set[XY] = set()
    todo: deque[XY] = deque()

    def found(cell: XY) -> None:
        if cell not in numbers:
            numbers[cell] = -1  # placeholder until its neighbours are read
            todo.append(cell)

    if click_symbol == UNKNOWN:
        unknown.add(click)
    for n in neighbours(x, y):
        if read(n) in DIGITS:
            found(n)
    while todo:
        number = todo.popleft()
        need = int(read(number))
        free = 0
        for n in neighbours(*number):
            sym = read(n)
            if sym == UNKNOWN:
                free += 1
                if n not in unknown:
                    unknown.add(n)
                    for m in neighbours(*n):
                        if read(m) in DIGITS:
                            found(m)
            else:
                known.add(n)
                if sym == MINE:
                    mines.add(n)
                    need -= 1
        if need < 0 or need > free:
            raise InconsistentKnowledge(
                f"the {read(number)} at ({number[0]}, {number[1]}) on board {colour} cannot be "
                f"satisfied: {need} more mines among {free} unknown neighbours",
                number,
            )
        numbers[number] = need
    known.difference_update(numbers)
    return Component(
        click,
        click_symbol,
        numbers,
        frozenset(unknown),
        frozenset(known),
        frozenset(mines),
        len(read.seen),
    )
