"""The OpenAPI 3.1 document of the JSON API, assembled from what each blueprint publishes.

A blueprint that serves routes under ``/api`` describes them next to its views::

    publish(bp, {"/games/{game_id}": {"get": {...}}}, schemas={"State": STATE})

Paths are relative to the blueprint's ``url_prefix`` (``/api`` for the game API, ``/api/worlds``
for Devil World), written OpenAPI-style (``{game_id}``). Registering the blueprint on an app
adds them to that app's document (``Blueprint.record_once``); ``document(app)`` returns it and
``GET /api/openapi.json`` serves it. ``tests/app/test_openapi.py`` checks that every ``/api``
rule of ``app.url_map`` is documented and every documented path is a rule, blueprint by
blueprint, so a new blueprint's routes cannot go undocumented.

The request schemas in it are the ones the views validate with (``app.jsonbody``), so the
document cannot drift from what the server accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Flask
from flask.blueprints import BlueprintSetupState

JSON = dict[str, Any]

EXTENSION = "mine_devil.openapi"

OPENAPI_VERSION = "3.1.0"


def publish(
    bp: Blueprint, paths: Mapping[str, JSON], schemas: Mapping[str, JSON] | None = None
) -> None:
    """Add ``paths`` (relative to ``bp``'s url prefix) and component ``schemas`` to the
    document of every app ``bp`` is registered on."""

    def record(state: BlueprintSetupState) -> None:
        prefix = (state.url_prefix or "").rstrip("/")
        published = state.app.extensions.setdefault(EXTENSION, {})
        published[bp.name] = (
            {prefix + path: item for path, item in paths.items()},
            dict(schemas or {}),
        )

    bp.record_once(record)


def published(app: Flask) -> dict[str, tuple[JSON, JSON]]:
    """``{blueprint name: (paths, schemas)}`` as published on ``app``."""
    found: dict[str, tuple[JSON, JSON]] = app.extensions.get(EXTENSION, {})
    return found


def document(app: Flask) -> JSON:
    """The whole OpenAPI 3.1 document of ``app``."""
    paths: JSON = {}
    schemas: JSON = {"Error": ERROR_SCHEMA}
    for name, (bp_paths, bp_schemas) in sorted(published(app).items()):
        for path, item in bp_paths.items():
            if path in paths:
                raise ValueError(f"blueprint {name} publishes {path}, already published")
            paths[path] = item
        for key, schema in bp_schemas.items():
            if schemas.get(key, schema) is not schema:
                raise ValueError(f"blueprint {name} publishes schema {key}, already published")
            schemas[key] = schema
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Mine Devil API",
            "version": "1",
            "description": (
                "Adversarial Minesweeper for bots and tools. Errors are JSON "
                '{"error": "..."}; a 400 names the bad input in "field"; a 5xx carries '
                '"request_id" (also in the X-Request-ID header of every answer).'
            ),
        },
        "paths": dict(sorted(paths.items())),
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the game's token from POST /api/games",
                }
            },
        },
    }


# -- helpers for the descriptions ------------------------------------------------------------

ERROR_SCHEMA: JSON = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string", "description": "what went wrong, in a sentence"},
        "field": {
            "type": "string",
            "description": "400 only: the bad input (body, row, holes[0][1], moves[3].x)",
        },
        "move": {
            "type": "integer",
            "description": "Devil World's 400 for a bad move only: its index in the raft",
        },
        "request_id": {"type": "string", "description": "5xx only: quote it when reporting"},
    },
}

ERRORS = {
    400: "bad input: the answer's field names it",
    401: "no bearer token, or one of no player (WWW-Authenticate: Bearer)",
    403: "not allowed (a move without this game's bearer token)",
    404: "no such game, move or endpoint",
    405: "method not allowed on this path",
    409: "not now: an illegal move, or the game is over",
    413: "the request body is too large (see /api/limits)",
    422: "the game is too large to annotate; a raft's Idempotency-Key used for other moves",
    429: "rate limited: wait Retry-After seconds (at least 1)",
    503: "the database is unavailable or busy: wait Retry-After seconds, then try again",
}


def ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def json_response(description: str, schema: JSON) -> JSON:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def errors(*codes: int) -> dict[str, JSON]:
    """The error answers ``codes`` (404, 405 and 503 are possible everywhere and added)."""
    every = sorted({*codes, 404, 405, 503})
    return {str(code): json_response(ERRORS[code], ref("Error")) for code in every}


def request_body(schema: JSON, required: bool = True) -> JSON:
    return {"required": required, "content": {"application/json": {"schema": schema}}}


def path_parameter(name: str, schema: JSON, description: str) -> JSON:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": schema,
        "description": description,
    }
