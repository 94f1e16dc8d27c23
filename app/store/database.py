"""SQLAlchemy engines with the per-dialect settings the store relies on."""

from __future__ import annotations

import select
import sqlite3
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event as sa_event
from sqlalchemy.engine import Connection, Engine

BUSY_SECONDS = 30.0
"""How long a SQLite writer waits for another writer before the store gives up (a 503)."""
LONGEST_PAUSE = 0.02
"""Longest pause between two tries of ``BEGIN IMMEDIATE`` while another writer holds on."""


def _busy(exc: sa.exc.OperationalError) -> bool:
    orig = exc.orig
    return isinstance(orig, sqlite3.OperationalError) and (
        getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY
        or "database is locked" in str(orig)
    )


def _begin_immediate(conn: Connection) -> None:
    """``BEGIN IMMEDIATE``, waiting for another writer in Python, not inside SQLite.

    SQLite's own busy timeout sleeps in C. In a gevent worker that freezes every request of
    the process (health probes, views, other teams' moves) for as long as a writer in
    *another* process holds the database, and a writer in the *same* process that is
    waiting on its hub can never finish: the two wait on each other until the timeout.
    So the begin tries without SQLite's timeout and sleeps between tries with
    ``time.sleep``, which gevent makes cooperative; within the transaction SQLite's own
    timeout applies again (the write lock is ours by then).
    """
    raw = conn.connection.dbapi_connection  # settings, not statements of the transaction
    assert raw is not None
    raw.execute("PRAGMA busy_timeout = 0")
    try:
        deadline = time.monotonic() + BUSY_SECONDS
        pause = 0.001
        while True:
            try:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
                return
            except sa.exc.OperationalError as exc:
                if not _busy(exc) or time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(2 * pause, LONGEST_PAUSE)
    finally:
        raw.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")


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
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @sa_event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode == "IMMEDIATE":
            _begin_immediate(conn)
        elif mode != "NONE":
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
    # A gevent worker runs dozens of requests at once: with only 5 connections kept, every
    # request beyond them opened a fresh PostgreSQL connection (a backend fork, several
    # round trips) and closed it again (bench/bench_world.py, 100 bots per process). Keep
    # as many as the worker uses; 2 processes x 40 stay below PostgreSQL's default 100.
    # psycopg's automatic prepare is off: on the ROLLBACK of a connection that has statements
    # of its own prepared it sends DEALLOCATE ALL, which would drop the world's (its flights
    # PREPARE theirs once per connection, app/world/prepared.py), and it saved little: the
    # hot reads it prepared were planned again on most calls (pg_stat_statements under
    # bench/bench_world.py: the view 482 plans in 818 calls).
    engine = sa.create_engine(
        parsed, pool_size=20, max_overflow=20, connect_args={"prepare_threshold": None}
    )
    sa_event.listen(engine, "checkout", _ping_if_told)
    return engine


def _ping_if_told(dbapi_connection: Any, *_: Any) -> None:
    """A pooled PostgreSQL connection is pinged only when the server wrote to it while it
    sat idle: a server that restarts or ends the session says so before it closes the
    socket (``terminating connection ...``), so the socket is readable; the ping then
    fails and the pool takes a fresh connection (``DisconnectionError``), as SQLAlchemy's
    ``pool_pre_ping`` would. A connection nothing was said on is handed out without a round
    trip (the ping was one wait for the server per request: 9 % of a gevent worker's
    samples under bench/bench_world.py). A connection lost silently (a network cut) fails
    its first statement instead: a 503, and SQLAlchemy recycles the pool."""
    try:
        readable = select.select([dbapi_connection.fileno()], [], [], 0)[0]
        if not readable:
            return
        dbapi_connection.execute("SELECT 1")
        dbapi_connection.rollback()
    except Exception as exc:
        raise sa.exc.DisconnectionError(f"the server closed this connection: {exc}") from exc
