"""Devil World's server side: the store, the JSON API and the live feed.

``init_app(app)`` opens the world store on the app's database engine, registers the API
blueprint at ``/api/worlds`` and sets the world's defaults (each overridable by the test
config or the environment):

``WORLD_PLAYER_RATE_LIMIT``   ``MINE_DEVIL_RATELIMIT_WORLD_PLAYER``, moves per player
                              (default ``60 per second;1800 per minute``)
``WORLD_TEAM_RATE_LIMIT``     ``MINE_DEVIL_RATELIMIT_WORLD_TEAM``, moves per team
                              (default ``300 per second;9000 per minute``)
``WORLD_DROP_SECONDS``        ``MINE_DEVIL_WORLD_DROP_SECONDS``, one drop per player per
                              this many seconds (default 30; off with the rate limits)
``WORLD_JUDGE_MOVE_SECONDS``  ``MINE_DEVIL_WORLD_JUDGE_MOVE_SECONDS`` / ``..._NODES``: the
``WORLD_JUDGE_MOVE_NODES``    most CPU seconds / budget units judging one move may spend
                              (default 0.25 s / 20000); beyond, the move is ``undecided``
``WORLD_JUDGE_RAFT_SECONDS``  the same for a whole raft (default 1 s / 100000): the moves
``WORLD_JUDGE_RAFT_NODES``    after it is spent are ``undecided`` (``app.world.service``)
``WORLD_JUDGE_NODES_PER_MOVE`` judging work charged to the move rate limits: every this many
                              units spent count as one more move (default 2000)
``WORLD_STREAMS_PER_CLIENT``  open event streams per client address (default 20)
``WORLD_STREAMS_MAX``         open event streams per process (default 4000)

Call ``exempt_from_csrf(app)`` after ``security.init_app``: the API takes bearer tokens,
never cookies, like ``/api/games``.
"""

from __future__ import annotations

import os

from flask import Flask

from app.world.api import bp
from app.world.feedcache import FeedCache
from app.world.limits import StreamSlots
from app.world.pages import bp as pages
from app.world.service import Colourings
from app.world.store import WorldStore

DEFAULTS = {
    "WORLD_PLAYER_RATE_LIMIT": (
        "MINE_DEVIL_RATELIMIT_WORLD_PLAYER",
        "60 per second;1800 per minute",
    ),
    "WORLD_TEAM_RATE_LIMIT": ("MINE_DEVIL_RATELIMIT_WORLD_TEAM", "300 per second;9000 per minute"),
    "WORLD_DROP_SECONDS": ("MINE_DEVIL_WORLD_DROP_SECONDS", "30"),
    "WORLD_JUDGE_MOVE_SECONDS": ("MINE_DEVIL_WORLD_JUDGE_MOVE_SECONDS", "0.25"),
    "WORLD_JUDGE_MOVE_NODES": ("MINE_DEVIL_WORLD_JUDGE_MOVE_NODES", "20000"),
    "WORLD_JUDGE_RAFT_SECONDS": ("MINE_DEVIL_WORLD_JUDGE_RAFT_SECONDS", "1"),
    "WORLD_JUDGE_RAFT_NODES": ("MINE_DEVIL_WORLD_JUDGE_RAFT_NODES", "100000"),
    "WORLD_JUDGE_NODES_PER_MOVE": ("MINE_DEVIL_WORLD_JUDGE_NODES_PER_MOVE", "2000"),
    "WORLD_STREAMS_PER_CLIENT": ("MINE_DEVIL_WORLD_STREAMS_PER_CLIENT", "20"),
    "WORLD_STREAMS_MAX": ("MINE_DEVIL_WORLD_STREAMS_MAX", "4000"),
}


def init_app(app: Flask, engine: object) -> None:
    """The world store on ``engine`` (the app store's), the blueprint, the settings."""
    import sqlalchemy as sa

    assert isinstance(engine, sa.Engine)
    for key, (env, default) in DEFAULTS.items():
        app.config.setdefault(key, os.environ.get(env) or default)
    store = WorldStore(engine)
    app.extensions["mine_devil.world.store"] = store
    app.extensions["mine_devil.world.feeds"] = FeedCache(store)
    app.extensions["mine_devil.world.colourings"] = Colourings()
    app.extensions["mine_devil.world.streams"] = StreamSlots(
        int(app.config["WORLD_STREAMS_PER_CLIENT"]), int(app.config["WORLD_STREAMS_MAX"])
    )
    app.register_blueprint(bp, url_prefix="/api/worlds")
    app.register_blueprint(pages)  # the browser side: /world/<w> (app.world.pages)


def exempt_from_csrf(app: Flask) -> None:
    csrf = app.extensions.get("mine_devil.csrf")
    if csrf is not None:
        csrf.exempt(bp)


__all__ = ["exempt_from_csrf", "init_app"]
