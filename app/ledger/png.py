"""A position as a PNG picture (Pillow): the analysis board's SVG, drawn as pixels.

Same cells, colours and letters as ``app.teach.svg.position_svg``: revealed numbers in their
classic colours, flags, covered cells coloured by verdict (safe green, mine red) with S/M.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

from PIL import Image, ImageDraw, ImageFont

from app.teach.svg import NUMBER_COLOURS, SVG_CELL, SVG_COLOURS
from devil.analysis import Verdict
from devil.board import Cell, Topology
from devil.position import FLAG, HOLE, Position

BACKGROUND = "#ffffff"


def position_png(position: Position, verdicts: Mapping[Cell, Verdict]) -> bytes:
    """The PNG bytes of ``position`` with covered cells coloured by ``verdicts``."""
    board = position.board
    s = SVG_CELL
    hexagonal = board.topology is Topology.HEX
    width = board.width * s + (s // 2 if hexagonal else 0)
    image = Image.new("RGB", (width, board.height * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=round(s * 0.6))
    for cell in range(board.size):
        byte = position.grid[cell]
        if byte == HOLE:
            continue
        r, c = board.coord(cell)
        x = c * s + (s // 2 if hexagonal and r % 2 else 0)
        y = r * s
        number = position.number(cell)
        verdict = verdicts.get(cell)
        if number is not None:
            fill = SVG_COLOURS["open"]
        else:
            fill = SVG_COLOURS[verdict.value] if verdict is not None else SVG_COLOURS["covered"]
        draw.rectangle((x, y, x + s - 1, y + s - 1), fill=fill, outline=SVG_COLOURS["line"])
        label, colour = "", "#000"
        if number:
            label, colour = str(number), NUMBER_COLOURS[number]
        elif byte == FLAG:
            label, colour = "F", "#c0262d"
        elif number is None and verdict is not None and verdict is not Verdict.EITHER:
            label = verdict.letter
        if label:
            draw.text((x + s / 2, y + s / 2), label, fill=colour, font=font, anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
