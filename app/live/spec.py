"""The live stream's path in the OpenAPI document (the ``live`` blueprint has no url prefix)."""

from __future__ import annotations

from app.openapi import JSON, errors, path_parameter

EVENT: JSON = {
    "type": "object",
    "description": "one Server-Sent Event (keep-alive comments carry none)",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["move", "end"]},
        "id": {"type": "string", "description": "the log's last sequence number"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {
                "type": "object",
                "required": ["id", "seq", "moves", "status"],
                "properties": {
                    "id": {"type": "string"},
                    "seq": {"type": "integer"},
                    "moves": {"type": "integer"},
                    "status": {"type": "string", "enum": ["playing", "won", "lost"]},
                },
            },
        },
    },
}

PATHS: dict[str, JSON] = {
    "/api/games/{game_id}/events": {
        "get": {
            "operationId": "events",
            "summary": "Server-Sent Events: 'move' on every change of the log, 'end' at the end.",
            "description": (
                "Each event's data is {id, seq, moves, status}: no board, so it reveals nothing. "
                "Fetch the state yourself when one arrives. The stream closes after a while; "
                "reconnect (EventSource does) to get the current state first."
            ),
            "parameters": [path_parameter("game_id", {"type": "string"}, "the game's id")],
            "responses": {
                "200": {
                    "description": "the event stream",
                    "content": {"text/event-stream": {"schema": EVENT}},
                },
                **errors(429),
            },
        }
    }
}
