"""Devil World: rafts remembered by their idempotency key.

Revision ID: 0006_raft_keys
Revises: 0005_duel_rating
Create Date: 2026-11-26

A raft sent with an ``Idempotency-Key`` is remembered with its answer, in the raft's own
transaction, so a retry (the answer was lost: a timeout, a killed process) gets the first
answer instead of playing the moves again (``app.world.idempotency``).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_raft_keys"
down_revision: str | None = "0005_duel_rating"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "world_rafts",
        sa.Column("world", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(24), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("answer", sa.LargeBinary, nullable=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("world_rafts")
