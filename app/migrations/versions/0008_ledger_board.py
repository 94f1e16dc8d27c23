"""The ledger: each finished game's records table (``board``) and its size in words.

Revision ID: 0008_ledger_board
Revises: 0007_team_seq
Create Date: 2026-11-27

Graph games' records were kept per tiling only, so an 80-cell and a 480-cell Penrose win
ranked in one table. ``board`` names the table a game ranks in (``app.ledger.boards``: a grid
game's is its preset, as before; a graph game's its tiling and preset, or its size and
mines) and ``board_size`` says the board in words. Existing rows get both from their game's
stored parameters (every ledger row has its game: the foreign key cascades), so they land in
the right table without being annotated again. The downgrade drops the two columns.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_ledger_board"
down_revision: str | None = "0007_team_seq"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ledger = sa.table(
    "ledger",
    sa.column("game_id", sa.String),
    sa.column("board", sa.String),
    sa.column("board_size", sa.String),
)
_games = sa.table("games", sa.column("id", sa.String), sa.column("params", sa.JSON))


def _backfill() -> None:
    """Each row's board from its game's stored parameters (a row whose parameters no longer
    read keeps an empty board: it still ranks under its preset filter)."""
    from app.ledger.boards import record_board  # the app's rule, as new rows get it
    from devil.game import GameParams, ParamsError

    conn = op.get_bind()
    rows = conn.execute(
        sa.select(_ledger.c.game_id, _games.c.params).join(_games, _games.c.id == _ledger.c.game_id)
    ).all()
    for game_id, params in rows:
        try:
            board = record_board(GameParams.from_dict(params))
        except (ParamsError, TypeError, ValueError):
            continue
        conn.execute(
            _ledger.update()
            .where(_ledger.c.game_id == game_id)
            .values(board=board.key, board_size=board.size)
        )


def upgrade() -> None:
    op.add_column("ledger", sa.Column("board", sa.String(64), nullable=False, server_default=""))
    op.add_column(
        "ledger", sa.Column("board_size", sa.String(96), nullable=False, server_default="")
    )
    _backfill()
    op.create_index("ix_ledger_boards", "ledger", ["status", "board", "count", "mercy", "seconds"])


def downgrade() -> None:
    op.drop_index("ix_ledger_boards", table_name="ledger")
    for column in ("board_size", "board"):
        op.execute(f"ALTER TABLE ledger DROP COLUMN {column}")
