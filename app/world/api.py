"""Devil World's JSON API (mounted at ``/api/worlds``; the README documents it with curl).

``POST /api/worlds``                          ``{"id", "colours"}`` -> 201 ``{"id", "colours"}``
``GET  /api/worlds/<w>``                      ``{"id", "colours", "players", "teams", "moves"}``
``POST /api/worlds/<w>/players``              ``{"name", "team", "colour"}`` -> 201
                                              ``{"player", "token", "name", "team", "colour"}``
``POST /api/worlds/<w>/players/me/colour``    ``{"colour"}`` (Bearer) -> the player
``POST /api/worlds/<w>/moves``                ``{"moves": [{"kind", "x", "y"}, ...]}`` (Bearer,
                                              or the world page's session with its CSRF
                                              token) -> ``{"results": [...]}``
``GET  /api/worlds/<w>/teams/<t>/view``       ``?colour=&x0=&y0=&width=&height=``
``GET  /api/worlds/<w>/teams/<t>/events``     Server-Sent Events (same parameters)
``GET  /api/worlds/<w>/scoreboard``           teams, players, the Pareto frontier

Errors are JSON ``{"error": ...}``: 400 names the field (``moves[3].x``) and for moves the
index (``"move": 3``); 401 no or unknown token; 403 a token of another world; 404 unknown
world or team; 409 the world exists; 429 rate limits (``Retry-After``).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from flask import Blueprint, Response, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import Forbidden, NotFound, Unauthorized

from app.errors import InputError
from app.gate import client_gone
from app.jsonbody import json_body, parse_json
from app.live.slots import releasing
from app.notify import get_notifier
from app.openapi import publish
from app.security import client_key
from app.settings import settings
from app.world import idempotency, limits
from app.world.feed import event_stream
from app.world.judging import Judging, MoveRequest
from app.world.records import PlayerRow
from app.world.schemas import COLOUR, MAX_NAME, NEW_PLAYER, NEW_WORLD, RAFT
from app.world.scoreboard import ScoreboardCache, pareto_frontier
from app.world.service import (
    MAX_VIEW_SIDE,
    Colourings,
    DropTooSoon,
    Viewport,
    play_raft,
    switch_colour,
    view,
)
from app.world.session import session_player
from app.world.spec import PATHS, SCHEMAS
from app.world.store import WorldStore
from devil.world.cells import MAX_COORD

bp = Blueprint("world_api", __name__)

WORLD_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
TEAM = re.compile(r"[A-Za-z0-9_-]{1,32}")
DECIMAL = re.compile(r"-?[0-9]{1,20}")
MOVES_BODY_BYTES = 64 * 1024
"""A raft of 256 moves with 19-digit coordinates is about 19 KB."""


class WorldInputError(InputError):
    """Bad input: ``field`` names it (``moves[3].x``), ``move`` the raft index if any; the
    message starts with the field. Answered by ``app.errors`` (400)."""

    def __init__(self, field: str, message: str, move: int | None = None):
        super().__init__(field, f"{field}: {message}", move)


# -- parsing ---------------------------------------------------------------------------


def body() -> dict[str, Any]:
    """A JSON object body without a schema (the world page's colour form takes "2" too),
    its depth bounded before parsing like every body (``app.jsonbody``)."""
    data = parse_json(request.get_data(cache=True)) if request.get_data(cache=True) else None
    if not isinstance(data, dict):
        raise WorldInputError("body", "the request body must be a JSON object")
    return data


def json_int(value: Any, field: str, low: int, high: int, move: int | None = None) -> int:
    """A JSON integer (not a bool, float or string) within ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise WorldInputError(field, f"must be an integer, got {json.dumps(value)[:40]}", move)
    if not low <= value <= high:
        raise WorldInputError(field, f"{value} is out of range: allowed {low} to {high}", move)
    return value


def query_int(name: str, low: int, high: int, default: int | None = None) -> int:
    """An ASCII decimal query parameter within ``low..high``."""
    text = request.args.get(name)
    if text is None or text == "":
        if default is None:
            raise WorldInputError(name, "is required")
        return default
    if not DECIMAL.fullmatch(text):
        raise WorldInputError(name, f"must be an ASCII integer, got {text[:40]!r}")
    value = int(text)
    if not low <= value <= high:
        raise WorldInputError(name, f"{value} is out of range: allowed {low} to {high}")
    return value


def text_field(data: dict[str, Any], name: str, pattern: re.Pattern[str] | None) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise WorldInputError(name, "must be a string")
    if pattern is not None and not pattern.fullmatch(value):
        raise WorldInputError(name, f"{value[:40]!r} must match {pattern.pattern}")
    if not 1 <= len(value) <= MAX_NAME or not value.isprintable() or value != value.strip():
        raise WorldInputError(name, f"must be 1 to {MAX_NAME} printable characters")
    return value


def parse_moves(data: dict[str, Any]) -> list[MoveRequest]:
    """The raft of a body ``RAFT`` accepted: every move's kind and coordinates are checked."""
    return [MoveRequest(m["kind"], m["x"], m["y"]) for m in data["moves"]]


# -- context ---------------------------------------------------------------------------


def world_store() -> WorldStore:
    store: WorldStore = current_app.extensions["mine_devil.world.store"]
    return store


def scoreboards() -> ScoreboardCache:
    found: ScoreboardCache = current_app.extensions["mine_devil.world.scoreboards"]
    return found


def colourings() -> Colourings:
    found: Colourings = current_app.extensions["mine_devil.world.colourings"]
    return found


def known_world(world: str) -> int:
    """The world's number of colours; 404 for an unknown world."""
    return world_store().world(world).colours


def authenticated(world: str) -> PlayerRow:
    """The player of the bearer token: 401 without a known token, 403 for another world.
    Without an ``Authorization`` header, the world page's session (``app.world.session``,
    CSRF-checked) names the player: the page plays through these same endpoints."""
    header = request.headers.get("Authorization", "")
    if not header:
        from_page = session_player(world)
        if from_page is not None:
            return from_page
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized(
            "moves need a player token: send 'Authorization: Bearer <token>'",
            www_authenticate=_challenge(),
        )
    player = world_store().player_by_token(token) if len(token) <= 128 else None
    if player is None:
        raise Unauthorized("the bearer token belongs to no player", www_authenticate=_challenge())
    if player.world != world:
        raise Forbidden(f"the bearer token is for world {player.world!r}, not {world!r}")
    return player


def _challenge() -> Any:
    from werkzeug.datastructures import WWWAuthenticate

    return WWWAuthenticate("Bearer", {"realm": "mine-devil world"})


def player_json(player: PlayerRow) -> dict[str, Any]:
    return {"player": player.id, "name": player.name, "team": player.team, "colour": player.colour}


# -- routes ----------------------------------------------------------------------------


@bp.post("")
def create_world() -> ResponseReturnValue:
    data = json_body(NEW_WORLD)
    world = data["id"]
    if not WORLD_ID.fullmatch(world):
        raise WorldInputError(
            "id", "must be a slug: 1 to 32 of a-z, 0-9 and -, not starting with -"
        )
    colours = json_int(data.get("colours", 6), "colours", 2, 8)
    row = world_store().create_world(world, colours)
    response = jsonify({"id": row.id, "colours": row.colours})
    response.status_code = 201
    response.headers["Location"] = f"/api/worlds/{row.id}"
    return response


@bp.get("/<world>")
def show_world(world: str) -> ResponseReturnValue:
    colours = known_world(world)
    summary = world_store().summary(world)
    return jsonify({"id": world, "colours": colours, **summary})


@bp.post("/<world>/players")
def join(world: str) -> ResponseReturnValue:
    colours = known_world(world)
    data = json_body(NEW_PLAYER)
    name = text_field(data, "name", None)
    team = text_field(data, "team", TEAM)
    colour = json_int(data.get("colour", 0), "colour", 0, colours - 1)
    limits.check_join(world, new_team=not world_store().team_known(world, team))
    created = world_store().add_player(world, name, team, colour)
    scoreboards().changed(world)
    response = jsonify({**player_json(created.player), "token": created.token})
    response.status_code = 201
    return response


@bp.post("/<world>/players/me/colour")
def change_colour(world: str) -> ResponseReturnValue:
    colours = known_world(world)
    player = authenticated(world)
    colour = json_int(json_body(COLOUR)["colour"], "colour", 0, colours - 1)
    updated, seq = switch_colour(world_store(), player, colour)
    return jsonify({**player_json(updated), "seq": seq})


@bp.post("/<world>/moves")
def moves(world: str) -> ResponseReturnValue:
    known_world(world)
    player = authenticated(world)
    request.max_content_length = MOVES_BODY_BYTES
    return answer_raft(player, json_body(RAFT))


def drop_seconds() -> float:
    """One drop per player per this many seconds (0: rate limits are off)."""
    options = settings()
    return options.world_drop_seconds if options.ratelimit_enabled else 0.0


def answer_raft(player: PlayerRow, data: dict[str, Any]) -> Response:
    """Play the raft of a body ``RAFT`` accepted, for ``player``: its limits, its
    idempotency key (``app.world.idempotency``: a retry gets the first answer), the answer."""
    world = player.world
    raft = parse_moves(data)
    text = idempotency.key_of(request, data)
    window = settings().world_idempotency_seconds
    key = idempotency.raft_key(text, data["moves"], window) if text is not None else None
    if key is not None:
        played = world_store().raft_answer(world, player.id, key)
        if played is not None:
            return replayed(played)
    limits.check_moves(player, len(raft))
    limits.check_drops(world, sum(1 for m in raft if m.kind == "drop"))
    timings: dict[str, float] = g.setdefault("world_timings", {})  # for Server-Timing
    try:
        answers = play_raft(
            world_store(),
            get_notifier(),
            colourings(),
            player,
            raft,
            drop_seconds=drop_seconds(),
            timings=timings,
            key=key,
            judging=Judging.from_settings(settings()),
        )
    except DropTooSoon as exc:
        raise limits.RateLimited(str(exc), exc.retry_after, "world-drop") from exc
    except idempotency.RaftReplayed as exc:
        return replayed(exc.remembered)
    limits.charge_judging(player, sum(a.work for a in answers))
    scoreboards().changed(world)
    return jsonify({"results": [a.to_json() for a in answers]})


def replayed(played: idempotency.Remembered) -> Response:
    """A keyed raft's first answer, again."""
    response = jsonify({"results": played.answer()})
    response.headers["Idempotent-Replayed"] = "true"
    return response


def known_team(world: str, team: str) -> int:
    """The number of colours of ``world``, which has ``team`` (404 otherwise)."""
    colours = known_world(world)
    if not TEAM.fullmatch(team) or not world_store().team_known(world, team):
        raise NotFound(f"world {world!r} has no team {team!r}")
    return colours


def viewport(world: str, team: str, max_side: int = MAX_VIEW_SIDE, what: str = "view") -> Viewport:
    """The rectangle the query asks of ``team``'s board (``colour``, ``x0``, ``y0``, ``width``,
    ``height``, sides up to ``max_side``); ``what`` names it in a refusal."""
    colours = known_team(world, team)
    colour = query_int("colour", 0, colours - 1)
    x0 = query_int("x0", -MAX_COORD, MAX_COORD)
    y0 = query_int("y0", -MAX_COORD, MAX_COORD)
    width = query_int("width", 1, max_side, 64)
    height = query_int("height", 1, max_side, 64)
    if x0 + width - 1 > MAX_COORD:
        raise WorldInputError("width", f"the {what} would end beyond x = 2**62")
    if y0 + height - 1 > MAX_COORD:
        raise WorldInputError("height", f"the {what} would end beyond y = 2**62")
    return Viewport(colour, x0, y0, width, height)


@bp.get("/<world>/teams/<team>/view")
def team_view(world: str, team: str) -> ResponseReturnValue:
    port = viewport(world, team)
    with limits.viewing(limits.view_cost(port.width, port.height)):
        seq, rows = view(
            world_store(), world, team, port.colour, port.x0, port.y0, port.width, port.height
        )
        body = {"x0": port.x0, "y0": port.y0, "colour": port.colour, "seq": seq, "rows": rows}
        return jsonify(body)


@bp.get("/<world>/teams/<team>/events")
def team_events(world: str, team: str) -> ResponseReturnValue:
    port = viewport(world, team)
    store = world_store()
    header = request.headers.get("Last-Event-ID")
    last, field = (header, "Last-Event-ID") if header else (request.args.get("after"), "after")
    if last and not (DECIMAL.fullmatch(last) and 0 <= int(last) < 2**63):
        raise WorldInputError(field, f"must be a seq (an ASCII integer), got {last[:40]!r}")
    head = store.team_head(world, team)
    # beyond the team's head: a number the team never logged (one kept from the world-wide
    # numbering before migration 0007) resumes at the head, not after events to come
    after = head if not last else min(int(last), head)
    limits.check_view(1)
    release = limits.stream_slots(current_app).take(client_key())
    try:
        stream = event_stream(
            current_app.extensions["mine_devil.world.feeds"],
            store,
            get_notifier(),
            world,
            team,
            port,
            after,
            max_seconds=settings().live_max_seconds,
            gone=client_gone(request.environ),
            presences=current_app.extensions["mine_devil.world.presence"],
        )
        response = Response(releasing(stream, release), mimetype="text/event-stream")
    except BaseException:
        release()
        raise
    response.call_on_close(release)  # also when the client left before the first byte
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/<world>/scoreboard")
def scoreboard(world: str) -> ResponseReturnValue:
    """The whole world's standings, from the process's cache (``app.world.scoreboard``):
    built once per change, encoded once, whoever asks."""
    known_world(world)
    board = scoreboards().get(world)
    return Response(board.json_bytes, mimetype="application/json")


def pareto(teams: list[tuple[str, int, int, int]]) -> list[str]:
    """Teams no other team beats: at least as many cells revealed and flags, no more
    errors, and better in one of the three (``app.world.scoreboard.pareto_frontier``)."""
    return pareto_frontier(teams)


# -- timing ----------------------------------------------------------------------------


@bp.before_request
def _start_timer() -> None:
    g.world_started = time.perf_counter(), time.thread_time()


@bp.after_request
def _server_timing(response: Response) -> Response:
    """``Server-Timing: app;dur=<ms>, cpu;dur=<ms>``: the request's wall time inside the app
    and the CPU time its thread used meanwhile (under gevent that thread is the worker's
    only one: other requests' work overlapping this one counts too)."""
    started = g.get("world_started")
    if started is not None and not response.is_streamed:
        wall = (time.perf_counter() - started[0]) * 1e3
        cpu = (time.thread_time() - started[1]) * 1e3
        parts = [f"app;dur={wall:.2f}", f"cpu;dur={cpu:.2f}"]
        parts += [f"{k};dur={v:.2f}" for k, v in g.get("world_timings", {}).items()]
        response.headers["Server-Timing"] = ", ".join(parts)
    return response


publish(bp, PATHS, SCHEMAS)
