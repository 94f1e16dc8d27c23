"""The Devil World tables (created by migration ``0002``; SQLAlchemy Core, no ORM).

``world_worlds``   id (slug), colours, secret_key (never sent), created_at
``world_teams``    (world, name); last_seq (the team's log head: seq is gapless per team,
                   migration ``0007_team_seq``); counters moves, revealed, flags, errors,
                   drops. Its row is the team's lock: moves of one team are serialized on it.
``world_players``  id, world, team, name, colour, token_hash (sha256 hex of the bearer
                   token), last_drop_at, counters like the team's
``world_events``   the append-only log: (world, team, seq) primary key, player, colour,
                   kind (reveal, flag, drop, colour), x, y, outcome (revealed, flagged,
                   devil, dropped, none, switched), opened (cells opened), changes (the
                   cells the move established, JSON ``[[dx, dy, symbol], ...]`` relative
                   to x, y), at (indexed with world: the world's newest events)
``world_chunks``   team knowledge, 64x64 cells per (world, team, layer, cx, cy): layer
                   ``c`` = board c's revealed numbers, layer ``-1`` = flags of every
                   colour; ``cells`` 4096 bytes, ``version`` counts its writes. Only
                   touched chunks exist.
``world_rafts``    (world, player, key): a raft sent with an idempotency key, its request's
                   digest (sha256 hex), its answer (zlib'd JSON results without seqs), the
                   last seq it logged, its number of events, created_at (migration
                   ``0006_raft_keys``)
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()


def _counters() -> list[sa.Column[int]]:
    return [
        sa.Column(name, sa.BigInteger, nullable=False, server_default="0")
        for name in ("moves", "revealed", "flags", "errors", "drops")
    ]


worlds = sa.Table(
    "world_worlds",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("colours", sa.SmallInteger, nullable=False),
    sa.Column("secret_key", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

teams = sa.Table(
    "world_teams",
    metadata,
    sa.Column("world", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("last_seq", sa.BigInteger, nullable=False, server_default="0"),
    *_counters(),
)

players = sa.Table(
    "world_players",
    metadata,
    sa.Column("id", sa.String(24), primary_key=True),
    sa.Column("world", sa.String(64), nullable=False),
    sa.Column("team", sa.String(32), nullable=False),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("colour", sa.SmallInteger, nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False),
    sa.Column("last_drop_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    *_counters(),
)

events = sa.Table(
    "world_events",
    metadata,
    sa.Column("world", sa.String(64), primary_key=True),
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("player", sa.String(24), nullable=False),
    sa.Column("colour", sa.SmallInteger, nullable=False),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("x", sa.BigInteger, nullable=True),
    sa.Column("y", sa.BigInteger, nullable=True),
    sa.Column("outcome", sa.String(8), nullable=False),
    sa.Column("opened", sa.Integer, nullable=False),
    sa.Column("changes", sa.Text, nullable=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

chunks = sa.Table(
    "world_chunks",
    metadata,
    sa.Column("world", sa.String(64), primary_key=True),
    sa.Column("team", sa.String(32), primary_key=True),
    sa.Column("layer", sa.SmallInteger, primary_key=True, autoincrement=False),
    sa.Column("cx", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("cy", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("cells", sa.LargeBinary, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
)

rafts = sa.Table(
    "world_rafts",
    metadata,
    sa.Column("world", sa.String(64), primary_key=True),
    sa.Column("player", sa.String(24), primary_key=True),
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("answer", sa.LargeBinary, nullable=False),
    sa.Column("last_seq", sa.BigInteger, nullable=False),
    sa.Column("moves", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
