"""The Devil World store: worlds, players, teams, the event log and knowledge chunks.

Every move goes through ``WorldStore.team(world, team)``, a write transaction that holds
the team (``SELECT ... FOR UPDATE`` of its row on PostgreSQL; ``BEGIN IMMEDIATE`` on SQLite,
which holds the whole database): moves of one team are serialized, so no reveal is lost and
none is counted twice. Inside it the engine reads ``TeamTransaction.knowledge`` (chunks
loaded on demand), the moves are recorded, and ``finish`` writes, in this order: the changed
chunks (version + 1, checked), the team's and players' counters, then takes the next
sequence numbers from the world row (``UPDATE ... RETURNING``: that row lock is held only
from here to the commit) and inserts the events. Since numbers are taken under the world
row's lock and released by the commit, transactions commit in sequence order and the log
has no gaps: a reader that has seen seq ``n`` never later finds a new event below ``n``.

The schema is in ``app.world.schema``; it is created by the alembic migration ``0002``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from app.world.chunks import FLAGS, ChunkKey, ChunkKnowledge, StoredChunk, chunk_range
from app.world.schema import chunks, events, players, teams, worlds

Cell = tuple[int, int, str]

MOVE_KINDS = ("reveal", "flag", "drop")
EVENT_KINDS = (*MOVE_KINDS, "colour")


def utcnow() -> datetime:
    from app.store.records import utcnow as now

    return now()


def as_utc(value: datetime | None) -> datetime | None:
    from app.store.records import as_utc as utc

    return None if value is None else utc(value)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# -- values ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WorldRow:
    id: str
    colours: int
    created_at: datetime
    key: bytes = field(repr=False)
    """The secret key: the colours' only source. Never sent to anyone."""


@dataclass(frozen=True)
class PlayerRow:
    id: str
    world: str
    team: str
    name: str
    colour: int
    last_drop_at: datetime | None


@dataclass(frozen=True)
class NewPlayer:
    player: PlayerRow
    token: str
    """The bearer token, shown once; the store keeps only its sha256."""


@dataclass(frozen=True)
class Move:
    """One logged event of a player (a move, or a colour switch)."""

    kind: str
    x: int | None
    y: int | None
    outcome: str
    colour: int
    cells: tuple[Cell, ...] = ()


@dataclass(frozen=True)
class WorldEvent:
    world: str
    seq: int
    team: str
    player: str
    colour: int
    kind: str
    x: int | None
    y: int | None
    outcome: str
    opened: int
    cells: tuple[Cell, ...]
    at: datetime


@dataclass(frozen=True)
class Counts:
    moves: int
    revealed: int
    flags: int
    errors: int
    drops: int

    @staticmethod
    def of(row: sa.RowMapping) -> Counts:
        return Counts(
            int(row["moves"]),
            int(row["revealed"]),
            int(row["flags"]),
            int(row["errors"]),
            int(row["drops"]),
        )


@dataclass(frozen=True)
class Standing:
    """A team's or player's counters on the scoreboard."""

    name: str
    counts: Counts
    team: str | None = None
    player: str | None = None


class WorldStoreError(RuntimeError):
    pass


class WorldExists(WorldStoreError):
    def __init__(self, world: str):
        super().__init__(f"world {world!r} already exists")
        self.world = world


class NoSuchWorld(WorldStoreError, LookupError):
    def __init__(self, world: str):
        super().__init__(f"world {world!r} does not exist")
        self.world = world


class NoSuchPlayer(WorldStoreError, LookupError):
    def __init__(self, player: str):
        super().__init__(f"player {player!r} does not exist")
        self.player = player


class ChunkRace(WorldStoreError):
    """A chunk changed under a team transaction: the team lock was bypassed (a bug)."""


def encode_cells(x: int | None, y: int | None, cells: Sequence[Cell]) -> str | None:
    """``[[dx, dy, symbol], ...]`` relative to the move's cell (compact JSON), None if none."""
    if not cells:
        return None
    ox, oy = x or 0, y or 0
    return json.dumps([[cx - ox, cy - oy, s] for cx, cy, s in cells], separators=(",", ":"))


def decode_cells(x: int | None, y: int | None, text: str | None) -> tuple[Cell, ...]:
    if not text:
        return ()
    ox, oy = x or 0, y or 0
    return tuple((ox + dx, oy + dy, str(s)) for dx, dy, s in json.loads(text))


