"""A graph game's board as inline SVG: one ``<g>`` per cell (its polygon and its text), for the
game page and its replays.

The cells sit in one ``<g class="cells">`` (``static/graph-game.js`` turns it a quarter on
narrow portrait screens when the board is much wider than tall), after the lines joining
cells drawn as dots (``app.graphs.drawing.edge_lines``). Each cell is
``<g id="c-<row>-<col>">`` (its slot on the board's virtual grid, the same ids and
``at=row,col`` values as grid cells, so the move form and replays need nothing new),
``data-cell`` its id, ``data-x``/``data-y`` its centre and ``data-near`` its neighbours'
element ids (``static/graph-game.js`` moves the cursor to the neighbour nearest an arrow's
direction). Its ``aria-label`` says its label and state as grid cells do (``cell t17,
covered``; a number says what it means now, ``devil.teach.number_words``).

On a solid (the cube, the sphere) the game page's board also carries ``data-turn`` and each
cell's 3-D corners (``data-p3``): ``static/graph-ball.js`` draws the same cells as the solid
the player turns. Nets are shaded by face (``net_shades``). A replay rings its move's cell.

As everywhere on the game page, a running game's board is a pure function of the visible
position; the layouts enter only through ``Ending`` once the game has ended. Every text that
comes from a custom board file (ids, labels) is escaped.
"""

from __future__ import annotations

import re
import statistics
import weakref
from html import escape

from markupsafe import Markup

from app.graphs.drawing import Shape, edge_lines, shapes
from app.graphs.projection import DEFAULT_TURN, is_solid, solid_corners
from app.play.cells import Ending, cell_id, ending_marks
from devil.board import Board, Cell
from devil.graphs.cells import Point3
from devil.position import Position
from devil.teach.number_words import number_meaning

FIT_CELLS = 300
"""Boards up to this many cells shrink to fit the page's width (a 390 px phone); bigger ones
are drawn at a readable size and scroll (with zoom buttons)."""

CORNERS_KEPT = "Mine-Devil-Corners"
"""A request header: ``kept`` when the page already has the solid's 3-D corners from its
first board (``static/graph-ball.js``), so a move's answer leaves them out (a cube's or a
sphere's corners are most of the answer's bytes)."""

CELL_PX = 46
"""A typical cell's width on screen, in CSS pixels, at zoom 1."""


def _bounds(items: list[Shape]) -> tuple[float, float, float, float]:
    xs = [p[0] for s in items for p in (s.points or (s.centre,))]
    ys = [p[1] for s in items for p in (s.points or (s.centre,))]
    pad = 0.1
    return min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad


def _cell_size(items: list[Shape]) -> float:
    """The median cell's width in drawing units (circles: 0.9; 1 when it is 0: a file's
    polygons may be lines or points)."""
    widths = [
        max(p[0] for p in s.points) - min(p[0] for p in s.points) if s.points else 0.9
        for s in items
    ]
    return (statistics.median(widths) if widths else 0.0) or 1.0


def graph_caption(board: Board) -> str:
    layout = board.graph
    assert layout is not None
    degrees = sorted({len(n) for n in layout.graph.neighbours})
    touch = f"{degrees[0]} others" if len(degrees) == 1 else f"{degrees[0]} to {degrees[-1]} others"
    return f"graph board of {board.cell_count} cells: each cell touches {touch}"


NAMED_AROUND = 6
"""A number's accessible name lists its covered, unflagged neighbours when there are at most
this many (arrow keys reach only the nearest neighbour each way, and on an odd tiling a
screen reader's user cannot see which cells touch)."""


def _open_around(position: Position, cell: Cell) -> str:
    """`` (cell k12, cell k13)``: the covered, unflagged cells a number touches ("" for none
    or more than ``NAMED_AROUND``)."""
    around = [
        n
        for n in position.board.neighbours(cell)
        if position.is_covered(n) and not position.is_flagged(n)
    ]
    if not 0 < len(around) <= NAMED_AROUND:
        return ""
    return " (" + ", ".join(position.where(n) for n in around) + ")"


