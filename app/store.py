"""The game store: games and their append-only event logs, in SQLite or PostgreSQL.

SQLAlchemy Core, two tables:

``games``
    one row per game: ``id`` (short random URL-safe string), ``params`` (JSON,
    ``GameParams.to_dict()``), ``owner`` (browser owner id or NULL), ``token_hash``
    (sha256 hex of the API bearer token), ``created_at``, and a *derived* summary
    (``status``, ``moves``, ``last_seq``, ``updated_at``) that is kept up to date on
    every append and can be rebuilt from the log at any time.
``events``
    the log: ``(game_id, seq)`` is the primary key, so a duplicated sequence number
    is impossible; ``seq`` starts at 1 and has no gaps. ``kind`` is one of
    ``reveal``/``flag``/``unflag``/``chord`` (moves) or ``hint`` (``extra`` = level).

``append_event(game_id, expected_seq, ...)`` is the only writer of the log. It takes
a write lock first (``BEGIN IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` of the
game row on PostgreSQL), checks that the log really ends at ``expected_seq - 1``
and raises ``SequenceConflict`` otherwise: a race fails instead of duplicating.

The schema is created by the alembic migrations in ``app/migrations`` (``migrate``),
never by ``metadata.create_all``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import sqlalchemy as sa
from flask import Flask, current_app
from flask.cli import with_appcontext
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection, Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

EVENT_KINDS = ("reveal", "flag", "unflag", "chord", "hint")
"""Every kind an event may have. The first four are moves; ``hint`` is a hint request."""

MOVE_KINDS = frozenset(EVENT_KINDS[:4])

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("params", sa.JSON, nullable=False),
    sa.Column("owner", sa.String(64), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("last_seq", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_games_owner_created", "owner", "created_at"),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column(
        "game_id",
        sa.String(32),
        sa.ForeignKey("games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("row", sa.Integer, nullable=True),
    sa.Column("col", sa.Integer, nullable=True),
    sa.Column("extra", sa.JSON, nullable=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
    sa.CheckConstraint(
        "kind IN ('reveal', 'flag', 'unflag', 'chord', 'hint')", name="ck_events_kind"
    ),
)


# -- statements used on every click, built once ---------------------------------------
# A statement object built once keeps its SQLAlchemy cache key, so executing it again
# skips building and compiling it (the bulk of a query's Python cost here).

_GAME_ID = sa.bindparam("game_id", type_=sa.String(32))

_SELECT_GAME = games.select().where(games.c.id == _GAME_ID)

_LOG_END = (
    sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0))
    .where(events.c.game_id == _GAME_ID)
    .scalar_subquery()
    .label("log_end")
)

_SELECT_HEAD = sa.select(games, _LOG_END).where(games.c.id == _GAME_ID)
"""The game row and where its log really ends, in one query."""

_SELECT_LAST_SEQ = sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0)).where(
    events.c.game_id == _GAME_ID
)

_LOCK_GAME = sa.select(games.c.id).where(games.c.id == _GAME_ID).with_for_update()
"""PostgreSQL: hold the game's row (then read the log end in a second statement)."""

_LOCKED_LOG_END = sa.select(games.c.id, _LOG_END).where(games.c.id == _GAME_ID)
"""SQLite: ``BEGIN IMMEDIATE`` already holds the database, so existence and log end
are one statement."""

_INSERT_EVENT = events.insert()

_UPDATE_SEQ = (
    games.update()
    .where(games.c.id == _GAME_ID)
    .values(last_seq=sa.bindparam("new_seq"), updated_at=sa.bindparam("new_at"))
)

_UPDATE_SEQ_AND_SUMMARY = (
    games.update()
    .where(games.c.id == _GAME_ID)
    .values(
        last_seq=sa.bindparam("new_seq"),
        updated_at=sa.bindparam("new_at"),
        status=sa.bindparam("new_status"),
        moves=sa.bindparam("new_moves"),
    )
)


# -- values ----------------------------------------------------------------------------


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes: they were stored in UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class GameRow:
    """One row of ``games``. ``status``/``moves``/``last_seq`` are a derived summary."""

    id: str
    params: Mapping[str, Any]
    owner: str | None
    token_hash: str
    created_at: datetime
    status: str
    moves: int
    last_seq: int
    updated_at: datetime


@dataclass(frozen=True)
class Event:
    """One entry of a game's log."""

    game_id: str
    seq: int
    kind: str
    row: int | None
    col: int | None
    extra: Any
    at: datetime

    @property
    def is_move(self) -> bool:
        return self.kind in MOVE_KINDS


@dataclass(frozen=True)
class Summary:
    """The derived columns written together with an event."""

    status: str
    moves: int


class StoreError(RuntimeError):
    """Base class of the store's own errors."""


class SequenceConflict(StoreError):
    """``append_event`` lost a race: the log does not end where the caller expected."""

    def __init__(self, game_id: str, expected_seq: int, last_seq: int):
        super().__init__(
            f"game {game_id}: expected to append event {expected_seq} but the log ends at "
            f"{last_seq}"
        )
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.last_seq = last_seq


