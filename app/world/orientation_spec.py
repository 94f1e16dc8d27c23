"""The OpenAPI paths of ``app.world.orientation`` (presence, the team's map, time-lapses)."""

from __future__ import annotations

from app.openapi import JSON, errors, json_response, ref, request_body
from app.world.presence import MAX_SIDE as PRESENCE_SIDE
from app.world.schemas import COORD
from app.world.spec import BEARER, INTEGER, STRING, TEAM, WORLD, query, viewport_parameters
from app.world.timelapse import MAX_SIDE, SCAN

CELLS: JSON = {
    "type": "array",
    "description": "[x, y, symbol] of each cell",
    "items": {"type": "array", "minItems": 3, "maxItems": 3},
}

SCHEMAS: dict[str, JSON] = {
    "Presence": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "x0": COORD,
            "y0": COORD,
            "width": {"type": "integer", "minimum": 1, "maximum": PRESENCE_SIDE},
            "height": {"type": "integer", "minimum": 1, "maximum": PRESENCE_SIDE},
            "x": COORD,
            "y": COORD,
            "gone": {"type": "boolean", "const": True},
        },
    },
    "TeamMap": {
        "type": "object",
        "required": ["x", "y", "map", "near", "boards"],
        "properties": {
            "x": INTEGER,
            "y": INTEGER,
            "map": {
                "type": "object",
                "description": "known chunks [cx, cy, bits]: bit c a board's numbers, bit 8 flags",
            },
            "near": {"type": "object", "description": "the rectangle the counts cover"},
            "boards": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["colour", "open", "flags", "free", "nearest_free"],
                    "properties": {
                        "colour": INTEGER,
                        "open": INTEGER,
                        "flags": INTEGER,
                        "free": INTEGER,
                        "nearest_free": {"type": ["array", "null"]},
                    },
                },
            },
        },
    },
    "Timelapse": {
        "type": "object",
        "required": ["x0", "y0", "width", "height", "colour", "after", "frames", "next"],
        "properties": {
            "x0": INTEGER,
            "y0": INTEGER,
            "width": INTEGER,
            "height": INTEGER,
            "colour": INTEGER,
            "after": INTEGER,
            "frames": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["seq", "at", "cells"],
                    "properties": {"seq": INTEGER, "at": STRING, "cells": CELLS},
                },
            },
            "next": {"type": ["integer", "null"], "description": "ask after this seq next"},
        },
    },
}

PATHS: dict[str, JSON] = {
    "/{world}/presence": {
        "post": {
            "operationId": "reportPresence",
            "summary": "Where the player is looking, sent on to the team's live feed.",
            "description": 'A few per second at most; {"gone": true} when leaving.',
            "parameters": [WORLD],
            "security": BEARER,
            "requestBody": request_body(ref("Presence")),
            "responses": {"204": {"description": "sent on"}, **errors(400, 401, 403, 413, 429)},
        }
    },
    "/{world}/teams/{team}/map": {
        "get": {
            "operationId": "teamMap",
            "summary": "The team's known chunks around (x, y) and per-colour counts near it.",
            "parameters": [
                WORLD,
                TEAM,
                query("x", COORD, "the centre's column"),
                query("y", COORD, "the centre's row"),
            ],
            "responses": {"200": json_response("the map", ref("TeamMap")), **errors(400)},
        }
    },
    "/{world}/teams/{team}/timelapse": {
        "get": {
            "operationId": "teamTimelapse",
            "summary": f"A region's history, {SCAN} log events per page.",
            "parameters": [
                *viewport_parameters(MAX_SIDE, "region"),
                query("after", INTEGER, "the seq to continue after (0: from the start)", False),
            ],
            "responses": {"200": json_response("one page", ref("Timelapse")), **errors(400)},
        }
    },
}
