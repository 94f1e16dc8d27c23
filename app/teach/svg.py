"""The analysis board's picture: a position as SVG, covered cells coloured by verdict."""

from __future__ import annotations

from collections.abc import Mapping

from devil import solver
from devil.analysis import Verdict
from devil.board import Cell, Topology
from devil.budget import Budget
from devil.errors import InconsistentPosition
from devil.position import FLAG, HOLE, Position
from devil.rules import Count

SVG_MAX_CELLS = 2_500
"""Largest board the SVG export draws (50x50): bigger ones are refused (400)."""
SVG_SECONDS = 1.0
"""The engine budget of one export: cells it leaves undecided are drawn plain covered."""

SVG_CELL = 24
SVG_COLOURS = {
    "open": "#e0e0e0",
    "covered": "#c6c6c6",
    "safe": "#8fd694",
    "mine": "#f08a84",
    "either": "#c6c6c6",
    "line": "#8a8a8a",
}
NUMBER_COLOURS = (
    "",
    "#0000ff",
    "#007b00",
    "#ff0000",
    "#00007b",
    "#7b0000",
    "#007b7b",
    "#000",
    "#7b7b7b",
)


def export_verdicts(
    position: Position, count: Count, seconds: float = SVG_SECONDS
) -> dict[Cell, Verdict]:
    """The verdicts an export colours, within ``seconds`` of engine work (undecided cells
    and inconsistent positions: no colour)."""
    if count is Count.COUNTED and position.mines is None:
        return {}
    try:
        return dict(solver.classify(position, count, budget=Budget(seconds=seconds)).verdicts)
    except InconsistentPosition:
        return {}


def position_svg(position: Position, verdicts: Mapping[Cell, Verdict]) -> str:
    """The position as an SVG picture: numbers, covered cells coloured by verdict."""
    board = position.board
    s = SVG_CELL
    hexagonal = board.topology is Topology.HEX
    width = board.width * s + (s // 2 if hexagonal else 0)
    height = board.height * s
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Arial, sans-serif" '
        f'font-weight="bold" font-size="{s * 0.6:.0f}">',
        f"<title>Mine Devil position {board.height}x{board.width}</title>",
    ]
    for cell in range(board.size):
        byte = position.grid[cell]
        if byte == HOLE:
            continue
        r, c = board.coord(cell)
        x = c * s + (s // 2 if hexagonal and r % 2 else 0)
        y = r * s
        number = position.number(cell)
        if number is not None:
            fill = SVG_COLOURS["open"]
        else:
            verdict = verdicts.get(cell)
            fill = SVG_COLOURS[verdict.value] if verdict is not None else SVG_COLOURS["covered"]
        out.append(
            f'<rect x="{x}" y="{y}" width="{s}" height="{s}" fill="{fill}" '
            f'stroke="{SVG_COLOURS["line"]}" stroke-width="1"/>'
        )
        label = ""
        colour = "#000"
        if number:
            label, colour = str(number), NUMBER_COLOURS[number]
        elif byte == FLAG:
            label, colour = "F", "#c0262d"
        elif number is None and cell in verdicts and verdicts[cell] is not Verdict.EITHER:
            label = verdicts[cell].letter
        if label:
            out.append(
                f'<text x="{x + s / 2:.1f}" y="{y + s * 0.72:.1f}" text-anchor="middle" '
                f'fill="{colour}">{label}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"
