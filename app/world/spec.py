"""Devil World's paths in the OpenAPI document (relative to the ``world_api`` blueprint's
``/api/worlds``; the README's "Devil World API" shows them with curl)."""

from __future__ import annotations

from app.openapi import JSON, errors, json_response, path_parameter, ref, request_body
from app.world.schemas import COLOUR, COORD, MAX_COLOURS, NEW_PLAYER, NEW_WORLD, RAFT
from app.world.service import MAX_VIEW_SIDE

WORLD = path_parameter("world", {"type": "string"}, "the world's id (a slug)")
TEAM = path_parameter("team", {"type": "string"}, "a team's name")
BEARER: list[JSON] = [{"bearer": []}]
INTEGER: JSON = {"type": "integer"}
STRING: JSON = {"type": "string"}


def query(name: str, schema: JSON, description: str, required: bool = True) -> JSON:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "schema": schema,
        "description": description,
    }


IDEMPOTENCY_KEY: JSON = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[!-~]+$"},
    "description": "a key of the client's choosing (a UUID): a retry of the raft with the "
    "same key within a day gets the first answer and plays nothing again",
}


def viewport_parameters(max_side: int = MAX_VIEW_SIDE, what: str = "view") -> list[JSON]:
    """The query ``app.world.api.viewport`` reads: a board and a rectangle of at most
    ``max_side`` a side (``what``: the word the descriptions use)."""
    side = {"type": "integer", "minimum": 1, "maximum": max_side, "default": 64}
    return [
        WORLD,
        TEAM,
        query(
            "colour",
            {"type": "integer", "minimum": 0, "maximum": MAX_COLOURS - 1},
            "the board: one of the world's colours",
        ),
        query("x0", COORD, f"the {what}'s left column"),
        query("y0", COORD, f"the {what}'s top row"),
        query("width", side, "columns", required=False),
        query("height", side, "rows", required=False),
    ]


VIEWPORT = viewport_parameters()

COUNTS: JSON = {name: INTEGER for name in ("moves", "revealed", "flags", "errors", "drops")}

SCHEMAS: dict[str, JSON] = {
    "NewWorld": NEW_WORLD,
    "World": {
        "type": "object",
        "required": ["id", "colours"],
        "properties": {"id": STRING, "colours": INTEGER},
    },
    "WorldSummary": {
        "type": "object",
        "required": ["id", "colours", "players", "teams", "moves"],
        "properties": {
            "id": STRING,
            "colours": INTEGER,
            "players": INTEGER,
            "teams": INTEGER,
            "moves": INTEGER,
            "seq": INTEGER,
        },
    },
    "NewPlayer": NEW_PLAYER,
    "Player": {
        "type": "object",
        "required": ["player", "name", "team", "colour"],
        "properties": {
            "player": STRING,
            "name": STRING,
            "team": STRING,
            "colour": INTEGER,
            "token": {"type": "string", "description": "on joining only: keep it secret"},
            "seq": INTEGER,
        },
    },
    "Colour": COLOUR,
    "Raft": RAFT,
    "Results": {
        "type": "object",
        "required": ["results"],
        "properties": {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["kind", "x", "y", "outcome", "cells", "seq"],
                    "properties": {
                        "kind": {"type": "string", "enum": ["reveal", "flag", "drop"]},
                        "x": INTEGER,
                        "y": INTEGER,
                        "outcome": {
                            "type": "string",
                            "description": "revealed, flagged, devil (a devil error: see "
                            "witness), undecided (not judged within the server's window "
                            "or budget: nothing logged, not an error, seq null; see "
                            "reason), dropped, none (a drop that found no ground)",
                        },
                        "reason": STRING,
                        "cells": {
                            "type": "array",
                            "description": "[x, y, symbol] of every cell the move changed",
                            "items": {"type": "array", "minItems": 3, "maxItems": 3},
                        },
                        "seq": {"type": ["integer", "null"]},
                        "witness": {"type": "object"},
                        "at": {"type": "array", "description": "a drop's opening cell [x, y]"},
                        "truncated": {"type": "boolean"},
                        "note": STRING,
                    },
                },
            }
        },
    },
    "View": {
        "type": "object",
        "required": ["x0", "y0", "colour", "seq", "rows"],
        "properties": {
            "x0": INTEGER,
            "y0": INTEGER,
            "colour": INTEGER,
            "seq": INTEGER,
            "rows": {"type": "array", "items": STRING},
        },
    },
    "Scoreboard": {
        "type": "object",
        "required": ["world", "teams", "players", "pareto"],
        "properties": {
            "world": STRING,
            "teams": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["team", *COUNTS],
                    "properties": {"team": STRING, **COUNTS},
                },
            },
            "players": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["player", "name", "team", *COUNTS],
                    "properties": {"player": STRING, "name": STRING, "team": STRING, **COUNTS},
                },
            },
            "pareto": {"type": "array", "items": STRING},
        },
    },
}