class NoSuchGame(StoreError, LookupError):
    def __init__(self, game_id: str):
        super().__init__(f"game {game_id!r} does not exist")
        self.game_id = game_id


# -- engine ----------------------------------------------------------------------------


def _configure_sqlite(engine: Engine) -> None:
    """WAL, busy timeout and foreign keys on every connection; transactions we begin.

    pysqlite's own transaction handling is switched off (``isolation_level = None``)
    so that ``BEGIN`` is emitted here: ``BEGIN IMMEDIATE`` when the connection asks for
    it with ``execution_options(sqlite_begin="IMMEDIATE")``, nothing for ``"NONE"``
    (single-statement reads run in autocommit: each statement sees one snapshot), plain
    ``BEGIN`` otherwise.
    """

    @sa_event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @sa_event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode != "NONE":
            conn.exec_driver_sql(f"BEGIN {mode}")


def make_engine(url: str) -> Engine:
    """An engine for ``url`` with the per-dialect settings the store relies on."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            parsed,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=8,
            max_overflow=24,
        )
        _configure_sqlite(engine)
        return engine
    return sa.create_engine(parsed, pool_pre_ping=True, pool_size=5, max_overflow=20)


# -- the store -------------------------------------------------------------------------


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
            row = conn.execute(_SELECT_GAME, {"game_id": game_id}).mappings().first()
        return _game_row(row) if row is not None else None

    def get_head(self, game_id: str) -> tuple[GameRow, int] | None:
        """The game's row and the sequence number its log really ends at, in one query."""
        with self._read() as conn:
            row = conn.execute(_SELECT_HEAD, {"game_id": game_id}).mappings().first()
        if row is None:
            return None
        return _game_row(row), int(row["log_end"])

    def games_by_owner(self, owner: str, limit: int = 20) -> list[GameRow]:
        """The owner's games, newest first."""
        query = (
            games.select()
            .where(games.c.owner == owner)
            .order_by(games.c.created_at.desc(), games.c.id)
            .limit(limit)
        )
        with self._read() as conn:
            return [_game_row(row) for row in conn.execute(query).mappings()]

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
                found = conn.execute(_LOCKED_LOG_END, key).first()
                if found is None:
                    raise NoSuchGame(game_id)
                yield LogWriter(conn, game_id, int(found[1]))
                return
            if conn.execute(_LOCK_GAME, key).first() is None:
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
                _INSERT_EVENT,
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
            conn.execute(_UPDATE_SEQ, changes)
        else:
            changes.update(new_status=summary.status, new_moves=summary.moves)
            conn.execute(_UPDATE_SEQ_AND_SUMMARY, changes)
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
    return [_event(row) for row in rows]


def _last_seq(conn: Connection, game_id: str) -> int:
    return int(conn.execute(_SELECT_LAST_SEQ, {"game_id": game_id}).scalar_one())


def _game_row(row: Any) -> GameRow:
    return GameRow(
        id=row["id"],
        params=row["params"],
        owner=row["owner"],
        token_hash=row["token_hash"],
        created_at=as_utc(row["created_at"]),
        status=row["status"],
        moves=row["moves"],
        last_seq=row["last_seq"],
        updated_at=as_utc(row["updated_at"]),
    )


def _event(row: Any) -> Event:
    return Event(
        game_id=row["game_id"],
        seq=row["seq"],
        kind=row["kind"],
        row=row["row"],
        col=row["col"],
        extra=row["extra"],
        at=as_utc(row["at"]),
    )


# -- Flask glue ------------------------------------------------------------------------


def get_store() -> Store:
    """The current app's store (one per app, shared by all requests and threads)."""
    store: Store = current_app.extensions["mine_devil.store"]
    return store


def get_engine(app: Flask) -> Engine:
    """``app``'s store engine (for extensions such as the notifier)."""
    store: Store = app.extensions["mine_devil.store"]
    return store.engine


def init_app(app: Flask) -> None:
    """Open the store for ``app.config["DATABASE_URL"]``, migrate it, add ``init-db``."""
    store = Store(app.config["DATABASE_URL"])
    app.extensions["mine_devil.store"] = store
    if app.config.get("AUTO_MIGRATE", True):
        store.migrate()
    app.cli.add_command(init_db_command)


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create or upgrade the database schema (alembic migrations)."""
    store = get_store()
    store.migrate()
    click.echo(f"Database at revision {store.revision()}: {_safe_url(store.url)}")


def _safe_url(url: str) -> str:
    return sa.make_url(url).render_as_string(hide_password=True)


__all__: Sequence[str] = (
    "EVENT_KINDS",
    "Event",
    "GameRow",
    "LogWriter",
    "NoSuchGame",
    "SequenceConflict",
    "Store",
    "Summary",
    "get_store",
    "hash_token",
    "init_app",
)
