"""One team's moves in one write transaction: knowledge over chunks, the log, the counters.

See ``app.world.store`` for the locking (the team's row, held from the first statement to the
commit; nothing of the world's).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.world.chunks import ChunkKey, ChunkKnowledge, StoredChunk
from app.world.flight import JudgedOn, SqlWire, append_and_commit
from app.world.idempotency import PendingRaft, remember
from app.world.records import (
    EVENT_KINDS,
    ChunkRace,
    MoveRecord,
    NoSuchPlayer,
    PlayerRow,
    WorldRow,
    counts_of,
    encode_cells,
    player_row,
    utcnow,
)
from app.world.schema import chunks, events, players, teams, worlds

# -- statements ------------------------------------------------------------------------

_W = sa.bindparam("w", type_=sa.String(64))
_T = sa.bindparam("t", type_=sa.String(32))

LOCK_TEAM = sa.select(teams.c.name).where(teams.c.world == _W, teams.c.name == _T).with_for_update()
TEAM_EXISTS = sa.select(teams.c.name).where(teams.c.world == _W, teams.c.name == _T)
_BUMP_TEAM = (
    teams.update()
    .where(teams.c.world == _W, teams.c.name == _T)
    .values(
        last_seq=teams.c.last_seq + sa.bindparam("n", type_=sa.BigInteger),
        moves=teams.c.moves + sa.bindparam("d_moves"),
        revealed=teams.c.revealed + sa.bindparam("d_revealed"),
        flags=teams.c.flags + sa.bindparam("d_flags"),
        errors=teams.c.errors + sa.bindparam("d_errors"),
        drops=teams.c.drops + sa.bindparam("d_drops"),
    )
    .returning(teams.c.last_seq)
)
"""The team's counters and its next ``n`` seqs (the team's row is held already)."""
_BUMP_PLAYER = (
    players.update()
    .where(players.c.id == sa.bindparam("p"))
    .values(
        moves=players.c.moves + sa.bindparam("d_moves"),
        revealed=players.c.revealed + sa.bindparam("d_revealed"),
        flags=players.c.flags + sa.bindparam("d_flags"),
        errors=players.c.errors + sa.bindparam("d_errors"),
        drops=players.c.drops + sa.bindparam("d_drops"),
    )
)
_INSERT_CHUNK = chunks.insert()
_UPDATE_CHUNK = (
    chunks.update()
    .where(
        chunks.c.world == _W,
        chunks.c.team == _T,
        chunks.c.layer == sa.bindparam("k_layer"),
        chunks.c.cx == sa.bindparam("k_cx"),
        chunks.c.cy == sa.bindparam("k_cy"),
        chunks.c.version == sa.bindparam("old_version"),
    )
    .values(
        cells=sa.bindparam("new_cells"),
        version=sa.bindparam("new_version"),
    )
)
SELECT_PLAYER = players.select().where(players.c.id == sa.bindparam("p"))
PLAYER_BY_TOKEN = players.select().where(players.c.token_hash == sa.bindparam("h"))
TEAM_HEAD = sa.select(teams.c.last_seq).where(teams.c.world == _W, teams.c.name == _T)
WORLD_EXISTS = sa.select(worlds.c.id).where(worlds.c.id == _W)
LOGGED = sa.select(sa.func.coalesce(sa.func.sum(teams.c.last_seq), 0)).where(teams.c.world == _W)
"""Events logged in the world: its teams' heads added (each team numbers from 1, gapless)."""


_LOAD_CHUNKS = sa.select(
    chunks.c.layer, chunks.c.cx, chunks.c.cy, chunks.c.cells, chunks.c.version
).where(
    chunks.c.world == _W,
    chunks.c.team == _T,
    sa.tuple_(chunks.c.layer, chunks.c.cx, chunks.c.cy).in_(sa.bindparam("keys", expanding=True)),
)
"""One statement for any set of chunk keys (expanding IN): compiled once."""


def load_chunks(
    conn: Connection, world: str, team: str, keys: Collection[ChunkKey]
) -> dict[ChunkKey, StoredChunk]:
    """The stored chunks among ``keys`` (one query)."""
    if not keys:
        return {}
    rows = conn.execute(_LOAD_CHUNKS, {"w": world, "t": team, "keys": list(keys)})
    return {
        (int(layer), int(cx), int(cy)): StoredChunk(bytes(cells), int(version))
        for layer, cx, cy, cells, version in rows
    }


