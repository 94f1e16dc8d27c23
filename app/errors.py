"""The web layer's errors and the one set of handlers that turns every error into a response.

Raise these (or let the engine's ``MoveError``\\ s through) anywhere in a view; nothing else
catches them:

============================  ======  ===================================================
error                          status  notes
============================  ======  ===================================================
``InputError``                 400     ``.field`` names the bad input (JSON: ``field``; and
                                       ``move``, the raft index, for ``moves[3].x``)
``devil.errors.InvalidMove``   400     a move the engine cannot read
``UnknownGame``                404
``UnknownMove``                404     a replay step the log does not have
``Missing``                    404     a world, a player...
``devil.errors.IllegalMove``   409     ``GameOver`` included; ``.coord`` is the cell
``AlreadyExists``              409     a world of that name...
``Conflicting``                422     ``.field``: e.g. an ``Idempotency-Key`` reused
``OperationalError``           503     the database is down or busy
``sqlalchemy TimeoutError``    503     no free database connection in this process
``HTTPException``              its own (401 no token, 403 watchers, 413 body, 429 limits)
============================  ======  ===================================================

How it is shown depends on who asked: under ``/api``, to a JSON body, or to a script of a
blueprint that asked for it (``answer_scripts_in_json``: the world page) a JSON
``{"error": ...}``; an htmx
request gets a toast (``_toast.html``, swapped out of band, nothing else changes); a page
request gets the site's error page (``error.html``). Server failures (database down, a bug)
outside the API are plain text: the page templates may be what failed.
"""

from __future__ import annotations

import re
from typing import Any

from flask import (
    Flask,
    Response,
    current_app,
    jsonify,
    make_response,
    render_template,
    request,
)
from flask.typing import ResponseReturnValue
from flask_limiter.errors import RateLimitExceeded
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, InternalServerError, NotFound

from app import metrics
from app.requests_log import request_id
from devil.errors import GameOver, IllegalMove, InvalidMove


class InputError(ValueError):
    """A request the server cannot act on; ``field`` names the bad input (HTTP 400)."""

    def __init__(self, field: str, message: str, move: int | None = None):
        super().__init__(message)
        self.field = field
        self.move = move
        """The raft index of the bad move, when the field does not say it."""


class UnknownGame(LookupError):
    """No game has this id (HTTP 404)."""

    def __init__(self, game_id: str):
        super().__init__(f"game {game_id!r} does not exist")
        self.game_id = game_id


class UnknownMove(LookupError):
    """A replay asked for a move number the log does not have (HTTP 404)."""


class Missing(LookupError):
    """Something the request names does not exist (HTTP 404)."""


class AlreadyExists(ValueError):
    """The request would create something that exists already (HTTP 409)."""


class Conflicting(ValueError):
    """Well-formed input that contradicts what the server was sent before (HTTP 422);
    ``field`` names it (e.g. an ``Idempotency-Key`` reused for other moves)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


RAFT_FIELD = re.compile(r"moves\[([0-9]+)\]")
"""A field inside a raft: ``moves[3].x`` names move 3."""


DATABASE_RETRY_SECONDS = 2
"""``Retry-After`` of a 503 while the database is down (a PostgreSQL restart takes ~1-3 s)."""

TITLES = {400: "That did not work", 403: "Watching only", 404: "No such game",
          405: "Not allowed", 409: "Not now", 413: "Too much at once",
          422: "Not the same request", 429: "Slow down"}  # fmt: skip
"""The error page's heading by status."""


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


SCRIPTED = "mine_devil.errors.scripted"
"""``app.extensions`` key: blueprints whose pages' scripts read errors as JSON."""


def answer_scripts_in_json(app: Flask, blueprint: str) -> None:
    """Errors of ``blueprint``'s views go as JSON to clients that do not take HTML (the
    page's script); a browser navigating there still gets a page."""
    app.extensions.setdefault(SCRIPTED, set()).add(blueprint)


def wants_json() -> bool:
    if request.path == "/api" or request.path.startswith("/api/") or request.is_json:
        return True
    scripted = request.blueprint in current_app.extensions.get(SCRIPTED, ())
    return scripted and not request.accept_mimetypes.accept_html


def respond(
    code: int, message: str, *, page: str | None = None, title: str | None = None, **extra: Any
) -> ResponseReturnValue:
    """The error as the client wants it: JSON (``message`` and ``extra``), a toast, a page.

    ``page`` is what the HTML answers say instead of ``message`` (the JSON API speaks to
    programs, the pages to players)."""
    if wants_json():
        return jsonify({"error": message, **extra}), code
    text = message if page is None else page
    if is_htmx():
        return render_template("_toast.html", message=text), code
    heading = title or TITLES.get(code, "Something went wrong")
    return render_template("error.html", code=code, title=heading, message=text), code


def server_error(code: int, message: str) -> ResponseReturnValue:
    """A server-side failure, with the request id to quote: JSON under ``/api``, else plain
    text (the page templates may be what failed)."""
    rid = request_id()
    if wants_json():
        return jsonify({"error": message, "request_id": rid}), code
    text = f"{message}\n(request id {rid}: quote it when you report this)\n"
    return Response(text, status=code, mimetype="text/plain")


