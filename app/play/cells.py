"""One cell as drawn: its view (id, classes, text, screen-reader label) and its HTML.

Everything here works on what the player may see. The hidden layout only enters through
``Ending``, which the views build **only after the game has ended**; while a game runs a
cell's view is a pure function of the visible ``Position`` (so nothing rendered from it can
leak a mine). Cell ids are stable (``c-<row>-<col>``, zero-based) so a click can answer with
out-of-band swaps of just the cells that changed; cells are named as everywhere else
(``Position.where``: ``row 3, col 5``, zero-based).
"""

from __future__ import annotations

from dataclasses import dataclass

from devil.board import Cell
from devil.position import FLAG, HOLE, ZERO, Position
from devil.teach.number_words import number_meaning


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


def cell_id(row: int, col: int) -> str:
    return f"c-{row}-{col}"


def cell_view(position: Position, cell: Cell, ending: Ending | None = None) -> CellView:
    """The view of one real cell."""
    row, col = position.board.coord(cell)
    byte = position.grid[cell]
    where = position.where(cell)
    if byte == HOLE:
        return CellView(cell_id(row, col), row, col, "cell hole", "", f"{where}, no cell", "hole")
    if ZERO <= byte <= ZERO + 8:
        n = byte - ZERO
        text = str(n) if n else ""
        label = f"{where}, {number_meaning(position, cell)}"
        return CellView(cell_id(row, col), row, col, f"cell open n{n}", text, label, "open")
    flagged = byte == FLAG
    kind = "flag" if flagged else "covered"
    classes = ["cell", "covered"]
    if flagged:
        classes.append("flag")
    label = f"{where}, {'flagged' if flagged else 'covered'}"
    if ending is not None:
        classes, label = ending_marks(cell, flagged, ending, classes, label)
    return CellView(cell_id(row, col), row, col, " ".join(classes), "", label, kind)


def ending_marks(
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