def _counts_of(moves: Sequence[Move]) -> dict[str, int]:
    c = {"moves": 0, "revealed": 0, "flags": 0, "errors": 0, "drops": 0}
    for move in moves:
        if move.kind == "colour":
            continue
        c["moves"] += 1
        c["drops"] += move.kind == "drop"
        c["errors"] += move.outcome == "devil"
        for _, _, sym in move.cells:
            if sym == "F":
                c["flags"] += 1
            else:
                c["revealed"] += 1
    return c


# -- statements ------------------------------------------------------------------------

_W = sa.bindparam("w", type_=sa.String(64))
_T = sa.bindparam("t", type_=sa.String(32))

_LOCK_TEAM = (
    sa.select(teams.c.name).where(teams.c.world == _W, teams.c.name == _T).with_for_update()
)
_TEAM_EXISTS = sa.select(teams.c.name).where(teams.c.world == _W, teams.c.name == _T)
_TAKE_SEQS = (
    worlds.update()
    .where(worlds.c.id == _W)
    .values(
        last_seq=worlds.c.last_seq + sa.bindparam("n", type_=sa.BigInteger),
        moves=worlds.c.moves + sa.bindparam("m", type_=sa.BigInteger),
    )
    .returning(worlds.c.last_seq)
)
_BUMP_TEAM = (
    teams.update()
    .where(teams.c.world == _W, teams.c.name == _T)
    .values(
        moves=teams.c.moves + sa.bindparam("d_moves"),
        revealed=teams.c.revealed + sa.bindparam("d_revealed"),
        flags=teams.c.flags + sa.bindparam("d_flags"),
        errors=teams.c.errors + sa.bindparam("d_errors"),
        drops=teams.c.drops + sa.bindparam("d_drops"),
    )
)
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
_SELECT_PLAYER = players.select().where(players.c.id == sa.bindparam("p"))
_PLAYER_BY_TOKEN = players.select().where(players.c.token_hash == sa.bindparam("h"))
_HEAD = sa.select(worlds.c.last_seq).where(worlds.c.id == _W)


def _player(row: sa.RowMapping) -> PlayerRow:
    return PlayerRow(
        id=row["id"],
        world=row["world"],
        team=row["team"],
        name=row["name"],
        colour=int(row["colour"]),
        last_drop_at=as_utc(row["last_drop_at"]),
    )


def _event(row: sa.RowMapping) -> WorldEvent:
    x, y = row["x"], row["y"]
    at = as_utc(row["at"])
    assert at is not None
    return WorldEvent(
        world=row["world"],
        seq=int(row["seq"]),
        team=row["team"],
        player=row["player"],
        colour=int(row["colour"]),
        kind=row["kind"],
        x=None if x is None else int(x),
        y=None if y is None else int(y),
        outcome=row["outcome"],
        opened=int(row["opened"]),
        cells=decode_cells(x, y, row["changes"]),
        at=at,
    )


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


# -- the team transaction --------------------------------------------------------------


class TeamTransaction:
    """One team's moves in one write transaction (see the module doc)."""

    def __init__(self, conn: Connection, world: WorldRow, team: str):
        self.conn = conn
        self.world = world
        self.team = team
        self.knowledge = ChunkKnowledge(lambda keys: load_chunks(conn, world.id, team, keys))
        self._moves: list[tuple[str, Move]] = []
        self._colour_changes: dict[str, int] = {}
        self._drops: dict[str, datetime] = {}
        self.at = utcnow()

    def player(self, player_id: str) -> PlayerRow:
        """The player as of now (read under the team's lock)."""
        row = self.conn.execute(_SELECT_PLAYER, {"p": player_id}).mappings().first()
        if row is None or row["world"] != self.world.id or row["team"] != self.team:
            raise NoSuchPlayer(player_id)
        return _player(row)

    def record(self, player: str, move: Move) -> None:
        """Log ``move`` (its cells already applied to ``knowledge`` by the caller)."""
        if move.kind not in EVENT_KINDS:
            raise ValueError(f"unknown world event kind {move.kind!r}")
        self._moves.append((player, move))
        if move.kind == "drop":
            self._drops[player] = self.at

    def switch_colour(self, player: str, colour: int) -> None:
        self._colour_changes[player] = colour
        self._moves.append((player, Move("colour", None, None, "switched", colour)))

    def finish(self) -> list[int]:
        """Write chunks, counters, colour switches and events; the events' seqs, in order."""
        conn, w, t = self.conn, self.world.id, self.team
        if not self._moves:
            return []
        moves = [move for _, move in self._moves]
        # 1. chunks and counters, under the team's lock only
        self._write_chunks()
        total = _counts_of(moves)
        conn.execute(_BUMP_TEAM, {"w": w, "t": t, **{f"d_{k}": v for k, v in total.items()}})
        by_player: dict[str, list[Move]] = {}
        for player, move in self._moves:
            by_player.setdefault(player, []).append(move)
        bumps = [
            {"p": player, **{f"d_{k}": v for k, v in _counts_of(mine).items()}}
            for player, mine in by_player.items()
        ]
        conn.execute(_BUMP_PLAYER, bumps)
        for player, colour in self._colour_changes.items():
            conn.execute(players.update().where(players.c.id == player).values(colour=colour))
        for player, when in self._drops.items():
            conn.execute(players.update().where(players.c.id == player).values(last_drop_at=when))
        # 2. seqs: the world row is locked from here to the commit, so keep this last
        n_moves = sum(1 for m in moves if m.kind != "colour")
        last = int(conn.execute(_TAKE_SEQS, {"w": w, "n": len(moves), "m": n_moves}).scalar_one())
        first = last - len(moves) + 1
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
        self._moves.clear()
        return list(range(first, last + 1))

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
        for params in old:
            if conn.execute(_UPDATE_CHUNK, params).rowcount != 1:
                raise ChunkRace(
                    f"chunk {params['k_layer']},{params['k_cx']},{params['k_cy']} of team "
                    f"{t!r} changed under its lock"
                )
        self.knowledge.written(
            {k: 1 if version is None else version + 1 for k, (_, version) in dirty.items()}
        )


