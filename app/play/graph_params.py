"""Game parameters for a graph board (a built-in tiling or a custom graph-board file), from a
JSON body or the new-game form.

Fields: ``tiling`` (any of ``devil.graphs.tilings.TILINGS``), ``preset`` (the tiling's
beginner / intermediate / expert), ``size`` (the tiling's own numbers: rows and columns,
cells for Penrose, squares per edge for the cube, the frequency for the sphere), ``sides``
(neighbours share a side rather than a corner), or ``graph`` (a custom board: a
``mine-devil-graph`` file, its states and total ignored but for the default mines);
``mines`` (default: the preset's density, else the file's ``mines``, else expert density),
``count``, ``mercy``, ``no_guess``, ``seed`` as on grids. Errors name the field or JSON path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.errors import InputError
from app.fields import bounded, choice, present, true_or_false, whole_number
from app.play.dials import game_dials
from devil.board import Board
from devil.game import (
    GRAPH_GAME_MAX_CELLS,
    LATEST_VERSION,
    GameParams,
    GraphSpec,
    GraphSpecError,
    ParamsError,
    keep_free,
)
from devil.graphs.tilings import TILINGS, tiling

GRID_ONLY = ("width", "height", "topology", "holes")
"""Fields of a grid game that a graph game refuses (its size is ``size``)."""

EXPERT_DENSITY = 99 / 480


def density_mines(board: Board, density: float) -> int:
    """A density's mines on ``board`` (at least 1, and room for the first click's zero):
    what a preset, or no ``mines`` at all, gives a graph game."""
    room = board.cell_count - keep_free(board)
    return min(room, max(1, round(board.cell_count * density)))


def is_graph_request(data: Mapping[str, Any]) -> bool:
    return present(data, "tiling") or data.get("graph") is not None


def _spec(data: Mapping[str, Any]) -> tuple[GraphSpec, float | None, int | None]:
    """The board, the preset's density (None: no preset) and the file's total."""
    if data.get("graph") is not None:
        if present(data, "tiling"):
            raise InputError("tiling", "give a tiling or a custom graph board, not both")
        raw = data["graph"]
        try:
            spec = GraphSpec.custom(raw, "graph")
        except GraphSpecError as exc:
            raise InputError(exc.path, str(exc)) from None
        total = raw.get("mines") if isinstance(raw, dict) else None
        return spec, None, total if isinstance(total, int) else None
    name = choice(data["tiling"], "tiling", TILINGS)
    spec_of = tiling(name)
    density: float | None = None
    size: tuple[int, ...]
    if present(data, "size"):
        raw_size = data["size"]
        if not isinstance(raw_size, list):
            raise InputError("size", f"size must be a list of whole numbers, not {raw_size!r}")
        if len(raw_size) != len(spec_of.size_names):
            names = ", ".join(spec_of.size_names)
            raise InputError("size", f"{name} takes {spec_of.size_numbers} ({names})")
        size = tuple(_size_number(v, f"size[{i}]") for i, v in enumerate(raw_size))
    else:
        preset_name = choice(data.get("preset") or "beginner", "preset",
                             (p.name for p in spec_of.presets))  # fmt: skip
        preset = spec_of.preset(preset_name)
        size, density = preset.size, preset.density
    sides = true_or_false(data["sides"], "sides") if "sides" in data else False
    try:
        return GraphSpec(name, size, sides), density, None
    except GraphSpecError as exc:  # the stored form's path (graph.size): the request's (size)
        field = exc.path.replace("graph.", "", 1)
        raise InputError(field, field + str(exc).removeprefix(exc.path)) from None


def _size_number(value: Any, field: str) -> int:
    """A whole number >= 1; its upper bound is the cells the size makes (``GraphSpec`` says
    how many, without building the board, when they are over a game's bound)."""
    number = whole_number(value, field)
    if number < 1:
        raise InputError(field, f"{field} {number} is out of range: a size number is at least 1")
    if number > GRAPH_GAME_MAX_CELLS**2:  # no tiling's size to quote back in a message
        raise InputError(
            field,
            f"{field} {number} is too big: a game's graph board has at most "
            f"{GRAPH_GAME_MAX_CELLS:,} cells",
        )
    return number


def parse_graph_params(data: Mapping[str, Any]) -> GameParams:
    """Game parameters of a graph game (``is_graph_request(data)``); InputError names the
    field or JSON path."""
    for name in GRID_ONLY:
        if present(data, name):
            raise InputError(name, f"{name} is for grid boards: a graph board's size is 'size'")
    spec, density, total = _spec(data)
    board = spec.board()
    if present(data, "mines"):
        mines = bounded(data["mines"], "mines", 0, 10**9)
    elif total is not None:
        mines = total
    else:
        mines = density_mines(board, density or EXPERT_DENSITY)
    rules, no_guess, seed = game_dials(data)
    try:
        return GameParams(
            mines=mines,
            rules=rules,
            no_guess=no_guess,
            seed=seed,
            graph=spec,
            version=LATEST_VERSION,
        )
    except ParamsError as exc:
        raise InputError("mines", str(exc)) from None
