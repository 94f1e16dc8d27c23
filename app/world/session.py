"""The world page's player: the bearer token a browser keeps in its signed session.

Joining on the page (``app.world.pages``) puts the player's token in the Flask session (a
signed, HttpOnly cookie: one token per world, at most ``MAX_WORLDS_IN_COOKIE`` worlds); the
page's scripts never see it. The JSON API takes that session in place of an
``Authorization: Bearer`` header (``session_player``): the page plays through the API's own
raft endpoint, so there is one raft endpoint. A request authenticated by the cookie must carry
the page's CSRF token (``X-CSRFToken``), as every cookie-authenticated POST of the site does.
"""

from __future__ import annotations

from flask import current_app, g, request, session

from app.world.records import PlayerRow
from app.world.store import WorldStore

SESSION_KEY = "world_tokens"
"""The session maps world id -> the player's bearer token."""
MAX_WORLDS_IN_COOKIE = 8
MAX_TOKEN = 128


def _store() -> WorldStore:
    store: WorldStore = current_app.extensions["mine_devil.world.store"]
    return store


def session_token(world: str) -> str | None:
    tokens = session.get(SESSION_KEY)
    if not isinstance(tokens, dict):
        return None
    token = tokens.get(world)
    if not isinstance(token, str) or len(token) > MAX_TOKEN:
        return None
    return token


def current_player(world: str, fresh: bool = False) -> PlayerRow | None:
    """The player this browser joined ``world`` as, or None (watching). The store remembers
    a token's player without its later colour switches and drops: ``fresh`` reads them."""
    token = session_token(world)
    if token is None:
        return None
    player = _store().player_by_token(token)
    if player is None or player.world != world:
        return None
    return _store().player(player.id) if fresh else player


def remember(world: str, token: str) -> None:
    """Keep ``token`` as this browser's player of ``world`` (the oldest world goes first)."""
    tokens = session.get(SESSION_KEY)
    tokens = dict(tokens) if isinstance(tokens, dict) else {}
    tokens.pop(world, None)
    while len(tokens) >= MAX_WORLDS_IN_COOKIE:
        tokens.pop(next(iter(tokens)))
    tokens[world] = token
    session[SESSION_KEY] = tokens
    session.permanent = True


def forget(world: str) -> None:
    tokens = session.get(SESSION_KEY)
    if isinstance(tokens, dict) and world in tokens:
        session[SESSION_KEY] = {k: v for k, v in tokens.items() if k != world}


def session_player(world: str) -> PlayerRow | None:
    """The API's player from the page's session (no ``Authorization`` header), after the
    CSRF check a cookie-authenticated POST needs (a 400 without the page's token)."""
    if SESSION_KEY not in session:
        return None
    player = current_player(world)
    if player is None:
        return None
    csrf = current_app.extensions.get("mine_devil.csrf")
    enabled = current_app.config.get("WTF_CSRF_ENABLED", True)
    checked = g.get("csrf_valid", False)
    safe = request.method in ("GET", "HEAD", "OPTIONS")
    if csrf is not None and enabled and not checked and not safe:
        csrf.protect()
    return player
