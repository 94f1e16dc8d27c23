"""The ledger's two ``/api`` paths in the OpenAPI document (the ``ledger`` blueprint has no
url prefix: full paths)."""

from __future__ import annotations

from app.ledger.boards import BOARD_KEY_RE
from app.openapi import JSON, errors, json_response, path_parameter, ref
from app.play.params import PRESETS
from devil.graphs.tilings import TILINGS

INTEGER: JSON = {"type": "integer"}
NUMBER: JSON = {"type": "number"}
STRING: JSON = {"type": "string"}


def nullable(kind: str) -> JSON:
    return {"type": [kind, "null"]}


def query(name: str, values: list[str], description: str) -> JSON:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": {"type": "string", "enum": values},
        "description": description,
    }


RECORD: JSON = {
    "type": "object",
    "required": ["rank", "game_id", "preset", "count", "mercy", "finished_at"],
    "properties": {
        "rank": {"type": "integer", "description": "the row's place in this answer"},
        "board_rank": {
            "type": "integer",
            "description": "the row's place among this answer's rows of its own board",
        },
        "game_id": STRING,
        "name": nullable("string"),
        "preset": {
            "type": "string",
            "description": "a grid's preset (or custom), or a graph game's tiling (or graph)",
        },
        "board": {
            "type": "string",
            "description": (
                "the records table the game ranks in: a grid's preset; a tiling and its preset "
                "(penrose/expert) or its size and mines (penrose/100/20), /sides when "
                "neighbours share a side; graph/<digest>/<mines> for a custom board file"
            ),
        },
        "board_size": {
            "type": "string",
            "description": "the board in words: 16x30, 99 mines; penrose 480: 478 cells, 99 mines",
        },
        "count": STRING,
        "mercy": STRING,
        "no_guess": {"type": "boolean"},
        "seconds": nullable("number"),
        "3bv": nullable("integer"),
        "3bv_per_s": nullable("number"),
        "hints": INTEGER,
        "bits": NUMBER,
        "guesses": INTEGER,
        "max_level": nullable("integer"),
        "helped": {"type": "boolean"},
        "finished_at": {"type": "string", "format": "date-time"},
    },
}

SCHEMAS: dict[str, JSON] = {
    "Annotation": {
        "type": "object",
        "description": (
            "a finished game's annotated moves (docs/annotations.md); on a graph board each "
            "move also names its cell and opened_cells by id"
        ),
    },
    "Record": RECORD,
    "Records": {
        "type": "object",
        "required": ["records"],
        "description": "won games, fastest first, and the filters applied",
        "properties": {"records": {"type": "array", "items": ref("Record")}},
    },
}

PATHS: dict[str, JSON] = {
    "/api/games/{game_id}/annotations": {
        "get": {
            "operationId": "annotations",
            "summary": "A finished game's annotations: each move's verdict, luck and hints.",
            "parameters": [path_parameter("game_id", STRING, "the game's id")],
            "responses": {
                "200": json_response("the annotations", ref("Annotation")),
                **errors(409, 422),
            },
        }
    },
    "/api/records": {
        "get": {
            "operationId": "records",
            "summary": "Won games, fastest first (filters optional).",
            "parameters": [
                query(
                    "preset",
                    [*PRESETS, "custom", *TILINGS, "graph"],
                    "the board preset, or a graph game's tiling",
                ),
                {
                    "name": "board",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string", "pattern": BOARD_KEY_RE.pattern, "maxLength": 64},
                    "description": "one records table: a row's board (penrose/expert)",
                },
                query("count", ["classic", "counted"], "the mine count rule"),
                query("mercy", ["strict", "fair"], "the devil's mercy"),
                query("no_guess", ["true", "false"], "no-guess boards only, or none of them"),
            ],
            "responses": {"200": json_response("the records", ref("Records")), **errors(400)},
        }
    },
}
