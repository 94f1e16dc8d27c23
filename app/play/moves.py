"""The edge of the click path: a request becomes a ``Click`` here, once.

The page's move form (``kind`` and ``at=row,col``, or ``row``/``col``; plain or htmx) and the
JSON API (``/api/games/<id>/<action>`` with ``{"row", "col"}``) both end in ``parse_click``:
one table of action names, one coordinate check (on the board, not a hole). Past this point
nothing re-reads the request.

A ``Click`` is what the player asked; ``Click.move(position)`` is the engine ``Move`` it means
on the game's newest position (a flag toggles; ``open`` reveals a covered cell and chords a
number). The game service resolves it there, on the log's newest state, not here: another
worker may have moved since this request was sent.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.errors import InputError
from app.fields import choice, coordinate, number_pair, shown
from devil.game import GameParams, Move, MoveKind
from devil.position import Position


class Action(enum.Enum):
    """What a player may ask for at a cell."""

    OPEN = "open"
    """Reveal a covered cell, chord a revealed number (a left click)."""
    REVEAL = "reveal"
    CHORD = "chord"
    FLAG = "flag"
    """Toggle: flag a covered cell, unflag a flagged one."""
    UNFLAG = "unflag"


ACTIONS: dict[str, Action] = {
    "open": Action.OPEN,
    "click": Action.OPEN,
    "reveal": Action.REVEAL,
    "chord": Action.CHORD,
    "flag": Action.FLAG,
    "unflag": Action.UNFLAG,
}
"""Every action name a request may use (form ``kind``, API path, service callers)."""


@dataclass(frozen=True)
class Click:
    """A player's action at a checked cell of the board (zero-based ``row``, ``col``)."""

    action: Action
    row: int
    col: int

    def move(self, position: Position) -> Move:
        """The engine move this click means on ``position``."""
        cell = position.board.cell(self.row, self.col)
        if self.action is Action.FLAG:
            kind = MoveKind.UNFLAG if position.is_flagged(cell) else MoveKind.FLAG
        elif self.action is Action.OPEN:
            kind = MoveKind.REVEAL if position.is_covered(cell) else MoveKind.CHORD
        else:
            kind = MoveKind(self.action.value)
        return Move(kind, self.row, self.col)


def parse_click(
    action: Any, row: Any, col: Any, params: GameParams, field: str = "action"
) -> Click:
    """The one parser: ``action`` (named by ``field`` in errors) and a cell of the board."""
    chosen = ACTIONS[choice(action, field, ACTIONS)]
    r = coordinate(row, "row", params.height)
    c = coordinate(col, "col", params.width)
    if r * params.width + c in params.holes:
        raise InputError("row", f"row {r}, col {c} is a hole, not a cell of the board")
    return Click(chosen, r, c)


def click_by_id(action: Any, cell: Any, params: GameParams, field: str = "action") -> Click:
    """A click on a graph board's cell named by its id (``"t17"``)."""
    chosen = ACTIONS[choice(action, field, ACTIONS)]
    layout = params.board().graph
    if layout is None:
        raise InputError("cell", "cell ids name the cells of graph boards: give row and col")
    slot = layout.find(cell) if isinstance(cell, str) else None
    if slot is None:
        raise InputError("cell", f"cell {shown(cell)} is not a cell of this board")
    row, col = params.board().coord(slot)
    return Click(chosen, row, col)


def click_from_form(form: Mapping[str, str], params: GameParams) -> Click:
    """The move form: ``kind`` (default ``open``), ``at=row,col`` (what a cell button sends)
    or separate ``row``/``col`` fields; ``cell=ID`` on a graph board."""
    kind = form.get("kind") or "open"
    choice(kind, "kind", ACTIONS)  # a bad kind is named before a bad cell
    cell = form.get("cell") or ""  # as sent: an id may start or end with spaces
    layout = params.board().graph
    if layout is not None and (cell.strip() or layout.find(cell) is not None):
        return click_by_id(kind, cell, params, field="kind")
    at = form.get("at")
    row: int | str
    col: int | str
    if at is not None and at.strip():
        row, col = number_pair(at, "at")
    else:
        row, col = form.get("row", ""), form.get("col", "")
    return parse_click(kind, row, col, params, field="kind")


def click_from_json(action: str, body: Mapping[str, Any], params: GameParams) -> Click:
    """The API: ``action`` from the path, ``{"row": r, "col": c}`` from the body, or
    ``{"cell": id}`` on a graph board."""
    if params.graph is not None:
        for name in ("row", "col"):
            if name in body:
                raise InputError(
                    name, f"a graph board's cells are named by id: give cell, not {name}"
                )
        if "cell" not in body:
            raise InputError("cell", "cell is missing from the request body (a cell id)")
        return click_by_id(action, body["cell"], params)
    if "cell" in body:
        raise InputError("cell", "cell ids are for graph boards: give row and col")
    for name in ("row", "col"):
        if name not in body:
            raise InputError(name, f"{name} is missing from the request body")
    return parse_click(action, body["row"], body["col"], params)
