"""The live feed of one team's board: Server-Sent Events woken by the notifier.

A stream subscribes to its team's topic *before* it reads, then loops: read the team's
events after the last seq it sent (at most ``BATCH`` at a time, through the process's
``FeedCache``: the streams of one team share one query per change), send each one's visible
changes as ``event: cells`` with ``id: <seq>``, and wait on the subscription (a comment line
every ``HEARTBEAT_SECONDS`` keeps proxies from closing the connection). While nothing moves a
stream makes no query at all. A notification names the raft's last seq; one without (the
PostgreSQL listener reconnected, so some may have been lost) makes the team's streams read the
log again, once per process. A notification lost otherwise (a dropped datagram between the
processes of one host) delays a change until the team's next move or the stream's end: it
ends after ``max_seconds`` and the browser's ``EventSource`` reconnects with
``Last-Event-ID``, reading everything it missed.

A stream whose client went away ends within half a second (``app.live.slots.wait_or_leave``;
its slot is freed then, not at the next heartbeat's failed write): given the check
(``app.gate.client_gone``), it waits in slices that long. A stream that meets a database
outage ends cleanly, after a ``retry:`` line asking the browser to reconnect in
``OUTAGE_RETRY_MS`` (with ``Last-Event-ID``, so nothing is lost), and logs one line, no
traceback.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator

import sqlalchemy as sa

from app.live.slots import Departure, wait_or_leave
from app.notify import Notifier
from app.world.feedcache import FeedCache
from app.world.service import Viewport, topic, visible_changes
from app.world.store import WorldStore

BATCH = 256
HEARTBEAT_SECONDS = 15.0
OUTAGE_RETRY_MS = 3000
OUTAGES = (sa.exc.OperationalError, sa.exc.InterfaceError, sa.exc.TimeoutError)
"""What a database that went away (or a pool with no free connection) raises."""

log = logging.getLogger(__name__)


def sse_cells(seq: int, cells: list[tuple[int, int, str]]) -> str:
    data = json.dumps(
        {"seq": seq, "cells": [[x, y, s] for x, y, s in cells]}, separators=(",", ":")
    )
    return f"event: cells\nid: {seq}\ndata: {data}\n\n"


def event_stream(
    cache: FeedCache,
    store: WorldStore,
    notifier: Notifier,
    world: str,
    team: str,
    port: Viewport,
    after: int,
    max_seconds: float,
    heartbeat: float = HEARTBEAT_SECONDS,
    gone: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """The stream's text chunks. It subscribes when first advanced, before its first read,
    so nothing committed after ``after`` can slip between reading and waiting. Reads go
    through the process's ``FeedCache``: one query per change, not one per stream.
    ``gone``: whether the client left (checked every half second while waiting)."""
    try:
        yield from _stream(cache, store, notifier, world, team, port, after, max_seconds,
                           heartbeat, gone)  # fmt: skip
    except OUTAGES as exc:
        log.warning(
            "world %s team %s: a live stream ended on a database error (%s); the client "
            "resumes with Last-Event-ID", world, team, type(exc).__name__,
        )  # fmt: skip
        yield f"retry: {OUTAGE_RETRY_MS}\n: the database is unavailable: reconnecting\n\n"


def _stream(
    cache: FeedCache,
    store: WorldStore,
    notifier: Notifier,
    world: str,
    team: str,
    port: Viewport,
    after: int,
    max_seconds: float,
    heartbeat: float,
    gone: Callable[[], bool] | None,
) -> Iterator[str]:
    started = time.monotonic()
    last = after
    known: int | None = None
    first = read = True
    departure = Departure(gone) if gone is not None else None
    with notifier.subscribe(topic(world, team)) as subscription:
        yield ": stream open\n\n"
        while True:
            if read:
                batch = cache.after(world, team, last, BATCH, known, first)
                first = False
                if batch:
                    for seq, cells in visible_changes(store, world, team, port, batch):
                        yield sse_cells(seq, cells)
                    last = batch[-1].seq
                    if len(batch) == BATCH:
                        first = True  # more may wait in the log: read on without waiting
                        continue
            remaining = max_seconds - (time.monotonic() - started)
            if remaining <= 0 or notifier.closed:
                return
            woke = wait_or_leave(subscription, min(heartbeat, remaining), departure)
            if woke is None:
                return  # the client went away: let the slot go now
            read = woke
            if read:
                said = (subscription.payload or {}).get("s")
                known = said if isinstance(said, int) else None
            else:
                yield ": keep-alive\n\n"  # nothing moved: no read
