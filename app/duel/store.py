"""The ``duels`` table: which two games race, under which names, and the settled result.

Who is ahead is read from the games themselves; once the race has a result it is written
here once (``decide``: ``winner``, ``decided_at``; the ratings change in that same
transaction), and ``ended_at`` once both games are over (``end``). Migrations 0004 and
0005_duel_rating; duels made before 0005 have no names and no result until someone reads them.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy import Engine
from sqlalchemy.engine import Connection

from app.store.records import as_utc, utcnow

metadata = sa.MetaData()

duels = sa.Table(
    "duels",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("host_game", sa.String(32), nullable=False),
    sa.Column("guest_game", sa.String(32), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("host_name", sa.String(32), nullable=True),
    sa.Column("guest_name", sa.String(32), nullable=True),
    sa.Column("winner", sa.String(8), nullable=True),
    sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("rematch_by", sa.String(8), nullable=True),
    sa.Column("rematch", sa.String(32), nullable=True),
)

HOST, GUEST, NOBODY = "host", "guest", "nobody"


@dataclass(frozen=True)
class Duel:
    id: str
    host_game: str
    guest_game: str | None
    host_name: str | None = None
    guest_name: str | None = None
    winner: str | None = None
    """``host``, ``guest`` or ``nobody`` once decided (None while the race is open)."""
    ended_at: datetime | None = None
    rematch_by: str | None = None
    rematch: str | None = None
    created_at: datetime | None = None

    def game(self, seat: str) -> str | None:
        return self.host_game if seat == HOST else self.guest_game

    def name(self, seat: str) -> str | None:
        return self.host_name if seat == HOST else self.guest_name


class NoSuchDuel(LookupError):
    def __init__(self, duel: str):
        super().__init__(f"duel {duel!r} does not exist")
        self.duel = duel


def _duel(row: sa.RowMapping) -> Duel:
    ended = row["ended_at"]
    created = row["created_at"]
    return Duel(
        row["id"], row["host_game"], row["guest_game"], row["host_name"], row["guest_name"],
        row["winner"], None if ended is None else as_utc(ended), row["rematch_by"],
        row["rematch"], None if created is None else as_utc(created),
    )  # fmt: skip


def new_id() -> str:
    return secrets.token_urlsafe(9)


def create(engine: Engine, host_game: str, host_name: str | None = None) -> Duel:
    duel = Duel(new_id(), host_game, None, host_name)
    with engine.begin() as conn:
        conn.execute(
            duels.insert().values(
                id=duel.id, host_game=host_game, host_name=host_name, created_at=utcnow()
            )
        )
    return duel


def get(engine: Engine, duel_id: str) -> Duel:
    if not 1 <= len(duel_id) <= 32:
        raise NoSuchDuel(duel_id)
    with engine.connect() as conn:
        row = conn.execute(duels.select().where(duels.c.id == duel_id)).mappings().first()
    if row is None:
        raise NoSuchDuel(duel_id)
    return _duel(row)


def take_guest_seat(
    engine: Engine, duel_id: str, guest_game: str, guest_name: str | None = None
) -> bool:
    """Seat ``guest_game`` if the seat is free (atomic: one of two racing guests wins)."""
    with engine.begin() as conn:
        done = conn.execute(
            duels.update()
            .where(duels.c.id == duel_id, duels.c.guest_game.is_(None))
            .values(guest_game=guest_game, guest_name=guest_name)
        )
    return done.rowcount == 1


def decide(
    engine: Engine, duel_id: str, winner: str, at: datetime, rate: Callable[[Connection], None]
) -> bool:
    """Write the race's result once; ``rate`` (the ratings' change) runs in the same
    transaction, only for the call that wrote it. False when it was already decided."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":  # one writer from the start: no lock upgrade
            conn = conn.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            done = conn.execute(
                duels.update()
                .where(duels.c.id == duel_id, duels.c.winner.is_(None))
                .values(winner=winner, decided_at=at)
            )
            if done.rowcount != 1:
                return False
            rate(conn)
    return True


def end(engine: Engine, duel_id: str, at: datetime) -> None:
    """Both games are over (the first call's time is kept)."""
    with engine.begin() as conn:
        conn.execute(
            duels.update()
            .where(duels.c.id == duel_id, duels.c.ended_at.is_(None))
            .values(ended_at=at)
        )


def offer_rematch(engine: Engine, duel_id: str, seat: str) -> None:
    """``seat`` asks for a rematch (the first offer stands)."""
    with engine.begin() as conn:
        conn.execute(
            duels.update()
            .where(duels.c.id == duel_id, duels.c.rematch_by.is_(None))
            .values(rematch_by=seat)
        )


def start_rematch(engine: Engine, duel_id: str, rematch: Duel) -> str:
    """Insert ``rematch`` (both seats taken) as ``duel_id``'s rematch unless it has one
    already; returns the rematch's id either way (the one that was there first)."""
    with engine.begin() as conn:
        done = conn.execute(
            duels.update()
            .where(duels.c.id == duel_id, duels.c.rematch.is_(None))
            .values(rematch=rematch.id)
        )
        if done.rowcount == 1:
            conn.execute(
                duels.insert().values(
                    id=rematch.id,
                    host_game=rematch.host_game,
                    guest_game=rematch.guest_game,
                    host_name=rematch.host_name,
                    guest_name=rematch.guest_name,
                    created_at=utcnow(),
                )
            )
            return rematch.id
    return get(engine, duel_id).rematch or rematch.id


def history(engine: Engine, page: int, per_page: int) -> tuple[list[Duel], bool]:
    """Finished duels, newest first: page ``page`` (0-based) and whether more follow."""
    query = (
        duels.select()
        .where(duels.c.ended_at.is_not(None))
        .order_by(duels.c.ended_at.desc(), duels.c.id)
        .offset(page * per_page)
        .limit(per_page + 1)
    )
    with engine.connect() as conn:
        rows = [_duel(r) for r in conn.execute(query).mappings()]
    return rows[:per_page], len(rows) > per_page


def of_game(engine: Engine, game_id: str) -> Duel | None:
    """The duel ``game_id`` is one side of (None for a solo game)."""
    query = duels.select().where(
        sa.or_(duels.c.host_game == game_id, duels.c.guest_game == game_id)
    )
    with engine.connect() as conn:
        row = conn.execute(query.limit(1)).mappings().first()
    return None if row is None else _duel(row)


def racing_games() -> sa.CompoundSelect[tuple[str]]:
    """The games of duels not over yet (their boards are the other side's secret)."""
    running = duels.c.ended_at.is_(None)
    return sa.union_all(
        sa.select(duels.c.host_game).where(running),
        sa.select(duels.c.guest_game).where(running, duels.c.guest_game.is_not(None)),
    )
