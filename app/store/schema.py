"""The two tables (``games``, ``events``) and the statements every click runs, built once."""

from __future__ import annotations

import sqlalchemy as sa

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

SELECT_GAME = games.select().where(games.c.id == _GAME_ID)

_LOG_END = (
    sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0))
    .where(events.c.game_id == _GAME_ID)
    .scalar_subquery()
    .label("log_end")
)

SELECT_HEAD = sa.select(games, _LOG_END).where(games.c.id == _GAME_ID)
"""The game row and where its log really ends, in one query."""

SELECT_LAST_SEQ = sa.select(sa.func.coalesce(sa.func.max(events.c.seq), 0)).where(
    events.c.game_id == _GAME_ID
)

LOCK_GAME = sa.select(games.c.id).where(games.c.id == _GAME_ID).with_for_update()
"""PostgreSQL: hold the game's row (then read the log end in a second statement)."""

LOCKED_LOG_END = sa.select(games.c.id, _LOG_END).where(games.c.id == _GAME_ID)
"""SQLite: ``BEGIN IMMEDIATE`` already holds the database, so existence and log end
are one statement."""

INSERT_EVENT = events.insert()

UPDATE_SEQ = (
    games.update()
    .where(games.c.id == _GAME_ID)
    .values(last_seq=sa.bindparam("new_seq"), updated_at=sa.bindparam("new_at"))
)

UPDATE_SEQ_AND_SUMMARY = (
    games.update()
    .where(games.c.id == _GAME_ID)
    .values(
        last_seq=sa.bindparam("new_seq"),
        updated_at=sa.bindparam("new_at"),
        status=sa.bindparam("new_status"),
        moves=sa.bindparam("new_moves"),
    )
)
