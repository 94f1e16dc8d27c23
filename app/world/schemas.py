"""Devil World's request bodies as JSON Schema: the views validate with them
(``app.jsonbody.json_body``) and the OpenAPI document shows them (``app.world.spec``).

What a schema cannot say (the world id's slug, a team's characters, a colour below the
world's own number of colours) the views check after it, with the same 400 naming the field.
"""

from __future__ import annotations

from app.openapi import JSON
from app.world.service import MAX_RAFT
from devil.world.cells import MAX_COORD

MAX_NAME = 32
MAX_COLOURS = 8

COORD: JSON = {"type": "integer", "minimum": -MAX_COORD, "maximum": MAX_COORD}

NEW_WORLD: JSON = {
    "type": "object",
    "required": ["id"],
    "additionalProperties": False,
    "properties": {
        "id": {
            "type": "string",
            "minLength": 1,
            "maxLength": 32,
            "description": "a slug: 1 to 32 of a-z, 0-9 and -, not starting with -",
        },
        "colours": {"type": "integer", "minimum": 2, "maximum": MAX_COLOURS, "default": 6},
    },
    "examples": [{"id": "main", "colours": 6}],
}

NEW_PLAYER: JSON = {
    "type": "object",
    "required": ["name", "team"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
        "team": {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_NAME,
            "description": "A-Z, a-z, 0-9, _ and -",
        },
        "colour": {
            "type": "integer",
            "default": 0,
            "description": "0 to the world's number of colours - 1 (checked by the view, "
            "which names the world's own range)",
        },
    },
    "examples": [{"name": "Ada", "team": "red", "colour": 0}],
}

COLOUR: JSON = {
    "type": "object",
    "required": ["colour"],
    "additionalProperties": False,
    "properties": {
        "colour": {
            "type": "integer",
            "description": "0 to the world's number of colours - 1 (checked by the view, "
            "which names the world's own range)",
        }
    },
    "examples": [{"colour": 1}],
}

MOVE: JSON = {
    "type": "object",
    "required": ["kind", "x", "y"],
    "additionalProperties": False,
    "properties": {
        "kind": {"type": "string", "enum": ["reveal", "flag", "drop"]},
        "x": COORD,
        "y": COORD,
    },
}

RAFT: JSON = {
    "type": "object",
    "required": ["moves"],
    "additionalProperties": False,
    "properties": {
        "moves": {"type": "array", "minItems": 1, "maxItems": MAX_RAFT, "items": MOVE},
        "idempotency_key": {
            "type": "string",
            "minLength": 1,
            "maxLength": 64,
            "pattern": "^[!-~]+$",
            "description": "optional, like the Idempotency-Key header (send either or both, "
            "equal): a retry with the same key within a day gets the first answer and plays "
            "nothing again; the same key with other moves is a 422",
        },
    },
    "examples": [
        {"moves": [{"kind": "drop", "x": 0, "y": 0}]},
        {"moves": [{"kind": "reveal", "x": 3, "y": 4}], "idempotency_key": "7f9c2ba4-e88f"},
    ],
}