def box_faces(position: Position) -> list[str] | None:
    """Per cell in the file's order, ``fx``, ``fy`` or ``fz``: the axis its face of a box
    looks along, when every cell lies on a face of a box (the cube), else None. Faces that
    meet never share an axis, so three shades tell a cube's net's faces apart."""
    if not is_solid(position):
        return None
    out = []
    for solid in solid_corners(position):
        axis = max(range(3), key=lambda d: abs(solid.normal[d]))
        if abs(solid.normal[axis]) < 0.99:
            return None
        out.append("f" + "xyz"[axis])
    return out


_BIG_FACE = re.compile(r"f(\d+)-\d+")
"""A geodesic sphere's cell id: ``f{big face}-{n}`` (``devil.graphs.tilings.solids``)."""

SHADES = ("fx", "fy", "fz")


def _three_colours(count: int, touching: set[tuple[int, int]]) -> list[int] | None:
    """A colour 0-2 per face, faces that touch differing (backtracking: a sphere has 20)."""
    around: list[list[int]] = [[] for _ in range(count)]
    for a, b in touching:
        around[a].append(b)
        around[b].append(a)
    colour = [-1] * count

    def place(k: int) -> bool:
        if k == count:
            return True
        for c in range(3):
            if all(colour[n] != c for n in around[k]):
                colour[k] = c
                if place(k + 1):
                    return True
        colour[k] = -1
        return False

    return colour if place(0) else None


def sphere_faces(position: Position) -> list[str] | None:
    """Per cell in the file's order, ``fx``, ``fy`` or ``fz``: which of three shades its big
    triangle of a geodesic sphere's net gets (big triangles sharing a side differ, so a
    stranger sees the net's 20 triangles as the cube's six faces are seen). None unless
    every cell is on a solid and has a sphere's id (``f{big face}-{n}``)."""
    if not is_solid(position):
        return None
    layout = position.board.graph
    assert layout is not None
    groups = []
    for name in layout.graph.ids:
        match = _BIG_FACE.fullmatch(name)
        if match is None:
            return None
        groups.append(int(match.group(1)))
    count = max(groups) + 1
    if count > 64:
        return None
    sides: dict[tuple[Point3, Point3], set[int]] = {}
    for group, solid in zip(groups, solid_corners(position), strict=True):
        ring = solid.corners
        for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
            sides.setdefault((min(a, b), max(a, b)), set()).add(group)
    touching = {(a, b) for owners in sides.values() for a in owners for b in owners if a < b}
    colours = _three_colours(count, touching)
    return None if colours is None else [SHADES[colours[g]] for g in groups]


_SHADES: weakref.WeakKeyDictionary[object, list[str] | None] = weakref.WeakKeyDictionary()


def net_shades(position: Position) -> list[str] | None:
    """``box_faces`` or ``sphere_faces``, kept per board (tens of milliseconds on a
    500-cell sphere, asked at every move)."""
    layout = position.board.graph
    assert layout is not None
    if layout not in _SHADES:
        _SHADES[layout] = box_faces(position) or sphere_faces(position)
    return _SHADES[layout]


_CORNERS: weakref.WeakKeyDictionary[object, list[str] | None] = weakref.WeakKeyDictionary()


def solid_text(position: Position) -> list[str] | None:
    """Per cell in the file's order, its 3-D corners as ``data-p3`` text (``x,y,z x,y,z
    ...``, centred and scaled, ``app.graphs.projection.solid_corners``), so
    ``static/graph-ball.js`` draws the board as a ball or box the player turns; None when
    the board is not a solid's surface. Kept per board, as ``net_shades``."""
    layout = position.board.graph
    assert layout is not None
    if layout not in _CORNERS:
        _CORNERS[layout] = (
            [
                " ".join(f"{x:g},{y:g},{z:g}" for x, y, z in solid.corners)
                for solid in solid_corners(position)
            ]
            if is_solid(position)
            else None
        )
    return _CORNERS[layout]


def _label(position: Position, cell: Cell) -> tuple[str, str, str]:
    """(classes, text drawn, accessible name) of a cell while nothing is hidden from it."""
    where = position.where(cell)
    number = position.number(cell)
    if number is not None:
        text = str(number) if number else ""
        name = f"{where}, {number_meaning(position, cell)}"
        return f"gcell open n{min(number, 8)}", text, name + _open_around(position, cell)
    if position.is_flagged(cell):
        return "gcell covered flag", "\u2691", f"{where}, flagged"
    return "gcell covered", "", f"{where}, covered"


