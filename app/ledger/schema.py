"""The ``ledger`` table (one row per finished game's annotation) and ``players`` (names)."""

from __future__ import annotations

import sqlalchemy as sa

from app.store.schema import metadata

ledger = sa.Table(
    "ledger",
    metadata,
    sa.Column(
        "game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("body", sa.JSON, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("preset", sa.String(16), nullable=False),
    sa.Column("count", sa.String(16), nullable=False),
    sa.Column("mercy", sa.String(16), nullable=False),
    sa.Column("no_guess", sa.Boolean, nullable=False),
    sa.Column("seconds", sa.Float, nullable=True),
    sa.Column("bbbv", sa.Integer, nullable=False),
    sa.Column("bbbv_per_s", sa.Float, nullable=True),
    sa.Column("hints", sa.Integer, nullable=False),
    sa.Column("bits", sa.Float, nullable=False),
    sa.Column("guesses", sa.Integer, nullable=False),
    sa.Column("max_level", sa.Integer, nullable=True),
    sa.Column("owner", sa.String(64), nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("board", sa.String(64), nullable=False, server_default=""),
    sa.Column("board_size", sa.String(96), nullable=False, server_default=""),
    sa.Index("ix_ledger_records", "status", "preset", "count", "mercy", "seconds"),
    sa.Index("ix_ledger_boards", "status", "board", "count", "mercy", "seconds"),
    sa.Index("ix_ledger_owner", "owner", "finished_at"),
)

players = sa.Table(
    "players",
    metadata,
    sa.Column("owner", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(32), nullable=False),
)
