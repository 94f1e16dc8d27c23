"""Devil duels: two players race on the same adversarial board.

A duel is two ordinary games with the same parameters and seed (the first player's, then the
second's, created from the first game's parameters when the second accepts the share link).
The race starts when the second seat is taken: the duel opens the same first cell on both
boards, so both play one real layout. Each plays their own game on the usual board; the duel
page shows both players (by name) and their progress, pushed live through the app's notifier,
names the winner (the first to clear), offers a rematch, and rates named players (OpenSkill).

``store`` keeps the pairing and the result (table ``duels``, migrations 0004 and
0005_duel_rating), ``race`` reads who is ahead from the games, ``rating`` the ratings,
``history`` the records page's duel part, ``routes`` the pages and the event stream.
"""

from __future__ import annotations

from flask import Flask, current_app, url_for

from app.lru import Lru
from app.play.view import DUEL_OF, DuelTie

INDEX = "mine_devil.duel_index"


class DuelIndex:
    """Which duel each game is raced in, remembered: a game joins its duel before its first
    move and never leaves it, so a running game's page asks the database once, not per move."""

    def __init__(self, size: int = 8192) -> None:
        self._known: Lru[str, str] = Lru(size)

    def duel_id(self, game_id: str) -> str | None:
        from app.duel import store
        from app.store.setup import get_store

        found = self._known.get(game_id)
        if found is None:
            duel = store.of_game(get_store().engine, game_id)
            found = "" if duel is None else duel.id
            self._known.put(game_id, found)
        return found or None


def duel_of(game_id: str, over: bool) -> DuelTie | None:
    """The duel ``game_id`` is raced in, for the game's own pages (``app.play.view``);
    ``over``: the game has ended (only then is ``sealed`` worked out)."""
    from app.duel import store
    from app.play.setup import get_service
    from app.store.setup import get_store

    index: DuelIndex = current_app.extensions[INDEX]
    duel_id = index.duel_id(game_id)
    if duel_id is None:
        return None
    url = url_for("duel.show", duel_id=duel_id)
    if not over:
        return DuelTie(url, False)
    duel = store.get(get_store().engine, duel_id)
    other = duel.guest_game if game_id == duel.host_game else duel.host_game
    sealed = False
    if duel.ended_at is None and other is not None:
        sealed = not get_service().load(other).game.over
    return DuelTie(url, sealed)


def init_app(app: Flask) -> None:
    from app.duel.routes import bp

    app.register_blueprint(bp)
    app.extensions[INDEX] = DuelIndex()
    app.extensions[DUEL_OF] = duel_of


__all__ = ["init_app"]
