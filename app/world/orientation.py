"""Finding one's way in Devil World (mounted at ``/api/worlds`` beside ``app.world.api``).

``POST /api/worlds/<w>/presence``           ``{"x0", "y0", "width", "height"[, "x", "y"]}`` or
                                            ``{"gone": true}`` (Bearer, or the page's
                                            session): where the player is looking, sent on
                                            to the team's live feed (``app.world.presence``)
                                            -> 204; 429 past ``WORLD_PRESENCE_RATE_LIMIT``
``GET  /api/worlds/<w>/teams/<t>/map``      ``?x=&y=``: the team's known chunks around (x, y)
                                            and per colour its open cells, flags and free
                                            cells near it (``app.world.atlas``)
``GET  /api/worlds/<w>/teams/<t>/timelapse`` ``?colour=&x0=&y0=&width=&height=&after=``: one
                                            page of the region's history
                                            (``app.world.timelapse``)

Reading needs no token, like the view API: it serves only what a watcher of the team sees.
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from app.jsonbody import parse_json
from app.notify import get_notifier
from app.openapi import publish
from app.world import limits
from app.world.api import (
    WorldInputError,
    authenticated,
    known_team,
    known_world,
    query_int,
    viewport,
    world_store,
)
from app.world.atlas import atlas
from app.world.orientation_spec import PATHS, SCHEMAS
from app.world.presence import KEY, PresenceBoard, PresenceError, check_rate, gone, parse_report
from app.world.service import topic
from app.world.timelapse import MAX_SIDE, timelapse_page
from devil.world.cells import MAX_COORD

bp = Blueprint("world_orientation", __name__)

PRESENCE_BODY_BYTES = 1024
MAP_COST = 16
"""A map counts against the view limit as a 256x256 view (it reads at most 81 chunks' cells
of a few layers, and 49x49 chunks' keys)."""
MAX_SEQ = 2**63 - 1


def presence_board() -> PresenceBoard:
    board: PresenceBoard = current_app.extensions["mine_devil.world.presence"]
    return board


@bp.post("/<world>/presence")
def report_presence(world: str) -> ResponseReturnValue:
    known_world(world)
    player = authenticated(world)
    request.max_content_length = PRESENCE_BODY_BYTES
    try:
        seen = parse_report(parse_json(request.get_data()), player)
    except PresenceError as exc:
        raise WorldInputError(exc.field, str(exc).partition(": ")[2]) from exc
    check_rate(player)
    payload = gone(player) if seen is None else seen.to_json()
    presence_board().note(world, player.team, payload)
    get_notifier().publish(topic(world, player.team), {KEY: payload})
    return "", 204


@bp.get("/<world>/teams/<team>/map")
def team_map(world: str, team: str) -> ResponseReturnValue:
    colours = known_team(world, team)
    x = query_int("x", -MAX_COORD, MAX_COORD)
    y = query_int("y", -MAX_COORD, MAX_COORD)
    with limits.viewing(MAP_COST):
        response = jsonify(atlas(world_store(), world, team, colours, x, y))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/<world>/teams/<team>/timelapse")
def team_timelapse(world: str, team: str) -> ResponseReturnValue:
    port = viewport(world, team, MAX_SIDE, "region")
    after = query_int("after", 0, MAX_SEQ, 0)
    with limits.viewing(limits.view_cost(port.width, port.height)):
        return jsonify(timelapse_page(world_store(), world, team, port, after))


publish(bp, PATHS, SCHEMAS)
