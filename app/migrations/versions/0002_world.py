"""Devil World: worlds, teams, players, the world event log and team-knowledge chunks.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

The default world ``main`` (6 colours) exists after this migration, with a secret key
drawn here, on the server, from the operating system's random source.
"""

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def counters() -> list[sa.Column[int]]:
    return [
        sa.Column(name, sa.BigInteger, nullable=False, server_default="0")
        for name in ("moves", "revealed", "flags", "errors", "drops")
    ]


def upgrade() -> None:
    worlds = op.create_table(
        "world_worlds",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("colours", sa.SmallInteger, nullable=False),
        sa.Column("secret_key", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("moves", sa.BigInteger, nullable=False, server_default="0"),
        sa.CheckConstraint("colours BETWEEN 2 AND 8", name="ck_world_worlds_colours"),
    )
    op.create_table(
        "world_teams",
        sa.Column(
            "world",
            sa.String(64),
            sa.ForeignKey("world_worlds.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        *counters(),
    )
    op.create_table(
        "world_players",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("world", sa.String(64), nullable=False),
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("colour", sa.SmallInteger, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("last_drop_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        *counters(),
        sa.ForeignKeyConstraint(
            ["world", "team"], ["world_teams.world", "world_teams.name"], ondelete="CASCADE"
        ),
    )
    op.create_index("ix_world_players_team", "world_players", ["world", "team"])
    op.create_table(
        "world_events",
        sa.Column(
            "world",
            sa.String(64),
            sa.ForeignKey("world_worlds.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("player", sa.String(24), nullable=False),
        sa.Column("colour", sa.SmallInteger, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("x", sa.BigInteger, nullable=True),
        sa.Column("y", sa.BigInteger, nullable=True),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("opened", sa.Integer, nullable=False),
        sa.Column("changes", sa.Text, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("seq >= 1", name="ck_world_events_seq_positive"),
        sa.CheckConstraint(
            "kind IN ('reveal', 'flag', 'drop', 'colour')", name="ck_world_events_kind"
        ),
        sa.CheckConstraint(
            "outcome IN ('revealed', 'flagged', 'devil', 'dropped', 'none', 'switched')",
            name="ck_world_events_outcome",
        ),
    )
    op.create_index("ix_world_events_team_seq", "world_events", ["world", "team", "seq"])
    op.create_table(
        "world_chunks",
        sa.Column("world", sa.String(64), primary_key=True),
        sa.Column("team", sa.String(32), primary_key=True),
        sa.Column("layer", sa.SmallInteger, primary_key=True, autoincrement=False),
        sa.Column("cx", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("cy", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("cells", sa.LargeBinary, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.ForeignKeyConstraint(
            ["world", "team"], ["world_teams.world", "world_teams.name"], ondelete="CASCADE"
        ),
        sa.CheckConstraint("layer BETWEEN -1 AND 7", name="ck_world_chunks_layer"),
    )
    op.bulk_insert(
        worlds,
        [
            {
                "id": "main",
                "colours": 6,
                "secret_key": secrets.token_bytes(32),
                "created_at": datetime.now(UTC),
                "last_seq": 0,
                "moves": 0,
            }
        ],
    )


def downgrade() -> None:
    op.drop_table("world_chunks")
    op.drop_index("ix_world_events_team_seq", table_name="world_events")
    op.drop_table("world_events")
    op.drop_index("ix_world_players_team", table_name="world_players")
    op.drop_table("world_players")
    op.drop_table("world_teams")
    op.drop_table("world_worlds")
