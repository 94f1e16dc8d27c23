"""The Devil World store: worlds, players, teams, the event log and knowledge chunks.

Every move goes through ``WorldStore.team(world, team)``, a write transaction that holds
the team (``SELECT ... FOR UPDATE`` of its row on PostgreSQL; ``BEGIN IMMEDIATE`` on SQLite,
which holds the whole database), or on PostgreSQL first through ``team_ahead``, whose one
commit flight takes the row, checks what the raft's judgement read and writes
(``app.world.flight``): moves of one team are serialized, so no reveal is lost and none is
counted twice. Inside it the engine reads ``TeamTransaction.knowledge`` (chunks
loaded on demand), the moves are recorded, and ``finish`` writes the changed chunks
(version + 1, checked), the players' counters, the team's counters with its next sequence
numbers (``UPDATE world_teams ... RETURNING last_seq``) and the events. Each team numbers
its own log: seqs are taken under the team's lock and released by the commit, so a team's
transactions commit in sequence order and its log has no gaps: a reader of the team's feed
that has seen seq ``n`` never later finds a new event of the team below ``n``. Nothing a
move writes is shared by two teams, so teams of one world commit side by side.

The schema is in ``app.world.schema``; it is created by the alembic migration ``0002``.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from app import metrics
from app.world import hotreads
from app.world.chunks import ChunkKey, ChunkKnowledge, StoredChunk, chunk_range
from app.world.flight import open_team
from app.world.idempotency import RaftKey, Remembered, recall
from app.world.records import (
    Counts,
    NewPlayer,
    NoSuchPlayer,
    NoSuchWorld,
    PlayerRow,
    Standing,
    WorldEvent,
    WorldExists,
    WorldRow,
    as_utc,
    hash_token,
    player_row,
    utcnow,
    world_event,
)
from app.world.schema import events, players, teams, worlds
from app.world.team import (
    LOCK_TEAM,
    LOGGED,
    PLAYER_BY_TOKEN,
    SELECT_PLAYER,
    TEAM_EXISTS,
    TEAM_HEAD,
    WORLD_EXISTS,
    KeyedLocks,
    TeamTransaction,
)


def _rows_pausing(result: sa.CursorResult[Any], pause: Callable[[], None]) -> Iterator[Any]:
    """``result``'s rows, fetched 1,000 at a time with ``pause()`` between."""
    for chunk in result.partitions(1000):
        yield from chunk
        pause()


_EVENT_HEADS = [c for c in events.c if c.name != "changes"]
"""An event's columns but its cells (``WorldStore.newest_events_without_cells``)."""
WORLD_ORDER = (events.c.at, events.c.team, events.c.seq)
"""The world's events in the order they were logged: each team's seqs order its own events,
the commit time orders teams (events of one raft share it)."""


# -- the store -------------------------------------------------------------------------


