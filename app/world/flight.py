"""A team transaction on PostgreSQL in two flights: no wait for the app inside the team lock.

A team's moves hold its row from the first statement to the commit. Sent as separate
statements (chunks, counters, seqs, events, ``NOTIFY``, ``COMMIT``), the transaction waits
for the app at every round trip, and a gevent worker answers each only when its other
requests let go of the CPU: the team's row stays held meanwhile. Until migration
``0007_team_seq`` the world's row (then numbering every event) was held the same way: 0.5 s
at the median and 4 s at p99 (bench/bench_world.py, 200 bots), and every team of both
processes queued behind it. Since each team numbers its own log, only the team waits; the
benchmark still measured the plain statements holding the team's row ~7x longer (p50 1.1 s
against 0.15 s, load ~9; ``docs/scaling.md``, "Numbered per team"), so this path stays.

Here the chunks, the counters, the team's seqs (``UPDATE world_teams ... RETURNING
last_seq``), the events, the keyed raft's answer and the notification are one statement,
sent with ``COMMIT`` in one message: PostgreSQL commits without waiting for the app in
between. The notification's payload carries the raft's last seq, which only that statement
knows: the notifier's wire form is split around it (``Notifier.sql_wire``) and joined in
SQL. The changed chunks' versions are checked in SQL: a chunk that moved under the team's
lock aborts the statement (an error raised through a cast), and the ``COMMIT`` behind it
rolls back.

The transaction opens the same way (``open_team``): taking the team row, reading the player
and the chunks around the raft's cells go out together, so a raft costs the app two waits
for PostgreSQL (plus chunks the judgement reaches beyond those), not ten. SQLite runs the
same steps as plain statements (``app.world.team``): it has one writer and no round trips.

A raft judged *ahead* (``app.world.judging``) holds the team's row for no wait of the app at
all: its player and chunks are read without a lock (``read_ahead``, one flight), it is judged
on them, and then ``BEGIN``, taking the row, checking that what the judgement read still
holds (``JudgedOn``: the player's colour and last drop, every chunk read at its version,
no answer stored for its key, and no event of the team logged later than this one's time,
taken before the flight: a team's times follow its seqs) and the writes above travel as
one message with the ``COMMIT``. The check is a statement of its own, after the lock: it
sees every transaction that held the row before (each team's writes hold its row). When
anything changed, the check raises ``Stale`` and nothing is written; the caller judges
again under the lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from sqlalchemy.engine import Connection
from sqlalchemy.exc import OperationalError

from app.world.chunks import ChunkKey, StoredChunk
from app.world.idempotency import PendingRaft
from app.world.prepared import Prepared, prepare, prepared
from app.world.records import (
    ChunkRace,
    MoveRecord,
    PlayerRow,
    WorldStoreError,
    counts_of,
    encode_cells,
    player_row,
)

SqlWire = tuple[str, str, str]
"""``(channel, head, tail)``: ``pg_notify(channel, head || seq || tail)`` is the wire form."""

_APPEND = """
WITH s AS (
    UPDATE world_teams SET last_seq = last_seq + %(n)s, moves = moves + %(t_moves)s,
        revealed = revealed + %(t_revealed)s, flags = flags + %(t_flags)s,
        errors = errors + %(t_errors)s, drops = drops + %(t_drops)s
    WHERE world = %(w)s AND name = %(t)s RETURNING last_seq
), people AS (
    UPDATE world_players p SET moves = p.moves + d.moves, revealed = p.revealed + d.revealed,
        flags = p.flags + d.flags, errors = p.errors + d.errors, drops = p.drops + d.drops,
        colour = coalesce(d.colour, p.colour), last_drop_at = coalesce(d.dropped, p.last_drop_at)
    FROM unnest(%(p_ids)s::text[], %(p_moves)s::bigint[], %(p_revealed)s::bigint[],
                %(p_flags)s::bigint[], %(p_errors)s::bigint[], %(p_drops)s::bigint[],
                %(p_colour)s::smallint[], %(p_dropped)s::timestamptz[])
        AS d(id, moves, revealed, flags, errors, drops, colour, dropped)
    WHERE p.id = d.id
), chunked AS (
    UPDATE world_chunks c SET cells = u.cells, version = u.version + 1
    FROM unnest(%(u_layer)s::smallint[], %(u_cx)s::bigint[], %(u_cy)s::bigint[],
                %(u_cells)s::bytea[], %(u_version)s::int[]) AS u(layer, cx, cy, cells, version)
    WHERE c.world = %(w)s AND c.team = %(t)s AND c.layer = u.layer AND c.cx = u.cx
        AND c.cy = u.cy AND c.version = u.version
    RETURNING 1
), fresh AS (
    INSERT INTO world_chunks (world, team, layer, cx, cy, cells, version)
    SELECT %(w)s, %(t)s, f.layer, f.cx, f.cy, f.cells, 1
    FROM unnest(%(f_layer)s::smallint[], %(f_cx)s::bigint[], %(f_cy)s::bigint[],
                %(f_cells)s::bytea[]) AS f(layer, cx, cy, cells)
), logged AS (
    INSERT INTO world_events
        (world, seq, team, player, colour, kind, x, y, outcome, opened, changes, at)
    SELECT %(w)s, s.last_seq - %(n)s + e.i, %(t)s, e.player, e.colour, e.kind, e.x, e.y,
        e.outcome, e.opened, e.changes, %(at)s
    FROM s, unnest(%(e_player)s::text[], %(e_colour)s::smallint[], %(e_kind)s::text[],
                   %(e_x)s::bigint[], %(e_y)s::bigint[], %(e_outcome)s::text[],
                   %(e_opened)s::int[], %(e_changes)s::text[])
        WITH ORDINALITY AS e(player, colour, kind, x, y, outcome, opened, changes, i)
){raft}
SELECT s.last_seq,
    CASE WHEN (SELECT count(*) FROM chunked) = %(n_old)s THEN 0
    ELSE ('chunk race: ' || (SELECT count(*) FROM chunked) || ' of ' || %(n_old)s
          || ' chunks at their version')::int END{notify}
