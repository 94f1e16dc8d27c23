"""The luck ledger: finished games' annotations and metrics, players' display names.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ledger",
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
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
    )
    op.create_index(
        "ix_ledger_records", "ledger", ["status", "preset", "count", "mercy", "seconds"]
    )
    op.create_index("ix_ledger_owner", "ledger", ["owner", "finished_at"])
    op.create_table(
        "players",
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("players")
    op.drop_index("ix_ledger_owner", table_name="ledger")
    op.drop_index("ix_ledger_records", table_name="ledger")
    op.drop_table("ledger")
