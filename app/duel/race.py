"""The race as one viewer sees it: both sides, their names and states, the result.

Who won: the first to clear their board (by the time of the clearing move); "nobody" when
both fell to the devil. The result is written to the duel once it is known (``settle``), with
the ratings' change, and the duel is marked ended once both games are over.

Figures (one rule, stated on the page): both games are drawn from the same seed and open the
same first cell (the duel plays it for both when the race starts), so they share one real
layout; 3BV and solved 3BV are counted on that real layout for both players, a lost game's
too (never on the devil's witness, which differs per player). They are shown once both games
are over: before that the real layout's figures are the other player's secret.

Secrets: a viewer gets the other side's game id (the "watch" link) only once their own game
is over, or, for someone who plays neither side, once the duel is over; progress counts
(cells opened out of the board's public safe count) carry no cell.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from app.duel import rating, store
from app.duel.store import GUEST, HOST, NOBODY, Duel
from app.ledger.store import LedgerStore
from app.play.loaded import LoadedGame
from app.play.service import GameService
from app.store.records import utcnow
from devil.game import Status
from devil.ledger.metrics import bbbv, solved_bbbv

log = logging.getLogger(__name__)

SEAT_NUMBER = {HOST: 1, GUEST: 2}


@dataclass(frozen=True)
class Figures:
    """One finished game's figures on the real layout."""

    bbbv: int
    solved: int
    seconds: float | None
    clicks: int

    @property
    def per_second(self) -> float | None:
        if not self.seconds:
            return None
        return self.solved / self.seconds


@dataclass(frozen=True)
class Side:
    """One player's progress as the race panel shows it."""

    seat: str
    name: str
    game_id: str
    opened: int
    safe: int
    moves: int
    state: str  # "playing", "dead", "cleared"
    finished_at: datetime | None
    mine: bool
    owner: str | None
    figures: Figures | None = None
    watchable: bool = False
    """The viewer may have this side's game id (its watch link)."""

    @property
    def over(self) -> bool:
        return self.state != "playing"


@dataclass(frozen=True)
class Race:
    duel: Duel
    sides: tuple[Side, ...]
    winner: str | None
    """``host``, ``guest``, ``nobody``, or None while open."""
    one_layout: bool = True
    """Both games were drawn on one real layout (a duel from before the shared first cell
    may have two: its players opened different first cells)."""

    @property
    def started(self) -> bool:
        return len(self.sides) == 2

    @property
    def over(self) -> bool:
        """Both games have ended."""
        return self.started and all(s.over for s in self.sides)

    @property
    def me(self) -> Side | None:
        return next((s for s in self.sides if s.mine), None)

    def side(self, seat: str) -> Side | None:
        return next((s for s in self.sides if s.seat == seat), None)

    @property
    def verdict(self) -> str:
        """The result in one sentence for this viewer ("" while nobody has won yet)."""
        if self.winner is None:
            return ""
        if self.winner == NOBODY:
            return "Both fell to the devil: no winner."
        won = self.side(self.winner)
        if won is None:
            return ""
        return "You won the duel!" if won.mine else f"{won.name} won the duel."

    @property
    def notice(self) -> str:
        """What the other side did, for screen readers (announced when it changes): who
        fell, who cleared, who asked for a rematch."""
        said = {"dead": "fell to the devil.", "cleared": "cleared the board."}
        parts = [f"{s.name} {said[s.state]}" for s in self.sides if not s.mine and s.over]
        offer = self.rematch_offered_by
        if offer is not None and not offer.mine and self.duel.rematch is None:
            parts.append(f"{offer.name} asked for a rematch.")
        return " ".join(parts)

    @property
    def rematch_offered_by(self) -> Side | None:
        return None if self.duel.rematch_by is None else self.side(self.duel.rematch_by)


def side_name(duel: Duel, seat: str, owner: str | None, ledger: LedgerStore) -> str:
    """The name the duel was accepted under, else the browser's display name, else
    "Player 1" / "Player 2" (never host / guest)."""
    name = duel.name(seat) or (ledger.name(owner) if owner else None)
    return name or f"Player {SEAT_NUMBER[seat]}"


