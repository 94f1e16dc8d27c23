"""What a team knows, seen as one Minesweeper board per colour.

On board ``i`` (the board of a player of colour ``i``) every cell has one symbol:

- ``"0"``..``"8"``: revealed on board ``i`` (so not colour ``i``), with how many of its
  neighbours are colour ``i``;
- ``"F"``: flagged colour ``i``: a known mine of board ``i``;
- ``"*"``: flagged another colour: known safe on board ``i``;
- ``"."``: unknown.

The engine reads knowledge only through ``Knowledge.symbol``; the server implements it
over stored chunks, ``MemoryKnowledge`` over dicts (tests, benchmarks, a cache).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from devil.world.cells import XY, check

DIGITS = frozenset("012345678")
SYMBOLS = frozenset("012345678F*.")
UNKNOWN = "."
MINE = "F"
SAFE = "*"


class Knowledge(Protocol):
    """A team's knowledge: the symbol of any cell on any colour's board."""

    def symbol(self, colour: int, x: int, y: int) -> str:
        """``"0"``-``"8"``, ``"F"``, ``"*"`` or ``"."`` for ``(x, y)`` on board ``colour``."""
        ...


class KnowledgeError(ValueError):
    """A change that contradicts what is already known (the message names the cell)."""


class MemoryKnowledge:
    """Dict-backed team knowledge: numbers per colour and flags (cell -> colour).

    ``symbol`` costs two dict look-ups whatever the size of the knowledge.
    """

    __slots__ = ("flags", "numbers")

    def __init__(self) -> None:
        self.numbers: dict[int, dict[XY, int]] = {}
        self.flags: dict[XY, int] = {}

    def symbol(self, colour: int, x: int, y: int) -> str:
        board = self.numbers.get(colour)
        if board is not None:
            n = board.get((x, y))
            if n is not None:
                return str(n)
        flagged = self.flags.get((x, y))
        if flagged is None:
            return UNKNOWN
        return MINE if flagged == colour else SAFE

    def reveal(self, colour: int, x: int, y: int, number: int) -> None:
        """Record ``(x, y)`` revealed on board ``colour`` showing ``number``."""
        check(x, y)
        if not 0 <= number <= 8:
            raise KnowledgeError(f"cell ({x}, {y}): number {number} is not 0-8")
        if self.flags.get((x, y)) == colour:
            raise KnowledgeError(f"cell ({x}, {y}) is flagged colour {colour}: cannot reveal it")
        old = self.numbers.get(colour, {}).get((x, y))
        if old is not None and old != number:
            raise KnowledgeError(f"cell ({x}, {y}) already shows {old} on board {colour}")
        self.numbers.setdefault(colour, {})[x, y] = number

    def flag(self, colour: int, x: int, y: int) -> None:
        """Record ``(x, y)`` established to be colour ``colour``."""
        check(x, y)
        old = self.flags.get((x, y))
        if old is not None and old != colour:
            raise KnowledgeError(f"cell ({x}, {y}) is already flagged colour {old}")
        if (x, y) in self.numbers.get(colour, {}):
            raise KnowledgeError(f"cell ({x}, {y}) is revealed on board {colour}: not a mine")
        self.flags[x, y] = colour

    def apply(self, colour: int, cells: Iterable[tuple[int, int, str]]) -> None:
        """Record the ``cells`` of a move result (``(x, y, symbol)``, digits or ``"F"``)."""
        for x, y, sym in cells:
            if sym == MINE:
                self.flag(colour, x, y)
            elif sym in DIGITS:
                self.reveal(colour, x, y, int(sym))
            else:
                raise KnowledgeError(f"cell ({x}, {y}): cannot record symbol {sym!r}")

    def __len__(self) -> int:
        """Known facts: revealed cells over all boards plus flags."""
        return sum(len(b) for b in self.numbers.values()) + len(self.flags)


class ViewKnowledge:
    """One board's knowledge from a view (``rows`` of symbols at ``x0, y0``), for one colour.

    Cells outside the view are unknown. Used by ``devil.world.deduce`` on what a bot sees.
    """

    __slots__ = ("colour", "height", "rows", "width", "x0", "y0")

    def __init__(self, rows: Iterable[str], x0: int, y0: int, colour: int = 0):
        self.rows = tuple(rows)
        self.x0 = x0
        self.y0 = y0
        self.colour = colour
        self.height = len(self.rows)
        self.width = len(self.rows[0]) if self.rows else 0
        for i, row in enumerate(self.rows):
            if len(row) != self.width:
                raise KnowledgeError(
                    f"view row {i} has {len(row)} cells but row 0 has {self.width}"
                )
            for j, ch in enumerate(row):
                if ch not in SYMBOLS:
                    raise KnowledgeError(
                        f"view row {i}, column {j} (cell ({x0 + j}, {y0 + i})): "
                        f"unexpected symbol {ch!r} (expected 0-8, F, * or .)"
                    )
        if self.rows:
            check(x0, y0)
            check(x0 + self.width - 1, y0 + self.height - 1)

    def symbol(self, colour: int, x: int, y: int) -> str:
        i, j = y - self.y0, x - self.x0
        if colour != self.colour or not (0 <= i < self.height and 0 <= j < self.width):
            return UNKNOWN
        return self.rows[i][j]
