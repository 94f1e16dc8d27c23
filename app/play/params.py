"""Game parameters from a request (JSON body or form fields), with the size limits and presets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.errors import InputError
from app.fields import bounded, choice, present
from app.play.dials import MAX_SEED as MAX_SEED
from app.play.dials import game_dials
from app.play.graph_params import is_graph_request, parse_graph_params
from devil.board import Board, BoardError, Topology
from devil.game import GameParams, ParamsError

BROWSER_MAX_SIDE = 200
"""Largest width or height of a game created from the web page."""

API_MAX_SIDE = 1000
"""Largest width or height of a game created through the JSON API."""

PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (16, 30, 99),
}
"""name -> (height, width, mines)."""

DEFAULT_HEIGHT, DEFAULT_WIDTH, DEFAULT_MINES = PRESETS["expert"]
DEFAULT_DENSITY = DEFAULT_MINES / (DEFAULT_HEIGHT * DEFAULT_WIDTH)


def _holes(value: Any, height: int, width: int) -> frozenset[int]:
    if not isinstance(value, list):
        raise InputError("holes", "holes must be a list of [row, col] pairs")
    cells = set()
    for i, pair in enumerate(value):
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise InputError("holes", f"holes[{i}] must be a [row, col] pair, not {pair!r}")
        row = bounded(pair[0], f"holes[{i}] row", 0, height - 1)
        col = bounded(pair[1], f"holes[{i}] col", 0, width - 1)
        cells.add(row * width + col)
    return frozenset(cells)


def max_mines(board: Board) -> int:
    """Most mines a board can take: the first click keeps itself and its neighbours free."""
    keep = 7 if board.topology is Topology.HEX else 9
    return max(0, board.cell_count - min(keep, board.cell_count))


def too_many_mines(
    height: int, width: int, mines: int, topology: Topology, holes: frozenset[int], limit: int
) -> str:
    """Why ``mines`` do not fit, in the engine's words (the first click's safe zone)."""
    try:
        GameParams(height=height, width=width, mines=mines, topology=topology, holes=holes)
    except ParamsError as exc:
        return str(exc)
    return f"mines {mines} is too many for a {height}x{width} board: at most {limit}"


def parse_params(data: Mapping[str, Any], max_side: int = API_MAX_SIDE) -> GameParams:
    """Game parameters from JSON or form fields, all optional.

    A ``tiling`` or a custom ``graph`` makes a graph game (``app.play.graph_params``).
    Fields: ``preset`` (beginner/intermediate/expert), ``width``, ``height``, ``mines``
    (default: the preset's, or expert's density), ``topology`` (square/torus/hex),
    ``holes`` (list of [row, col]), ``count`` (classic/counted), ``mercy``
    (strict/fair), ``no_guess`` (default true), ``seed`` (default random, secret).
    """
    if not isinstance(data, Mapping):
        raise InputError("body", "the game parameters must be a JSON object")
    if is_graph_request(data):
        return parse_graph_params(data)
    height, width, mines = DEFAULT_HEIGHT, DEFAULT_WIDTH, DEFAULT_MINES
    preset_given = present(data, "preset")
    if preset_given:
        height, width, mines = PRESETS[choice(data["preset"], "preset", PRESETS)]
    sized = present(data, "width") or present(data, "height")
    if present(data, "width"):
        width = bounded(data["width"], "width", 1, max_side)
    if present(data, "height"):
        height = bounded(data["height"], "height", 1, max_side)
    topology = Topology.SQUARE
    if present(data, "topology"):
        shapes = (t.value for t in Topology.grids())
        topology = Topology(choice(data["topology"], "topology", shapes))
    holes: frozenset[int] = frozenset()
    if data.get("holes") not in (None, ""):
        holes = _holes(data["holes"], height, width)
    try:
        board = Board(height, width, topology, holes)
    except BoardError as exc:
        raise InputError("width", str(exc)) from None
    limit = max_mines(board)
    if present(data, "mines"):
        mines = bounded(data["mines"], "mines", 0, 10**9)
    elif sized and not preset_given:
        mines = min(limit, max(1, round(board.cell_count * DEFAULT_DENSITY)))
    if mines > limit:
        raise InputError("mines", too_many_mines(height, width, mines, topology, holes, limit))
    rules, no_guess, seed = game_dials(data)
    try:
        return GameParams(
            height=height,
            width=width,
            mines=mines,
            topology=topology,
            holes=holes,
            rules=rules,
            no_guess=no_guess,
            seed=seed,
        )
    except ParamsError as exc:
        raise InputError("params", str(exc)) from None
