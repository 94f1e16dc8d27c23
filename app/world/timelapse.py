"""A region's time-lapse: how a team uncovered it, from the log, in bounded pages.

``timelapse_page(store, world, team, port, after)`` reads at most ``SCAN`` of the team's events
after seq ``after`` and returns, for each that changed something inside ``port`` on board
``port.colour``, its seq, time and those cells: digits and ``F`` of that board, ``*`` for
another colour's flag (the view API's symbols; a number wins over a ``*``, as on the board).
``next`` is the seq to ask after for the following page (None at the log's end). Replaying
every page from ``after=0`` rebuilds exactly what the view API shows for the region: the log
holds only what the team established, so a time-lapse shows nothing a watcher of the team
could not see (the order and time of moves are public in the activity feed already).

Bounds: a region of at most ``MAX_SIDE`` x ``MAX_SIDE`` cells, ``SCAN`` events read per
request (each at most a cascade's cells), so no request is unbounded however long the log.
"""

from __future__ import annotations

from typing import Any

from app.world.service import Viewport
from app.world.store import WorldStore

MAX_SIDE = 256
SCAN = 128


def timelapse_page(
    store: WorldStore, world: str, team: str, port: Viewport, after: int
) -> dict[str, Any]:
    batch = store.team_events(world, team, after, SCAN)
    frames = []
    for event in batch:
        cells: list[list[Any]] = []
        for x, y, sym in event.cells:
            if not port.contains(x, y):
                continue
            if event.colour == port.colour:
                cells.append([x, y, sym])
            elif sym == "F":
                cells.append([x, y, "*"])
        if cells:
            frames.append({"seq": event.seq, "at": event.at.isoformat(), "cells": cells})
    return {
        "x0": port.x0,
        "y0": port.y0,
        "width": port.width,
        "height": port.height,
        "colour": port.colour,
        "after": after,
        "frames": frames,
        "next": batch[-1].seq if len(batch) == SCAN else None,
    }
