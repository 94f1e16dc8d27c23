"""``Store``: games and their append-only logs behind one SQLAlchemy engine; ``LogWriter``:
one game's log inside a write transaction. ``append_event`` / ``LogWriter.append`` are the
only writers of the log."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.store.database import make_engine
from app.store.records import (
    Event,
    GameRow,
    NoSuchGame,
    SequenceConflict,
    Summary,
    event_record,
    game_record,
    utcnow,
)
from app.store.schema import (
    EVENT_KINDS,
    INSERT_EVENT,
    LOCK_GAME,
    LOCKED_LOG_END,
    SELECT_GAME,
    SELECT_HEAD,
    SELECT_LAST_SEQ,
    UPDATE_SEQ,
    UPDATE_SEQ_AND_SUMMARY,
    events,
    games,
)

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


class Store:
    """Games and event logs behind one SQLAlchemy engine. Thread-safe."""

    def __init__(self, url: str):
        self.url = url
        self.engine = make_engine(url)
        self.dialect = self.engine.dialect.name

    # -- transactions ----------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        """A connection for reads that each run as one statement."""
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                conn = conn.execution_options(sqlite_begin="NONE")
            with conn.begin():
                yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A write transaction: ``BEGIN IMMEDIATE`` on SQLite (one writer at a time)."""
        with self.engine.connect() as conn:
            if self.dialect == "sqlite":
                conn = conn.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                yield conn

    # -- schema ----------------------------------------------------------------------------

    def migrate(self) -> None:
        """Bring the schema to the newest alembic revision (safe to call concurrently)."""
        from alembic import command
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._write() as conn:
            if self.dialect == "postgresql":
                # Two processes migrating at once wait for each other.
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(7420061)"))
            config.attributes["connection"] = conn
            command.upgrade(config, "head")

    def revision(self) -> str | None:
        """The schema's alembic revision, None before the first migration."""
        from alembic.runtime.migration import MigrationContext

        with self._read() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    def ping(self) -> None:
        """Raise if the database cannot answer a query on the games table."""
        with self._read() as conn:
            conn.execute(sa.select(sa.func.count()).select_from(games).limit(1))

    def dispose(self) -> None:
        self.engine.dispose()

    # -- games -----------------------------------------------------------------------------

    def insert_game(
        self,
        game_id: str,
        params: Mapping[str, Any],
        token_hash: str,
        owner: str | None = None,
        created_at: datetime | None = None,
    ) -> GameRow:
        now = created_at or utcnow()
        values = {
            "id": game_id,
            "params": dict(params),
            "owner": owner,
            "token_hash": token_hash,
            "created_at": now,
            "status": "playing",
            "moves": 0,
            "last_seq": 0,
            "updated_at": now,
        }
        with self._write() as conn:
            conn.execute(games.insert().values(**values))
        return GameRow(**values)  # type: ignore[arg-type]

    def get_game(self, game_id: str) -> GameRow | None:
        with self._read() as conn:
            row = conn.execute(SELECT_GAME, {"game_id": game_id}).mappings().first()
        return game_record(row) if row is not None else None

    def get_head(self, game_id: str) -> tuple[GameRow, int] | None:
        """The game's row and the sequence number its log really ends at, in one query."""
        with self._read() as conn:
            row = conn.execute(SELECT_HEAD, {"game_id": game_id}).mappings().first()
        if row is None:
            return None
        return game_record(row), int(row["log_end"])

    def games_by_owner(self, owner: str, limit: int = 20) -> list[GameRow]:
        """The owner's games, newest first."""
        query = (
            games.select()
            .where(games.c.owner == owner)
            .order_by(games.c.created_at.desc(), games.c.id)
            .limit(limit)
        )
        with self._read() as conn:
            return [game_record(row) for row in conn.execute(query).mappings()]

    def update_summary(self, game_id: str, summary: Summary, last_seq: int) -> None:
        """Overwrite the derived columns (used when rebuilding them from the log)."""
        with self._write() as conn:
            conn.execute(
                games.update()
                .where(games.c.id == game_id)
                .values(status=summary.status, moves=summary.moves, last_seq=last_seq)
            )

    def game_ids(self) -> list[str]:
        with self._read() as conn:
            return list(conn.execute(sa.select(games.c.id).order_by(games.c.id)).scalars())

    # -- the log ---------------------------------------------------------------------------

    def last_seq(self, game_id: str) -> int:
        """The sequence number of the log's last event (0 for an empty log), read from the log."""
        with self._read() as conn:
            return _last_seq(conn, game_id)

    def events(self, game_id: str, after: int = 0, upto: int | None = None) -> list[Event]:
        """The log in order, events with ``after < seq <= upto``."""
        with self._read() as conn:
            return _events(conn, game_id, after, upto)

    @contextmanager
    def locked(self, game_id: str) -> Iterator[LogWriter]:
        """A write transaction holding ``game_id``'s log: nobody else can append until it
        ends (``SELECT ... FOR UPDATE`` on PostgreSQL; ``BEGIN IMMEDIATE`` on SQLite, which
        holds the whole database, so keep it short). An exception rolls everything back."""
        key = {"game_id": game_id}
        with self._write() as conn:
            if self.dialect == "sqlite":
                # BEGIN IMMEDIATE holds every writer off already: one statement.
                found = conn.execute(LOCKED_LOG_END, key).first()
                if found is None:
                    raise NoSuchGame(game_id)
                yield LogWriter(conn, game_id, int(found[1]))
                return
            if conn.execute(LOCK_GAME, key).first() is None:
                raise NoSuchGame(game_id)
            # A separate statement, so that on PostgreSQL (read committed) it sees every
            # event committed before the lock was granted.
            yield LogWriter(conn, game_id, _last_seq(conn, game_id))

    def append_event(
        self,
        game_id: str,
        expected_seq: int,
        kind: str,
        row: int | None = None,
        col: int | None = None,
        extra: Any = None,
        at: datetime | None = None,
        summary: Summary | None = None,
    ) -> Event:
        """Append event number ``expected_seq``; raise ``SequenceConflict`` if it is taken.

        ``summary`` (for moves) updates the derived columns in the same transaction.
        """
        _check_kind(kind)
        with self.locked(game_id) as log:
            return log.append(expected_seq, kind, row, col, extra, at, summary)


