"""The live feed of one team's board: Server-Sent Events woken by the notifier.

A stream subscribes to its team's topic *before* it reads, then loops: read the team's
events after the last seq it sent (at most ``BATCH`` at a time, through the process's
``FeedCache``: the streams of one team share one query per change), send each one's visible
changes as ``event: cells`` with ``id: <seq>`` (the events of one read in one write: a raft
of 30 moves is one send to each watcher, not 30), and wait on the subscription (a comment line
every ``HEARTBEAT_SECONDS`` keeps proxies from closing the connection). While nothing moves a
stream makes no query at all. A notification names the raft's last seq; one without (the
PostgreSQL listener reconnected, so some may have been lost) makes the team's streams read the
log again, once per process. A notification lost otherwise (a dropped datagram between the
processes of one host) delays a change until the team's next move or the stream's end: it
ends after ``max_seconds`` and the browser's ``EventSource`` reconnects with
``Last-Event-ID``, reading everything it missed.

Teammates' presence (``app.world.presence``) rides on the same topic: a notification with a
presence is sent on as ``event: presence`` (no ``id``, no read of the log); a stream opens with
the presences its process knows.

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
from typing import Any

import sqlalchemy as sa

from app.live.slots import Departure, wait_or_leave
from app.notify import Notifier
from app.world import presence
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


def sse_presence(payload: dict[str, Any]) -> str:
    return f"event: presence\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n"


def woken_by(
    payloads: list[dict[str, Any] | None],
    board: presence.PresenceBoard | None,
    world: str,
    team: str,
) -> tuple[list[str], bool, int | None]:
    """What a wake-up brought: the presence events to send, whether moves may have been
    logged (read the log), and the newest seq a move notification named (None: unknown)."""
    sent: list[str] = []
    moved = False
    known: int | None = -1
    for payload in payloads:
        seen = presence.valid_payload(payload.get(presence.KEY)) if payload else None
        if seen is not None:
            if board is not None:
                board.note(world, team, seen)
            sent.append(sse_presence(seen))
            continue
        moved = True
        said = payload.get("s") if payload else None
        known = max(known, said) if isinstance(said, int) and known is not None else None
    return sent, moved, known


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
    presences: presence.PresenceBoard | None = None,
) -> Iterator[str]:
    """The stream's text chunks. It subscribes when first advanced, before its first read,
    so nothing committed after ``after`` can slip between reading and waiting. Reads go
    through the process's ``FeedCache``: one query per change, not one per stream.
    ``gone``: whether the client left (checked every half second while waiting)."""
    try:
        started = time.monotonic()
        last = after
        known: int | None = None
        first = read = True
        departure = Departure(gone) if gone is not None else None
        with notifier.subscribe(topic(world, team)) as subscription:
            yield ": stream open\n\n"
            for seen in presences.recent(world, team) if presences is not None else ():
                yield sse_presence(seen)
            while True:
                if read:
                    batch = cache.after(world, team, last, BATCH, known, first)
                    first = False
                    if batch:
                        text = "".join(
                            sse_cells(seq, cells)
                            for seq, cells in visible_changes(store, world, team, port, batch)
                        )
                        if text:  # one write for the read's events, not one per event
                            yield text
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
                if not woke:
                    read = False
                    yield ": keep-alive\n\n"  # nothing moved: no read
                    continue
                sent, read, known = woken_by(subscription.payloads, presences, world, team)
                yield from sent
    except OUTAGES as exc:
        log.warning(
            "world %s team %s: a live stream ended on a database error (%s); the client "
            "resumes with Last-Event-ID", world, team, type(exc).__name__,
        )  # fmt: skip
        yield f"retry: {OUTAGE_RETRY_MS}\n: the database is unavailable: reconnecting\n\n"
