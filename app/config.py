"""Settings from the environment, read when the app is created (never at import); the typed
object the code reads is ``app.settings.Settings``, frozen from these and the test config.

Environment variables (all optional):

``MINE_DEVIL_DATA``             data directory (default ``./data``): SQLite file, secret key
``MINE_DEVIL_DATABASE_URL``     SQLAlchemy URL, e.g. ``postgresql+psycopg://user@host/db``
                                (default ``sqlite:///<data>/mine-devil.sqlite3``)
``MINE_DEVIL_SECRET_KEY``       signs the owner cookie
                                (default: random, kept in ``<data>/secret_key``)
``MINE_DEVIL_SECURE_COOKIES``   ``1`` behind TLS: the owner cookie gets ``Secure``
``MINE_DEVIL_RATELIMIT``        ``0`` switches rate limiting off (benchmarks)
``MINE_DEVIL_RATELIMIT_MOVES``  limit per client on moves (default ``30 per second;600 per minute``)
``MINE_DEVIL_RATELIMIT_CREATE`` limit per client on new games (default ``60 per minute``)
``MINE_DEVIL_RATELIMIT_VIEWS``  page views (``GET``, Devil World's metered views apart) per
                                client, per process, paced before Flask (default ``30 per
                                second``; see ``app/pace.py``): over it a view waits up to
                                ``MINE_DEVIL_RATELIMIT_VIEWS_WAIT`` seconds (default 1), then
                                gets 429; ``MINE_DEVIL_RATELIMIT_VIEWS_BURST`` (default 60) may
                                come at once
``MINE_DEVIL_RATELIMIT_HOLD``   seconds a 429 of the app waits before it is sent (default 1,
                                never past its ``Retry-After``; see ``app/hold.py``)
``MINE_DEVIL_RATELIMIT_STORAGE`` where limits count (default ``sqlite:///<data>/ratelimits.sqlite3``,
                                shared by the host's workers; ``redis://host:port/0`` for several
                                hosts; ``memory://`` per process): see ``app/limitstore.py``
``MINE_DEVIL_METRICS_TOKEN``    bearer token ``GET /metrics`` asks for (unset: no ``/metrics``)
``MINE_DEVIL_PROXY_HOPS``       number of trusted proxies in front (``X-Forwarded-For``), default 0
``MINE_DEVIL_WORKER_CONNECTIONS`` the gevent worker's ``worker_connections`` (``mine-devil`` sets
                                it): open streams stay below it, with room for other requests
                                (``app.live.slots.stream_room_size``)
``MINE_DEVIL_CLIENT_REQUESTS``  requests one client may have in the app at once per process
                                (default 128; see ``app/gate.py``); benchmarks whose many simulated
                                people share one address raise it
``MINE_DEVIL_RATELIMIT_WORLD_PLAYER`` / ``_WORLD_TEAM``, ``MINE_DEVIL_WORLD_DROP_SECONDS``,
``MINE_DEVIL_WORLD_STREAMS_PER_CLIENT`` / ``_MAX``: Devil World's limits (``app.settings``)
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.limitstore import default_uri

MAX_CONTENT_LENGTH = 16 * 1024
"""Largest request body accepted (bytes); larger bodies get 413."""

SECRET_KEY_FILE = "secret_key"


def env_flag(name: str, default: bool, environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    value = env.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() not in {"0", "false", "no", "off"}


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("MINE_DEVIL_DATA") or "data").resolve()


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'mine-devil.sqlite3'}"


def persisted_secret_key(directory: Path) -> str:
    """The key in ``<directory>/secret_key``, created (mode 0600) on first use.

    Keeping it on disk means owner cookies survive a restart.
    """
    path = directory / SECRET_KEY_FILE
    try:
        key = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    directory.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker won the race: use its key
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    return key


WORLD_ENVIRONMENT = {
    "WORLD_PLAYER_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_PLAYER",
    "WORLD_TEAM_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_TEAM",
    "WORLD_DROP_SECONDS": "MINE_DEVIL_WORLD_DROP_SECONDS",
    "WORLD_JUDGE_MOVE_SECONDS": "MINE_DEVIL_WORLD_JUDGE_MOVE_SECONDS",
    "WORLD_JUDGE_MOVE_NODES": "MINE_DEVIL_WORLD_JUDGE_MOVE_NODES",
    "WORLD_JUDGE_RAFT_SECONDS": "MINE_DEVIL_WORLD_JUDGE_RAFT_SECONDS",
    "WORLD_JUDGE_RAFT_NODES": "MINE_DEVIL_WORLD_JUDGE_RAFT_NODES",
    "WORLD_JUDGE_NODES_PER_MOVE": "MINE_DEVIL_WORLD_JUDGE_NODES_PER_MOVE",
    "WORLD_STREAMS_PER_CLIENT": "MINE_DEVIL_WORLD_STREAMS_PER_CLIENT",
    "WORLD_STREAMS_MAX": "MINE_DEVIL_WORLD_STREAMS_MAX",
    "WORLD_JOIN_CLIENT_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_JOIN_CLIENT",
    "WORLD_JOIN_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_JOIN",
    "WORLD_TEAM_CLIENT_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_TEAM_CLIENT",
    "WORLD_NEW_TEAM_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_NEW_TEAM",
    "WORLD_DROP_CLIENT_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_DROP_CLIENT",
    "WORLD_VIEW_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_VIEW",
    "WORLD_VIEW_SLOTS": "MINE_DEVIL_WORLD_VIEW_SLOTS",
    "WORLD_VIEW_WAIT_SECONDS": "MINE_DEVIL_WORLD_VIEW_WAIT_SECONDS",
    "WORLD_WHO_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_WHO",
    "WORLD_IDEMPOTENCY_SECONDS": "MINE_DEVIL_WORLD_IDEMPOTENCY_SECONDS",
    "WORLD_PRESENCE_RATE_LIMIT": "MINE_DEVIL_RATELIMIT_WORLD_PRESENCE",
}
"""Devil World's settings that the environment may set (``app.settings`` has their
defaults and types)."""


def defaults(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Settings from the environment; ``overrides`` (test config) wins and is consulted first
    so that, e.g., a test's ``DATA_DIR`` or ``SECRET_KEY`` never touches ``./data``."""
    env = os.environ if environ is None else environ
    given = dict(overrides or {})
    directory = Path(given["DATA_DIR"]) if "DATA_DIR" in given else data_dir(env)
    secret = given.get("SECRET_KEY") or env.get("MINE_DEVIL_SECRET_KEY")
    if not secret:
        secret = persisted_secret_key(directory)
    secure = env_flag("MINE_DEVIL_SECURE_COOKIES", False, env)
    return {
        "SECRET_KEY": secret,
        "DATA_DIR": str(directory),
        "DATABASE_URL": env.get("MINE_DEVIL_DATABASE_URL") or sqlite_url(directory),
        "AUTO_MIGRATE": True,
        "MAX_CONTENT_LENGTH": MAX_CONTENT_LENGTH,
        "SESSION_COOKIE_NAME": "mine_devil",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": secure,
        "PERMANENT_SESSION_LIFETIME": 60 * 60 * 24 * 365,
        "WTF_CSRF_TIME_LIMIT": None,
        "WTF_CSRF_SSL_STRICT": secure,
        "RATELIMIT_ENABLED": env_flag("MINE_DEVIL_RATELIMIT", True, env),
        "RATELIMIT_STORAGE_URI": env.get("MINE_DEVIL_RATELIMIT_STORAGE") or default_uri(directory),
        "RATELIMIT_HEADERS_ENABLED": True,
        "MOVE_RATE_LIMIT": env.get("MINE_DEVIL_RATELIMIT_MOVES") or "30 per second;600 per minute",
        "CREATE_RATE_LIMIT": env.get("MINE_DEVIL_RATELIMIT_CREATE") or "60 per minute",
        "VIEW_RATE_LIMIT": env.get("MINE_DEVIL_RATELIMIT_VIEWS") or "30 per second",
        "VIEW_BURST": int(env.get("MINE_DEVIL_RATELIMIT_VIEWS_BURST") or 60),
        "VIEW_WAIT_SECONDS": float(env.get("MINE_DEVIL_RATELIMIT_VIEWS_WAIT") or 1.0),
        "REFUSAL_HOLD_SECONDS": float(env.get("MINE_DEVIL_RATELIMIT_HOLD") or 1.0),
        "METRICS_TOKEN": env.get("MINE_DEVIL_METRICS_TOKEN") or "",
        "PROXY_HOPS": int(env.get("MINE_DEVIL_PROXY_HOPS") or 0),
        "CLIENT_REQUESTS": int(env.get("MINE_DEVIL_CLIENT_REQUESTS") or 128),
        "WORKER_CONNECTIONS": int(env.get("MINE_DEVIL_WORKER_CONNECTIONS") or 0) or None,
        **{key: env[name] for key, name in WORLD_ENVIRONMENT.items() if env.get(name)},
    }
