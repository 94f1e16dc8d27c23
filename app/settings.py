"""Every setting of the app, typed, in one frozen object read once when the app is created.

``create_app`` fills Flask's ``app.config`` from the environment (``app.config.defaults``:
the ``MINE_DEVIL_*`` variables) and the test config, then freezes it here:
``settings()`` (in a request or app context) or ``settings(app)`` answers. Code reads
``settings().live_max_seconds``, never ``app.config.get("LIVE_MAX_SECONDS", 300)``: one name,
one type and one default for each. Flask and its extensions keep reading their own keys
(``SECRET_KEY``, ``MAX_CONTENT_LENGTH``, ``RATELIMIT_*``, ``SESSION_*``) from ``app.config``.

A field's config key is its name in capitals (``live_max_seconds`` <- ``LIVE_MAX_SECONDS``);
the environment variable that sets it, if any, is in its description.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app

KEY = "mine_devil.settings"
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


@dataclass(frozen=True)
class Settings:
    """The app's settings (see the module's docstring for where each comes from)."""

    data_dir: str = "data"
    """``MINE_DEVIL_DATA``: SQLite file, secret key, rate-limit counters."""
    database_url: str = ""
    """``MINE_DEVIL_DATABASE_URL``: SQLAlchemy URL (default: SQLite in ``data_dir``)."""
    auto_migrate: bool = True
    """Bring the database to the newest schema when the app is created (``mine-devil`` turns
    it off in workers: its master migrated)."""
    max_content_length: int = 16 * 1024
    """Largest request body in bytes (a view may take more: ``app.hooks.body_limit``)."""
    proxy_hops: int = 0
    """``MINE_DEVIL_PROXY_HOPS``: proxies in front whose ``X-Forwarded-For`` is trusted."""
    metrics_token: str = field(default="", repr=False)
    """``MINE_DEVIL_METRICS_TOKEN``: bearer token of ``GET /metrics`` (empty: no endpoint)."""
    notify_channel: str = "mine_devil"
    """PostgreSQL ``LISTEN`` channel of the live streams' wake-ups."""

    # -- limits ---------------------------------------------------------------------------
    ratelimit_enabled: bool = True
    """``MINE_DEVIL_RATELIMIT``: ``0`` switches every rate limit off (benchmarks)."""
    move_rate_limit: str = "30 per second;600 per minute"
    """``MINE_DEVIL_RATELIMIT_MOVES``: moves per client in games."""
    create_rate_limit: str = "60 per minute"
    """``MINE_DEVIL_RATELIMIT_CREATE``: new games per client."""
    world_player_rate_limit: str = "60 per second;1800 per minute"
    """``MINE_DEVIL_RATELIMIT_WORLD_PLAYER``: world moves per player (a raft of n costs n)."""
    world_team_rate_limit: str = "300 per second;9000 per minute"
    """``MINE_DEVIL_RATELIMIT_WORLD_TEAM``: world moves per team."""
    world_drop_seconds: float = 30.0
    """``MINE_DEVIL_WORLD_DROP_SECONDS``: one drop per player per this many seconds (not
    enforced when the rate limits are off)."""
    client_requests: int = 128
    """``MINE_DEVIL_CLIENT_REQUESTS``: requests of one client in the app at once, per process
    (``app.gate``)."""
    body_seconds: float = 10.0
    """Seconds a request's whole body may take to arrive (``app.gate``, under gevent)."""
    view_rate_limit: str = "30 per second"
    """``MINE_DEVIL_RATELIMIT_VIEWS``: page views (``GET``) per client, per process, paced in
    front of Flask (``app.pace``); a view over it waits its turn, then gets a 429."""
    view_burst: int = 60
    """``MINE_DEVIL_RATELIMIT_VIEWS_BURST``: views a client may ask for at once (a page and
    its scripts, styles and fragments) before they are paced."""
    view_wait_seconds: float = 1.0
    """``MINE_DEVIL_RATELIMIT_VIEWS_WAIT``: the longest a view waits for its turn (under
    gevent; elsewhere it does not wait): beyond, 429."""
    refusal_hold_seconds: float = 1.0
    """``MINE_DEVIL_RATELIMIT_HOLD``: every 429 of the app waits this long (at most its
    ``Retry-After``) before it is sent, under gevent (``app.hold``): a refused client cannot
    ask again at once."""

    # -- live streams ---------------------------------------------------------------------
    live_max_seconds: float = 300.0
    """Longest life of one event stream (the client reconnects with ``Last-Event-ID``)."""
    live_heartbeat_seconds: float = 15.0
    """A comment line this often on an idle stream, so proxies keep it open."""
    live_streams_per_client: int = 8
    """Open game streams per client address, per process."""
    live_streams_max: int = 4000
    """Open game streams per process."""
    world_judge_move_seconds: float = 0.25
    """``MINE_DEVIL_WORLD_JUDGE_MOVE_SECONDS``: CPU seconds judging one world move may
    spend; beyond, the move is ``undecided`` (``app.world.judging.Judging``)."""
    world_judge_move_nodes: int = 20_000
    """``MINE_DEVIL_WORLD_JUDGE_MOVE_NODES``: budget units judging one move may spend."""
    world_judge_raft_seconds: float = 1.0
    """``MINE_DEVIL_WORLD_JUDGE_RAFT_SECONDS``: CPU seconds for a whole raft (the moves after
    it is spent are ``undecided``)."""
    world_judge_raft_nodes: int = 100_000
    """``MINE_DEVIL_WORLD_JUDGE_RAFT_NODES``: budget units for a whole raft."""
    world_judge_nodes_per_move: int = 2000
    """``MINE_DEVIL_WORLD_JUDGE_NODES_PER_MOVE``: judging work charged to the move rate
    limits, one more move per this many units."""
    world_streams_per_client: int = 20
    """``MINE_DEVIL_WORLD_STREAMS_PER_CLIENT``: open world streams per client address."""
    world_streams_max: int = 4000
    """``MINE_DEVIL_WORLD_STREAMS_MAX``: open world streams per process (never more than the
    process's ``app.live.slots.stream_room``)."""
    worker_connections: int | None = None
    """``MINE_DEVIL_WORKER_CONNECTIONS``: the gevent worker's ``worker_connections``
    (``mine-devil`` sets it); open streams stay below it with room for other requests
    (``app.live.slots.stream_room_size``). None: not under a gevent worker."""
    world_join_client_rate_limit: str = "10 per minute;200 per day"
    """``MINE_DEVIL_RATELIMIT_WORLD_JOIN_CLIENT``: new world players per client address."""
    world_join_rate_limit: str = "120 per minute;5000 per day"
    """``MINE_DEVIL_RATELIMIT_WORLD_JOIN``: new players per world."""
    world_team_client_rate_limit: str = "3 per minute;30 per day"
    """``MINE_DEVIL_RATELIMIT_WORLD_TEAM_CLIENT``: new teams per client address."""
    world_new_team_rate_limit: str = "30 per minute;1000 per day"
    """``MINE_DEVIL_RATELIMIT_WORLD_NEW_TEAM``: new teams per world."""
    world_drop_client_rate_limit: str = "6 per minute;120 per hour"
    """``MINE_DEVIL_RATELIMIT_WORLD_DROP_CLIENT``: drops per client address (the one drop per
    player per ``world_drop_seconds`` bounds nobody when players are free)."""
    world_view_rate_limit: str = "40 per second;1200 per minute"
    """``MINE_DEVIL_RATELIMIT_WORLD_VIEW``: views and stream openings per client address, in
    64x64-cell units (a 256x256 view costs 16)."""
    world_view_slots: int = 2
    """``MINE_DEVIL_WORLD_VIEW_SLOTS``: views, maps and time-lapse pages read and drawn at once
    per process; the others wait their turn (``app.bulkhead``), at most
    ``world_view_wait_seconds``, then get a 429."""
    world_view_wait_seconds: float = 5.0
    """``MINE_DEVIL_WORLD_VIEW_WAIT_SECONDS``: see ``world_view_slots``."""
    world_who_rate_limit: str = "10 per second;300 per minute"
    """``MINE_DEVIL_RATELIMIT_WORLD_WHO``: ``who`` lookups per client address."""
    world_idempotency_seconds: float = 86400.0
    """``MINE_DEVIL_WORLD_IDEMPOTENCY_SECONDS``: how long a raft's ``Idempotency-Key``
    answers its retries."""
    world_presence_rate_limit: str = "4 per second;150 per minute"
    """``MINE_DEVIL_RATELIMIT_WORLD_PRESENCE``: presence reports per player (``POST
    /api/worlds/<w>/presence``; the page sends at most one a second)."""

    # -- games and the engine ---------------------------------------------------------------
    game_cache_size: int = 128
    """Games kept decoded in memory per process."""
    game_queue: int = 16
    """Moves of one game that may wait for it at once; one more is a 429."""
    game_wait_seconds: float = 5.0
    """How long a move waits for its game before a 429."""
    engine_runner: str = "thread"
    """Where big boards' engine work runs inside a worker: ``thread`` (gevent's pool when
    gevent is there) or ``inline``."""
    engine_offload: bool = True
    """First reveals go to engine child processes (``app.play.offload``)."""
    engine_processes: int = 2
    """Engine child processes per worker for first reveals."""
    engine_work_processes: int | None = None
    """Child processes for heavy work (analysis, hints); None: the module's default."""
    ledger_warm: bool = True
    """Warm the records' ledger when the app starts."""
    svg_seconds: float = 1.0
    """Engine time an SVG export may take."""
    analyse_seconds: float = 2.0
    """Engine time one analysis may take."""
    hint_seconds: float = 2.0
    """Engine time one hint may take."""

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Settings:
        """The settings in ``config`` (keys in capitals; strings from the environment are
        converted to each field's type); a missing key keeps the field's default."""
        hints = typing.get_type_hints(cls)
        given: dict[str, Any] = {}
        for each in dataclasses.fields(cls):
            key = each.name.upper()
            if key in config and config[key] is not None:
                given[each.name] = convert(each.name, hints[each.name], config[key])
        return cls(**given)


def convert(name: str, kind: Any, value: Any) -> Any:
    """``value`` as ``kind`` (bool, int, float, str, or one of them or None)."""
    options = [k for k in typing.get_args(kind) if k is not type(None)] or [kind]
    target = options[0]
    try:
        if target is bool:
            if isinstance(value, str):
                return value.strip().lower() not in FALSE_WORDS
            return bool(value)
        if target in (int, float) and isinstance(value, str):
            return target(value.strip())
        return target(value)
    except ValueError as exc:
        raise ValueError(f"setting {name.upper()}: {value!r} is not a {target.__name__}") from exc


def init_app(app: Flask) -> Settings:
    """Freeze ``app.config`` into the app's settings (once, in ``create_app``)."""
    frozen = Settings.from_config(app.config)
    app.extensions[KEY] = frozen
    return frozen


def settings(app: Flask | None = None) -> Settings:
    """The settings of ``app`` (default: the current app)."""
    found: Settings = (app or current_app).extensions[KEY]
    return found
