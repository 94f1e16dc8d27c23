"""The verdicts a picture export (SVG or PNG) colours: a size cap, then a budgeted engine run in
the heavy-work child, so no export can hold a worker (issue 8, finding 1)."""

from __future__ import annotations

from app.errors import InputError
from app.heavy import run_heavy
from app.settings import settings
from app.teach.svg import SVG_MAX_CELLS, export_verdicts
from devil.analysis import Verdict
from devil.board import Cell
from devil.position import Position
from devil.rules import Count


def picture_verdicts(position: Position, count: Count) -> dict[Cell, Verdict]:
    """At most ``SVG_MAX_CELLS`` cells (else a 400 naming ``p``), verdicts within
    ``SVG_SECONDS`` (cells left undecided get no colour)."""
    board = position.board
    if board.size > SVG_MAX_CELLS:
        raise InputError(
            "p",
            f"the board is {board.height}x{board.width}: the picture export takes at most "
            f"{SVG_MAX_CELLS} cells (export the text instead)",
        )
    seconds = settings().svg_seconds
    return run_heavy(export_verdicts, (position, count, seconds), seconds)
