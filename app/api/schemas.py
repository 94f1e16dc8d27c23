"""The game API's JSON, described once: request schemas the views validate with (``app.schema``)
and response schemas, all published in ``/api/openapi.json`` (``app.api.spec``).

Request schemas use only what ``app.schema`` enforces (``check_schema`` runs on them at import);
ranges that depend on the game (a cell on this board, mines that fit) are checked by the game
service and said in the descriptions.
"""

from __future__ import annotations

from typing import Any

from app.play.params import API_MAX_SIDE, MAX_SEED, PRESETS
from app.schema import READER, check_schema
from devil.board import Topology
from devil.game import GRAPH_GAME_MAX_CELLS
from devil.game.graph_params import GRAPH_GAME_MAX_EDGES
from devil.graphs.tilings import TILINGS
from devil.rules import Count, Mercy

JSON = dict[str, Any]

MAX_HOLES = API_MAX_SIDE * API_MAX_SIDE
"""More holes than cells is never right (the body limit bounds them long before this)."""


def integer(description: str, low: int | None = None, high: int | None = None) -> JSON:
    schema: JSON = {"type": "integer", "description": description}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


def one_of(values: list[str], description: str) -> JSON:
    return {"type": "string", "enum": values, "description": description}


GRAPH_FIELD: JSON = {
    "type": "object",
    READER: "devil.graphs.fileformat.from_json",
    "description": (
        "a custom graph board: a mine-devil-graph file (format, version, cells with id and "
        "optional label, polygon or at, edges as pairs of ids, optional mines: the default "
        f"total). At most {GRAPH_GAME_MAX_CELLS:,} cells and {GRAPH_GAME_MAX_EDGES:,} pairs; "
        "states are ignored (a game starts "
        "covered). Read by the graph-file reader: a 400 names the JSON path (graph.edges[3])."
    ),
}

NEW_GAME: JSON = {
    "type": "object",
    "title": "NewGame",
    "description": (
        "Game parameters, all optional (an empty body is an expert game). Unknown fields are "
        "refused. Mines must leave the first click and its neighbours free."
    ),
    "additionalProperties": False,
    "properties": {
        "preset": one_of(list(PRESETS), "a classic size: its height, width and mines"),
        "width": integer("columns", 1, API_MAX_SIDE),
        "height": integer("rows", 1, API_MAX_SIDE),
        "mines": integer(
            "mines (default: the preset's, or an expert board's density)", 0, MAX_HOLES
        ),
        "topology": one_of([t.value for t in Topology.grids()], "board shape"),
        "holes": {
            "type": "array",
            "description": "cells that are not part of the board, as [row, col] pairs",
            "maxItems": MAX_HOLES,
            "items": {
                "type": "array",
                "prefixItems": [
                    integer("row", 0, API_MAX_SIDE - 1),
                    integer("col", 0, API_MAX_SIDE - 1),
                ],
                "minItems": 2,
                "items": False,
            },
        },
        "count": one_of([c.value for c in Count], "counted: the total of mines is known"),
        "mercy": one_of([m.value for m in Mercy], "fair: no loss when no cell is provably safe"),
        "no_guess": {"type": "boolean", "description": "draw a board clearable without guessing"},
        "seed": integer(
            "the layout's seed (default random; shown once the game ended)", 0, MAX_SEED
        ),
        "tiling": one_of(
            list(TILINGS),
            "a graph board of this built-in tiling (cells are then named by id; preset: the "
            "tiling's beginner, intermediate or expert; not with width, height, topology, holes)",
        ),
        "size": {
            "type": "array",
            "description": (
                "a tiling's own size: rows and columns, cells for penrose, squares per edge "
                f"for cube, the frequency for geodesic (at most {GRAPH_GAME_MAX_CELLS:,} cells)"
            ),
            "minItems": 1,
            "maxItems": 2,
            # no maximum: the bound is the cells a size makes, named in the 400's message
            "items": integer("a size number", 1),
        },
        "sides": {
            "type": "boolean",
            "description": "on a tiling, neighbours share a side (default: a corner)",
        },
        "graph": GRAPH_FIELD,
    },
    "examples": [
        {"width": 9, "height": 9, "mines": 10},
        {"tiling": "penrose", "preset": "beginner"},
    ],
}

CELL: JSON = {
    "type": "object",
    "title": "Cell",
    "description": "A zero-based cell of a grid board; it must be on the board and not a hole.",
    "additionalProperties": False,
    "properties": {
        "row": integer("zero-based row, 0 to height - 1"),
        "col": integer("zero-based column, 0 to width - 1"),
    },
    "required": ["row", "col"],
    "examples": [{"row": 0, "col": 0}],
}

