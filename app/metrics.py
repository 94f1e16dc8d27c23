"""Prometheus metrics: what the app did, counted across every worker of a host.

``GET /metrics`` answers the Prometheus text format (the official ``prometheus-client``). It is
not public: it answers 404 unless ``METRICS_TOKEN`` (``MINE_DEVIL_METRICS_TOKEN``) is set, and
then only to ``Authorization: Bearer <token>`` (403 otherwise). Under ``mine-devil`` every
gunicorn worker writes its numbers to files in ``PROMETHEUS_MULTIPROC_DIR`` (the serve code
makes a fresh one unless the operator names one, and marks a dead worker's gauges dead), so
one scrape of any worker reports the whole host (multiprocess mode); without that variable
(tests, ``flask run``) the numbers are the process's own.

The metrics (names carry their unit; labels take few values):

=====================================================  ============================================
``mine_devil_request_seconds{route,method}``           request latency (to the first byte), by
                                                       route template (``/api/games/<game_id>``)
``mine_devil_responses_total{route,code}``             answers by route template and status
``mine_devil_moves_total{game,kind,outcome}``          moves judged: ``game`` is ``game`` or
                                                       ``world``; outcome ``playing``/``won``/
                                                       ``lost``/``refused`` (games),
                                                       ``revealed``/``flagged``/``devil``... (world)
``mine_devil_devil_errors_total{error}``               engine errors reaching the web layer
                                                       (``IllegalMove``, ``InvalidMove``, ...)
``mine_devil_world_lock_seconds``                      a world move's wait for its team's row
``mine_devil_world_commit_seconds``                    a world move's commit
``mine_devil_engine_jobs_total{outcome}``              jobs sent to the engine children: ``ok``,
                                                       ``raised``, ``timeout``, ``failed``
``mine_devil_engine_restarts_total``                   engine children started again after one
                                                       died or was stopped
``mine_devil_rate_limited_total{reason}``              429s: ``move``, ``create``,
                                                       ``world-player``, ``world-team``,
                                                       ``world-drop``, ``streams``, ``busy``,
                                                       ``overloaded``, ``client-requests``,
                                                       ``views``
``mine_devil_streams_open{feed}``                      live event streams open (``game``,
                                                       ``world``), summed over live workers
``mine_devil_db_connections_in_use``                   database connections checked out of the
                                                       pools, summed over live workers
=====================================================  ============================================
"""

from __future__ import annotations

import hmac
import os
import time
from typing import Any

from flask import Flask, Response, abort, g, request
from flask.typing import ResponseReturnValue
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from app.settings import settings

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds: a world move's lock wait and commit are usually a few milliseconds."""

REQUEST_SECONDS = Histogram(
    "mine_devil_request_seconds",
    "Request latency to the first byte, by route template",
    ["route", "method"],
)
RESPONSES = Counter(
    "mine_devil_responses", "Answers by route template and status", ["route", "code"]
)
MOVES = Counter("mine_devil_moves", "Moves judged", ["game", "kind", "outcome"])
DEVIL_ERRORS = Counter("mine_devil_devil_errors", "Engine errors reaching the web layer", ["error"])
WORLD_LOCK_SECONDS = Histogram(
    "mine_devil_world_lock_seconds", "A world move's wait for its team's row", buckets=FAST_BUCKETS
)
WORLD_COMMIT_SECONDS = Histogram(
    "mine_devil_world_commit_seconds", "A world move's commit", buckets=FAST_BUCKETS
)
ENGINE_JOBS = Counter("mine_devil_engine_jobs", "Jobs sent to the engine children", ["outcome"])
ENGINE_RESTARTS = Counter(
    "mine_devil_engine_restarts", "Engine children started again after one died or was stopped"
)
RATE_LIMITED = Counter("mine_devil_rate_limited", "429 answers by reason", ["reason"])
STREAMS_OPEN = Gauge(
    "mine_devil_streams_open", "Live event streams open", ["feed"], multiprocess_mode="livesum"
)
DB_IN_USE = Gauge(
    "mine_devil_db_connections_in_use",
    "Database connections checked out of the pools",
    multiprocess_mode="livesum",
)


def move_judged(game: str, kind: str, outcome: str) -> None:
    MOVES.labels(game, kind, outcome).inc()


def devil_error(exc: BaseException) -> None:
    DEVIL_ERRORS.labels(type(exc).__name__).inc()


def rate_limited(reason: str) -> None:
    RATE_LIMITED.labels(reason).inc()


def limit_reason(exc: BaseException) -> str:
    """Why a 429 was answered, from the exception that made it."""
    reason = getattr(exc, "reason", None)
    if isinstance(reason, str):
        return reason
    limit = getattr(exc, "limit", None)  # Flask-Limiter's RateLimitExceeded
    scope = getattr(limit, "scope", None)
    if isinstance(scope, str) and scope:
        return scope.removesuffix("_rate_limit")
    return type(exc).__name__.lower()


# -- the request hooks and the endpoint ---------------------------------------------------


def _started() -> None:
    g.metrics_started = time.perf_counter()


def _answered(response: Response) -> Response:
    started = g.pop("metrics_started", None)
    rule = request.url_rule
    route = rule.rule if rule is not None else "<unmatched>"
    if started is not None:
        REQUEST_SECONDS.labels(route, request.method).observe(time.perf_counter() - started)
    RESPONSES.labels(route, str(response.status_code)).inc()
    return response


def scrape() -> ResponseReturnValue:
    """``GET /metrics``: 404 unless a token is configured, 403 without it."""
    token = settings().metrics_token
    if not token:
        abort(404)
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip(), token):
        abort(403, "metrics need 'Authorization: Bearer <MINE_DEVIL_METRICS_TOKEN>'")
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        body = generate_latest(registry)
    else:
        body = generate_latest(REGISTRY)
    return Response(body, mimetype=CONTENT_TYPE_LATEST)


def watch_pool(engine: Any) -> None:
    """Count the connections of ``engine``'s pool while they are checked out."""
    import sqlalchemy as sa

    sa.event.listen(engine, "checkout", lambda *_: DB_IN_USE.inc())
    sa.event.listen(engine, "checkin", lambda *_: DB_IN_USE.dec())


def init_app(app: Flask, engine: Any) -> None:
    """Time every request, watch the database pool, serve ``/metrics``."""
    app.before_request(_started)
    app.after_request(_answered)
    watch_pool(engine)
    app.add_url_rule("/metrics", "metrics", scrape)