class KeyedLocks:
    """One lock per key, existing only while someone holds or waits for it (reentrant: a
    holder may take it again, ``WorldStore.queue`` around ``WorldStore.team``)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[object, tuple[threading.RLock, int]] = {}

    @contextmanager
    def hold(self, key: object) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(key) or (threading.RLock(), 0)
            self._locks[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[key]
                if users <= 1:
                    del self._locks[key]
                else:
                    self._locks[key] = (lock, users - 1)


# -- the team transaction --------------------------------------------------------------


class TeamTransaction:
    """One team's moves in one write transaction (see the module doc)."""

    def __init__(self, conn: Connection, world: WorldRow, team: str):
        self.conn = conn
        self.world = world
        self.team = team
        self.knowledge = ChunkKnowledge(lambda keys: load_chunks(conn, world.id, team, keys))
        self._moves: list[tuple[str, MoveRecord]] = []
        self._colour_changes: dict[str, int] = {}
        self._drops: dict[str, datetime] = {}
        self.at = utcnow()
        self.flies = conn.dialect.name == "postgresql"
        """``finish_and_commit`` ends the transaction in one flight (``app.world.flight``)."""
        self.committed = False
        self.opened_player: PlayerRow | None = None
        """The player read with the team's row (``WorldStore.team(..., player=)``)."""
        self.raft: PendingRaft | None = None
        """A keyed raft's answer, stored with its events (``app.world.idempotency``)."""
        self.judged: JudgedOn | None = None
        """What the raft judged ahead read (``WorldStore.team_ahead``): the commit's flight
        takes the team's row and checks it first (``app.world.flight``)."""
        self.flight = 0.0
        """Seconds ``finish_and_commit``'s flight took (PostgreSQL)."""

    def player(self, player_id: str) -> PlayerRow:
        """The player as of now (read under the team's lock)."""
        if self.opened_player is not None and self.opened_player.id == player_id:
            return self.opened_player
        row = self.conn.execute(SELECT_PLAYER, {"p": player_id}).mappings().first()
        if row is None or row["world"] != self.world.id or row["team"] != self.team:
            raise NoSuchPlayer(player_id)
        return player_row(row)

    def record(self, player: str, move: MoveRecord) -> None:
        """Log ``move`` (its cells already applied to ``knowledge`` by the caller)."""
        if move.kind not in EVENT_KINDS:
            raise ValueError(f"unknown world event kind {move.kind!r}")
        self._moves.append((player, move))
        if move.kind == "drop":
            self._drops[player] = self.at

    def switch_colour(self, player: str, colour: int) -> None:
        self._colour_changes[player] = colour
        self._moves.append((player, MoveRecord("colour", None, None, "switched", colour)))

    def finish(self) -> list[int]:
        """Write chunks, counters, colour switches and events; the events' seqs, in order.
        The caller's block commits (or rolls back if it raises afterwards)."""
        conn, w, t = self.conn, self.world.id, self.team
        if not self._moves:
            return []
        moves = [move for _, move in self._moves]
        # 1. chunks
        self._write_chunks()
        # 2. counters and the team's seqs
        total = counts_of(moves)
        deltas = {f"d_{k}": v for k, v in total.items()}
        last = int(
            conn.execute(_BUMP_TEAM, {"w": w, "t": t, "n": len(moves), **deltas}).scalar_one()
        )
        first = last - len(moves) + 1
        by_player: dict[str, list[MoveRecord]] = {}
        for player, move in self._moves:
            by_player.setdefault(player, []).append(move)
        bumps = [
            {"p": player, **{f"d_{k}": v for k, v in counts_of(mine).items()}}
            for player, mine in by_player.items()
        ]
        conn.execute(_BUMP_PLAYER, bumps)
        for player, colour in self._colour_changes.items():
            conn.execute(players.update().where(players.c.id == player).values(colour=colour))
        for player, when in self._drops.items():
            conn.execute(players.update().where(players.c.id == player).values(last_drop_at=when))
        # 3. events
        rows = [
            {
                "world": w,
                "seq": first + i,
                "team": t,
                "player": player,
                "colour": move.colour,
                "kind": move.kind,
                "x": move.x,
                "y": move.y,
                "outcome": move.outcome,
                "opened": len(move.cells),
                "changes": encode_cells(move.x, move.y, move.cells),
                "at": self.at,
            }
            for i, (player, move) in enumerate(self._moves)
        ]
        conn.execute(events.insert(), rows)
        if self.raft is not None:
            remember(conn, w, self.raft, last, self.at)
        self._moves.clear()
        return list(range(first, last + 1))

    def finish_and_commit(self, notice: SqlWire | None = None) -> list[int]:
        """``finish``, the transaction's last step. On PostgreSQL (``flies``) it commits too,
        in one flight with ``notice`` (``app.world.flight``): nothing may use ``conn``
        afterwards. Elsewhere the caller's block commits and ``notice`` must be None
        (notify through the outbox)."""
        if not self.flies:
            if notice is not None:
                raise ValueError("a notification in SQL needs PostgreSQL")
            return self.finish()
        if not self._moves:
            return []
        count = len(self._moves)
        dirty = self.knowledge.dirty()
        started = time.perf_counter()
        last = append_and_commit(
            self.conn,
            self.world.id,
            self.team,
            self.at,
            self._moves,
            self._colour_changes,
            self._drops,
            dirty,
            notice,
            self.raft,
            self.judged,
        )
        self.flight = time.perf_counter() - started
        self.committed = True
        self.knowledge.written(
            {k: 1 if version is None else version + 1 for k, (_, version) in dirty.items()}
        )
        self._moves.clear()
        return list(range(last - count + 1, last + 1))

    def _write_chunks(self) -> None:
        dirty = self.knowledge.dirty()
        if not dirty:
            return
        conn, w, t = self.conn, self.world.id, self.team
        new = [
            {"world": w, "team": t, "layer": k[0], "cx": k[1], "cy": k[2], "cells": cells,
             "version": 1}
            for k, (cells, version) in dirty.items()
            if version is None
        ]  # fmt: skip
        old = [
            {"w": w, "t": t, "k_layer": k[0], "k_cx": k[1], "k_cy": k[2],
             "old_version": version, "new_version": version + 1, "new_cells": cells}
            for k, (cells, version) in dirty.items()
            if version is not None
        ]  # fmt: skip
        if new:
            conn.execute(_INSERT_CHUNK, new)
        # one executemany (psycopg pipelines it: one wait, not one per chunk); both dialects
        # count the rows it changed (``supports_sane_multi_rowcount``)
        if old and conn.execute(_UPDATE_CHUNK, old).rowcount != len(old):
            keys = ", ".join(f"{p['k_layer']},{p['k_cx']},{p['k_cy']}" for p in old)
            raise ChunkRace(f"a chunk among {keys} of team {t!r} changed under its lock")
        self.knowledge.written(
            {k: 1 if version is None else version + 1 for k, (_, version) in dirty.items()}
        )
