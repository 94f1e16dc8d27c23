"""Positions: what the player can see.

A position is a board plus one byte per cell: ``0``-``8`` a revealed number,
``.`` covered, ``F`` covered and flagged, ``#`` a hole. Graph boards (``devil.graphs``)
have numbers above 8 too: 9 to ``MAX_NUMBER`` are the bytes ``0x80 + n`` (``number_byte``;
read any byte with ``NUMBER_VALUE``), so grid positions keep their ASCII bytes. Flags are
only marks, never constraints. It optionally carries the total number of mines (needed by
the counted rule).

The native text form is one line per row in those characters, optionally
preceded by ``# key: value`` headers (``mines``, ``topology``). ``?`` is read as
``.``. The one-line form (``Position.line``) joins rows with ``/`` and appends
``;mines=N`` / ``;topology=hex`` when set, for tests and URLs.

Parsing other formats (Codewars, JSMinesweeper, minesweepr) lives in
``devil.formats``; this module only knows the native one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from devil.board import Board, Cell, Topology

COVERED = ord(".")
FLAG = ord("F")
HOLE = ord("#")
ZERO = ord("0")

MAX_NUMBER = 127
"""The largest revealed number a position stores (graph cells may have many neighbours)."""

_BIG = 0x80
NOT_A_NUMBER = 0xFF
NUMBER_VALUE = bytes(
    b - ZERO if ZERO <= b <= ZERO + 8 else b - _BIG if b >= _BIG + 9 else NOT_A_NUMBER
    for b in range(256)
)
"""Per byte: the revealed number it stands for, ``NOT_A_NUMBER`` when none."""
IS_NUMBER = bytes(int(v != NOT_A_NUMBER) for v in NUMBER_VALUE)
"""A ``bytes.translate`` table: 1 for a revealed number's byte, 0 for anything else."""


def number_byte(value: int) -> int:
    """The byte of a revealed ``value`` (``0``-``8`` in ASCII, then ``0x80 + value``)."""
    if not 0 <= value <= MAX_NUMBER:
        raise ValueError(f"a revealed number must be between 0 and {MAX_NUMBER}, not {value}")
    return ZERO + value if value <= 8 else _BIG + value


NUMBER_BYTE = bytes(number_byte(n) for n in range(MAX_NUMBER + 1))
"""``NUMBER_BYTE[n]`` is ``number_byte(n)`` (a table for hot loops)."""