def figures(loaded: LoadedGame) -> Figures | None:
    game = loaded.game
    if game.layout is None or game.status is Status.PLAYING:
        return None
    board = game.params.board()
    revealed = game.position.revealed_cells()
    seconds = None
    if loaded.started_at is not None and loaded.last_move_at is not None:
        seconds = (loaded.last_move_at - loaded.started_at).total_seconds()
    return Figures(
        bbbv(board, game.layout), solved_bbbv(board, game.layout, revealed), seconds,
        len(game.moves),
    )  # fmt: skip


def _side(
    seat: str, duel: Duel, loaded: LoadedGame, viewer: str | None, ledger: LedgerStore
) -> Side:
    game = loaded.game
    params = game.params
    safe = params.height * params.width - len(params.holes) - params.mines
    state = {Status.WON: "cleared", Status.LOST: "dead"}.get(game.status, "playing")
    finished = loaded.last_move_at if game.status is not Status.PLAYING else None
    owner = loaded.record.owner
    mine = viewer is not None and owner == viewer
    return Side(
        seat, side_name(duel, seat, owner, ledger), loaded.id, game.revealed_count, safe,
        len(game.moves), state, finished, mine, owner,
    )  # fmt: skip


def winner_of(sides: tuple[Side, ...]) -> str | None:
    cleared = [s for s in sides if s.state == "cleared" and s.finished_at is not None]
    if cleared:
        return min(cleared, key=lambda s: s.finished_at or datetime.max).seat
    if len(sides) == 2 and all(s.state == "dead" for s in sides):
        return NOBODY
    return None


def race(duel: Duel, games: GameService, ledger: LedgerStore, viewer: str | None = None) -> Race:
    """The race for ``viewer`` (an owner id; None: a watcher)."""
    loaded = [(HOST, games.load(duel.host_game))]
    if duel.guest_game is not None:
        loaded.append((GUEST, games.load(duel.guest_game)))
    sides = tuple(_side(seat, duel, game, viewer, ledger) for seat, game in loaded)
    winner = duel.winner or winner_of(sides)
    over = len(sides) == 2 and all(s.over for s in sides)
    my_over = any(s.mine and s.over for s in sides)
    player = any(s.mine for s in sides)
    shown = tuple(
        replace(
            s,
            figures=figures(game) if over else None,
            watchable=not s.mine and (over or (player and my_over)),
        )
        for (_, game), s in zip(loaded, sides, strict=True)
    )
    layouts = {game.game.layout for _, game in loaded}
    return Race(duel, shown, winner, len(layouts) == 1)


def settle(engine: Engine, current: Race) -> None:
    """Write what the race decided (once): the winner with the ratings' change, the end.
    A database fault is logged and left for the next reader (the page still answers)."""
    try:
        _settle(engine, current)
    except SQLAlchemyError:
        log.warning(
            "settling duel %s failed: the next reader retries", current.duel.id, exc_info=True
        )


def _settle(engine: Engine, current: Race) -> None:
    duel = current.duel
    winner = current.winner
    if winner is not None and duel.winner is None:
        host, guest = current.side(HOST), current.side(GUEST)
        won = current.side(winner)
        finished = [s.finished_at for s in current.sides if s.finished_at is not None]
        at = won.finished_at if won is not None else max(finished, default=None)
        owners = (host.owner if host else None, guest.owner if guest else None)

        def rate(conn: Connection) -> None:
            host_owner, guest_owner = owners
            if rating.rated(host_owner, guest_owner, (duel.host_name, duel.guest_name)):
                assert host_owner is not None and guest_owner is not None
                rating.rate(conn, host_owner, guest_owner, winner)

        store.decide(engine, duel.id, winner, at or utcnow(), rate)
    if current.over and duel.ended_at is None:
        finished = [s.finished_at for s in current.sides if s.finished_at is not None]
        store.end(engine, duel.id, max(finished, default=None) or utcnow())
