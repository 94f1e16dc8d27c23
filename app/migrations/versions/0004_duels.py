"""Devil duels: two games on the same parameters and seed, raced.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "duels",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("host_game", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("guest_game", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("duels")