class PositionError(ValueError):
    """Text that is not a position, with the line and column of the first bad character."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        where = ""
        if line is not None:
            where = f"line {line}" + (f", column {column}" if column is not None else "") + ": "
        super().__init__(where + message)
        self.line = line
        self.column = column


def _whole_number(text: str, what: str, line: int | None = None) -> int:
    """``text`` as a whole number >= 0 in ASCII digits 0-9 (no other digits, no sign)."""
    if not (text.isascii() and text.isdigit() and len(text) <= 100):
        raise PositionError(f"{what} {text!r} is not a whole number >= 0 in ASCII digits", line)
    return int(text)


@dataclass(frozen=True)
class Constraint:
    """A revealed number: exactly ``mines`` of ``cells`` (its covered neighbours) are mines.

    ``mines`` already has nothing subtracted: flags are not constraints.
    """

    source: Cell
    cells: frozenset[Cell]
    mines: int


@dataclass(frozen=True)
class Position:
    """An immutable view of a board as the player sees it."""

    board: Board
    grid: bytes
    mines: int | None = None

    def __post_init__(self) -> None:
        if len(self.grid) != self.board.size:
            raise PositionError(
                f"grid has {len(self.grid)} cells but the board has {self.board.size}"
            )
        if self.mines is not None and self.mines < 0:
            raise PositionError(f"total mines {self.mines} is negative")

    # -- construction ------------------------------------------------------------------

    @classmethod
    def covered(cls, board: Board, mines: int | None = None) -> Position:
        """The start of a game: every existing cell covered."""
        grid = bytearray(b"." * board.size)
        for h in board.holes:
            grid[h] = HOLE
        return cls(board, bytes(grid), mines)

    @classmethod
    def from_rows(
        cls,
        rows: list[str],
        topology: Topology = Topology.SQUARE,
        mines: int | None = None,
        first_line: int = 1,
    ) -> Position:
        """Build from native rows (``0-8 . ? F #``). Errors name line and column (1-based)."""
        if not rows:
            raise PositionError("no rows: the position is empty")
        width = len(rows[0])
        grid = bytearray()
        holes = []
        for i, row in enumerate(rows):
            if len(row) != width:
                raise PositionError(
                    f"row has {len(row)} cells but the first row has {width}",
                    first_line + i,
                    min(len(row), width) + 1,
                )
            for j, ch in enumerate(row):
                if ch == "?":
                    ch = "."
                if ch not in "012345678.F#":
                    raise PositionError(
                        f"unexpected character {ch!r} (expected 0-8, '.', '?', 'F' or '#')",
                        first_line + i,
                        j + 1,
                    )
                if ch == "#":
                    holes.append(i * width + j)
                grid.append(ord(ch))
        board = Board(len(rows), width, topology, frozenset(holes))
        return cls(board, bytes(grid), mines)

    @classmethod
    def from_text(cls, text: str, topology: Topology | None = None) -> Position:
        """Parse the native text format, ``# mines: N`` / ``# topology: T`` headers allowed."""
        rows: list[str] = []
        mines: int | None = None
        topo = topology
        first_line = None
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#") and ":" in line and not rows:
                key, _, value = line[1:].partition(":")
                key = key.strip().lower()
                if key == "mines":
                    mines = _whole_number(value.strip(), "mines header", number)
                elif key == "topology" and topology is None:
                    topo = Topology.parse(value)
                continue
            if first_line is None:
                first_line = number
            elif number != first_line + len(rows):
                raise PositionError("blank line inside the board", number - 1)
            rows.append(line)
        return cls.from_rows(rows, topo or Topology.SQUARE, mines, first_line or 1)

    @classmethod
    def from_line(cls, line: str) -> Position:
        """Parse the one-line form: ``rows/joined/by/slashes;mines=N;topology=hex``."""
        body, *options = line.strip().split(";")
        mines: int | None = None
        topology = Topology.SQUARE
        for opt in options:
            key, _, value = opt.partition("=")
            if key == "mines":
                mines = _whole_number(value, "mines option")
            elif key == "topology":
                topology = Topology.parse(value)
            else:
                raise PositionError(f"unknown option {key!r} in one-line position")
        return cls.from_rows(body.split("/"), topology, mines)

    # -- text forms --------------------------------------------------------------------

    def rows(self) -> list[str]:
        w = self.board.width
        text = self.grid.decode("latin-1")
        return [text[i : i + w] for i in range(0, len(text), w)]

    def to_text(self) -> str:
        head = []
        if self.mines is not None:
            head.append(f"# mines: {self.mines}")
        if self.board.topology is not Topology.SQUARE:
            head.append(f"# topology: {self.board.topology.value}")
        return "\n".join([*head, *self.rows()]) + "\n"

    @property
    def line(self) -> str:
        out = "/".join(self.rows())
        if self.mines is not None:
            out += f";mines={self.mines}"
        if self.board.topology is not Topology.SQUARE:
            out += f";topology={self.board.topology.value}"
        return out

    def __repr__(self) -> str:
        return f"Position.from_line({self.line!r})"

    # -- queries -----------------------------------------------------------------------

    def number(self, cell: Cell) -> int | None:
        """The revealed number at ``cell``, or None if covered or a hole."""
        value = NUMBER_VALUE[self.grid[cell]]
        return None if value == NOT_A_NUMBER else value

    def is_covered(self, cell: Cell) -> bool:
        b = self.grid[cell]
        return b in (COVERED, FLAG)

    def is_flagged(self, cell: Cell) -> bool:
        return self.grid[cell] == FLAG

    def covered_cells(self) -> Iterator[Cell]:
        grid = self.grid
        return (c for c in range(len(grid)) if grid[c] == COVERED or grid[c] == FLAG)

    def revealed_cells(self) -> Iterator[Cell]:
        marks = self.grid.translate(IS_NUMBER)
        return (c for c in range(len(marks)) if marks[c])

    @cached_property
    def constraints(self) -> tuple[Constraint, ...]:
        """One constraint per revealed number that touches at least one covered cell.

        A revealed number with no covered neighbours is checked here: if it is not 0
        the position is inconsistent (see ``devil.errors.InconsistentPosition``).
        """
        from devil.errors import InconsistentPosition

        out = []
        board = self.board
        for cell in self.revealed_cells():
            value = NUMBER_VALUE[self.grid[cell]]
            cov = frozenset(n for n in board.neighbours(cell) if self.is_covered(n))
            if value > len(cov):
                raise InconsistentPosition.too_few(self, cell, value, len(cov))
            if cov:
                out.append(Constraint(cell, cov, value))
        return tuple(out)

    @cached_property
    def edge(self) -> frozenset[Cell]:
        """Covered cells touching a revealed number."""
        return frozenset(c for con in self.constraints for c in con.cells)

    def deep_cells(self) -> Iterator[Cell]:
        edge = self.edge
        return (c for c in self.covered_cells() if c not in edge)

    def with_cells(self, changes: dict[Cell, int]) -> Position:
        """A new position with some cells' bytes replaced (values are byte codes)."""
        grid = bytearray(self.grid)
        for cell, value in changes.items():
            grid[cell] = value
        return Position(self.board, bytes(grid), self.mines)

    def with_mines(self, mines: int | None) -> Position:
        return Position(self.board, self.grid, mines)

    def check_total(self) -> None:
        """For the counted rule, before anything about the numbers: raises
        ``InconsistentPosition`` when the total is larger than the covered cells (flagged ones
        included), said in plain words."""
        from devil.errors import InconsistentPosition

        if self.mines is None:
            return
        covered = self.grid.count(COVERED) + self.grid.count(FLAG)
        if self.mines > covered:
            raise InconsistentPosition.too_many_mines(self.mines, covered)

    def where(self, cell: Cell) -> str:
        """Human name of a cell in messages: ``row 2, col 4`` (a graph board's cell:
        ``cell t17``, by its label, with its id when they differ)."""
        if self.board.graph is not None:
            return self.board.graph.where(cell)
        r, c = self.board.coord(cell)
        return f"row {r}, col {c}"

    def the_cell(self, cell: Cell) -> str:
        """A cell as the subject of a sentence: ``the cell at row 2, col 4``; a graph
        board's cell is ``cell t17`` (never ``the cell at cell t17``)."""
        where = self.where(cell)
        return where if self.board.graph is not None else f"the cell at {where}"
