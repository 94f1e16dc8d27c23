"""Mine Devil's web app: ``create_app()`` builds it (nothing happens at import time).

``flask --app app run`` / ``flask --app app init-db`` / ``mine-devil`` (gunicorn).
See ``docs/ARCHITECTURE.md`` for the map of ``app/`` and the path of a click.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, jsonify
from flask.typing import ResponseReturnValue

from app import config

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

PACKAGE = Path(__file__).resolve().parent


def asset_folder(name: str) -> str:
    """``templates``/``static`` at the repository root, or inside the installed package."""
    for candidate in (PACKAGE.parent / name, PACKAGE / name):
        if candidate.is_dir():
            return str(candidate)
    return str(PACKAGE.parent / name)


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: settings, store (migrated), game service, CSRF, limiter, blueprints."""
    from app.requests_log import MineDevilFlask
    from app.retry_after import RetryAfterFloor

    app = MineDevilFlask(
        __name__,
        template_folder=asset_folder("templates"),
        static_folder=asset_folder("static"),
    )
    from app.fields import AsciiIntegerConverter

    app.url_map.converters["int"] = AsciiIntegerConverter  # before any rule is added
    app.config.from_mapping(config.defaults(test_config))
    if test_config is not None:
        app.config.from_mapping(test_config)
    from app import settings as settings_setup

    options = settings_setup.init_app(app)  # typed, frozen: what the code reads

    from app import duel, errors, hooks, layout, metrics, notify, requests_log, security, world
    from app.api.routes import bp as api
    from app.graphs.routes import bp as graphs
    from app.ledger import setup as ledger_setup
    from app.live.routes import bp as live
    from app.live.routes import init_app as live_setup
    from app.play import setup as play_setup
    from app.play.routes import bp as play
    from app.store import setup as store_setup
    from app.teach.routes import bp as teach

    app.before_request(hooks.limit_streamed_body)  # first: before CSRF or a view reads the body
    store_setup.init_app(app)
    engine = store_setup.get_store(app).engine
    metrics.init_app(app, engine)  # GET /metrics, request timings, the pool's use
    notify.init_app(app, engine)  # live streams wake on it (app/notify.py)
    world.init_app(app, engine)  # Devil World: /api/worlds (app/world/)
    play_setup.init_app(app)
    duel.init_app(app)
    live_setup(app)
    app.register_blueprint(api, url_prefix="/api")
    app.register_blueprint(live)
    app.register_blueprint(play)
    app.register_blueprint(teach)
    app.register_blueprint(graphs)
    ledger_setup.init_app(app)
    from app.gate import ClientGate, gevent_timeouts
    from app.hold import HeldRefusals
    from app.pace import ViewPace, view_pace

    timeouts = gevent_timeouts()  # None: no gevent, nothing may wait cheaply
    paced: WSGIApplication = app.wsgi_app
    if options.ratelimit_enabled:  # inside the gate: waiting views and 429s count there
        paced = ViewPace(paced, view_pace(options, waits=timeouts is not None))
        if timeouts is not None:
            paced = HeldRefusals(paced, options.refusal_hold_seconds)
    app.wsgi_app = ClientGate(  # type: ignore[method-assign]  # inside the proxy fix
        paced,
        options.client_requests,
        options.body_seconds,
        timeouts,
    )
    security.init_app(app)  # after the blueprints: wraps the rate-limited views
    world.exempt_from_csrf(app)
    layout.init_app(app)
    app.add_url_rule("/healthz", "healthz", healthz)
    errors.register(app)
    app.after_request(hooks.security_headers)
    requests_log.init_app(app)
    app.wsgi_app = RetryAfterFloor(app.wsgi_app)  # type: ignore[method-assign]
    return app


def healthz() -> ResponseReturnValue:
    """200 when the database answers, 503 otherwise."""
    from app.store.setup import get_store

    try:
        get_store().ping()
    except Exception as exc:  # any database failure means unhealthy
        return jsonify(
            {"status": "error", "error": f"database unavailable: {type(exc).__name__}"}
        ), 503
    return jsonify({"status": "ok"})
