"""The game API's paths in the OpenAPI document (relative to the ``api`` blueprint's ``/api``)."""

from __future__ import annotations

from app.api.schemas import CELL, CELL_ID, CREATED, LIMITS, MOVE_LOG, NEW_GAME, STATE
from app.openapi import (
    JSON,
    errors,
    json_response,
    path_parameter,
    ref,
    request_body,
)

GAME_ID = path_parameter("game_id", {"type": "string"}, "the game's id")

SCHEMAS: dict[str, JSON] = {
    "NewGame": NEW_GAME,
    "Cell": CELL,
    "CellId": CELL_ID,
    "State": STATE,
    "Created": CREATED,
    "MoveLog": MOVE_LOG,
    "Limits": LIMITS,
}

MOVES = {
    "reveal": "Reveal a covered cell: it loses if the cell could be a mine.",
    "flag": "Toggle a flag: flags a covered cell, unflags a flagged one.",
    "unflag": "Remove a flag.",
    "chord": "Reveal the unflagged neighbours of a number whose flags match it.",
}


def move_operation(action: str, summary: str) -> JSON:
    return {
        "post": {
            "operationId": action,
            "summary": summary,
            "parameters": [GAME_ID],
            "security": [{"bearer": []}],
            "requestBody": request_body({"oneOf": [ref("Cell"), ref("CellId")]}),
            "responses": {
                "200": json_response("the game after the move", ref("State")),
                **errors(400, 403, 409, 413, 429),
            },
        }
    }


PATHS: dict[str, JSON] = {
    "/games": {
        "post": {
            "operationId": "create",
            "summary": "Start a game; the answer's token authorises its moves.",
            "requestBody": request_body(ref("NewGame"), required=False),
            "responses": {
                "201": json_response("the new game", ref("Created")),
                **errors(400, 413, 429),
            },
        }
    },
    "/games/{game_id}": {
        "get": {
            "operationId": "show",
            "summary": "A game's state (anyone with its id may watch).",
            "parameters": [GAME_ID],
            "responses": {"200": json_response("the game", ref("State")), **errors()},
        }
    },
    **{f"/games/{{game_id}}/{action}": move_operation(action, s) for action, s in MOVES.items()},
    "/games/{game_id}/moves": {
        "get": {
            "operationId": "moves",
            "summary": "The game's log: moves and hints, oldest first.",
            "parameters": [GAME_ID],
            "responses": {"200": json_response("the log", ref("MoveLog")), **errors()},
        }
    },
    "/games/{game_id}/replay/{n}": {
        "get": {
            "operationId": "replay",
            "summary": "The game after its first n board moves.",
            "parameters": [
                GAME_ID,
                path_parameter("n", {"type": "integer", "minimum": 0}, "a number of moves"),
            ],
            "responses": {"200": json_response("the game then", ref("State")), **errors()},
        }
    },
    "/games/{game_id}/graph": {
        "get": {
            "operationId": "graph",
            "summary": "A graph game's board as a mine-devil-graph file (404 on a grid game).",
            "parameters": [GAME_ID],
            "responses": {
                "200": json_response("the board file and what the player sees", {"type": "object"}),
                **errors(),
            },
        }
    },
    "/limits": {
        "get": {
            "operationId": "limits",
            "summary": "The limits clients must respect.",
            "responses": {"200": json_response("the limits", ref("Limits")), **errors()},
        }
    },
    "/openapi.json": {
        "get": {
            "operationId": "openapi",
            "summary": "This document.",
            "responses": {
                "200": json_response("the OpenAPI 3.1 document", {"type": "object"}),
                **errors(),
            },
        }
    },
}