class WorldStore:
    """Devil World's tables behind the app's SQLAlchemy engine. Thread-safe."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.dialect = engine.dialect.name
        self._worlds: dict[str, WorldRow] = {}  # immutable rows: id, colours, key
        self._tokens: dict[str, PlayerRow] = {}  # token hash -> player (world, team fixed)
        self._teams: set[tuple[str, str]] = set()  # (world, team) known to exist
        self._locks = KeyedLocks()

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                conn = conn.execution_options(sqlite_begin="DEFERRED")
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """Reads that need no snapshot across their statements: on PostgreSQL in autocommit,
        which spares each its ``BEGIN`` and ``COMMIT`` (two waits for the server each, under
        a busy worker two waits behind its other requests)."""
        if self.dialect != "postgresql":
            with self._snapshot() as conn:
                yield conn
            return
        with self.engine.connect() as conn:
            yield conn.execution_options(isolation_level="AUTOCOMMIT")

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                conn = conn.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                yield conn

    def reading(self) -> AbstractContextManager[Connection]:
        """A read transaction: one snapshot of the world (``app.world.judging``)."""
        return self._snapshot()

    def queue(self, world: str, team: str) -> AbstractContextManager[None]:
        """This process's queue for ``team``, as ``team`` takes it: held around a
        transaction, it keeps the team's other moves of this process out meanwhile."""
        return self._locks.hold((world, team))

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
        """``players``, ``teams``, ``moves`` (logged moves) and ``seq`` (events logged: the
        teams' heads added), from the teams' counters in one query."""
        self.world(world)
        n_players = (
            sa.select(sa.func.count()).select_from(players).where(players.c.world == world)
        ).scalar_subquery()
        query = sa.select(
            n_players,
            sa.func.count(),
            sa.func.coalesce(sa.func.sum(teams.c.moves), 0),
            sa.func.coalesce(sa.func.sum(teams.c.last_seq), 0),
        ).where(teams.c.world == world)
        with self._read() as conn:
            n, n_teams, moves, seq = conn.execute(query).one()
        return {"players": int(n), "teams": int(n_teams), "moves": int(moves), "seq": int(seq)}

    def head(self, world: str) -> int:
        """Events logged in the world (its teams' heads added): grows with every event."""
        with self._read() as conn:
            if conn.execute(WORLD_EXISTS, {"w": world}).first() is None:
                raise NoSuchWorld(world)
            return int(conn.execute(LOGGED, {"w": world}).scalar_one())

    def team_head(self, world: str, team: str) -> int:
        """The team's last seq (0 before its first event)."""
        with self._read() as conn:
            value = conn.execute(TEAM_HEAD, {"w": world, "t": team}).scalar_one_or_none()
        if value is None:
            raise NoSuchPlayer(f"team {team!r} of world {world!r}")
        return int(value)

    # -- players --
    def add_player(self, world: str, name: str, team: str, colour: int) -> NewPlayer:
        self.world(world)
        token = secrets.token_urlsafe(32)
        now = utcnow()
        row = PlayerRow(secrets.token_urlsafe(12), world, team, name, colour, None)
        with self._write() as conn:
            if conn.execute(TEAM_EXISTS, {"w": world, "t": team}).first() is None:
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
        """The token's player. Its id, world and team never change, so they are remembered
        (bounded); its colour and last drop are read again under the team's lock by moves."""
        digest = hash_token(token)
        known = self._tokens.get(digest)
        if known is not None:
            return known
        with self._read() as conn:
            row = conn.execute(PLAYER_BY_TOKEN, {"h": digest}).mappings().first()
        if row is None:
            return None
        player = player_row(row)
        if len(self._tokens) >= 10_000:
            self._tokens.clear()
        self._tokens[digest] = player
        return player

    def player(self, player_id: str) -> PlayerRow:
        with self._read() as conn:
            row = conn.execute(SELECT_PLAYER, {"p": player_id}).mappings().first()
        if row is None:
            raise NoSuchPlayer(player_id)
        return player_row(row)

    # -- moves --
    @contextmanager
    def team(
        self,
        world: str,
        team: str,
        timings: dict[str, float] | None = None,
        player: str | None = None,
        keys: Sequence[ChunkKey] = (),
    ) -> Iterator[TeamTransaction]:
        """A write transaction holding ``team`` of ``world``; commits when the block ends
        (call ``finish`` or ``finish_and_commit`` inside it), rolls back on an exception.

        On PostgreSQL, ``player`` (an id) and the chunks ``keys`` are read together with
        the team's row, in one round trip (``app.world.flight.open_team``): ``tx.player``
        and ``tx.knowledge`` then answer without a query. ``timings`` (if given) receives
        wall ms: ``queue`` (this process's queue for the team), ``lock`` (taking the team
        row), ``work`` (the block), ``commit`` (the end of the block to the commit seen)."""
        row = self.world(world)
        t0 = time.perf_counter()
        # This process's moves of the team queue here, holding no database connection: a
        # crowd of one team's requests cannot take the whole pool while they wait.
        with self._locks.hold((world, team)):
            t1 = time.perf_counter()
            with self._write() as conn:
                opened: PlayerRow | None = None
                found: dict[ChunkKey, StoredChunk] = {}
                if self.dialect == "postgresql" and player is not None:
                    exists, opened, found = open_team(conn, world, team, player, keys)
                else:
                    lock = LOCK_TEAM if self.dialect == "postgresql" else TEAM_EXISTS
                    exists = conn.execute(lock, {"w": world, "t": team}).first() is not None
                if not exists:
                    raise NoSuchPlayer(f"team {team!r} of world {world!r}")
                t2 = time.perf_counter()
                tx = TeamTransaction(conn, row, team)
                if opened is not None:
                    tx.opened_player = opened
                    tx.knowledge.preload(keys, found)
                yield tx
                t3 = time.perf_counter()
            t4 = time.perf_counter()
        metrics.WORLD_LOCK_SECONDS.observe(t2 - t1)
        metrics.WORLD_COMMIT_SECONDS.observe(t4 - t3)
        if timings is not None:
            timings.update(
                queue=(t1 - t0) * 1e3,
                lock=(t2 - t1) * 1e3,
                work=(t3 - t2) * 1e3,
                commit=(t4 - t3) * 1e3,
            )

    @contextmanager
    def team_ahead(
        self, world: str, team: str, timings: dict[str, float] | None = None
    ) -> Iterator[TeamTransaction]:
        """A team transaction for a raft judged ahead (PostgreSQL): its connection is in
        autocommit and takes nothing until ``finish_and_commit``, which begins, takes the
        team's row, checks what the judgement read (``tx.judged``), writes and commits in one
        flight (``app.world.flight``; ``Stale`` if the check fails). ``timings`` as ``team``,
        but ``connect`` (the connection's checkout) instead of ``lock`` (0: no wait for the
        row in the app) and ``work`` only the commit's flight, which holds the row for part
        of it (the judgement's time is the caller's)."""
        row = self.world(world)
        t0 = time.perf_counter()
        with self._locks.hold((world, team)):
            t1 = time.perf_counter()
            with self.engine.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                t2 = time.perf_counter()
                tx = TeamTransaction(conn, row, team)
                yield tx
                t3 = time.perf_counter()
            t4 = time.perf_counter()
        metrics.WORLD_COMMIT_SECONDS.observe(tx.flight + t4 - t3)
        if timings is not None:
            timings.update(
                queue=(t1 - t0) * 1e3,
                connect=(t2 - t1) * 1e3,
                lock=0.0,
                work=tx.flight * 1e3,
                commit=(t4 - t3) * 1e3,
            )

    # -- reading --
    def team_known(self, world: str, team: str) -> bool:
        """Whether ``world`` has ``team`` (remembered once known: teams are never removed)."""
        if (world, team) in self._teams:
            return True
        with self._read() as conn:
            known = conn.execute(TEAM_EXISTS, {"w": world, "t": team}).first() is not None
        if known:
            if len(self._teams) >= 10_000:
                self._teams.clear()
            self._teams.add((world, team))
        return known

    def _hot(self, which: str, params: dict[str, Any]) -> Sequence[Any]:
        """The rows of one of ``app.world.hotreads``' reads (``STATEMENTS``): on psycopg's
        cursor on PostgreSQL, as a SQLAlchemy statement on SQLite."""
        on_postgres, on_sqlite = hotreads.STATEMENTS[which]
        if self.dialect == "postgresql":
            return hotreads.fetch(self.engine, on_postgres, params)
        with self._read() as conn:
            return conn.execute(on_sqlite, params).all()

    def region(
        self, world: str, team: str, layers: Sequence[int], x0: int, y0: int, w: int, h: int
    ) -> tuple[int, ChunkKnowledge]:
        """The team's head and knowledge preloaded with the chunks of the rectangle (only
        those), read in one statement: the chunks are exactly as of the head (a commit
        writes a team's chunks and its head together)."""
        box = chunk_range(x0, y0, w, h)
        rows = self._hot("region", hotreads.box_params(world, team, layers, box))
        if not rows:
            raise NoSuchPlayer(f"team {team!r} of world {world!r}")
        # no chunk found: one row of the head and nulls
        chunk_rows = (row[1:] for row in rows if row[1] is not None)
        return int(rows[0][0]), hotreads.preloaded(chunk_rows, layers, box)

    def chunks_in(
        self, world: str, team: str, layers: Sequence[int], x0: int, y0: int, w: int, h: int
    ) -> ChunkKnowledge:
        """Knowledge preloaded with the rectangle's chunks as they are now (no head: one
        statement that reads the chunks only; a team with none reads as all unknown)."""
        box = chunk_range(x0, y0, w, h)
        rows = self._hot("chunks", hotreads.box_params(world, team, layers, box))
        return hotreads.preloaded(rows, layers, box)

    def team_events(self, world: str, team: str, after: int, limit: int) -> list[WorldEvent]:
        """The team's events with ``seq > after`` in order, at most ``limit``."""
        params = {"w": world, "t": team, "a": after, "n": limit}
        if self.dialect == "postgresql":
            found = hotreads.fetch_dicts(self.engine, hotreads.EVENTS, params)
            return [world_event(row) for row in found]
        with self._read() as conn:
            return [
                world_event(row) for row in conn.execute(hotreads.EVENTS_SQLITE, params).mappings()
            ]

    def events(self, world: str, after: int = 0, limit: int = 1000) -> list[WorldEvent]:
        """The world's events with ``seq > after`` (each team's seq), at most ``limit``, in
        the order they were logged (``at``, then team and seq: ``WORLD_ORDER``)."""
        query = (
            events.select()
            .where(events.c.world == world, events.c.seq > after)
            .order_by(*WORLD_ORDER)
            .limit(limit)
        )
        with self._read() as conn:
            return [world_event(row) for row in conn.execute(query).mappings()]

    def newest_events_without_cells(self, world: str, limit: int) -> list[WorldEvent]:
        """The world's newest ``limit`` events (index ``world, at``), oldest first, without
        their cells: what the activity feed needs."""
        query = (
            sa.select(*_EVENT_HEADS, sa.null().label("changes"))
            .where(events.c.world == world)
            .order_by(*(c.desc() for c in WORLD_ORDER))
            .limit(limit)
        )
        with self._read() as conn:
            found = [world_event(row) for row in conn.execute(query).mappings()]
        return found[::-1]

    def team_events_at(self, world: str, team: str, seqs: Collection[int]) -> list[WorldEvent]:
        """The events of ``team`` among ``seqs`` (in seq order, without their cells): one
        query bounded by the seqs asked, however long the log."""
        if not seqs:
            return []
        query = (
            sa.select(*_EVENT_HEADS, sa.null().label("changes"))
            .where(
                events.c.world == world,
                events.c.team == team,
                events.c.seq.in_(sorted(seqs)),
            )
            .order_by(events.c.seq)
        )
        with self._read() as conn:
            return [world_event(row) for row in conn.execute(query).mappings()]

    def raft_answer(self, world: str, player: str, key: RaftKey) -> Remembered | None:
        """A keyed raft's stored answer (``app.world.idempotency.recall``), read unlocked."""
        with self._read() as conn:
            return recall(conn, world, player, key)

    def player_names(self, ids: Collection[str]) -> dict[str, str]:
        """Player id -> name, for the ids that exist (one query)."""
        if not ids:
            return {}
        query = sa.select(players.c.id, players.c.name).where(players.c.id.in_(sorted(ids)))
        with self._read() as conn:
            return {str(i): str(name) for i, name in conn.execute(query)}

    def standings_probe(self, world: str) -> tuple[int, int, int]:
        """``(events logged, players, teams)`` in one query: what moves when the standings do
        (``app.world.scoreboard`` rebuilds only then)."""
        self.world(world)
        n_players = (
            sa.select(sa.func.count()).select_from(players).where(players.c.world == world)
        ).scalar_subquery()
        query = sa.select(
            sa.func.coalesce(sa.func.sum(teams.c.last_seq), 0), n_players, sa.func.count()
        ).where(teams.c.world == world)
        with self._read() as conn:
            logged, n, n_teams = conn.execute(query).one()
        return int(logged), int(n), int(n_teams)

    def scoreboard(
        self, world: str, pause: Callable[[], None] | None = None
    ) -> tuple[list[Standing], list[Standing]]:
        """Teams and players with their counters (teams by name, players by team, name).
        ``pause`` is called every 1,000 rows read (``app.world.scoreboard``: the build of a
        big world lets the worker's other requests run)."""
        self.world(world)
        names = ("moves", "revealed", "flags", "errors", "drops")
        team_counts = [teams.c[n] for n in names]
        player_counts = [players.c[n] for n in names]
        rest = pause or (lambda: None)
        with self._snapshot() as conn:
            standings = [
                Standing(name, Counts(*map(int, counts)))
                for name, *counts in _rows_pausing(
                    conn.execute(
                        sa.select(teams.c.name, *team_counts)
                        .where(teams.c.world == world)
                        .order_by(teams.c.name)
                    ),
                    rest,
                )
            ]
            people = [
                Standing(name, Counts(*map(int, counts)), team=team, player=pid)
                for name, team, pid, *counts in _rows_pausing(
                    conn.execute(
                        sa.select(players.c.name, players.c.team, players.c.id, *player_counts)
                        .where(players.c.world == world)
                        .order_by(players.c.team, players.c.name, players.c.id)
                    ),
                    rest,
                )
            ]
        return standings, people