# -- the store -------------------------------------------------------------------------


class WorldStore:
    """Devil World's tables behind the app's SQLAlchemy engine. Thread-safe."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.dialect = engine.dialect.name
        self._worlds: dict[str, WorldRow] = {}  # immutable rows: id, colours, key

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                conn = conn.execution_options(sqlite_begin="DEFERRED")
            with conn.begin():
                yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                conn = conn.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                yield conn

    # -- worlds --
    def create_world(self, world: str, colours: int) -> WorldRow:
        row = WorldRow(world, colours, utcnow(), secrets.token_bytes(32))
        try:
            with self._write() as conn:
                conn.execute(
                    worlds.insert().values(
                        id=row.id,
                        colours=row.colours,
                        secret_key=row.key,
                        created_at=row.created_at,
                        last_seq=0,
                        moves=0,
                    )
                )
        except sa.exc.IntegrityError as exc:
            raise WorldExists(world) from exc
        return row

    def world(self, world: str) -> WorldRow:
        """The world's fixed facts (cached: a world's colours and key never change)."""
        row = self._worlds.get(world)
        if row is not None:
            return row
        with self._read() as conn:
            found = conn.execute(worlds.select().where(worlds.c.id == world)).mappings().first()
        if found is None:
            raise NoSuchWorld(world)
        at = as_utc(found["created_at"])
        assert at is not None
        row = WorldRow(found["id"], int(found["colours"]), at, bytes(found["secret_key"]))
        if len(self._worlds) < 1024:
            self._worlds[world] = row
        return row

    def summary(self, world: str) -> dict[str, int]:
        """``players``, ``teams``, ``moves`` (logged moves) and ``seq`` (the log's head)."""
        self.world(world)
        with self._read() as conn:
            head = conn.execute(
                sa.select(worlds.c.last_seq, worlds.c.moves).where(worlds.c.id == world)
            ).one()
            n_players = conn.execute(
                sa.select(sa.func.count()).select_from(players).where(players.c.world == world)
            ).scalar_one()
            n_teams = conn.execute(
                sa.select(sa.func.count()).select_from(teams).where(teams.c.world == world)
            ).scalar_one()
        return {
            "players": int(n_players),
            "teams": int(n_teams),
            "moves": int(head[1]),
            "seq": int(head[0]),
        }

    def head(self, world: str) -> int:
        with self._read() as conn:
            value = conn.execute(_HEAD, {"w": world}).scalar_one_or_none()
        if value is None:
            raise NoSuchWorld(world)
        return int(value)

    # -- players --
    def add_player(self, world: str, name: str, team: str, colour: int) -> NewPlayer:
        self.world(world)
        token = secrets.token_urlsafe(32)
        now = utcnow()
        row = PlayerRow(secrets.token_urlsafe(12), world, team, name, colour, None)
        with self._write() as conn:
            if conn.execute(_TEAM_EXISTS, {"w": world, "t": team}).first() is None:
                try:
                    with conn.begin_nested():
                        conn.execute(teams.insert().values(world=world, name=team, created_at=now))
                except sa.exc.IntegrityError:
                    pass  # another request created it first
            conn.execute(
                players.insert().values(
                    id=row.id,
                    world=world,
                    team=team,
                    name=name,
                    colour=colour,
                    token_hash=hash_token(token),
                    created_at=now,
                )
            )
        return NewPlayer(row, token)

    def player_by_token(self, token: str) -> PlayerRow | None:
        with self._read() as conn:
            row = conn.execute(_PLAYER_BY_TOKEN, {"h": hash_token(token)}).mappings().first()
        return None if row is None else _player(row)

    def player(self, player_id: str) -> PlayerRow:
        with self._read() as conn:
            row = conn.execute(_SELECT_PLAYER, {"p": player_id}).mappings().first()
        if row is None:
            raise NoSuchPlayer(player_id)
        return _player(row)

    # -- moves --
    @contextmanager
    def team(self, world: str, team: str) -> Iterator[TeamTransaction]:
        """A write transaction holding ``team`` of ``world``; commits when the block ends
        (call ``finish`` inside it), rolls back on an exception."""
        row = self.world(world)
        with self._write() as conn:
            lock = _LOCK_TEAM if self.dialect == "postgresql" else _TEAM_EXISTS
            if conn.execute(lock, {"w": world, "t": team}).first() is None:
                raise NoSuchPlayer(f"team {team!r} of world {world!r}")
            yield TeamTransaction(conn, row, team)

    # -- reading --
    def team_known(self, world: str, team: str) -> bool:
        with self._read() as conn:
            return conn.execute(_TEAM_EXISTS, {"w": world, "t": team}).first() is not None

    def region(
        self, world: str, team: str, layers: Sequence[int], x0: int, y0: int, w: int, h: int
    ) -> tuple[int, ChunkKnowledge]:
        """The log's head, then knowledge preloaded with the chunks of the rectangle (only
        those). The head is read first, so the chunks are at least as new as it."""
        cx0, cy0, cx1, cy1 = chunk_range(x0, y0, w, h)
        with self._read() as conn:
            head = conn.execute(_HEAD, {"w": world}).scalar_one_or_none()
            if head is None:
                raise NoSuchWorld(world)
            query = sa.select(
                chunks.c.layer, chunks.c.cx, chunks.c.cy, chunks.c.cells, chunks.c.version
            ).where(
                chunks.c.world == world,
                chunks.c.team == team,
                chunks.c.layer.in_(list(layers)),
                chunks.c.cx.between(cx0, cx1),
                chunks.c.cy.between(cy0, cy1),
            )
            found = {
                (int(layer), int(cx), int(cy)): StoredChunk(bytes(cells), int(version))
                for layer, cx, cy, cells, version in conn.execute(query)
            }
        knowledge = ChunkKnowledge(lambda keys: {k: found[k] for k in keys if k in found})
        knowledge.prefetch(
            (layer, cx, cy)
            for layer in layers
            for cx in range(cx0, cx1 + 1)
            for cy in range(cy0, cy1 + 1)
        )
        knowledge.fetches = 1
        return int(head), knowledge

    def team_events(self, world: str, team: str, after: int, limit: int) -> list[WorldEvent]:
        """The team's events with ``seq > after`` in order, at most ``limit``."""
        query = (
            events.select()
            .where(events.c.world == world, events.c.team == team, events.c.seq > after)
            .order_by(events.c.seq)
            .limit(limit)
        )
        with self._read() as conn:
            return [_event(row) for row in conn.execute(query).mappings()]

    def events(self, world: str, after: int = 0, limit: int = 1000) -> list[WorldEvent]:
        query = (
            events.select()
            .where(events.c.world == world, events.c.seq > after)
            .order_by(events.c.seq)
            .limit(limit)
        )
        with self._read() as conn:
            return [_event(row) for row in conn.execute(query).mappings()]

    def scoreboard(self, world: str) -> tuple[list[Standing], list[Standing]]:
        """Teams and players with their counters (teams by name, players by team, name)."""
        self.world(world)
        with self._read() as conn:
            team_rows = conn.execute(
                teams.select().where(teams.c.world == world).order_by(teams.c.name)
            ).mappings()
            standings = [Standing(r["name"], Counts.of(r)) for r in team_rows]
            player_rows = conn.execute(
                players.select()
                .where(players.c.world == world)
                .order_by(players.c.team, players.c.name, players.c.id)
            ).mappings()
            people = [
                Standing(r["name"], Counts.of(r), team=r["team"], player=r["id"])
                for r in player_rows
            ]
        return standings, people


def layers_for(colour: int) -> tuple[int, int]:
    """The chunk layers board ``colour`` reads: its numbers and the flags."""
    return (colour, FLAGS)
