"""Duels people come back to: the players' names, the settled result, rematches, ratings.

Revision ID: 0005_duel_rating
Revises: 0004
Create Date: 2026-11-26

``duels`` gains the names the two players raced under (asked when creating / accepting; NULL
for duels made before: the pages then use the players' display names), ``winner`` ("host",
"guest" or "nobody") and ``decided_at`` once the race has a result, ``ended_at`` once both
games are over, ``rematch_by`` (the side that offered a rematch) and ``rematch`` (the rematch
duel's id). Nothing about the games themselves changes: a stored duel replays identically.
The games' columns are indexed: a finished game's page asks whether it is raced in a duel.
``duel_ratings`` holds each named player's OpenSkill rating (keyed by the browser's owner id).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_duel_rating"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("duels") as batch:
        batch.add_column(sa.Column("host_name", sa.String(32), nullable=True))
        batch.add_column(sa.Column("guest_name", sa.String(32), nullable=True))
        batch.add_column(sa.Column("winner", sa.String(8), nullable=True))
        batch.add_column(sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("rematch_by", sa.String(8), nullable=True))
        batch.add_column(sa.Column("rematch", sa.String(32), nullable=True))
    op.create_index("ix_duels_ended", "duels", ["ended_at"])
    op.create_index("ix_duels_host_game", "duels", ["host_game"])
    op.create_index("ix_duels_guest_game", "duels", ["guest_game"])
    op.create_table(
        "duel_ratings",
        sa.Column("owner", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("duels", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("duel_ratings")
    for index in ("ix_duels_guest_game", "ix_duels_host_game", "ix_duels_ended"):
        op.drop_index(index, table_name="duels")
    with op.batch_alter_table("duels") as batch:
        for column in (
            "rematch", "rematch_by", "ended_at", "decided_at", "winner", "guest_name", "host_name"
        ):  # fmt: skip
            batch.drop_column(column)
