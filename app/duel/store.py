"""The ``duels`` table: which two games race. Only the pairing is stored; who is ahead and
who won are read from the games themselves."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy import Engine

from app.store.records import utcnow

metadata = sa.MetaData()

duels = sa.Table(
    "duels",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("host_game", sa.String(32), nullable=False),
    sa.Column("guest_game", sa.String(32), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class Duel:
    id: str
    host_game: str
    guest_game: str | None


class NoSuchDuel(LookupError):
    def __init__(self, duel: str):
        super().__init__(f"duel {duel!r} does not exist")
        self.duel = duel


def create(engine: Engine, host_game: str) -> Duel:
    duel = Duel(secrets.token_urlsafe(9), host_game, None)
    with engine.begin() as conn:
        conn.execute(duels.insert().values(id=duel.id, host_game=host_game, created_at=utcnow()))
    return duel


def get(engine: Engine, duel_id: str) -> Duel:
    if not 1 <= len(duel_id) <= 32:
        raise NoSuchDuel(duel_id)
    with engine.connect() as conn:
        row = conn.execute(duels.select().where(duels.c.id == duel_id)).mappings().first()
    if row is None:
        raise NoSuchDuel(duel_id)
    return Duel(row["id"], row["host_game"], row["guest_game"])


def take_guest_seat(engine: Engine, duel_id: str, guest_game: str) -> bool:
    """Seat ``guest_game`` if the seat is free (atomic: one of two racing guests wins)."""
    with engine.begin() as conn:
        done = conn.execute(
            duels.update()
            .where(duels.c.id == duel_id, duels.c.guest_game.is_(None))
            .values(guest_game=guest_game)
        )
    return done.rowcount == 1
