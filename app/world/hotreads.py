"""The hot reads of the world: on PostgreSQL on psycopg's own cursor, on SQLite as statements.

Every view, every live feed's read of the log and every feed's look at the board is one
small statement. Through SQLAlchemy (``engine.connect()``, autocommit, ``execute``) each cost
370-670 us of CPU, against 180-340 us here and 65-90 us for the bare statement on an open
psycopg cursor (1,000 calls each, back to back, a 1x1-chunk rectangle, load 5-8): the
execution context, the result's processing and the connection's wrapping were the
difference. Under the bots of bench/bench_world.py these reads are several per raft, so
they go straight to the driver: the pool's connection (checked out and in as before, so its
ping and its reset still apply), autocommit for the one statement (a read needs no
``BEGIN``/``COMMIT``; the connection goes back out of autocommit, as it came), parameters
bound by the server (not prepared: see ``app.store.database``). SQLite keeps the
SQLAlchemy statements (below), which read the same rows: the store's tests run on both.

A lost connection is raised as SQLAlchemy's ``OperationalError`` (the 503 with
``Retry-After`` of ``app.errors``, and the feeds' outage handling), and the connection is
invalidated, as SQLAlchemy would.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
import sqlalchemy as sa
from psycopg.rows import dict_row
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from app.world.chunks import ChunkKnowledge, StoredChunk
from app.world.schema import chunks, events, teams

REGION = """
SELECT t.last_seq, c.layer, c.cx, c.cy, c.cells, c.version FROM world_teams t
LEFT JOIN world_chunks c ON c.world = t.world AND c.team = t.name
    AND c.layer = ANY(%(layers)s::smallint[])
    AND c.cx BETWEEN %(cx0)s AND %(cx1)s AND c.cy BETWEEN %(cy0)s AND %(cy1)s
WHERE t.world = %(w)s AND t.name = %(t)s
"""
"""The team's head and a rectangle's chunks (``REGION_SQLITE``)."""
CHUNKS = """
SELECT c.layer, c.cx, c.cy, c.cells, c.version FROM world_chunks c
WHERE c.world = %(w)s AND c.team = %(t)s AND c.layer = ANY(%(layers)s::smallint[])
    AND c.cx BETWEEN %(cx0)s AND %(cx1)s AND c.cy BETWEEN %(cy0)s AND %(cy1)s
"""
"""A rectangle's chunks (``CHUNKS_SQLITE``)."""
EVENTS = """
SELECT world, team, seq, player, colour, kind, x, y, outcome, opened, changes, at
FROM world_events WHERE world = %(w)s AND team = %(t)s AND seq > %(a)s ORDER BY seq LIMIT %(n)s
"""
"""A team's events after a seq (``EVENTS_SQLITE``)."""


@contextmanager
def _cursor(engine: Engine, dicts: bool = False) -> Iterator[psycopg.Cursor[Any]]:
    fairy = engine.raw_connection()
    try:
        raw: Any = fairy.driver_connection
        raw.autocommit = True
        try:
            with raw.cursor(row_factory=dict_row) if dicts else raw.cursor() as cursor:
                yield cursor
        finally:
            if not raw.closed:
                raw.autocommit = False
    except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
        fairy.invalidate(exc)
        raise OperationalError(None, None, exc, connection_invalidated=True) from exc
    finally:
        fairy.close()


def fetch(engine: Engine, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    """``sql``'s rows as tuples."""
    with _cursor(engine) as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def fetch_dicts(engine: Engine, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """``sql``'s rows as dicts (column name -> value)."""
    with _cursor(engine, dicts=True) as cursor:
        cursor.execute(sql, params)
        rows: list[dict[str, Any]] = cursor.fetchall()
        return rows


# -- SQLite: the same reads as SQLAlchemy statements, built once -------------------------

_BOX = (
    chunks.c.layer.in_(sa.bindparam("layers", expanding=True)),
    chunks.c.cx.between(sa.bindparam("cx0"), sa.bindparam("cx1")),
    chunks.c.cy.between(sa.bindparam("cy0"), sa.bindparam("cy1")),
)
CHUNKS_SQLITE = sa.select(
    chunks.c.layer, chunks.c.cx, chunks.c.cy, chunks.c.cells, chunks.c.version
).where(chunks.c.world == sa.bindparam("w"), chunks.c.team == sa.bindparam("t"), *_BOX)
"""A rectangle's chunks (``WorldStore.chunks_in``: the live feeds' look at the board): one
statement built once, not a new one per request (building it and its cache key was ~3 % of
a worker's samples under the bot load)."""
REGION_SQLITE = (
    sa.select(
        teams.c.last_seq,
        chunks.c.layer,
        chunks.c.cx,
        chunks.c.cy,
        chunks.c.cells,
        chunks.c.version,
    )
    .select_from(
        teams.outerjoin(
            chunks,
            sa.and_(chunks.c.world == teams.c.world, chunks.c.team == teams.c.name, *_BOX),
        )
    )
    .where(teams.c.world == sa.bindparam("w"), teams.c.name == sa.bindparam("t"))
)
"""The team's head and a rectangle's chunks (``WorldStore.region``: every view) in one
statement, so one round trip and one snapshot: a row per chunk found, each with the head, or
one row of the head and nulls when none is; no row when the team does not exist."""
EVENTS_SQLITE = (
    events.select()
    .where(
        events.c.world == sa.bindparam("w"),
        events.c.team == sa.bindparam("t"),
        events.c.seq > sa.bindparam("a"),
    )
    .order_by(events.c.seq)
    .limit(sa.bindparam("n"))
)
"""A team's events after a seq (``WorldStore.team_events``: every live feed's read), built
once like ``CHUNKS_SQLITE``."""


STATEMENTS = {"region": (REGION, REGION_SQLITE), "chunks": (CHUNKS, CHUNKS_SQLITE)}
"""Each read that gives rows as tuples: its SQL for psycopg, its statement for SQLite."""


def box_params(
    world: str, team: str, layers: Sequence[int], box: tuple[int, int, int, int]
) -> dict[str, Any]:
    """The parameters of ``REGION`` and ``CHUNKS``: ``box`` is ``(cx0, cy0, cx1, cy1)``."""
    cx0, cy0, cx1, cy1 = box
    return {"w": world, "t": team, "layers": list(layers)} | {
        "cx0": cx0, "cx1": cx1, "cy0": cy0, "cy1": cy1
    }  # fmt: skip


def preloaded(
    rows: Iterable[Sequence[Any]], layers: Sequence[int], box: tuple[int, int, int, int]
) -> ChunkKnowledge:
    """Knowledge of exactly ``box``'s chunks of ``layers`` (``(cx0, cy0, cx1, cy1)``): the
    chunks of ``rows`` (``layer, cx, cy, cells, version``, as ``CHUNKS`` reads them) as read,
    the others absent, no further read."""
    found = {
        (int(layer), int(cx), int(cy)): StoredChunk(bytes(cells), int(version))
        for layer, cx, cy, cells, version in rows
    }
    cx0, cy0, cx1, cy1 = box
    knowledge = ChunkKnowledge(lambda keys: {k: found[k] for k in keys if k in found})
    knowledge.prefetch(
        (layer, cx, cy)
        for layer in layers
        for cx in range(cx0, cx1 + 1)
        for cy in range(cy0, cy1 + 1)
    )
    knowledge.fetches = 1
    return knowledge
