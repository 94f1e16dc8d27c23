"""Board -> view model: what the templates draw for every cell, status bar and end panel.

Everything here works on what the player may see. The hidden layout only enters through
``Ending``, which the views build **only after the game has ended**; while a game runs the
view model is a pure function of the visible ``Position`` (so nothing rendered from it can
leak a mine).

Cell ids are stable (``c-<row>-<col>``, zero-based) so a click can answer with out-of-band
swaps of just the cells that changed. Torus boards get a ring of read-only "ghost" cells
(``g-<display row>-<display col>``, display coordinates -1 and height/width standing for the
wrapped edge) that mirror the opposite edge, so the wrap is visible.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from markupsafe import Markup

from devil.board import Board, Cell, Topology
from devil.position import FLAG, HOLE, ZERO, Position

BIG_BOARD_CELLS = 2500
"""Boards with more cells get the ``big`` class: the browser skips drawing rows off screen."""


@dataclass(frozen=True)
class Ending:
    """What may be shown once a game has ended (never build this for a running game)."""

    won: bool
    layout: frozenset[Cell]
    witness: frozenset[Cell] | None = None
    loss: Cell | None = None


@dataclass(frozen=True)
class CellView:
    """One cell as drawn: its id, the CSS classes, the visible text and the screen-reader label."""

    id: str
    row: int
    col: int
    classes: str
    text: str
    label: str
    kind: str
    """``covered``, ``flag``, ``open`` or ``hole``."""
    ghost: bool = False

    @property
    def at(self) -> str:
        """The form value a click on this cell sends: ``row,col`` (zero-based)."""
        return f"{self.row},{self.col}"


@dataclass(frozen=True)
class RowView:
    index: int
    cells: tuple[CellView, ...]
    classes: str
    ghost: bool = False


@dataclass(frozen=True)
class BoardView:
    height: int
    width: int
    topology: str
    rows: tuple[RowView, ...]
    classes: str
    interactive: bool
    caption: str
    focus_id: str
    """The cell that holds the grid's single tab stop (roving tabindex) on a fresh render."""


@dataclass(frozen=True)
class StatusView:
    mines_left: int
    moves: int
    rules: str
    status: str
    started_at: float | None
    ended_at: float | None

    @property
    def seconds(self) -> int:
        """Whole seconds played so far (or in total once the game ended)."""
        if self.started_at is None:
            return 0
        end = self.ended_at if self.ended_at is not None else time.time()
        return max(0, int(end - self.started_at))

    @property
    def clock(self) -> str:
        return format_duration(self.seconds)

    @property
    def lcd_mines(self) -> str:
        """Mines left as a three-digit counter: ``010``, ``-03``; ``000`` once the game is won
        (every mine is known then, as classic Minesweeper flags them all on a win)."""
        n = 0 if self.status == "won" else self.mines_left
        return f"{n:03d}" if n >= 0 else f"-{-n:02d}"


