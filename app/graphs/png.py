"""A graph position as a PNG picture (Pillow): the exported SVG's polygons, drawn as pixels.

Same colours as the SVG export (``app.graphs.routes.EXPORT_STYLE``): revealed cells light,
covered cells coloured by verdict (safe green, mine red, either yellow), numbers and flags
at the centre. A solid drawn ``"solid"`` is its first view (``app.graphs.projection``), the
faces turned away left out. A lost game's last position (``Loss``) shows what its replay
shows: the click that lost, red, and the devil's mines as dots. Bounded: ``MAX_PNG_CELLS``
cells, ``MAX_SIDE`` pixels a side.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from app.graphs.drawing import LABEL_TILT, Shape, dot_edges, shapes, solid_shapes
from app.graphs.projection import FACING
from devil.analysis import Verdict
from devil.board import Cell
from devil.graphs.cells import Point
from devil.position import Position

MAX_PNG_CELLS = 2_500
"""Most cells of a board exported as a PNG (more: a 400 naming this bound)."""
MAX_SIDE = 4_000
"""Longest side of the picture, in pixels (big boards are drawn with smaller cells)."""
CELL_PIXELS = 36
"""A cell's width in pixels when the picture fits ``MAX_SIDE``."""

COLOURS = {
    "open": "#eeeeee",
    "covered": "#bbbbbb",
    "safe": "#8fd18f",
    "mine": "#e58a8a",
    "either": "#e8d37a",
    "line": "#555555",
    "ink": "#1d2330",
    "flag": "#c0262d",
    "boom": "#e53935",
    "background": "#ffffff",
}
"""The exported pictures' colours (the SVG export's style is made from them)."""


@dataclass(frozen=True)
class Loss:
    """What a lost game's last position shows (as its replay does): the cell whose click
    lost (``click``) and the devil's witness, a layout with a mine there (``mines``)."""

    click: Cell
    mines: frozenset[Cell]


class TooBigForPng(ValueError):
    """A board with more cells than a PNG export draws."""


def check_png_size(position: Position) -> None:
    """Raise ``TooBigForPng`` for a board with more than ``MAX_PNG_CELLS`` cells."""
    if position.board.cell_count > MAX_PNG_CELLS:
        raise TooBigForPng(
            f"it has {position.board.cell_count:,} cells; a PNG shows at most {MAX_PNG_CELLS:,}"
        )


def graph_png(
    position: Position,
    verdicts: Mapping[Cell, Verdict],
    view: str = "flat",
    loss: Loss | None = None,
) -> bytes:
    """The PNG bytes of a graph ``position``, covered cells coloured by ``verdicts``;
    ``loss``: a lost game's end (the losing click and the devil's mines)."""
    check_png_size(position)
    tilt: list[float] | None = None
    if view == "solid":
        items, _, tilt, _ = solid_shapes(position)
    else:
        items = shapes(position)
    drawn = [(s, 1.0 if tilt is None else tilt[k]) for k, s in enumerate(items)]
    drawn = [(s, t) for s, t in drawn if t > FACING] or [(s, 1.0) for s in shapes(position)]
    corners = [p for s, _ in drawn for p in (s.points or (s.centre,))]
    left = min(p[0] for p in corners) - 0.6
    top = min(p[1] for p in corners) - 0.6
    width = max(p[0] for p in corners) + 0.6 - left
    height = max(p[1] for p in corners) + 0.6 - top
    scale = min(CELL_PIXELS, MAX_SIDE / max(width, height))
    image = Image.new(
        "RGB",
        (max(1, round(width * scale)), max(1, round(height * scale))),
        COLOURS["background"],
    )
    draw = ImageDraw.Draw(image)
    fonts: dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}

    def font(t: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont | None:
        """Letters shrink as a solid's face turns away, and are left out near the rim."""
        if t < LABEL_TILT:
            return None
        size = max(6, round(scale * 0.5 * t))
        if size not in fonts:
            fonts[size] = ImageFont.load_default(size=size)
        return fonts[size]

    def px(p: Point) -> tuple[float, float]:
        return ((p[0] - left) * scale, (p[1] - top) * scale)

    line = max(1, round(scale * 0.04))
    if tilt is None:  # dots joined to their neighbours, as on the page
        for i, j in dot_edges(position, items):
            draw.line([px(items[i].centre), px(items[j].centre)], fill=COLOURS["line"], width=line)
    for shape, t in drawn:
        _cell(draw, position, verdicts, shape, px, scale, line, font(t), loss)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _cell(
    draw: ImageDraw.ImageDraw,
    position: Position,
    verdicts: Mapping[Cell, Verdict],
    shape: Shape,
    px: Callable[[Point], tuple[float, float]],
    scale: float,
    line: int,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont | None,
    loss: Loss | None,
) -> None:
    cell = shape.cell
    number = position.number(cell)
    verdict = verdicts.get(cell)
    if number is not None:
        fill = COLOURS["open"]
    elif loss is not None and cell == loss.click:
        fill = COLOURS["boom"]
    elif verdict is not None:
        fill = COLOURS[verdict.value]
    else:
        fill = COLOURS["covered"]
    if shape.points:
        draw.polygon([px(p) for p in shape.points], fill=fill, outline=COLOURS["line"], width=line)
    else:
        cx, cy = px(shape.centre)
        r = 0.45 * scale
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=COLOURS["line"])
    text, colour = "", COLOURS["ink"]
    if number:  # a 0 is left blank, as on the page
        text = str(number)
    elif position.is_flagged(cell):
        text, colour = "F", COLOURS["flag"]
    if text and font is not None:
        draw.text(px(shape.centre), text, fill=colour, font=font, anchor="mm")
    elif loss is not None and number is None and cell in loss.mines:
        cx, cy = px(shape.centre)  # a dot, as the replay's mines (a font may lack the glyph)
        r = 0.16 * scale
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=COLOURS["ink"])
