"""A graph position as SVG: one polygon per cell (a circle for a cell drawn by its centre
only), numbers and flags written at the centre, covered cells coloured by verdict.

Cells the file does not draw are placed on the board's virtual grid (``devil.graphs.layout``).
Every cell carries its id (``data-cell``) and an accessible name: its label and state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from devil.analysis import Verdict
from devil.board import Cell
from devil.graphs.cells import Point
from devil.position import Position

BIG = 600
"""Boards with more cells than this are drawn at a readable size and scroll (zoom and pan)."""

_VERDICT_CLASS = {Verdict.SAFE: "safe", Verdict.MINE: "mine", Verdict.EITHER: "either"}
_VERDICT_WORD = {Verdict.SAFE: "safe", Verdict.MINE: "a mine", Verdict.EITHER: "either"}


@dataclass(frozen=True)
class Shape:
    cell: Cell
    points: tuple[Point, ...] | None
    centre: Point


def shapes(position: Position) -> list[Shape]:
    """Every cell's outline and centre, in the file's order, scaled so cells are ~1 wide."""
    layout = position.board.graph
    assert layout is not None
    out = []
    width = position.board.width
    for i, info in enumerate(layout.graph.cells):
        slot = layout.slots[i]
        centre = info.centre()
        if centre is None:
            row, col = divmod(slot, width)
            centre = (col * 1.2, row * 1.2)
        out.append(Shape(slot, info.polygon, centre))
    return out


def _bounds(items: list[Shape]) -> tuple[float, float, float, float]:
    xs = [p[0] for s in items for p in (s.points or (s.centre,))]
    ys = [p[1] for s in items for p in (s.points or (s.centre,))]
    pad = 0.6
    return min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad


def _state(position: Position, cell: Cell) -> tuple[str, str]:
    """(text drawn in the cell, words for its accessible name)."""
    number = position.number(cell)
    if number is not None:
        return str(number), f"revealed {number}"
    if position.is_flagged(cell):
        return "⚑", "flagged"
    return "", "covered"


def board_svg(
    position: Position,
    verdicts: Mapping[Cell, Verdict],
    probs: Mapping[Cell, float],
    selected: Cell | None = None,
    highlight: frozenset[Cell] = frozenset(),
) -> str:
    """The board as an ``<svg>`` element (safe to embed: every text is escaped)."""
    layout = position.board.graph
    assert layout is not None
    items = shapes(position)
    x, y, w, h = _bounds(items)
    size = " big" if len(items) > BIG else " wide" if len(items) > 60 and w > 1.2 * h else ""
    out = [
        f'<svg class="graph-board{size}" viewBox="{x:.3f} {y:.3f} {w:.3f} {h:.3f}" '
        f'xmlns="http://www.w3.org/2000/svg" role="group" aria-label="the board">'
    ]
    for shape in items:
        cell = shape.cell
        text, state = _state(position, cell)
        classes = ["cell"]
        name = f"{layout.label(cell)}: {state}"
        if position.is_covered(cell):
            classes.append("covered")
            verdict = verdicts.get(cell)
            if verdict is not None:
                classes.append(_VERDICT_CLASS[verdict])
                name += f", {_VERDICT_WORD[verdict]}"
            if cell in probs:
                name += f", {round(probs[cell] * 100)}% mine"
        else:
            classes.append("open")
        if cell == selected:
            classes.append("selected")
        if cell in highlight:
            classes.append("used")
        attrs = (
            f'class="{" ".join(classes)}" data-cell="{escape(layout.id(cell))}" '
            f'tabindex="0" role="button" aria-label="{escape(name)}"'
        )
        if shape.points:
            pts = " ".join(f"{px:.3f},{py:.3f}" for px, py in shape.points)
            out.append(f'<polygon {attrs} points="{pts}"><title>{escape(name)}</title></polygon>')
        else:
            cx, cy = shape.centre
            out.append(
                f'<circle {attrs} cx="{cx:.3f}" cy="{cy:.3f}" r="0.45">'
                f"<title>{escape(name)}</title></circle>"
            )
        if text:
            cx, cy = shape.centre
            out.append(
                f'<text x="{cx:.3f}" y="{cy:.3f}" class="label" aria-hidden="true">'
                f"{escape(text)}</text>"
            )
    out.append("</svg>")
    return "".join(out)