CELL_ID: JSON = {
    "type": "object",
    "title": "CellId",
    "description": "A cell of a graph board (topology 'graph'), named by its id.",
    "additionalProperties": False,
    "properties": {
        "cell": {"type": "string", "minLength": 1, "maxLength": 40, "description": "a cell id"},
    },
    "required": ["cell"],
    "examples": [{"cell": "t17"}],
}

for _schema in (NEW_GAME, CELL, CELL_ID):
    check_schema(_schema, str(_schema["title"]))

ROWS: JSON = {"type": "array", "items": {"type": "string"}}
IDS: JSON = {"type": "array", "items": {"type": "string"}, "description": "cell ids"}

VIRTUAL = (
    " (a graph game's are the engine's own grid, which the player never sees: "
    "its cells are named by id)"
)
"""How the schemas say that a graph game's rows and columns mean nothing to a client."""

STATE: JSON = {
    "type": "object",
    "description": (
        "A game as its player may see it. board (grid games): one string per row, '.' "
        "covered, 'F' flag, '0'-'8' revealed, '#' hole. layout, witness ('*' mine), loss "
        "[row, col] and seed appear only once the game has ended. A graph game (topology "
        "'graph') has cells ({id, state}: '.', 'F' or the number) instead of board, graph "
        "(its tiling), version (how it draws its layouts and witnesses), and once ended "
        "layout_cells, witness_cells (mined ids) and loss_cell."
    ),
    "required": [
        "id",
        "width",
        "height",
        "mines",
        "topology",
        "count",
        "mercy",
        "no_guess",
        "status",
        "moves",
    ],
    "properties": {
        "id": {"type": "string"},
        "width": {"type": "integer", "description": f"columns{VIRTUAL}"},
        "height": {"type": "integer", "description": f"rows{VIRTUAL}"},
        "mines": {"type": "integer"},
        "topology": {"type": "string", "enum": [t.value for t in Topology]},
        "count": {"type": "string", "enum": [c.value for c in Count]},
        "mercy": {"type": "string", "enum": [m.value for m in Mercy]},
        "no_guess": {
            "type": "boolean",
            "description": "the board is promised clearable without guessing",
        },
        "no_guess_asked": {
            "type": "boolean",
            "description": "the game was created with no_guess: true",
        },
        "no_guess_note": {
            "type": "string",
            "description": (
                "when no_guess_asked but not no_guess, why the board is not promised "
                "guess-free (too big to generate, no such layout found from the first "
                "click, or fair mercy redrew the mines); else empty"
            ),
        },
        "status": {"type": "string", "enum": ["playing", "won", "lost"]},
        "moves": {"type": "integer", "minimum": 0},
        "board": ROWS,
        "layout": ROWS,
        "witness": ROWS,
        "loss": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
        "seed": {"type": "integer"},
        "graph": {
            "type": "object",
            "description": "the graph board: tiling, size, sides and cells, or custom: true",
        },
        "cells": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "state"],
                "properties": {
                    "id": {"type": "string"},
                    "state": {"type": ["string", "integer"]},
                },
            },
        },
        "version": {
            "type": "integer",
            "description": "graph games: how the game draws its layouts and witnesses",
        },
        "layout_cells": IDS,
        "witness_cells": IDS,
        "loss_cell": {"type": "string"},
    },
}

CREATED: JSON = {
    "type": "object",
    "required": ["id", "token", "state"],
    "properties": {
        "id": {"type": "string"},
        "token": {"type": "string", "description": "the bearer token for this game's moves"},
        "state": {"$ref": "#/components/schemas/State"},
    },
}

MOVE_LOG: JSON = {
    "type": "object",
    "required": ["id", "moves"],
    "properties": {
        "id": {"type": "string"},
        "moves": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["seq", "kind", "row", "col", "at", "n"],
                "properties": {
                    "seq": {"type": "integer", "minimum": 1},
                    "kind": {
                        "type": "string",
                        "enum": ["reveal", "flag", "unflag", "chord", "hint"],
                    },
                    "row": {"type": ["integer", "null"], "description": f"zero-based{VIRTUAL}"},
                    "col": {"type": ["integer", "null"], "description": f"zero-based{VIRTUAL}"},
                    "cell": {"type": "string", "description": "graph boards: the cell's id"},
                    "at": {"type": "string", "format": "date-time"},
                    "n": {"type": "integer", "minimum": 0, "description": "board moves so far"},
                    "level": {"description": "hints only: the rung of the hint ladder"},
                },
            },
        },
    },
}

LIMITS: JSON = {
    "type": "object",
    "required": [
        "api_max_side",
        "browser_max_side",
        "max_body_bytes",
        "move_rate_limit",
        "create_rate_limit",
    ],
    "properties": {
        "api_max_side": {"type": "integer"},
        "browser_max_side": {"type": "integer"},
        "max_body_bytes": {"type": "integer"},
        "move_rate_limit": {"type": "string"},
        "create_rate_limit": {"type": "string"},
    },
}
