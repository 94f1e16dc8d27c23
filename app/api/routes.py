"""The JSON API for bots and tools (mounted at ``/api``).

``POST /api/games``                       201 ``{"id", "token", "state"}``
``GET  /api/games/<id>``                  200 ``state``
``POST /api/games/<id>/reveal|flag|unflag|chord``  JSON ``{"row", "col"}`` (graph
                                          boards: ``{"cell": id}``),
                                          ``Authorization: Bearer <token>``: 200 ``state``
``GET  /api/games/<id>/moves``            200 ``{"id", "moves": [{"seq", "kind", "row", "col",
                                          "at"}]}``
``GET  /api/games/<id>/replay/<n>``       200 ``state`` after the first n moves
``GET  /api/games/<id>/graph``            200 a graph game's board file (ids, edges, polygons)

A game on a graph board (``{"tiling": "penrose", "preset": "beginner"}`` or a custom
``"graph"`` file in the body) names cells by id: its ``state`` has ``cells``
(``[{"id", "state"}]``) instead of ``board``, ``graph`` (the tiling), ``version`` (how it
draws layouts and witnesses), and once ended ``layout_cells``, ``witness_cells`` and
``loss_cell`` (ids) instead of rows.

``state`` is ``{"id", "width", "height", "mines", "topology", "count", "mercy",
"no_guess", "no_guess_asked", "no_guess_note", "status", "moves", "board"}``
(``no_guess_note`` says in words why a board asked to be guess-free is not promised to
be, else it is empty); once the game has ended it adds
``layout`` (rows, ``*`` = mine), and when lost ``witness`` and ``loss`` [row, col].

``GET  /api/openapi.json``                 the OpenAPI 3.1 document of every ``/api`` route

Errors are always JSON ``{"error": "..."}``: 400 bad input (the message names the
field), 403 wrong or missing token, 404 unknown game, 409 illegal move or game over,
413 body too large, 429 rate limited. Bodies are read by ``app.jsonbody`` against the
schemas of ``app.api.schemas`` (unknown fields, wrong types and deep nesting are 400s).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import NotFound

from app import openapi
from app.api import spec
from app.api.schemas import CELL, CELL_ID, NEW_GAME
from app.api.state import game_state, move_log
from app.hooks import body_limit
from app.jsonbody import json_body
from app.play.moves import click_from_json
from app.play.params import API_MAX_SIDE, BROWSER_MAX_SIDE, parse_params
from app.play.setup import get_service
from app.security import current_owner, limit_creates, limit_moves, require_token
from app.settings import settings
from devil.graphs.fileformat import to_json

GRAPH_BODY_MAX = 2 * 1024 * 1024
"""Largest ``POST /games`` body: a custom graph board of 5,000 cells with polygons fits."""

bp = Blueprint("api", __name__)
openapi.publish(bp, spec.PATHS, spec.SCHEMAS)


@bp.post("/games")
@limit_creates
@body_limit(GRAPH_BODY_MAX)
def create() -> ResponseReturnValue:
    params = parse_params(json_body(NEW_GAME, optional=True), max_side=API_MAX_SIDE)
    # A browser that already owns games and calls the API owns this one too.
    created = get_service().create(params, owner=current_owner())
    state = game_state(created.id, created.loaded.game)
    response = jsonify({"id": created.id, "token": created.token, "state": state})
    response.status_code = 201
    response.headers["Location"] = f"/api/games/{created.id}"
    return response


@bp.get("/games/<game_id>")
def show(game_id: str) -> ResponseReturnValue:
    return jsonify(game_state(game_id, get_service().load(game_id).game))


def _move(game_id: str, action: str) -> ResponseReturnValue:
    """Hop 1 of a click: check the token, parse the body (once), then ``GameService.play``.

    The game's row (token hash, params) comes from memory after the first request, and
    ``play`` checks its cached state against the log when it appends: one transaction."""
    service = get_service()
    record = service.record(game_id)
    require_token(record)
    params = service.params(record)
    click = click_from_json(action, json_body(CELL_ID if params.graph else CELL), params)
    _, after = service.play(game_id, click)
    return jsonify(game_state(game_id, after.game))


@bp.post("/games/<game_id>/reveal")
@limit_moves
def reveal(game_id: str) -> ResponseReturnValue:
    return _move(game_id, "reveal")


@bp.post("/games/<game_id>/flag")
@limit_moves
def flag(game_id: str) -> ResponseReturnValue:
    """Toggles: flags a covered cell, unflags a flagged one."""
    return _move(game_id, "flag")


@bp.post("/games/<game_id>/unflag")
@limit_moves
def unflag(game_id: str) -> ResponseReturnValue:
    return _move(game_id, "unflag")


@bp.post("/games/<game_id>/chord")
@limit_moves
def chord(game_id: str) -> ResponseReturnValue:
    return _move(game_id, "chord")


@bp.get("/games/<game_id>/moves")
def moves(game_id: str) -> ResponseReturnValue:
    service = get_service()
    board = service.params(service.record(game_id)).board()
    return jsonify({"id": game_id, "moves": move_log(service.events(game_id), board)})


@bp.get("/games/<game_id>/graph")
def graph(game_id: str) -> ResponseReturnValue:
    """A graph game's board as a ``mine-devil-graph`` file: ids, labels, polygons, edges and
    the position the player sees (``devil-check`` reads it). 404 for a grid game."""
    game = get_service().load(game_id).game
    if game.params.graph is None:
        raise NotFound(f"game {game_id!r} is on a grid board: its state has the rows")
    return jsonify(to_json(game.position))


@bp.get("/games/<game_id>/replay/<int:n>")
def replay(game_id: str, n: int) -> ResponseReturnValue:
    return jsonify(game_state(game_id, get_service().replay(game_id, n)))


@bp.get("/limits")
def limits() -> ResponseReturnValue:
    """The explicit limits clients must respect."""
    return jsonify(
        {
            "api_max_side": API_MAX_SIDE,
            "browser_max_side": BROWSER_MAX_SIDE,
            "max_body_bytes": settings().max_content_length,
            "move_rate_limit": settings().move_rate_limit,
            "create_rate_limit": settings().create_rate_limit,
        }
    )


@bp.get("/openapi.json")
def openapi_document() -> ResponseReturnValue:
    """The OpenAPI 3.1 document of every ``/api`` route (``app.openapi``)."""
    return jsonify(openapi.document(current_app))
