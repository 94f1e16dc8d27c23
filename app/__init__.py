"""Mine Devil's web app: ``create_app()`` builds it (nothing happens at import time).

``flask --app app run`` / ``flask --app app init-db`` / ``mine-devil`` (gunicorn).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from flask import Flask, Response, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, InternalServerError, RequestEntityTooLarge

from app import config

PACKAGE = Path(__file__).resolve().parent

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def asset_folder(name: str) -> str:
    """``templates``/``static`` at the repository root, or inside the installed package."""
    for candidate in (PACKAGE.parent / name, PACKAGE / name):
        if candidate.is_dir():
            return str(candidate)
    return str(PACKAGE.parent / name)


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: settings, store (migrated), game service, CSRF, limiter, blueprints."""
    app = Flask(
        __name__,
        template_folder=asset_folder("templates"),
        static_folder=asset_folder("static"),
    )
    app.config.from_mapping(config.defaults(test_config))
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.before_request(limit_streamed_body)  # first: before CSRF or a view reads the body

    from app import api, games, live, notify, security, store, teach, views, world

    store.init_app(app)
    notify.init_app(app, store.get_engine(app))
    world.init_app(app, store.get_engine(app))
    games.init_app(app)
    app.register_blueprint(api.bp, url_prefix="/api")
    app.register_blueprint(live.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(teach.bp)
    security.init_app(app)  # after the blueprints: wraps the rate-limited views
    world.exempt_from_csrf(app)

    app.add_url_rule("/healthz", "healthz", healthz)
    register_error_handlers(app)
    app.after_request(security_headers)
    return app


def healthz() -> ResponseReturnValue:
    """200 when the database answers, 503 otherwise."""
    from app.store import get_store

    try:
        get_store().ping()
    except Exception as exc:  # any database failure means unhealthy
        return jsonify(
            {"status": "error", "error": f"database unavailable: {type(exc).__name__}"}
        ), 503
    return jsonify({"status": "ok"})


def limit_streamed_body() -> None:
    """A body without Content-Length (chunked) over ``MAX_CONTENT_LENGTH``: 413, like one
    whose Content-Length says so.

    Werkzeug enforces the limit on such a stream only when a read goes past it; reading the
    whole body stops quietly at the limit, so a view would see it cut short (a 400 for bad
    JSON). Buffer it here, at most one byte over the limit, before anything reads it.
    """
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    environ = request.environ
    if limit is None or request.content_length is not None:
        return
    if "wsgi.input_terminated" not in environ or "stream" in request.__dict__:
        return  # no streamed body (Werkzeug reads none), or too late to buffer it
    body = read_at_most(environ["wsgi.input"], limit + 1)
    if len(body) > limit:
        raise RequestEntityTooLarge()
    environ["wsgi.input"] = io.BytesIO(body)


def read_at_most(stream: IO[bytes], size: int) -> bytes:
    """Up to ``size`` bytes, reading until the stream ends (a read may return fewer)."""
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def security_headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    headers.setdefault("X-Frame-Options", "DENY")
    if not request.path.startswith("/static/"):
        # game state changes with every move: no cached page may show an old board
        headers.setdefault("Cache-Control", "no-store")
    if response.status_code == 429 and headers.get("Retry-After") == "0":
        # the limiter rounds down inside the current window: tell clients to wait, not hammer
        headers["Retry-After"] = "1"
    return response


# -- errors ----------------------------------------------------------------------------


def _wants_json() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def _error(status: int, message: str, **extra: Any) -> ResponseReturnValue:
    if _wants_json():
        return jsonify({"error": message, **extra}), status
    return Response(message + "\n", status=status, mimetype="text/plain")


def register_error_handlers(app: Flask) -> None:
    """Service errors -> 400/404/409, database down -> 503; HTTP errors under /api -> JSON."""
    from sqlalchemy.exc import OperationalError

    from app.games import InputError, UnknownGame, UnknownMove
    from devil.errors import IllegalMove

    @app.errorhandler(InputError)
    def bad_input(exc: InputError) -> ResponseReturnValue:
        return _error(400, str(exc), field=exc.field)

    @app.errorhandler(UnknownGame)
    def unknown_game(exc: UnknownGame) -> ResponseReturnValue:
        return _error(404, str(exc))

    @app.errorhandler(UnknownMove)
    def unknown_move(exc: UnknownMove) -> ResponseReturnValue:
        return _error(404, str(exc))

    @app.errorhandler(IllegalMove)
    def illegal_move(exc: IllegalMove) -> ResponseReturnValue:
        return _error(409, str(exc))

    @app.errorhandler(OperationalError)
    def database_unavailable(exc: OperationalError) -> ResponseReturnValue:
        app.logger.error("database error: %s", exc)
        response = _error(503, "the database is unavailable or busy: try again shortly")
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> ResponseReturnValue:
        if not _wants_json():
            return exc
        message = exc.description or exc.name
        if exc.code == 413:
            limit = app.config["MAX_CONTENT_LENGTH"]
            message = f"the request body is larger than {limit} bytes"
        elif exc.code == 429:
            message = f"rate limit exceeded ({exc.description}): slow down"
        elif exc.code == 405:
            message = f"method {request.method} is not allowed on {request.path}"
        elif exc.code == 404:
            message = f"no such endpoint: {request.path}"
        response = exc.get_response()
        response.set_data(jsonify({"error": message}).get_data())
        response.mimetype = "application/json"
        return response

    @app.errorhandler(InternalServerError)
    def internal(exc: InternalServerError) -> ResponseReturnValue:
        return _error(500, "internal server error")