def graph_board_svg(
    position: Position,
    *,
    interactive: bool,
    ending: Ending | None = None,
    prefix: str = "",
    focus: Cell | None = None,
    moved: Cell | None = None,
    fresh: frozenset[Cell] = frozenset(),
    corners: bool = True,
) -> Markup:
    """The board as an ``<svg>`` (see the module doc); ``focus``: the cell holding the single
    tab stop (default the first cell in the file). A replay marks the cell its move acted on
    (``moved``: class ``moved``, a ring) and the cells that move opened (``fresh``: class
    ``fresh``, tinted), so a stranger sees which cell "open cell k5" was. ``corners=False``:
    a solid's cells without their 3-D corners (``data-p3``; the svg keeps ``data-turn``),
    for a page that kept them from its first board (``CORNERS_KEPT``)."""
    board = position.board
    layout = board.graph
    assert layout is not None
    items = shapes(position)
    x, y, w, h = _bounds(items)
    unit = _cell_size(items)
    fit = len(items) <= FIT_CELLS
    px = CELL_PX / unit
    size = f'width="{w * px:.0f}" height="{h * px:.0f}"'  # attributes: CSP forbids style=""
    first = layout.slots[0] if focus is None else focus
    font = f'font-size="{0.5 * unit:.3f}"'  # on each text: page styles must not size it
    small = f'font-size="{0.36 * unit:.3f}"'  # two digits (10 to 12 on triangles) fit too
    centre_of = {s.cell: s.centre for s in items}
    classes = "graph-game " + ("fit" if fit else "big") + (" live" if interactive else "")
    caption = escape(graph_caption(board))
    out = [
        f'<svg class="{classes}" viewBox="{x:.3f} {y:.3f} {w:.3f} {h:.3f}" {size} '
        f'xmlns="http://www.w3.org/2000/svg" role="group" aria-label="{caption}" '
        f'data-prefix="{prefix}">',
        '<g class="cells">',
        edge_lines(position, items),
    ]
    faces = net_shades(position)
    # the game's board and a replay's can be drawn as the solid
    p3 = solid_text(position)
    if p3 is not None:
        turn = ",".join(f"{v:.6f}" for v in DEFAULT_TURN)
        out[0] = out[0].replace(' role="group"', f' data-turn="{turn}" role="group"', 1)
    for k, shape in enumerate(items):
        cell = shape.cell
        row, col = board.coord(cell)
        classes, text, name = _label(position, cell)
        extra = "" if faces is None else " " + faces[k]
        if ending is not None and position.is_covered(cell):
            marks, name = ending_marks(cell, position.is_flagged(cell), ending, [], name)
            extra = "".join(" " + m for m in marks)
            if cell in (ending.witness if ending.witness is not None else ending.layout):
                extra += " m-shown"
            if ending.witness is not None and cell in ending.layout:
                extra += " m-real"
        if cell == moved:
            extra += " moved"
            name += ", this move"
        elif cell in fresh:
            extra += " fresh"
            name += ", opened by this move"
        cx, cy = centre_of[cell]
        near = " ".join(prefix + cell_id(*board.coord(n)) for n in board.neighbours(cell))
        tab = "0" if cell == first else "-1"
        solid = "" if p3 is None or not corners else f' data-p3="{p3[k]}"'
        out.append(
            f'<g id="{prefix}{cell_id(row, col)}" class="{classes}{extra}" '
            f'data-cell="{escape(layout.id(cell))}" data-at="{row},{col}" '
            f'data-x="{cx:.3f}" data-y="{cy:.3f}" data-near="{near}" tabindex="{tab}" '
            f'role="button" aria-label="{escape(name)}"{solid}>'
        )
        if shape.points:
            pts = " ".join(f"{px_:.3f},{py:.3f}" for px_, py in shape.points)
            out.append(f'<polygon points="{pts}"/>')
        else:
            out.append(f'<circle cx="{cx:.3f}" cy="{cy:.3f}" r="0.45"/>')
        if text:
            size = font if len(text) < 2 else small
            out.append(f'<text x="{cx:.3f}" y="{cy:.3f}" {size} aria-hidden="true">{text}</text>')
        if ending is not None and position.is_covered(cell) and not text:
            out.append(
                f'<text class="m" x="{cx:.3f}" y="{cy:.3f}" {font} aria-hidden="true">\u25cf</text>'
            )
        out.append("</g>")
    out.append("</g></svg>")
    return Markup("".join(out))
