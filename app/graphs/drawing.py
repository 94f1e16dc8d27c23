"""A graph position as SVG: one polygon per cell (a circle for a cell drawn by its centre
only), numbers and flags written at the centre, covered cells coloured by verdict.

Cells the file does not draw are placed on the board's virtual grid (``devil.graphs.layout``).
A cell drawn as a dot (no polygon) is joined to its neighbours by lines (``edge_lines``).
Every cell carries its id (``data-cell``) and an accessible name: its label and state.

A board on a solid (every cell has ``polygon3d``: the cube, the geodesic sphere) can be drawn
``view="solid"``: the projection of ``app.graphs.projection`` at its first turn, back faces
hidden, each cell carrying its 3-D corners (``data-p3``) so ``static/graph-solid.js`` turns it
by drag, arrow keys and the buttons of ``solid_controls()``. A game page includes that script
and calls ``board_svg(position, verdicts, probs, view="solid")``; the markup of the board and
the controls is all the script needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from html import escape

from app.graphs.projection import (
    DEFAULT_TURN,
    FACING,
    facing_cosine,
    is_solid,
    projected,
    radius,
    solid_corners,
)
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


MAX_EDGE_LINES = 20_000
"""Most edges drawn as lines (a pasted board's cells drawn as dots)."""


def dot_edges(position: Position, items: list[Shape]) -> list[tuple[int, int]]:
    """The neighbour pairs (indices into ``items``, the file's order as ``shapes`` gives)
    with a cell drawn as a dot (a file without polygons): the dots alone do not show which
    cells are neighbours, so a line joins them. Empty when every cell has its polygon, or
    when there are more than ``MAX_EDGE_LINES``."""
    layout = position.board.graph
    assert layout is not None
    edges = [(i, j) for i, j in layout.graph.edges if not (items[i].points and items[j].points)]
    return edges if len(edges) <= MAX_EDGE_LINES else []


def edge_lines(position: Position, items: list[Shape]) -> str:
    """``dot_edges`` as SVG lines between the cells' centres ("" when there are none)."""
    edges = dot_edges(position, items)
    if not edges:
        return ""
    lines = "".join(
        f'<line x1="{items[i].centre[0]:.3f}" y1="{items[i].centre[1]:.3f}" '
        f'x2="{items[j].centre[0]:.3f}" y2="{items[j].centre[1]:.3f}"/>'
        for i, j in edges
    )
    return f'<g class="edges" aria-hidden="true">{lines}</g>'


def _bounds(items: list[Shape]) -> tuple[float, float, float, float]:
    xs = [p[0] for s in items for p in (s.points or (s.centre,))]
    ys = [p[1] for s in items for p in (s.points or (s.centre,))]
    pad = 0.6
    return min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad


def _state(position: Position, cell: Cell) -> tuple[str, str]:
    """(text drawn in the cell, words for its accessible name). A 0 is drawn blank, as the
    game draws it; its name still says it is a 0."""
    number = position.number(cell)
    if number == 0:
        return "", "revealed 0, no mines around"
    if number is not None:
        return str(number), f"revealed {number}"
    if position.is_flagged(cell):
        return "⚑", "flagged"
    return "", "covered"


SOLID_PAD = 0.04
"""A solid's view is its radius (its farthest corner, so no turn takes a corner out of
sight) and this much of it more: room for the thickest outline (5 screen pixels) and no
more, so the solid fills the frame's width as the game page's does."""

LABEL_TILT = 0.3
"""On a solid, a cell's number is drawn only when its face turns at most this far from the
viewer (the cosine of the angle; static/graph-solid.js uses the same)."""


def solid_shapes(position: Position) -> tuple[list[Shape], list[str], list[float], float]:
    """The solid's first view: shapes (outlines projected), each cell's ``data-p3`` text (its
    3-D corners, centred and scaled), how far it faces the viewer (the cosine of the angle
    between its normal and the line of sight: <= 0 faces away), and the view's radius."""
    layout = position.board.graph
    assert layout is not None
    cells = solid_corners(position)
    items = []
    p3 = []
    front: list[float] = []
    for slot, solid in zip(layout.slots, cells, strict=True):
        outline = projected(DEFAULT_TURN, solid)
        k = len(outline)
        centre = (sum(p[0] for p in outline) / k, sum(p[1] for p in outline) / k)
        items.append(Shape(slot, outline, centre))
        p3.append(" ".join(f"{x:g},{y:g},{z:g}" for x, y, z in solid.corners))
        front.append(facing_cosine(DEFAULT_TURN, solid))
    return items, p3, front, radius(cells)


def _tab_stop(items: list[Shape], tilt: list[float], selected: Cell | None) -> Cell:
    """The one cell Tab reaches (arrow keys move on, ``static/graph.js``): the chosen cell,
    else the first; on a solid, a cell facing the viewer (the one facing it most)."""
    if not tilt:
        cells = [s.cell for s in items]
        return selected if selected in cells else items[0].cell
    facing = {s.cell: t for s, t in zip(items, tilt, strict=True) if t > FACING}
    if selected in facing or not facing:
        return selected if selected is not None else items[0].cell
    return max(facing, key=lambda c: facing[c])


def solid_controls(label: str = "Turn the board") -> str:
    """The buttons that turn a solid board (touch screens; the script wires them up)."""
    turns = (("left", "←", "Turn left"), ("up", "↑", "Turn up"),
             ("down", "↓", "Turn down"), ("right", "→", "Turn right"))  # fmt: skip
    buttons = "".join(
        f'<button type="button" class="btn solid-turn" data-turn="{key}" aria-label="{name}">'
        f"{arrow}</button>"
        for key, arrow, name in turns
    )
    return f'<div class="solid-controls" role="group" aria-label="{escape(label)}">{buttons}</div>'


def board_svg(
    position: Position,
    verdicts: Mapping[Cell, Verdict],
    probs: Mapping[Cell, float],
    selected: Cell | None = None,
    highlight: frozenset[Cell] = frozenset(),
    marks: Mapping[Cell, str] | None = None,
    view: str = "flat",
) -> str:
    """The board as an ``<svg>`` element (safe to embed: every text is escaped).

    ``marks``: more CSS classes per cell (a deduction step's highlights); ``view``: ``"flat"``
    (the file's drawing, a net for a solid) or ``"solid"`` (a turnable projection, when
    ``is_solid(position)``; else flat)."""
    layout = position.board.graph
    assert layout is not None
    solid = view == "solid" and is_solid(position)
    p3: list[str] = []
    tilt: list[float] = []
    if solid:
        items, p3, tilt, r = solid_shapes(position)
        r *= 1 + SOLID_PAD
        x, y, w, h = -r, -r, 2 * r, 2 * r
        size = " solid"
        turn = ",".join(f"{v:.6f}" for v in DEFAULT_TURN)
        extra = f' data-turn="{turn}" tabindex="0"'
        board_name = "the board, a solid: drag or use the arrow keys to turn it"
    else:
        items = shapes(position)
        x, y, w, h = _bounds(items)
        size = " big" if len(items) > BIG else " wide" if len(items) > 60 and w > 1.2 * h else ""
        extra = ""
        board_name = "the board"
    out = [
        f'<svg class="graph-board{size}" viewBox="{x:.3f} {y:.3f} {w:.3f} {h:.3f}" '
        f'xmlns="http://www.w3.org/2000/svg" role="group" aria-label="{board_name}"{extra}>'
    ]
    if not solid:
        out.append(edge_lines(position, items))
    stop = _tab_stop(items, tilt, selected)
    outlined = set(highlight) | set(marks or ()) | {selected}
    order = sorted(range(len(items)), key=lambda k: items[k].cell in outlined)
    for k in order:  # outlined cells last: their thick outlines are drawn over the others
        shape = items[k]
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
        if marks and cell in marks:
            classes.append(marks[cell])
        where = ""
        if solid:
            where = f' data-p3="{p3[k]}"'
            if tilt[k] <= FACING:
                classes.append("back")
        attrs = (
            f'class="{" ".join(classes)}" data-cell="{escape(layout.id(cell))}"{where} '
            f'tabindex="{0 if cell == stop else -1}" role="button" aria-label="{escape(name)}"'
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
            hidden = ' class="label"'
            of = ""
            if solid:  # letters shrink with the face turning away, gone near the rim
                hidden = ' class="label back"' if tilt[k] < LABEL_TILT else ' class="label"'
                of = f' data-of="{escape(layout.id(cell))}" font-size="{0.5 * tilt[k]:.3f}"'
            out.append(
                f'<text x="{cx:.3f}" y="{cy:.3f}"{hidden}{of} aria-hidden="true">'
                f"{escape(text)}</text>"
            )
    out.append("</svg>")
    return "".join(out)
