"""Live updates: a Server-Sent Events stream per game.

``GET /api/games/<id>/events`` answers ``text/event-stream``::

    event: move
    id: 7
    data: {"id": "...", "seq": 7, "moves": 6, "status": "playing"}

once on connect and again whenever the game's log grows (moves and hints); when the
game has ended it sends ``event: end`` with the same data and closes. Clients fetch
what changed themselves (``GET /api/games/<id>``, or the page's ``?since=N`` fragment):
the stream carries no board, so it cannot leak anything. A comment line keeps idle
connections open; the stream closes after ``LIVE_MAX_SECONDS`` (browsers' EventSource
reconnects by itself and gets the current state first).

The stream polls the database (``LIVE_POLL_SECONDS``) so it sees moves made by any
worker. It holds a connection only while querying. Under the gevent worker a waiting
stream is a sleeping greenlet; under sync workers each stream would hold a worker,
so serve with gevent (the default of ``mine-devil``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app
from flask.typing import ResponseReturnValue

from app.live.spec import PATHS
from app.openapi import publish
from app.play.setup import get_service
from app.store.log import Store

bp = Blueprint("live", __name__)
publish(bp, PATHS)

HEARTBEAT_SECONDS = 15.0


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> str:
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + json.dumps(data, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n\n"


def updates(store: Store, game_id: str, poll: float, max_seconds: float) -> Iterator[str]:
    """The event stream: one ``move`` event per change of the log's end, ``end`` at the end."""
    started = last_sent = time.monotonic()
    seen, first = -1, True
    while True:
        head = store.get_head(game_id)
        if head is None:
            return
        row, seq = head
        data = {"id": game_id, "seq": seq, "moves": row.moves, "status": row.status}
        if row.status != "playing":
            yield sse("end", data, seq)
            return
        now = time.monotonic()
        if seq != seen or first:
            seen, first, last_sent = seq, False, now
            yield sse("move", data, seq)
        elif now - last_sent >= HEARTBEAT_SECONDS:
            last_sent = now
            yield ": keep-alive\n\n"
        if now - started >= max_seconds:
            return
        time.sleep(poll)


@bp.get("/api/games/<game_id>/events")
def events(game_id: str) -> ResponseReturnValue:
    service = get_service()
    service.record(game_id)  # 404 before the stream starts
    config = current_app.config
    poll = float(config.get("LIVE_POLL_SECONDS", 0.5))
    stream = updates(service.store, game_id, poll, float(config.get("LIVE_MAX_SECONDS", 300)))
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response
