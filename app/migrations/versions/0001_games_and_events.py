"""Games and their event logs.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("params", sa.JSON, nullable=False),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_owner_created", "games", ["owner", "created_at"])
    op.create_table(
        "events",
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


def downgrade() -> None:
    op.drop_table("events")
    op.drop_index("ix_games_owner_created", table_name="games")
    op.drop_table("games")
