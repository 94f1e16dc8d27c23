"""Devil World: the event log numbered per team.

Revision ID: 0007_team_seq
Revises: 0006_raft_keys
Create Date: 2026-11-26

Until now every move took the world's row to number its events in one gapless world-wide
sequence: that row serialised the commits of every team of a world. From here each team
numbers its own events (``world_teams.last_seq``, taken under the team's row, which a move
holds anyway) and the log's key is ``(world, team, seq)``.

Existing logs are renumbered: each team's events keep their order and get ``1, 2, 3...``
(their rank among the team's events by old seq), so a stored world replays identically (the
knowledge chunks do not change, every team's feed reads the same events in the same order)
and every number the API shows stays per team. Each remembered raft (``world_rafts``)
gets its last event's new number, so a retry still answers the seqs the raft now has.
``world_worlds.last_seq`` and ``moves`` go: the world's summary adds its teams' counters.

A client that kept an old, world-wide ``Last-Event-ID`` across the upgrade: the feed
resumes at ``min(Last-Event-ID, the team's head)`` (``app.world.api``). A client that had
every event of its team (a live stream at the upgrade, the usual case) misses nothing and
sees nothing twice; one that was behind misses the team's events it had not received
(reload the view: it names the new head). A number above the team's head cannot be placed:
without the clamp the stream would wait until the team passed it and drop what came before.

The downgrade numbers the log world-wide again, by ``(at, team, seq)``: teams' orders are
kept, the interleaving of concurrent teams is the commit times'.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_team_seq"
down_revision: str | None = "0006_raft_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = "world, seq, team, player, colour, kind, x, y, outcome, opened, changes, at"


def _events_table(name: str, per_team: bool) -> None:
    """The log's table under ``name``, keyed per team or per world (0002's columns; the
    checks are named for the table it becomes)."""
    key = ["world", "team", "seq"] if per_team else ["world", "seq"]
    final = "world_events"
    op.create_table(
        name,
        sa.Column(
            "world",
            sa.String(64),
            sa.ForeignKey("world_worlds.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seq", sa.BigInteger, nullable=False, autoincrement=False),
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
        sa.PrimaryKeyConstraint(*key, name=f"pk_{final}_{'team_seq' if per_team else 'seq'}"),
        sa.CheckConstraint("seq >= 1", name=f"ck_{final}_seq_positive"),
        sa.CheckConstraint("kind IN ('reveal', 'flag', 'drop', 'colour')", name=f"ck_{final}_kind"),
        sa.CheckConstraint(
            "outcome IN ('revealed', 'flagged', 'devil', 'dropped', 'none', 'switched')",
            name=f"ck_{final}_outcome",
        ),
    )


def _renumber(per_team: bool) -> None:
    """Copy the log into a table numbered per team (or per world), remap the rafts' last
    seqs, swap the tables. ``world_seq_map`` holds old -> new while it runs."""
    order = "ORDER BY seq" if per_team else "ORDER BY at, team, seq"
    part = "world, team" if per_team else "world"
    op.execute(
        "CREATE TABLE world_seq_map AS SELECT world, team, seq AS old, "
        f"row_number() OVER (PARTITION BY {part} {order}) AS new FROM world_events"
    )
    op.create_index("ix_world_seq_map", "world_seq_map", ["world", "team", "old"])
    _events_table("world_events_renumbered", per_team)
    columns = _COLUMNS.replace("seq", "m.new", 1)
    columns = ", ".join(c if c == "m.new" else f"e.{c}" for c in columns.split(", "))
    op.execute(
        f"INSERT INTO world_events_renumbered ({_COLUMNS}) SELECT {columns} FROM world_events e "
        "JOIN world_seq_map m ON m.world = e.world AND m.team = e.team AND m.old = e.seq"
    )
    # a raft's events are one team's, consecutive under either numbering: its last is enough
    op.execute(
        "UPDATE world_rafts SET last_seq = (SELECT m.new FROM world_seq_map m "
        "JOIN world_players p ON p.id = world_rafts.player AND p.team = m.team "
        "WHERE m.world = world_rafts.world AND m.old = world_rafts.last_seq) "
        "WHERE EXISTS (SELECT 1 FROM world_seq_map m "
        "JOIN world_players p ON p.id = world_rafts.player AND p.team = m.team "
        "WHERE m.world = world_rafts.world AND m.old = world_rafts.last_seq)"
    )
    op.drop_table("world_events")  # its index goes with it
    op.drop_table("world_seq_map")
    op.rename_table("world_events_renumbered", "world_events")


def _drop_column(table: str, column: str) -> None:
    """``ALTER TABLE ... DROP COLUMN`` on both dialects (SQLite >= 3.35). Not alembic's batch
    mode: on SQLite it copies and drops the table, and dropping ``world_worlds`` with foreign
    keys on would cascade to every team, player and event of it."""
    op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")


def upgrade() -> None:
    op.add_column(
        "world_teams", sa.Column("last_seq", sa.BigInteger, nullable=False, server_default="0")
    )
    _renumber(per_team=True)
    op.execute(
        "UPDATE world_teams SET last_seq = (SELECT count(*) FROM world_events e "
        "WHERE e.world = world_teams.world AND e.team = world_teams.name)"
    )
    op.create_index("ix_world_events_at", "world_events", ["world", "at"])
    _drop_column("world_worlds", "last_seq")
    _drop_column("world_worlds", "moves")


def downgrade() -> None:
    for column in ("last_seq", "moves"):
        op.add_column(
            "world_worlds", sa.Column(column, sa.BigInteger, nullable=False, server_default="0")
        )
    op.drop_index("ix_world_events_at", table_name="world_events")
    _renumber(per_team=False)
    op.create_index("ix_world_events_team_seq", "world_events", ["world", "team", "seq"])
    op.execute(
        "UPDATE world_worlds SET last_seq = (SELECT count(*) FROM world_events e "
        "WHERE e.world = world_worlds.id), moves = (SELECT count(*) FROM world_events e "
        "WHERE e.world = world_worlds.id AND e.kind <> 'colour')"
    )
    _drop_column("world_teams", "last_seq")