class LogWriter:
    """One game's log inside a ``Store.locked`` transaction."""

    def __init__(self, conn: Connection, game_id: str, last_seq: int):
        self.conn = conn
        self.game_id = game_id
        self._last = last_seq  # read under the lock; only this writer can change it

    def last_seq(self) -> int:
        return self._last

    def events(self, after: int = 0, upto: int | None = None) -> list[Event]:
        return _events(self.conn, self.game_id, after, upto)

    def append(
        self,
        expected_seq: int,
        kind: str,
        row: int | None = None,
        col: int | None = None,
        extra: Any = None,
        at: datetime | None = None,
        summary: Summary | None = None,
    ) -> Event:
        """Append event ``expected_seq`` (SequenceConflict unless the log ends just before)."""
        _check_kind(kind)
        conn, game_id = self.conn, self.game_id
        when = at or utcnow()
        last = self._last
        if last != expected_seq - 1:
            raise SequenceConflict(game_id, expected_seq, last)
        try:
            conn.execute(
                INSERT_EVENT,
                {
                    "game_id": game_id,
                    "seq": expected_seq,
                    "kind": kind,
                    "row": row,
                    "col": col,
                    "extra": extra,
                    "at": when,
                },
            )
        except sa.exc.IntegrityError as exc:  # a writer that bypassed the lock
            raise SequenceConflict(game_id, expected_seq, last) from exc
        changes: dict[str, Any] = {"game_id": game_id, "new_seq": expected_seq, "new_at": when}
        if summary is None:
            conn.execute(UPDATE_SEQ, changes)
        else:
            changes.update(new_status=summary.status, new_moves=summary.moves)
            conn.execute(UPDATE_SEQ_AND_SUMMARY, changes)
        self._last = expected_seq
        return Event(game_id, expected_seq, kind, row, col, extra, when)


def _check_kind(kind: str) -> None:
    if kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {kind!r}: expected one of {EVENT_KINDS}")


def _events(conn: Connection, game_id: str, after: int, upto: int | None) -> list[Event]:
    query = events.select().where(events.c.game_id == game_id, events.c.seq > after)
    if upto is not None:
        query = query.where(events.c.seq <= upto)
    rows = conn.execute(query.order_by(events.c.seq)).mappings().all()
    return [event_record(row) for row in rows]


def _last_seq(conn: Connection, game_id: str) -> int:
    return int(conn.execute(SELECT_LAST_SEQ, {"game_id": game_id}).scalar_one())
