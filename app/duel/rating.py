"""Duel ratings: OpenSkill (Weng-Lin, the Plackett-Luce model) for named players.

A duel is rated when its result is decided, once (``store.decide`` runs ``rate`` in the
transaction that writes the result), and only when both players raced under a name and are
different browsers. A win ranks the winner first; "nobody" (both fell to the devil) is a draw.
The number shown is OpenSkill's ordinal, mu - 3 sigma: a cautious estimate that starts at 0
and rises as a player wins and as the model grows surer of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from openskill.models import PlackettLuce
from sqlalchemy import Engine
from sqlalchemy.engine import Connection

from app.duel.store import GUEST, HOST, NOBODY, metadata
from app.ledger.schema import players
from app.store.records import utcnow

duel_ratings = sa.Table(
    "duel_ratings",
    metadata,
    sa.Column("owner", sa.String(64), primary_key=True),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("duels", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
)

MODEL = PlackettLuce()
LEADERBOARD_SIZE = 20


@dataclass(frozen=True)
class Rating:
    owner: str
    mu: float
    sigma: float
    duels: int = 0
    wins: int = 0
    name: str | None = None

    @property
    def shown(self) -> float:
        """The ordinal, mu - 3 sigma (0 for a new player)."""
        return self.mu - 3 * self.sigma


def fresh(owner: str) -> Rating:
    start = MODEL.rating()
    return Rating(owner, start.mu, start.sigma)


def _read(conn: Connection, owner: str) -> Rating:
    query = duel_ratings.select().where(duel_ratings.c.owner == owner).with_for_update()
    found = conn.execute(query).mappings().first()
    if found is None:
        return fresh(owner)
    return Rating(owner, found["mu"], found["sigma"], found["duels"], found["wins"])


def rated(host: str | None, guest: str | None, names: tuple[str | None, str | None]) -> bool:
    """A duel counts for the ratings: two different browsers, both named."""
    return host is not None and guest is not None and host != guest and all(names)


def rate(conn: Connection, host: str, guest: str, winner: str) -> tuple[Rating, Rating]:
    """Update both players' ratings for a decided duel (inside the caller's transaction)."""
    if winner not in (HOST, GUEST, NOBODY):
        raise ValueError(f"winner must be host, guest or nobody, not {winner!r}")
    before = (_read(conn, host), _read(conn, guest))
    ranks = {HOST: [1.0, 2.0], GUEST: [2.0, 1.0], NOBODY: [1.0, 1.0]}[winner]
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in before]
    [[a], [b]] = MODEL.rate(teams, ranks=ranks)
    after = (
        Rating(host, a.mu, a.sigma, before[0].duels + 1, before[0].wins + (winner == HOST)),
        Rating(guest, b.mu, b.sigma, before[1].duels + 1, before[1].wins + (winner == GUEST)),
    )
    now = utcnow()
    for rating in after:
        conn.execute(duel_ratings.delete().where(duel_ratings.c.owner == rating.owner))
        conn.execute(
            duel_ratings.insert().values(
                owner=rating.owner,
                mu=rating.mu,
                sigma=rating.sigma,
                duels=rating.duels,
                wins=rating.wins,
                updated_at=now,
            )
        )
    return after


def leaderboard(engine: Engine, limit: int = LEADERBOARD_SIZE) -> list[Rating]:
    """The best-rated named players, highest ordinal first."""
    ordinal = duel_ratings.c.mu - 3 * duel_ratings.c.sigma
    query = (
        sa.select(duel_ratings, players.c.name)
        .select_from(duel_ratings.join(players, players.c.owner == duel_ratings.c.owner))
        .order_by(ordinal.desc(), duel_ratings.c.owner)
        .limit(limit)
    )
    with engine.connect() as conn:
        return [
            Rating(r["owner"], r["mu"], r["sigma"], r["duels"], r["wins"], r["name"])
            for r in conn.execute(query).mappings()
        ]