def format_duration(seconds: int) -> str:
    """``75`` -> ``1:15``; ``3725`` -> ``1:02:05``."""
    minutes, secs = divmod(max(0, seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


# -- cells ------------------------------------------------------------------------------


def cell_id(row: int, col: int) -> str:
    return f"c-{row}-{col}"


def _where(row: int, col: int) -> str:
    """Cell names for labels and messages: zero-based, as in hints, proofs, the API and
    ``devil-check`` (one convention everywhere, so a hint's cell is the cell a screen reader
    names)."""
    return f"row {row}, col {col}"


def cell_view(position: Position, cell: Cell, ending: Ending | None = None) -> CellView:
    """The view of one real cell."""
    row, col = position.board.coord(cell)
    byte = position.grid[cell]
    where = _where(row, col)
    if byte == HOLE:
        return CellView(cell_id(row, col), row, col, "cell hole", "", f"{where}, no cell", "hole")
    if ZERO <= byte <= ZERO + 8:
        n = byte - ZERO
        text = str(n) if n else ""
        label = f"{where}, {n}" if n else f"{where}, empty"
        return CellView(cell_id(row, col), row, col, f"cell open n{n}", text, label, "open")
    flagged = byte == FLAG
    kind = "flag" if flagged else "covered"
    classes = ["cell", "covered"]
    if flagged:
        classes.append("flag")
    label = f"{where}, {'flagged' if flagged else 'covered'}"
    if ending is not None:
        classes, label = _ending_marks(cell, flagged, ending, classes, label)
    return CellView(cell_id(row, col), row, col, " ".join(classes), "", label, kind)


def _ending_marks(
    cell: Cell, flagged: bool, ending: Ending, classes: list[str], label: str
) -> tuple[list[str], str]:
    """Classes and label words that show the layouts of an ended game on a covered cell."""
    notes = []
    real = cell in ending.layout
    if real:
        classes.append("rm")
    if ending.witness is not None:
        devil = cell in ending.witness
        if devil:
            classes.append("wm")
            notes.append("mine in the devil's layout")
        if flagged and not devil:
            classes.append("wrong-w")
        notes.append("mine in the real layout" if real else "safe in the real layout")
    elif real:
        notes.append("mine")
    if flagged and not real:
        classes.append("wrong-r")
    if cell == ending.loss:
        classes.append("boom")
        notes.insert(0, "your click")
    if notes:
        label = f"{label}, {', '.join(notes)}"
    return classes, label


def _ghost(view: CellView, drow: int, dcol: int) -> CellView:
    return CellView(
        f"g-{drow}-{dcol}",
        view.row,
        view.col,
        view.classes + " ghost",
        view.text,
        "",
        view.kind,
        ghost=True,
    )


def ghost_positions(board: Board, row: int, col: int) -> Iterator[tuple[int, int]]:
    """Display coordinates of the torus ghosts that mirror real cell (row, col)."""
    if board.topology is not Topology.TORUS:
        return
    rows = [row] + ([-1] if row == board.height - 1 else []) + ([board.height] if row == 0 else [])
    cols = [col] + ([-1] if col == board.width - 1 else []) + ([board.width] if col == 0 else [])
    for r in rows:
        for c in cols:
            if (r, c) != (row, col):
                yield r, c


def _ghost_source(board: Board, drow: int, dcol: int) -> Cell:
    return (drow % board.height) * board.width + dcol % board.width


# -- HTML of cells ----------------------------------------------------------------------
#
# Cells are written here rather than by a Jinja macro: a 200x200 board has 40,000 of them,
# and a format string is several times faster than a macro call. Nothing needs escaping:
# every value comes from a CellView, built only from integers and fixed words (ids like
# ``c-3-4``, class names, labels like "row 3, col 4, covered", digits); the tests check
# that no cell text contains a character HTML would treat specially.


def cell_html(
    c: CellView, live: bool, focus_id: str | None = None, prefix: str = "", oob: bool = False
) -> str:
    """One cell: a button of the move form (``live``), a read-only span, a hole or a ghost."""
    cid = prefix + c.id
    extra = ' hx-swap-oob="true"' if oob else ""
    classes, text = c.classes, c.text
    if c.ghost:
        return f'<span id="{cid}" class="{classes}" aria-hidden="true"{extra}>{text}</span>'
    label = c.label
    if c.kind == "hole":
        return (
            f'<span id="{cid}" class="{classes}" role="gridcell" aria-label="{label}"{extra}>'
            "</span>"
        )
    tab = "0" if c.id == focus_id else "-1"
    if live:
        return (
            f'<button type="button" id="{cid}" class="{classes}" role="gridcell" value="{c.at}" '
            f'tabindex="{tab}" aria-label="{label}"{extra}>{text}</button>'
        )
    return (
        f'<span id="{cid}" class="{classes}" role="gridcell" tabindex="{tab}" '
        f'aria-label="{label}"{extra}>{text}</span>'
    )


def row_html(
    row: RowView, live: bool, focus_id: str | None, prefix: str = "", oob: bool = False
) -> Markup:
    """One row (``<div id="r-<display row>">`` and its cells), ready for a template."""
    cells = "".join(cell_html(c, live, focus_id, prefix) for c in row.cells)
    role = ' aria-hidden="true"' if row.ghost else ' role="row"'
    extra = ' hx-swap-oob="true"' if oob else ""
    return Markup(
        f'<div id="{prefix}r-{row.index}" class="{row.classes}"{role}{extra}>{cells}</div>'
    )


def oob_rows_html(rows: Iterable[RowView], live: bool) -> Markup:
    """Whole rows as out-of-band swaps (the answer to a click that changed many cells)."""
    return Markup("".join(row_html(r, live, None, "", True) for r in rows))


def oob_cells_html(views: Iterable[CellView], live: bool) -> Markup:
    """Cells as out-of-band swaps (a click's answer)."""
    return Markup("".join(cell_html(c, live, None, "", True) for c in views))


# -- whole board ------------------------------------------------------------------------


def display_rows(board: Board) -> range:
    """Display row numbers: the board's rows, plus the ghost rows -1 and height on a torus."""
    if board.topology is Topology.TORUS:
        return range(-1, board.height + 1)
    return range(board.height)


def row_view(position: Position, drow: int, view_of: Callable[[Cell], CellView]) -> RowView:
    """Display row ``drow``, its cells' views coming from ``view_of(cell)``."""
    board = position.board
    torus = board.topology is Topology.TORUS
    ghost_row = not 0 <= drow < board.height
    cells: list[CellView] = []
    if torus:
        cells.append(_ghost(view_of(_ghost_source(board, drow, -1)), drow, -1))
    for col in range(board.width):
        view = view_of(_ghost_source(board, drow, col))
        cells.append(_ghost(view, drow, col) if ghost_row else view)
    if torus:
        cells.append(_ghost(view_of(_ghost_source(board, drow, board.width)), drow, board.width))
    row_classes = "row"
    if board.topology is Topology.HEX and drow % 2:
        row_classes += " odd"
    if ghost_row:
        row_classes += " ghost-row"
    return RowView(drow, tuple(cells), row_classes, ghost_row)


def changed_rows(position: Position, cells: Iterable[Cell]) -> list[RowView]:
    """The display rows holding some cells of a running game (with the torus ghost rows that
    mirror them): a click that changed many cells answers with these rows."""
    board = position.board
    wanted: set[int] = set()
    for cell in cells:
        row = cell // board.width
        wanted.add(row)
        wanted.update(r for r, _ in ghost_positions(board, row, 0) if not 0 <= r < board.height)
    views: dict[Cell, CellView] = {}

    def view_of(cell: Cell) -> CellView:
        if cell not in views:
            views[cell] = cell_view(position, cell)
        return views[cell]

    return [row_view(position, drow, view_of) for drow in sorted(wanted)]


def board_view(position: Position, *, interactive: bool, ending: Ending | None = None) -> BoardView:
    """Every cell of the board, in display order (with torus ghosts when the board wraps)."""
    board = position.board
    views = [cell_view(position, cell, ending) for cell in range(board.size)]
    rows = [row_view(position, drow, views.__getitem__) for drow in display_rows(board)]
    return BoardView(
        board.height,
        board.width,
        board.topology.value,
        tuple(rows),
        _board_classes(board, interactive, ending),
        interactive,
        board_caption(board),
        _first_cell_id(board),
    )


def _first_cell_id(board: Board) -> str:
    first = next(board.cells(), 0)
    row, col = board.coord(first)
    return cell_id(row, col)


def _board_classes(board: Board, interactive: bool, ending: Ending | None) -> str:
    classes = ["board", f"topo-{board.topology.value}"]
    if board.size > BIG_BOARD_CELLS:
        classes.append("big")
    if board.holes:
        classes.append("has-holes")
    classes.append("live" if interactive else "readonly")
    if ending is not None:
        classes.append("ended")
        classes.append("won" if ending.won else "lost")
    return " ".join(classes)


def board_caption(board: Board) -> str:
    size = f"{board.width} by {board.height}"
    if board.topology is Topology.TORUS:
        return f"{size} torus: the left edge touches the right edge and the top touches the bottom"
    if board.topology is Topology.HEX:
        return f"{size} hexagonal board: each cell touches 6 others, odd rows are shifted right"
    if board.holes:
        return f"{size} board with {len(board.holes)} holes (gaps that are not cells)"
    return f"{size} board"


# -- what changed -----------------------------------------------------------------------


def changed_cells(before: Position, after: Position) -> list[Cell]:
    """Cells whose visible byte differs between two positions of the same board."""
    old, new = before.grid, after.grid
    if old == new:
        return []
    width = before.board.width
    out: list[Cell] = []
    for start in range(0, len(old), width):  # compare whole rows first: fast in C
        end = start + width
        if old[start:end] != new[start:end]:
            out.extend(i for i in range(start, end) if old[i] != new[i])
    return out


def changed_views(position: Position, cells: Iterable[Cell]) -> list[CellView]:
    """The views of some cells of a running game, plus their torus ghosts, for OOB swaps."""
    board = position.board
    out: list[CellView] = []
    for cell in cells:
        view = cell_view(position, cell)
        out.append(view)
        out.extend(_ghost(view, r, c) for r, c in ghost_positions(board, view.row, view.col))
    return out


# -- status -----------------------------------------------------------------------------


def mines_left(position: Position) -> int:
    """Mines minus flags (can go negative when the player over-flags)."""
    return (position.mines or 0) - position.grid.count(FLAG)


def rules_text(count: str, mercy: str, no_guess: bool) -> str:
    text = f"{count} · {mercy}"
    return text + (" · no-guess" if no_guess else "")


def summary(position: Position, status: str, moves: int) -> str:
    """A short sentence for the live region after a move."""
    left = mines_left(position)
    covered = sum(1 for _ in position.covered_cells())
    if status == "won":
        return f"You won in {plural(moves, 'move')}."
    if status == "lost":
        return "Boom. The devil put a mine under your click: see its layout below."
    counts = f"{plural(left, 'mine')} left, {plural(covered, 'cell')} covered"
    return f"{counts}, {plural(moves, 'move')}."


# -- whole game -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameView:
    """Everything the game templates show about one game."""

    id: str
    title: str
    status: str
    can_move: bool
    """The board takes clicks: this browser owns the game and it is still running."""
    owner: bool
    """This browser started the game (watchers see the board read-only)."""
    position: Position
    ending: Ending | None
    bar: StatusView
    moves: int
    mercy: str = "strict"
    loss_where: str = ""
    witness_mines: int = 0
    again: tuple[tuple[str, str], ...] = ()
    watch_url: str | None = None
    """For a watcher of a running game: where to fetch what changed since the current move."""
    live_url: str | None = None
    """For a watcher of a running game: the game's event stream (Server-Sent Events)."""

    @cached_property
    def board(self) -> BoardView:
        """The whole board, built only when a template draws it (a click's answer does not)."""
        return board_view(self.position, interactive=self.can_move, ending=self.ending)

    @property
    def status_text(self) -> str:
        return {"playing": "Playing", "won": "Won", "lost": "Lost"}.get(self.status, self.status)

    @property
    def ended(self) -> bool:
        return self.status != "playing"


@dataclass(frozen=True)
class ReplayView:
    """The board after move ``n`` of ``total``, with the step targets (None when disabled)."""

    game_id: str
    n: int
    total: int
    board: BoardView
    caption: str
    label: str

    @property
    def steps(self) -> tuple[tuple[str, int | None, str], ...]:
        n, total = self.n, self.total
        return (
            ("\u00ab First", 0 if n > 0 else None, "Before the first move"),
            ("\u2039 Back", n - 1 if n > 0 else None, "One move back"),
            ("Next \u203a", n + 1 if n < total else None, "One move forward"),
            ("Last \u00bb", total if n < total else None, "After the last move"),
        )


def plural(n: int, noun: str) -> str:
    """``1 move``, ``2 moves``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def where(row: int, col: int) -> str:
    """Public zero-based cell name used in UI text: ``row 2, col 4``."""
    return _where(row, col)