FROM s
"""
_RAFT = """, purged AS (
    DELETE FROM world_rafts WHERE world = %(w)s AND player = %(r_player)s
        AND key <> %(r_key)s AND created_at < %(r_since)s
), remembered AS (
    INSERT INTO world_rafts (world, player, key, digest, answer, last_seq, moves, created_at)
    SELECT %(w)s, %(r_player)s, %(r_key)s, %(r_digest)s, %(r_answer)s, s.last_seq, %(n)s, %(at)s
    FROM s
    ON CONFLICT (world, player, key) DO UPDATE SET digest = excluded.digest,
        answer = excluded.answer, last_seq = excluded.last_seq, moves = excluded.moves,
        created_at = excluded.created_at
)"""
"""A keyed raft's answer, stored by the same statement (``app.world.idempotency``): the row
of an expired answer of the same key is replaced (``ON CONFLICT``), the player's other expired
answers deleted (one statement must not change a row twice: the ``DELETE`` spares the key)."""
RACE = "chunk race: "
"""Starts the error PostgreSQL raises when a chunk changed under the team's lock."""
STALE = "stale judgement: "
"""Starts the error PostgreSQL raises when what a raft judged ahead read has changed."""
_CHECK_SQL = """
SELECT CASE WHEN EXISTS (SELECT 1 FROM world_teams WHERE world = %(w)s AND name = %(t)s)
    AND EXISTS (SELECT 1 FROM world_players p WHERE p.id = %(c_player)s AND p.world = %(w)s
        AND p.team = %(t)s AND p.colour = %(c_colour)s
        AND p.last_drop_at IS NOT DISTINCT FROM %(c_dropped)s)
    AND NOT EXISTS (SELECT 1 FROM world_rafts r WHERE r.world = %(w)s
        AND r.player = %(c_player)s AND r.key = %(c_key)s AND r.created_at >= %(c_since)s)
    AND NOT EXISTS (SELECT 1 FROM world_teams h JOIN world_events e ON e.world = h.world
        AND e.team = h.name AND e.seq = h.last_seq
        WHERE h.world = %(w)s AND h.name = %(t)s AND e.at > %(at)s)
    AND (SELECT count(*) FILTER (WHERE k.version IS NULL OR c.version <> k.version) = 0
            AND count(*) FILTER (WHERE c.version = k.version) = %(c_present)s
        FROM world_chunks c
        JOIN unnest(%(c_layer)s::smallint[], %(c_cx)s::bigint[], %(c_cy)s::bigint[],
                    %(c_version)s::int[]) AS k(layer, cx, cy, version)
            ON c.layer = k.layer AND c.cx = k.cx AND c.cy = k.cy
        WHERE c.world = %(w)s AND c.team = %(t)s)
THEN 0 ELSE ('stale judgement: the team moved since it was read (its head is now '
    || (SELECT coalesce(max(last_seq), -1) FROM world_teams WHERE world = %(w)s AND name = %(t)s)
    || ')')::int END
"""
"""Whether what a raft judged ahead read still holds (``JudgedOn``), else an error. (The
error's text reads the table: a constant one would be raised when the statement is planned,
whatever the check finds.)"""
_CHECK = prepared(_CHECK_SQL)


