"""Devil World's server side: the store, the JSON API and the live feed.

``init_app(app)`` opens the world store on the app's database engine and registers the API
blueprint at ``/api/worlds``; the world's settings (rate limits per player and team, the
drop interval, judging budgets, identity, view and ``who`` limits, streams per client and per
process, the idempotency window, presence reports per player) are ``app.settings.Settings``'
``world_*`` fields.

Call ``exempt_from_csrf(app)`` after ``security.init_app``: the API takes bearer tokens,
never cookies, like ``/api/games``.
"""

from __future__ import annotations

from flask import Flask

from app.bulkhead import Bulkhead
from app.errors import answer_scripts_in_json
from app.live.slots import StreamSlots, stream_room
from app.lru import Lru
from app.settings import settings
from app.world.api import bp
from app.world.feedcache import FeedCache
from app.world.orientation import bp as orientation
from app.world.pages import ACTIVITY_CACHE
from app.world.pages import bp as pages
from app.world.presence import PresenceBoard
from app.world.scoreboard import ScoreboardCache, store_reader
from app.world.service import Colourings
from app.world.store import WorldStore


def init_app(app: Flask, engine: object) -> None:
    """The world store on ``engine`` (the app store's), the blueprint, the settings."""
    import sqlalchemy as sa

    assert isinstance(engine, sa.Engine)
    store = WorldStore(engine)
    app.extensions["mine_devil.world.store"] = store
    app.extensions["mine_devil.world.feeds"] = FeedCache(store)
    app.extensions["mine_devil.world.colourings"] = Colourings()
    app.extensions["mine_devil.world.presence"] = PresenceBoard()
    app.extensions["mine_devil.world.scoreboards"] = ScoreboardCache(
        store_reader(store), store.standings_probe
    )
    app.extensions["mine_devil.world.streams"] = StreamSlots(
        settings(app).world_streams_per_client,
        settings(app).world_streams_max,
        within=stream_room(app),  # with the games' streams, what the worker can hold
        kind="world",
    )
    app.extensions["mine_devil.world.views"] = Bulkhead(
        "views", settings(app).world_view_slots, settings(app).world_view_wait_seconds
    )
    app.register_blueprint(bp, url_prefix="/api/worlds")
    app.register_blueprint(orientation, url_prefix="/api/worlds")  # map, presence, time-lapse
    app.extensions[ACTIVITY_CACHE] = Lru(64)
    app.register_blueprint(pages)  # the browser side: /world/<w> (app.world.pages)
    answer_scripts_in_json(app, pages.name)  # its script reads errors as JSON


def exempt_from_csrf(app: Flask) -> None:
    csrf = app.extensions.get("mine_devil.csrf")
    if csrf is not None:
        csrf.exempt(bp)
        csrf.exempt(orientation)


__all__ = ["exempt_from_csrf", "init_app"]