def refusal(exc: IllegalMove) -> str:
    """A refused move in the player's words. The engine's message quotes the move first
    (``reveal 3 4: the cell at row 3, col 4 is flagged``): the player knows what they
    clicked, so the page keeps the reason only."""
    if isinstance(exc, GameOver):
        return "This game is over: start a new one or watch its replay."
    _, _, reason = str(exc).partition(": ")
    reason = reason or str(exc)
    return reason[:1].upper() + reason[1:] + "."


def http_message(exc: HTTPException) -> tuple[str, str]:
    """(the API's message, the page's message) for an HTTP error."""
    code = exc.code or 500
    message = exc.description or exc.name
    page = message
    if code == 413:
        limit = request.max_content_length or current_app.config["MAX_CONTENT_LENGTH"]
        message = f"the request body is larger than {limit} bytes"
        page = (
            f"That was more than this page takes ({limit:,} bytes), so none of it was read. "
            "Go back to your text (the browser keeps it) and send less."
        )
    elif code == 429:
        if isinstance(exc, RateLimitExceeded):  # its description is only the limit
            message = f"rate limit exceeded ({exc.description}): slow down"
        page = "Too many clicks too fast: wait a moment."
    elif code == 405:
        message = f"method {request.method} is not allowed on {request.path}"
    elif code == 404 and exc.description == NotFound.description:
        # no route (a view's own 404 keeps its words: "world 'w' has no team 't'")
        message = f"no such endpoint: {request.path}"
        if request.blueprint is None:
            page = f"There is no page at {request.path}: check the address, or start a new game."
    elif code == 400 and "CSRF" in message:
        page = "Your page is out of date (its security token expired): reload it and try again."
    return message, page


def register(app: Flask) -> None:
    """The app's only error handlers."""

    @app.errorhandler(InputError)
    def bad_input(exc: InputError) -> ResponseReturnValue:
        extra: dict[str, Any] = {"field": exc.field}
        move = exc.move
        if move is None and (raft := RAFT_FIELD.match(exc.field)):
            move = int(raft.group(1))
        if move is not None:
            extra["move"] = move
        return respond(400, str(exc), **extra)

    @app.errorhandler(Missing)
    def missing(exc: Missing) -> ResponseReturnValue:
        return respond(404, str(exc))

    @app.errorhandler(AlreadyExists)
    def already_exists(exc: AlreadyExists) -> ResponseReturnValue:
        return respond(409, str(exc))

    @app.errorhandler(Conflicting)
    def conflicting(exc: Conflicting) -> ResponseReturnValue:
        return respond(422, str(exc), field=exc.field)

    @app.errorhandler(PoolTimeout)
    def no_free_connection(exc: PoolTimeout) -> ResponseReturnValue:
        answer = make_response(
            server_error(503, "the server is busy (no free database connection): retry")
        )
        answer.headers["Retry-After"] = "1"
        return answer

    @app.errorhandler(InvalidMove)
    def unreadable_move(exc: InvalidMove) -> ResponseReturnValue:
        metrics.devil_error(exc)
        return respond(400, str(exc))

    @app.errorhandler(UnknownGame)
    def unknown_game(exc: UnknownGame) -> ResponseReturnValue:
        return respond(404, str(exc), page=f"There is no game with the id {exc.game_id} here.")

    @app.errorhandler(UnknownMove)
    def unknown_move(exc: UnknownMove) -> ResponseReturnValue:
        return respond(404, str(exc), title="No such move")

    @app.errorhandler(IllegalMove)
    def illegal_move(exc: IllegalMove) -> ResponseReturnValue:
        metrics.devil_error(exc)
        return respond(409, str(exc), page=refusal(exc))

    @app.errorhandler(OperationalError)
    def database_unavailable(exc: OperationalError) -> ResponseReturnValue:
        app.logger.error(
            "request %s: database error on %s %s: %s", request_id(), request.method,
            request.path, exc,
        )  # fmt: skip
        answer = make_response(
            server_error(503, "the database is unavailable or busy: try again shortly")
        )
        answer.headers["Retry-After"] = str(DATABASE_RETRY_SECONDS)
        return answer

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        code = exc.code or 500
        if code == 429:
            metrics.rate_limited(metrics.limit_reason(exc))
        if not wants_json():
            if code >= 500:
                return exc
            _, page = http_message(exc)
            unknown_page = code == 404 and request.blueprint is None
            answer = make_response(
                respond(code, page, title="Page not found" if unknown_page else None)
            )
            answer.headers.update(h for h in exc.get_headers() if h[0] == "Retry-After")
            return answer
        response = exc.get_response()
        response.set_data(jsonify({"error": http_message(exc)[0]}).get_data())
        response.mimetype = "application/json"
        return response

    @app.errorhandler(InternalServerError)
    def internal(exc: InternalServerError) -> ResponseReturnValue:
        original = exc.original_exception
        if original is not None and type(original).__module__.startswith("devil."):
            metrics.devil_error(original)
        return server_error(500, "internal server error")
