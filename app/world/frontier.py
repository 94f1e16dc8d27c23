"""Where the world page opens: where something is happening.

``team_spot``  the cell of the team's latest move that opened or flagged something (preferring
               the board ``colour``), else a cell of a chunk the team knows; None for a team
               that knows nothing yet
``liveliest``  the team with the most of the world's latest ``RECENT`` moves (a watcher's
               default), None in a world nobody plays yet
``opening_drop`` a new team's first player's drop, made on joining

Both are bounded reads: the newest ``LATEST`` events of a team (key ``world, team, seq``),
the newest ``RECENT`` of the world by time (index ``world, at``: seqs are per team and do
not order teams), one chunk key.
"""

from __future__ import annotations

from collections import Counter

import sqlalchemy as sa

from app.notify import Notifier
from app.world.chunks import SHIFT
from app.world.judging import Judging, MoveRequest
from app.world.records import PlayerRow
from app.world.schema import chunks, events
from app.world.service import Colourings, play_raft
from app.world.store import WORLD_ORDER, WorldStore

LATEST = 64
RECENT = 256
OPENING = ("revealed", "flagged", "dropped")


def team_spot(store: WorldStore, world: str, team: str, colour: int) -> tuple[int, int] | None:
    latest = (
        sa.select(events.c.x, events.c.y, events.c.colour, events.c.outcome)
        .where(events.c.world == world, events.c.team == team)
        .order_by(events.c.seq.desc())
        .limit(LATEST)
    )
    anywhere = (
        sa.select(chunks.c.cx, chunks.c.cy)
        .where(chunks.c.world == world, chunks.c.team == team)
        .order_by(sa.case((chunks.c.layer == colour, 0), else_=1))
        .limit(1)
    )
    with store.engine.connect() as conn:
        rows = [r for r in conn.execute(latest) if r.x is not None and r.outcome in OPENING]
        mine = [r for r in rows if r.colour == colour] or rows
        if mine:
            return int(mine[0].x), int(mine[0].y)
        chunk = conn.execute(anywhere).first()
    if chunk is None:
        return None
    half = 1 << (SHIFT - 1)
    return (int(chunk.cx) << SHIFT) + half, (int(chunk.cy) << SHIFT) + half


def liveliest(store: WorldStore, world: str) -> str | None:
    recent = (
        sa.select(events.c.team)
        .where(events.c.world == world, events.c.x.is_not(None))
        .order_by(*(c.desc() for c in WORLD_ORDER))
        .limit(RECENT)
    )
    with store.engine.connect() as conn:
        counts = Counter(team for (team,) in conn.execute(recent))
    if not counts:
        return None
    return str(min(counts, key=lambda t: (-counts[t], t)))


def opening_drop(
    store: WorldStore,
    notifier: Notifier,
    colourings: Colourings,
    player: PlayerRow,
    x: int,
    y: int,
    drop_seconds: float,
    judging: Judging,
) -> tuple[int, int] | None:
    """A new team's first player starts on open ground: a drop near (x, y), played and
    logged like any drop (it starts the player's drop cooldown). Where it opened, or None
    (no open ground found there: the page then offers "Drop here")."""
    (answer,) = play_raft(
        store,
        notifier,
        colourings,
        player,
        [MoveRequest("drop", x, y)],
        drop_seconds,
        judging=judging,
    )
    return answer.at if answer.outcome == "dropped" else None
