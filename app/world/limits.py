"""Bounds on world clients: move rate limits per player and per team, open streams per client.

Move limits count *moves* (a raft of 40 costs 40), per player and per team, with the app's
Flask-Limiter storage (``RATELIMIT_STORAGE_URI``: shared by the host's workers by default,
by every host with Redis; see ``app/limitstore.py``). ``RATELIMIT_ENABLED``
(``MINE_DEVIL_RATELIMIT=0``) switches them off, as for games. A raft over either limit is
refused whole (429 with ``Retry-After``), so one busy bot cannot starve its team mates, and
one busy team cannot starve the others (each team has its own bucket).

Identities and reads (issue 17): new players and new teams per client address and per world;
drops per client address (besides one per player per ``WORLD_DROP_SECONDS``); views and
stream openings per client address in 64x64-cell units; ``who`` lookups per client address.
Each refusal is a 429 naming the limit, with ``Retry-After``.

Streams: at most ``WORLD_STREAMS_PER_CLIENT`` open event streams per client address and
``WORLD_STREAMS_MAX`` per process (``app.live.slots.StreamSlots``, inside the process's
``stream_room`` shared with the games' streams); each stream lives at most
``LIVE_MAX_SECONDS`` and lets its slot go within ``app.live.slots.GONE_POLL_SECONDS`` of its client
leaving.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask, current_app
from limits import RateLimitItem, parse_many
from werkzeug.exceptions import TooManyRequests

from app.bulkhead import Bulkhead
from app.live.slots import StreamSlots
from app.security import client_key
from app.settings import settings
from app.world.records import PlayerRow


class RateLimited(TooManyRequests):
    def __init__(self, description: str, retry_after: float, reason: str = "world"):
        super().__init__(description, retry_after=max(1, math.ceil(retry_after)))
        self.reason = reason
        """What was over its limit (``app.metrics``: ``world-player``, ``streams``...)."""


Bucket = tuple[RateLimitItem, str, str, str]
"""(limit, scope, key, who: the words naming it in a refusal)."""


def _buckets(limit: str, scope: str, key: str, who: str) -> list[Bucket]:
    """The buckets of ``limit`` (a Flask-Limiter string such as ``"6 per minute"``)."""
    return [(item, scope, key, who) for item in parse_many(limit)]


def charge(buckets: list[Bucket], cost: int = 1, what: str = "requests") -> None:
    """Count ``cost`` against every bucket, or raise 429 (nothing counted) when one of them
    would go over: the limiter's storage (``RATELIMIT_STORAGE_URI``) keeps the counts."""
    if not settings().ratelimit_enabled or not buckets:
        return
    strategy = current_app.extensions["mine_devil.limiter"].limiter
    for item, scope, key, who in buckets:
        if not strategy.test(item, scope, key, cost=cost):
            reset = strategy.get_window_stats(item, scope, key).reset_time
            raise RateLimited(
                f"{cost} more {what} would exceed the {who}'s limit of {item}",
                reset - time.time(),
                scope,
            )
    for item, scope, key, _ in buckets:
        strategy.hit(item, scope, key, cost=cost)


def check_moves(player: PlayerRow, moves: int) -> None:
    """Count ``moves`` against the player's and the team's limits, or raise 429."""
    options = settings()
    player_key, team_key = f"{player.world}/{player.id}", f"{player.world}/{player.team}"
    charge(
        _buckets(options.world_player_rate_limit, "world-player", player_key, "player")
        + _buckets(options.world_team_rate_limit, "world-team", team_key, "team"),
        moves,
        "moves",
    )


def charge_judging(player: PlayerRow, units: int) -> None:
    """Count a raft's judging work against the player's and the team's move limits (every
    ``world_judge_nodes_per_move`` units as one move, after the raft, never refusing it):
    a client whose moves are costly to judge reaches its limits sooner, so undecided
    moves are not free to repeat."""
    options = settings()
    per_move = options.world_judge_nodes_per_move
    extra = units // per_move if per_move > 0 else 0
    if not extra or not options.ratelimit_enabled:
        return
    strategy = current_app.extensions["mine_devil.limiter"].limiter
    for limit, scope, key in (
        (options.world_player_rate_limit, "world-player", f"{player.world}/{player.id}"),
        (options.world_team_rate_limit, "world-team", f"{player.world}/{player.team}"),
    ):
        for item in parse_many(limit):
            strategy.hit(item, scope, key, cost=extra)


def check_drops(world: str, drops: int) -> None:
    """A raft's drops against the client address's limit (the one drop per player per
    ``WORLD_DROP_SECONDS`` bounds nobody when players are free)."""
    if drops:
        client = client_key()
        charge(
            _buckets(settings().world_drop_client_rate_limit, "world-drop-client",
                     f"{world}/{client}", "client address"),
            drops,
            "drops",
        )  # fmt: skip


def check_join(world: str, new_team: bool) -> None:
    """A new player (and a new team when ``new_team``): limited per client address and per
    world, so identities cost something."""
    client = client_key()
    options = settings()
    buckets = _buckets(
        options.world_join_client_rate_limit, "world-join-client", client, "client address"
    ) + _buckets(options.world_join_rate_limit, "world-join", world, "world")
    if new_team:
        buckets += _buckets(
            options.world_team_client_rate_limit, "world-team-client", client, "client address"
        ) + _buckets(options.world_new_team_rate_limit, "world-new-team", world, "world")
    charge(buckets, 1, "new teams" if new_team else "new players")


VIEW_UNIT = 64 * 64
"""A view costs one per 64x64 cells it covers (at least one)."""


def view_cost(width: int, height: int) -> int:
    return max(1, -(-width * height // VIEW_UNIT))


def check_view(cost: int) -> None:
    """Views (and stream openings) of a client address, in 64x64-cell units."""
    charge(
        _buckets(settings().world_view_rate_limit, "world-view", client_key(), "client address"),
        cost,
        "view units (64x64 cells each)",
    )


@contextmanager
def viewing(cost: int) -> Iterator[None]:
    """A view (or a map, a time-lapse page) of ``cost`` 64x64-cell units: counted against
    the client address's view limit, then drawn in one of the process's view slots
    (``app.bulkhead``: a flood of views waits its turn instead of delaying everybody)."""
    check_view(cost)
    views: Bulkhead = current_app.extensions["mine_devil.world.views"]
    with views.slot():
        yield


def check_who(world: str) -> None:
    """``who`` lookups of a client address."""
    charge(
        _buckets(settings().world_who_rate_limit, "world-who", client_key(), "client address"),
        1,
        "lookups",
    )


def stream_slots(app: Flask) -> StreamSlots:
    slots: StreamSlots = app.extensions["mine_devil.world.streams"]
    return slots