class Stale(WorldStoreError):
    """What a raft judged ahead read has changed: nothing was written; judge it again."""


@dataclass(frozen=True)
class JudgedOn:
    """What a raft judged ahead read: its player as it was, the chunks with their versions
    (None: absent), and its key (the answer must not be stored already)."""

    player: PlayerRow
    read: Mapping[ChunkKey, int | None]
    key: str | None = None
    since: datetime | None = None

    def params(self) -> dict[str, Any]:
        keys = list(self.read)
        return {
            "c_player": self.player.id,
            "c_colour": self.player.colour,
            "c_dropped": self.player.last_drop_at,
            "c_key": self.key,
            "c_since": self.since,
            "c_present": sum(1 for v in self.read.values() if v is not None),
            "c_layer": ints(k[0] for k in keys),
            "c_cx": ints(k[1] for k in keys),
            "c_cy": ints(k[2] for k in keys),
            "c_version": ints(self.read[k] for k in keys),
        }


_NOTIFY = ", pg_notify(%(channel)s, %(head)s || s.last_seq::text || %(tail)s)"
_STATEMENTS = {
    (notify, raft): prepared(
        _APPEND.format(notify=_NOTIFY if notify else "", raft=_RAFT if raft else "")
    )
    for notify in (False, True)
    for raft in (False, True)
}
"""The statement with or without a notification and a keyed raft's answer, each prepared
(``app.world.prepared``: PostgreSQL planned it on every raft)."""


def append_and_commit(
    conn: Connection,
    world: str,
    team: str,
    at: datetime,
    moves: Sequence[tuple[str, MoveRecord]],
    colours: dict[str, int],
    drops: dict[str, datetime],
    dirty: Mapping[ChunkKey, tuple[bytes, int | None]],
    notice: SqlWire | None,
    raft: PendingRaft | None = None,
    judged: JudgedOn | None = None,
) -> int:
    """Bump the counters, take ``len(moves)`` seqs, log ``moves`` (``(player, move)``),
    store ``raft``'s answer, notify and commit, in one round trip; the last seq. ``conn``'s
    transaction is over when this returns (the caller's ``begin`` block finds nothing left
    to commit).

    With ``judged`` (a raft judged ahead; ``conn`` in autocommit, no transaction open) the
    same message begins the transaction, takes the team's row and checks ``judged`` first:
    ``Stale`` (nothing written, the connection idle again) when it no longer holds."""
    params = _params(world, team, at, moves, colours, drops)
    params.update(_chunk_params(dirty))
    if notice is not None:
        params.update(channel=notice[0], head=notice[1], tail=notice[2])
    if raft is not None:
        params.update(
            r_player=raft.player,
            r_key=raft.key.key,
            r_digest=raft.key.digest,
            r_answer=raft.answer,
            r_since=raft.key.since,
        )
    append = _STATEMENTS[notice is not None, raft is not None]
    statements: tuple[Prepared, ...] = (append,)
    message = append.execute + ";\nCOMMIT"
    if judged is not None:
        params.update(judged.params())
        statements = (_LOCK, _CHECK, append)
        message = ";\n".join(("BEGIN", _LOCK.execute, _CHECK.execute, message))
    try:
        with _cursor(conn, *statements) as cursor:
            cursor.execute(message, params)  # one message, one flight
            if judged is not None:  # BEGIN, the lock, the check: the append's row is 4th
                for _ in range(3):
                    cursor.nextset()
            row = cursor.fetchone()
    except psycopg.errors.InvalidTextRepresentation as exc:
        if judged is not None:
            raw: Any = conn.connection.driver_connection
            raw.rollback()  # the transaction the message began, failed: the connection idle
        if STALE in str(exc):
            raise Stale(f"team {team!r} of world {world!r}: {exc}") from exc
        if RACE in str(exc):
            raise ChunkRace(f"team {team!r} of world {world!r}: {exc}") from exc
        raise
    if row is None:
        raise LookupError(f"world {world!r} vanished during a move")
    return int(row[0])


