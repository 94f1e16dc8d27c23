"""The live feed of one team's board: Server-Sent Events woken by the notifier.

A stream subscribes to its team's topic *before* it reads, then loops: read the team's
events after the last seq it sent (at most ``BATCH`` at a time), send each one's visible
changes as ``event: cells`` with ``id: <seq>``, and wait on the subscription (no query
while nothing moves; a comment line every ``HEARTBEAT_SECONDS`` keeps proxies from closing
the connection). A missed notification only delays a change until the next heartbeat,
since every wake-up re-reads the log. The stream ends after ``max_seconds``; the browser's
``EventSource`` reconnects with ``Last-Event-ID`` and misses nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

from app.notify import Notifier
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
    so nothing committed after ``after`` can slip between reading and waiting."""
    started = time.monotonic()
    last = after
    with notifier.subscribe(topic(world, team)) as subscription:
        yield ": stream open\n\n"
        while True:
            batch = store.team_events(world, team, last, BATCH)
            if batch:
                for seq, cells in visible_changes(store, world, team, port, batch):
                    yield sse_cells(seq, cells)
                last = batch[-1].seq
                if len(batch) == BATCH:
                    continue
            remaining = max_seconds - (time.monotonic() - started)
            if remaining <= 0 or notifier.closed:
                return
            if not subscription.wait(min(heartbeat, remaining)):
                yield ": keep-alive\n\n"
