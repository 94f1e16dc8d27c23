"""Read-only boards of the teaching pages (analysis, its layouts, puzzles): the play board's
cell views plus per-page classes, links, tips and form buttons."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.play.board import board_view
from devil.board import Cell
from devil.position import Position


@dataclass(frozen=True)
class ACell:
    """One cell of the analysis board."""

    id: str
    row: int
    col: int
    classes: str
    text: str
    label: str
    href: str | None
    tip: str = ""
    ghost: bool = False
    action: str | None = None
    """When set, the cell is a button of ``#analyse-form`` sending ``action=row,col``."""


@dataclass(frozen=True)
class ARow:
    classes: str
    cells: tuple[ACell, ...]
    ghost: bool = False


def grid_rows(
    position: Position,
    classes_of: Callable[[Cell], str],
    href_of: Callable[[Cell], str | None],
    tip_of: Callable[[Cell], str],
    prefix: str,
    action_of: Callable[[Cell], str | None] | None = None,
) -> tuple[tuple[ARow, ...], str]:
    view = board_view(position, interactive=False)
    rows = []
    for row in view.rows:
        cells = []
        for c in row.cells:
            if c.ghost:
                cells.append(ACell("", c.row, c.col, c.classes, c.text, "", None, ghost=True))
                continue
            cell = position.board.cell(c.row, c.col)
            extra = classes_of(cell)
            tip = tip_of(cell)
            label = c.label + (f", {tip}" if tip else "")
            cells.append(
                ACell(
                    prefix + c.id,
                    c.row,
                    c.col,
                    f"{c.classes} {extra}".strip(),
                    c.text,
                    label,
                    href_of(cell),
                    tip,
                    action=action_of(cell) if action_of is not None else None,
                )
            )
        rows.append(ARow(row.classes, tuple(cells), row.ghost))
    return tuple(rows), view.classes.replace("readonly", "analysis")


def layout_grid(position: Position, layout: frozenset[Cell], prefix: str) -> tuple[ARow, ...]:
    """A read-only copy of the board with ``layout``'s mines marked (an either-cell's proof)."""

    def classes_of(cell: Cell) -> str:
        return "lay-mine" if cell in layout else ""

    rows, _ = grid_rows(position, classes_of, lambda c: None, lambda c: "", prefix)
    return rows
