"""The web layer's errors and the one set of handlers that turns every error into a response.

Raise these (or let the engine's ``MoveError``\\ s through) anywhere in a view; nothing else
catches them:

============================  ======  ===================================================
error                          status  notes
============================  ======  ===================================================
``InputError``                 400     ``.field`` names the bad input (JSON: ``field``)
``devil.errors.InvalidMove``   400     a move the engine cannot read
``UnknownGame``                404
``UnknownMove``                404     a replay step the log does not have
``devil.errors.IllegalMove``   409     ``GameOver`` included; ``.coord`` is the cell
``OperationalError``           503     the database is down or busy
``HTTPException``              its own (403 watchers, 413 body, 429 rate limit...)
============================  ======  ===================================================

How it is shown depends on who asked: under ``/api`` a JSON ``{"error": ...}``; an htmx
request gets a toast (``_toast.html``, swapped out of band, nothing else changes); a page
request gets the site's error page (``error.html``). Server failures (database down, a bug)
outside the API are plain text: the page templates may be what failed.
"""

from __future__ import annotations

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
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, InternalServerError, NotFound

from app import metrics
from app.requests_log import request_id
from devil.errors import GameOver, IllegalMove, InvalidMove


class InputError(ValueError):
    """A request the server cannot act on; ``field`` names the bad input (HTTP 400)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class UnknownGame(LookupError):
    """No game has this id (HTTP 404)."""

    def __init__(self, game_id: str):
        super().__init__(f"game {game_id!r} does not exist")
        self.game_id = game_id


class UnknownMove(LookupError):
    """A replay asked for a move number the log does not have (HTTP 404)."""


TITLES = {400: "That did not work", 403: "Watching only", 404: "No such game",
          405: "Not allowed", 409: "Not now", 413: "Too much at once",
          429: "Slow down"}  # fmt: skip
"""The error page's heading by status."""


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def wants_json() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


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
        return respond(400, str(exc), field=exc.field)

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
        return server_error(503, "the database is unavailable or busy: try again shortly")

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
