"""The live feed of one team's board: Server-Sent Events woken by the notifier.

A stream subscribes to its team's topic *before* it reads, then loops: read the team's
events after the last seq it sent (at most ``BATCH`` at a time, through the process's
``FeedCache``: the streams of one team share one query per change), send each one's visible
changes as ``event: cells`` with ``id: <seq>``, and wait on the subscription (a comment line
every ``HEARTBEAT_SECONDS`` keeps proxies from closing the connection). While nothing moves a
team costs at most one query per heartbeat per process, whatever its number of streams; a
missed notification only delays a change until the next heartbeat. The stream ends after
``max_seconds``; the browser's ``EventSource`` reconnects with ``Last-Event-ID`` and misses
nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

from app.notify import Notifier
from app.world.feedcache import FeedCache
from app.world.service import Viewport, topic, visible_changes
from app.world.store import WorldStore

BATCH = 256
HEARTBEAT_SECONDS = 15.0


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
) -> Iterator[str]:
    """The stream's text chunks. It subscribes when first advanced, before its first read,
    so nothing committed after ``after`` can slip between reading and waiting. Reads go
    through the process's ``FeedCache``: one query per change, not one per stream."""
    started = time.monotonic()
    last = after
    known: int | None = None
    first = True
    with notifier.subscribe(topic(world, team)) as subscription:
        yield ": stream open\n\n"
        while True:
            batch = cache.after(world, team, last, BATCH, known, first)
            first = False
            if batch:
                for seq, cells in visible_changes(store, world, team, port, batch):
                    yield sse_cells(seq, cells)
                last = batch[-1].seq
                if len(batch) == BATCH:
                    continue
            remaining = max_seconds - (time.monotonic() - started)
            if remaining <= 0 or notifier.closed:
                return
            if subscription.wait(min(heartbeat, remaining)):
                said = (subscription.payload or {}).get("s")
                known = said if isinstance(said, int) else None
            else:
                known = None
                yield ": keep-alive\n\n"
