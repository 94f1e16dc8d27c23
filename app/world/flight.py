"""The end of a team transaction on PostgreSQL in one flight: no wait inside the world lock.

The world row (``world_worlds``) hands out the gapless seq numbers, so every move of every
team takes its lock, from the ``UPDATE ... RETURNING`` to the commit. Sent as separate
statements (seqs, events, ``NOTIFY``, ``COMMIT``) that lock is held across three round
trips, and a gevent worker answers each of them only when its other requests let go of the
CPU: with judgements of a few tens of ms running in between, the lock was measured held for
0.5 s at the median and 4 s at p99 (bench/bench_world.py, 200 bots), and every team of both
processes queued behind it.

Here the counters, the seqs, the events and the notification are one statement, sent with
``COMMIT`` in one psycopg pipeline: PostgreSQL takes the world row and commits without
waiting for the app in between, so the lock is held for the server's own work on one
statement (well under a millisecond per move), whatever the app's processes are doing.
The notification's payload carries the raft's last seq, which only that statement knows:
the notifier's wire form is split around it (``Notifier.sql_wire``) and joined in SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from app.world.records import Move, counts_of, encode_cells

SqlWire = tuple[str, str, str]
"""``(channel, head, tail)``: ``pg_notify(channel, head || seq || tail)`` is the wire form."""

_APPEND = """
WITH s AS (
    UPDATE world_worlds SET last_seq = last_seq + %(n)s, moves = moves + %(m)s
    WHERE id = %(w)s RETURNING last_seq
), team AS (
    UPDATE world_teams SET moves = moves + %(t_moves)s, revealed = revealed + %(t_revealed)s,
        flags = flags + %(t_flags)s, errors = errors + %(t_errors)s, drops = drops + %(t_drops)s
    WHERE world = %(w)s AND name = %(t)s
), people AS (
    UPDATE world_players p SET moves = p.moves + d.moves, revealed = p.revealed + d.revealed,
        flags = p.flags + d.flags, errors = p.errors + d.errors, drops = p.drops + d.drops,
        colour = coalesce(d.colour, p.colour), last_drop_at = coalesce(d.dropped, p.last_drop_at)
    FROM unnest(%(p_ids)s::text[], %(p_moves)s::bigint[], %(p_revealed)s::bigint[],
                %(p_flags)s::bigint[], %(p_errors)s::bigint[], %(p_drops)s::bigint[],
                %(p_colour)s::smallint[], %(p_dropped)s::timestamptz[])
        AS d(id, moves, revealed, flags, errors, drops, colour, dropped)
    WHERE p.id = d.id
), logged AS (
    INSERT INTO world_events
        (world, seq, team, player, colour, kind, x, y, outcome, opened, changes, at)
    SELECT %(w)s, s.last_seq - %(n)s + e.i, %(t)s, e.player, e.colour, e.kind, e.x, e.y,
        e.outcome, e.opened, e.changes, %(at)s
    FROM s, unnest(%(e_player)s::text[], %(e_colour)s::smallint[], %(e_kind)s::text[],
                   %(e_x)s::bigint[], %(e_y)s::bigint[], %(e_outcome)s::text[],
                   %(e_opened)s::int[], %(e_changes)s::text[])
        WITH ORDINALITY AS e(player, colour, kind, x, y, outcome, opened, changes, i)
)
SELECT s.last_seq{notify} FROM s
"""
_PLAIN = _APPEND.format(notify="")
_NOTIFYING = _APPEND.format(
    notify=", pg_notify(%(channel)s, %(head)s || s.last_seq::text || %(tail)s)"
)


def append_and_commit(
    conn: Connection,
    world: str,
    team: str,
    at: datetime,
    moves: Sequence[tuple[str, Move]],
    colours: dict[str, int],
    drops: dict[str, datetime],
    notice: SqlWire | None,
) -> int:
    """Bump the counters, take ``len(moves)`` seqs, log ``moves`` (``(player, move)``),
    notify and commit, in one round trip; the last seq. ``conn``'s transaction is over when
    this returns (the caller's ``begin`` block finds nothing left to commit)."""
    params = _params(world, team, at, moves, colours, drops)
    if notice is not None:
        params.update(channel=notice[0], head=notice[1], tail=notice[2])
    raw: Any = conn.connection.driver_connection
    with raw.pipeline(), raw.cursor() as cursor:
        cursor.execute(_NOTIFYING if notice is not None else _PLAIN, params, prepare=True)
        raw.commit()  # queued behind the statement: both leave in one flight
        row = cursor.fetchone()
    if row is None:
        raise LookupError(f"world {world!r} vanished during a move")
    return int(row[0])


def _params(
    world: str,
    team: str,
    at: datetime,
    moves: Sequence[tuple[str, Move]],
    colours: dict[str, int],
    drops: dict[str, datetime],
) -> dict[str, Any]:
    total = counts_of([m for _, m in moves])
    by_player: dict[str, list[Move]] = {}
    for player, move in moves:
        by_player.setdefault(player, []).append(move)
    people = {p: counts_of(mine) for p, mine in by_player.items()}
    ids = list(people)
    return {
        "w": world,
        "t": team,
        "at": at,
        "n": len(moves),
        "m": sum(1 for _, m in moves if m.kind != "colour"),
        **{f"t_{k}": v for k, v in total.items()},
        "p_ids": ids,
        **{f"p_{k}": [people[p][k] for p in ids] for k in total},
        "p_colour": [colours.get(p) for p in ids],
        "p_dropped": [drops.get(p) for p in ids],
        "e_player": [p for p, _ in moves],
        "e_colour": [m.colour for _, m in moves],
        "e_kind": [m.kind for _, m in moves],
        "e_x": [m.x for _, m in moves],
        "e_y": [m.y for _, m in moves],
        "e_outcome": [m.outcome for _, m in moves],
        "e_opened": [len(m.cells) for _, m in moves],
        "e_changes": [encode_cells(m.x, m.y, m.cells) for _, m in moves],
    }
