"""Who may move, CSRF and rate limits.

Ownership
    A browser gets a random *owner id* the first time it creates a game, kept in the
    Flask session: a signed cookie, ``HttpOnly``, ``SameSite=Lax`` (``Secure`` with
    ``MINE_DEVIL_SECURE_COOKIES=1``). A game remembers its creator's owner id and the
    sha256 of an API bearer token. Anyone with a game's link may watch it; only a
    request carrying the owner cookie or ``Authorization: Bearer <token>`` may move
    (``can_move``; the CSRF-exempt JSON API takes the token only: ``require_token``).
CSRF
    ``CSRFProtect`` guards every POST except the ``api`` blueprint (bearer tokens are
    not sent automatically by browsers). Pages put ``csrf_token()`` in
    ``<meta name="csrf-token">`` and htmx sends it as the ``X-CSRFToken`` header.
Rate limits
    Flask-Limiter, per client address (``X-Forwarded-For`` only when
    ``MINE_DEVIL_PROXY_HOPS`` trusts a proxy). Views opt in with ``@limit_moves`` or
    ``@limit_creates``; the limits come from ``MOVE_RATE_LIMIT`` / ``CREATE_RATE_LIMIT``.
    They count in ``RATELIMIT_STORAGE_URI`` (``app.limitstore``): by default a SQLite file
    shared by the host's workers, Redis for several hosts.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, request, session
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_wtf.csrf import CSRFProtect  # type: ignore[import-untyped]
from werkzeug.exceptions import Forbidden
from werkzeug.middleware.proxy_fix import ProxyFix

import app.limitstore  # noqa: F401  # registers the sqlite:// and redis:// limit storages
from app.settings import settings
from app.store.records import GameRow, hash_token
from app.store.setup import get_store

F = TypeVar("F", bound=Callable[..., Any])

OWNER_KEY = "owner"
_LIMIT_ATTR = "_mine_devil_rate_limit"


# -- owner -----------------------------------------------------------------------------


def current_owner() -> str | None:
    """This browser's owner id, None if it never created a game."""
    owner = session.get(OWNER_KEY)
    return owner if isinstance(owner, str) and owner else None


def ensure_owner() -> str:
    """This browser's owner id, minted (and the cookie set) on first use."""
    owner = current_owner()
    if owner is None:
        owner = secrets.token_urlsafe(18)
        session[OWNER_KEY] = owner
        session.permanent = True
    return owner


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def token_matches(record: GameRow, token: str | None) -> bool:
    if not token:
        return False
    return hmac.compare_digest(hash_token(token), record.token_hash)


def is_owner(record: GameRow) -> bool:
    owner = current_owner()
    return (
        owner is not None and record.owner is not None and hmac.compare_digest(owner, record.owner)
    )


def can_move(record: GameRow) -> bool:
    """True when this request may move in the game: the owner cookie or its bearer token."""
    return is_owner(record) or token_matches(record, bearer_token())


def require_token(record: GameRow) -> None:
    """Abort with 403 unless the request carries the game's bearer token.

    The JSON API is exempt from CSRF, so it must not accept the owner cookie (a browser
    would attach it to a forged request); it takes bearer tokens only."""
    token = bearer_token()
    if token_matches(record, token):
        return
    if token is not None:
        raise Forbidden(f"the bearer token is not valid for game {record.id}")
    raise Forbidden(
        f"moves in game {record.id} need its token: send 'Authorization: Bearer <token>'"
    )


def recent_games(limit: int = 10) -> list[GameRow]:
    """Games this browser created, newest first (empty for a new browser)."""
    owner = current_owner()
    if owner is None:
        return []
    return get_store().games_by_owner(owner, limit)


# -- rate limits -----------------------------------------------------------------------


def client_key() -> str:
    """The client a rate limit counts against: its address."""
    return get_remote_address() or "unknown"


def _limited(config_key: str) -> Callable[[F], F]:
    def mark(view: F) -> F:
        setattr(view, _LIMIT_ATTR, config_key)
        return view

    return mark


limit_moves = _limited("MOVE_RATE_LIMIT")
"""Mark a view as a move: limited by ``MOVE_RATE_LIMIT`` per client (shared by all move views)."""

limit_creates = _limited("CREATE_RATE_LIMIT")
"""Mark a view as creating a game: limited by ``CREATE_RATE_LIMIT`` per client."""


def _apply_limits(app: Flask, limiter: Limiter) -> None:
    """Wrap every marked view of ``app`` in its limit; one shared bucket per config key."""
    for endpoint, view in list(app.view_functions.items()):
        config_key = getattr(view, _LIMIT_ATTR, None)
        if config_key is None:
            continue

        def value(key: str = config_key) -> str:
            return str(app.config[key])

        limited = limiter.shared_limit(value, scope=config_key.lower())(view)
        app.view_functions[endpoint] = limited  # type: ignore[assignment]


# -- setup -----------------------------------------------------------------------------


def init_app(app: Flask) -> None:
    """CSRF for the app (API exempt), per-app limiter, proxy trust. Call after the
    blueprints are registered: it wraps the views marked with ``limit_*``."""
    hops = settings(app).proxy_hops
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]

    csrf = CSRFProtect()
    csrf.init_app(app)
    if "api" in app.blueprints:
        csrf.exempt(app.blueprints["api"])
    app.extensions["mine_devil.csrf"] = csrf

    limiter = Limiter(key_func=client_key, default_limits=[])
    limiter.init_app(app)
    app.extensions["mine_devil.limiter"] = limiter
    _apply_limits(app, limiter)
