"""The whole board as drawn: rows of cell views, torus ghosts, captions, and the rows or cells
a click changed (for out-of-band swaps).

Torus boards get a ring of read-only "ghost" cells (``g-<display row>-<display col>``, display
coordinates -1 and height/width standing for the wrapped edge) that mirror the opposite edge,
so the wrap is visible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from markupsafe import Markup

from app.play.cells import CellView, Ending, cell_html, cell_id, cell_view
from app.play.graph_board import graph_board_svg, graph_caption
from devil.board import Board, Cell, Topology
from devil.position import Position

BIG_BOARD_CELLS = 2500
"""Boards with more cells get the ``big`` class: the browser skips drawing rows off screen."""

FIT_COLUMNS = 16
"""Boards this narrow get the ``fit`` class: their cells shrink so the board fits a phone's
width (390 px); wider boards scroll inside their frame and get a zoom."""


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
    svg: Markup | None = None
    """A graph board: the whole board as SVG (``app.play.graph_board``), ``rows`` empty."""


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


def board_view(
    position: Position,
    *,
    interactive: bool,
    ending: Ending | None = None,
    prefix: str = "",
    moved: Cell | None = None,
    fresh: frozenset[Cell] = frozenset(),
    corners: bool = True,
) -> BoardView:
    """Every cell of the board, in display order (with torus ghosts when the board wraps);
    a graph board as SVG (``prefix``: before its element ids, as the grid macro's; ``moved``
    and ``fresh``: a replay's marks; ``corners``: a solid's 3-D corners, ``graph_board_svg``)."""
    board = position.board
    if board.graph is not None:
        return BoardView(
            board.height,
            board.width,
            board.topology.value,
            (),
            _board_classes(board, interactive, ending),
            interactive,
            graph_caption(board),
            _first_cell_id(board),
            graph_board_svg(
                position,
                interactive=interactive,
                ending=ending,
                prefix=prefix,
                moved=moved,
                fresh=fresh,
                corners=corners,
            ),
        )
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
    first = board.graph.slots[0] if board.graph is not None else next(board.cells(), 0)
    row, col = board.coord(first)
    return cell_id(row, col)


def _board_classes(board: Board, interactive: bool, ending: Ending | None) -> str:
    classes = ["board", f"topo-{board.topology.value}"]
    if board.size > BIG_BOARD_CELLS:
        classes.append("big")
    if board.width <= FIT_COLUMNS:
        classes.append("fit")
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


def with_numbers_beside(position: Position, cells: Iterable[Cell]) -> list[Cell]:
    """``cells`` and the revealed numbers next to them: a number's label says how many of its
    neighbours are flagged and covered, so it changes when they do."""
    board = position.board
    out = dict.fromkeys(cells)
    for cell in list(out):
        for n in board.neighbours(cell):
            if n not in out and position.number(n):
                out[n] = None
    return list(out)


def changed_views(position: Position, cells: Iterable[Cell]) -> list[CellView]:
    """The views of some cells of a running game, plus their torus ghosts, for OOB swaps."""
    board = position.board
    out: list[CellView] = []
    for cell in cells:
        view = cell_view(position, cell)
        out.append(view)
        out.extend(_ghost(view, r, c) for r, c in ghost_positions(board, view.row, view.col))
    return out
