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

A stream reads the database once on connect and then only when the game's topic
``game:<id>`` is published (``app.notify``: in-process, across the processes of one host
for SQLite, ``LISTEN/NOTIFY`` on PostgreSQL); the game service publishes after each
committed event. So idle watchers cost no queries: 2,000 of them wait as sleeping
greenlets. A lost notification costs latency, never data: the next one (or the reconnect
after ``LIVE_MAX_SECONDS``) reads the log's end again.

Bounded: each client (its address, as the rate limits count it) may hold
``LIVE_STREAMS_PER_CLIENT`` streams (default 8) and each process ``LIVE_STREAMS_MAX``
(default 4,000); one more is refused with 429 and ``Retry-After``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request
from flask.typing import ResponseReturnValue

from app.gate import client_gone
from app.live.slots import Departure, StreamSlots, releasing, stream_room, wait_or_leave
from app.live.spec import PATHS
from app.notify import Notifier, get_notifier
from app.openapi import publish
from app.play.setup import game_topic, get_service
from app.security import client_key
from app.settings import settings
from app.store.log import Store

bp = Blueprint("live", __name__)
publish(bp, PATHS)

HEARTBEAT_SECONDS = 15.0
SLOTS = "mine_devil.stream_slots"


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> str:
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + json.dumps(data, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n\n"


def updates(
    store: Store,
    game_id: str,
    notifier: Notifier,
    max_seconds: float,
    heartbeat: float = HEARTBEAT_SECONDS,
    gone: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """The event stream: one ``move`` event per change of the log's end, ``end`` at the end.

    Reads the log's end on connect and after each wake-up of the game's topic, never else.
    ``gone``: whether the client left (``app.gate.client_gone``): the stream then ends
    within ``GONE_POLL_SECONDS``, freeing its slot."""
    started = time.monotonic()
    seen = -1
    departure = Departure(gone) if gone is not None else None
    with notifier.subscribe(game_topic(game_id)) as subscription:
        while True:
            head = store.get_head(game_id)
            if head is None:
                return
            row, seq = head
            data = {"id": game_id, "seq": seq, "moves": row.moves, "status": row.status}
            if row.status != "playing":
                yield sse("end", data, seq)
                return
            if seq != seen:
                seen = seq
                yield sse("move", data, seq)
            while True:  # sleep until the topic is published (heartbeats meanwhile)
                remaining = max_seconds - (time.monotonic() - started)
                if remaining <= 0 or notifier.closed:
                    return
                woke = wait_or_leave(subscription, min(heartbeat, remaining), departure)
                if woke is None:
                    return  # the client went away
                if woke:
                    break
                if time.monotonic() - started < max_seconds:
                    yield ": keep-alive\n\n"


@bp.get("/api/games/<game_id>/events")
def events(game_id: str) -> ResponseReturnValue:
    service = get_service()
    service.record(game_id)  # 404 before the stream starts
    if request.method == "HEAD":  # headers only: no stream, no slot
        return _headers(Response(mimetype="text/event-stream"))
    release = stream_slots().take(client_key())
    try:
        options = settings()
        stream = updates(
            service.store,
            game_id,
            get_notifier(),
            options.live_max_seconds,
            options.live_heartbeat_seconds,
            client_gone(request.environ),
        )
        response = Response(releasing(stream, release), mimetype="text/event-stream")
    except BaseException:
        release()
        raise
    response.call_on_close(release)  # also when the client left before the first byte
    return _headers(response)


def _headers(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def stream_slots() -> StreamSlots:
    slots: StreamSlots = current_app.extensions[SLOTS]
    return slots


def init_app(app: Flask) -> None:
    """The app's stream caps (``LIVE_STREAMS_PER_CLIENT``, ``LIVE_STREAMS_MAX``)."""
    app.extensions[SLOTS] = StreamSlots(
        settings(app).live_streams_per_client,
        settings(app).live_streams_max,
        within=stream_room(app),  # with the world's streams, what the worker can hold
        kind="game",
    )
