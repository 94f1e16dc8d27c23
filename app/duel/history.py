"""The records page's duel part: the best-rated named players and the finished duels, paged."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine

from app.duel import rating, store
from app.duel.store import GUEST, HOST, NOBODY, Duel
from app.errors import InputError
from app.play.service import GameService
from app.play.view import game_title

PER_PAGE = 20
MAX_PAGE = 500


@dataclass(frozen=True)
class DuelRow:
    id: str
    players: tuple[str, str]
    winner: str
    """The winner's name, or "nobody"."""
    board: str
    ended_at: datetime | None


@dataclass(frozen=True)
class DuelRecords:
    ratings: tuple[rating.Rating, ...]
    rows: tuple[DuelRow, ...]
    page: int
    """1-based."""
    more: bool


def page_arg(text: str | None) -> int:
    """``duels_page``: 1 to ``MAX_PAGE`` (InputError naming the field otherwise)."""
    if text is None or text == "":
        return 1
    if not text.isdigit() or not 1 <= int(text) <= MAX_PAGE:
        raise InputError("duels_page", f"duels_page must be a page number 1 to {MAX_PAGE}")
    return int(text)


def _row(duel: Duel, games: GameService) -> DuelRow:
    names = (duel.host_name or "anonymous", duel.guest_name or "anonymous")
    winner = {HOST: names[0], GUEST: names[1], NOBODY: "nobody"}.get(duel.winner or "", "")
    board = game_title(games.params(games.record(duel.host_game)))
    return DuelRow(duel.id, names, winner, board, duel.ended_at)


def duel_records(engine: Engine, games: GameService, page: int) -> DuelRecords:
    duels, more = store.history(engine, page - 1, PER_PAGE)
    return DuelRecords(
        tuple(rating.leaderboard(engine)),
        tuple(_row(d, games) for d in duels),
        page,
        more,
    )