PATHS: dict[str, JSON] = {
    "": {
        "post": {
            "operationId": "createWorld",
            "summary": "Create a world (its id is a slug; 2 to 8 colours, 6 by default).",
            "requestBody": request_body(ref("NewWorld")),
            "responses": {
                "201": json_response("the new world (Location: its URL)", ref("World")),
                **errors(400, 409, 413),
            },
        }
    },
    "/{world}": {
        "get": {
            "operationId": "showWorld",
            "summary": "A world's colours and how many players, teams and moves it has.",
            "parameters": [WORLD],
            "responses": {"200": json_response("the world", ref("WorldSummary")), **errors()},
        }
    },
    "/{world}/players": {
        "post": {
            "operationId": "join",
            "summary": "Join a team; the answer's token authorises the player's moves.",
            "parameters": [WORLD],
            "requestBody": request_body(ref("NewPlayer")),
            "responses": {
                "201": json_response("the player and its token", ref("Player")),
                **errors(400, 413),
            },
        }
    },
    "/{world}/players/me/colour": {
        "post": {
            "operationId": "switchColour",
            "summary": "Play another colour from now on.",
            "parameters": [WORLD],
            "security": BEARER,
            "requestBody": request_body(ref("Colour")),
            "responses": {
                "200": json_response("the player, and the log's seq", ref("Player")),
                **errors(400, 401, 403, 413),
            },
        }
    },
    "/{world}/moves": {
        "post": {
            "operationId": "playRaft",
            "summary": "Play a raft of 1 to 256 moves, in order; one drop per 30 s.",
            "description": (
                'A 400 names the bad move\'s field (moves[3].x) and its index ("move": 3); '
                "nothing of a refused raft is played. With an idempotency key (the header "
                "or the body's idempotency_key) the answer is stored with the moves: a retry "
                "with the same key within a day gets the first answer (header "
                "Idempotent-Replayed: true) and logs nothing twice."
            ),
            "parameters": [WORLD, IDEMPOTENCY_KEY],
            "security": BEARER,
            "requestBody": request_body(ref("Raft")),
            "responses": {
                "200": json_response("each move's result, in order", ref("Results")),
                **errors(400, 401, 403, 413, 422, 429),
            },
        }
    },
    "/{world}/teams/{team}/view": {
        "get": {
            "operationId": "teamView",
            "summary": "A rectangle of the team's board of one colour, as rows of symbols.",
            "parameters": VIEWPORT,
            "responses": {"200": json_response("the view", ref("View")), **errors(400)},
        }
    },
    "/{world}/teams/{team}/events": {
        "get": {
            "operationId": "teamEvents",
            "summary": "Server-Sent Events: the changes of the view's rectangle as they happen.",
            "description": "Resume after a seq with Last-Event-ID (or ?after=).",
            "parameters": [
                *VIEWPORT,
                query("after", STRING, "resume after this seq", required=False),
            ],
            "responses": {
                "200": {
                    "description": "the event stream",
                    "content": {"text/event-stream": {"schema": STRING}},
                },
                **errors(400, 429),
            },
        }
    },
    "/{world}/scoreboard": {
        "get": {
            "operationId": "scoreboard",
            "summary": "Teams' and players' counts, and the teams on the Pareto frontier.",
            "parameters": [WORLD],
            "responses": {"200": json_response("the scoreboard", ref("Scoreboard")), **errors()},
        }
    },
}