def open_team(
    conn: Connection, world: str, team: str, player: str, keys: Sequence[ChunkKey]
) -> tuple[bool, PlayerRow | None, dict[ChunkKey, StoredChunk]]:
    """Take the team's row (``FOR UPDATE``), then read ``player`` and the stored chunks among
    ``keys``, in one flight: (the team exists, the player if it is one of the team's, the
    chunks found)."""
    with _cursor(conn, _LOCK, _CHUNKS) as cursor:
        cursor.execute(
            ";\n".join((_LOCK.execute, _PLAYER, _CHUNKS.execute)),  # one message, one flight
            _read_params(world, team, player, keys),
        )
        exists = cursor.fetchone() is not None
        cursor.nextset()
        me, found = _player_and_chunks(cursor, world, team)
    return exists, me, found


def read_ahead(
    conn: Connection, world: str, team: str, player: str, keys: Sequence[ChunkKey]
) -> tuple[PlayerRow | None, dict[ChunkKey, StoredChunk]]:
    """``player`` (if it is one of the team's) and the stored chunks among ``keys``, in one
    flight, taking no lock (``conn`` in autocommit: no ``BEGIN`` of its own to wait for)."""
    with _cursor(conn, _CHUNKS) as cursor:
        message = ";\n".join((_PLAYER, _CHUNKS.execute))
        cursor.execute(message, _read_params(world, team, player, keys))
        return _player_and_chunks(cursor, world, team)


def _read_params(world: str, team: str, player: str, keys: Sequence[ChunkKey]) -> dict[str, Any]:
    return {
        "w": world,
        "t": team,
        "p": player,
        "l": ints(k[0] for k in keys),
        "x": ints(k[1] for k in keys),
        "y": ints(k[2] for k in keys),
    }


def _player_and_chunks(
    cursor: psycopg.ClientCursor[Any], world: str, team: str
) -> tuple[PlayerRow | None, dict[ChunkKey, StoredChunk]]:
    """The results of ``_PLAYER`` (the cursor's current one) and ``_CHUNKS`` (the next)."""
    found_player = cursor.fetchone()
    names = [c.name for c in cursor.description or ()]
    row = None if found_player is None else dict(zip(names, found_player, strict=True))
    cursor.nextset()
    found = {
        (int(layer), int(cx), int(cy)): StoredChunk(bytes(cells), int(version))
        for layer, cx, cy, cells, version in cursor.fetchall()
    }
    me = None
    if row is not None and row["world"] == world and row["team"] == team:
        me = player_row(row)
    return me, found


@contextmanager
def _cursor(conn: Connection, *statements: Prepared) -> Iterator[psycopg.ClientCursor[Any]]:
    """A cursor that binds parameters itself, so that several statements travel as one
    simple-protocol message: PostgreSQL runs them back to back. (A psycopg pipeline sends
    them one at a time, and under gevent each send lets the worker's other requests run
    first: the transaction then sat idle, holding its locks, between the statements.)

    The cursor is psycopg's own, so its errors do not pass through SQLAlchemy: a lost
    connection (PostgreSQL restarting: ``AdminShutdown``, "the connection is lost") is
    raised as SQLAlchemy's ``OperationalError``, which ``app.errors`` answers with a 503 and
    ``Retry-After``, as everywhere else (it was a 500 here, found by
    ``bench/bench_faults.py``'s PostgreSQL restart). ``statements`` are prepared on the
    connection first, if they are not yet (``app.world.prepared``)."""
    raw: Any = conn.connection.driver_connection
    try:
        prepare(raw, *statements)
        with psycopg.ClientCursor(raw) as cursor:
            yield cursor
    except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
        raise OperationalError(None, None, exc, connection_invalidated=raw.closed) from exc


_LOCK = prepared("SELECT name FROM world_teams WHERE world = %(w)s AND name = %(t)s FOR UPDATE")
_PLAYER = "SELECT * FROM world_players WHERE id = %(p)s"
_CHUNKS = prepared("""
SELECT c.layer, c.cx, c.cy, c.cells, c.version FROM world_chunks c
JOIN unnest(%(l)s::smallint[], %(x)s::bigint[], %(y)s::bigint[]) AS k(layer, cx, cy)
    ON c.layer = k.layer AND c.cx = k.cx AND c.cy = k.cy
WHERE c.world = %(w)s AND c.team = %(t)s
""")


def ints(values: Iterable[int | None]) -> str:
    """An integer array's text form (``{1,NULL,-3}``), for a ``%(...)s::bigint[]`` cast.

    The commit's flight binds its parameters in the client (``_cursor``), and psycopg quotes
    a list element by element in Python: 1.5 ms of a worker's CPU per raft of 30 moves. An
    array's text form is made here at C speed and sent as one string literal; PostgreSQL
    reads it with the same array input, so the same values arrive."""
    return "{" + ",".join("NULL" if v is None else str(int(v)) for v in values) + "}"


def texts(values: Iterable[str | None]) -> str:
    """A text array's text form: each element double-quoted, ``\\`` and ``"`` escaped with a
    backslash (PostgreSQL's array input), None as ``NULL`` (``ints``)."""
    return "{" + ",".join(
        "NULL" if v is None else '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        for v in values
    ) + "}"  # fmt: skip


def byteas(values: Iterable[bytes]) -> str:
    """A bytea array's text form, each element in bytea's hex format (``ints``)."""
    return "{" + ",".join('"\\\\x' + bytes(v).hex() + '"' for v in values) + "}"


def _chunk_params(dirty: Mapping[ChunkKey, tuple[bytes, int | None]]) -> dict[str, Any]:
    old = [(k, cells, v) for k, (cells, v) in dirty.items() if v is not None]
    new = [(k, cells) for k, (cells, v) in dirty.items() if v is None]
    return {
        "n_old": len(old),
        "u_layer": ints(k[0] for k, _, _ in old),
        "u_cx": ints(k[1] for k, _, _ in old),
        "u_cy": ints(k[2] for k, _, _ in old),
        "u_cells": byteas(cells for _, cells, _ in old),
        "u_version": ints(v for _, _, v in old),
        "f_layer": ints(k[0] for k, _ in new),
        "f_cx": ints(k[1] for k, _ in new),
        "f_cy": ints(k[2] for k, _ in new),
        "f_cells": byteas(cells for _, cells in new),
    }


def _params(
    world: str,
    team: str,
    at: datetime,
    moves: Sequence[tuple[str, MoveRecord]],
    colours: dict[str, int],
    drops: dict[str, datetime],
) -> dict[str, Any]:
    total = counts_of([m for _, m in moves])
    by_player: dict[str, list[MoveRecord]] = {}
    for player, move in moves:
        by_player.setdefault(player, []).append(move)
    people = {p: counts_of(mine) for p, mine in by_player.items()}
    ids = list(people)
    return {
        "w": world,
        "t": team,
        "at": at,
        "n": len(moves),
        **{f"t_{k}": v for k, v in total.items()},
        "p_ids": texts(ids),
        **{f"p_{k}": ints(people[p][k] for p in ids) for k in total},
        "p_colour": ints(colours.get(p) for p in ids),
        "p_dropped": [drops.get(p) for p in ids],
        "e_player": texts(p for p, _ in moves),
        "e_colour": ints(m.colour for _, m in moves),
        "e_kind": texts(m.kind for _, m in moves),
        "e_x": ints(m.x for _, m in moves),
        "e_y": ints(m.y for _, m in moves),
        "e_outcome": texts(m.outcome for _, m in moves),
        "e_opened": ints(len(m.cells) for _, m in moves),
        "e_changes": texts(encode_cells(m.x, m.y, m.cells) for _, m in moves),
    }
