"""Bounds on world clients: move rate limits per player and per team, open streams per client.

Move limits count *moves* (a raft of 40 costs 40), per player and per team, with the app's
Flask-Limiter storage (``RATELIMIT_STORAGE_URI``: per process with the default
``memory://``; a shared store such as Redis makes them global). ``RATELIMIT_ENABLED``
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

from flask import Flask, current_app
from limits import RateLimitItem, parse_many
from werkzeug.exceptions import TooManyRequests

from app.live.slots import StreamSlots
from app.security import client_key
from app.world.records import PlayerRow


class RateLimited(TooManyRequests):
    def __init__(self, description: str, retry_after: float):
        super().__init__(description, retry_after=max(1, math.ceil(retry_after)))


Bucket = tuple[RateLimitItem, str, str, str]
"""(limit, scope, key, who: the words naming it in a refusal)."""


def _buckets(setting: str, scope: str, key: str, who: str) -> list[Bucket]:
    return [(item, scope, key, who) for item in parse_many(str(current_app.config[setting]))]


def charge(buckets: list[Bucket], cost: int = 1, what: str = "requests") -> None:
    """Count ``cost`` against every bucket, or raise 429 (nothing counted) when one of them
    would go over: the limiter's storage (``RATELIMIT_STORAGE_URI``) keeps the counts."""
    if not current_app.config.get("RATELIMIT_ENABLED", True) or not buckets:
        return
    strategy = current_app.extensions["mine_devil.limiter"].limiter
    for item, scope, key, who in buckets:
        if not strategy.test(item, scope, key, cost=cost):
            reset = strategy.get_window_stats(item, scope, key).reset_time
            raise RateLimited(
                f"{cost} more {what} would exceed the {who}'s limit of {item}",
                reset - time.time(),
            )
    for item, scope, key, _ in buckets:
        strategy.hit(item, scope, key, cost=cost)


def check_moves(player: PlayerRow, moves: int) -> None:
    """Count ``moves`` against the player's and the team's limits, or raise 429."""
    charge(
        _buckets("WORLD_PLAYER_RATE_LIMIT", "world-player", f"{player.world}/{player.id}",
                 "player")
        + _buckets("WORLD_TEAM_RATE_LIMIT", "world-team", f"{player.world}/{player.team}",
                   "team"),
        moves,
        "moves",
    )  # fmt: skip


def charge_judging(player: PlayerRow, units: int) -> None:
    """Count a raft's judging work against the player's and the team's move limits (every
    ``WORLD_JUDGE_NODES_PER_MOVE`` units as one move, after the raft, never refusing it):
    a client whose moves are costly to judge reaches its limits sooner, so undecided
    moves are not free to repeat."""
    config = current_app.config
    per_move = int(config["WORLD_JUDGE_NODES_PER_MOVE"])
    extra = units // per_move if per_move > 0 else 0
    if not extra or not config.get("RATELIMIT_ENABLED", True):
        return
    strategy = current_app.extensions["mine_devil.limiter"].limiter
    for setting, scope, key in (
        ("WORLD_PLAYER_RATE_LIMIT", "world-player", f"{player.world}/{player.id}"),
        ("WORLD_TEAM_RATE_LIMIT", "world-team", f"{player.world}/{player.team}"),
    ):
        for item in parse_many(str(config[setting])):
            strategy.hit(item, scope, key, cost=extra)


def check_drops(world: str, drops: int) -> None:
    """A raft's drops against the client address's limit (the one drop per player per
    ``WORLD_DROP_SECONDS`` bounds nobody when players are free)."""
    if drops:
        client = client_key()
        charge(
            _buckets("WORLD_DROP_CLIENT_RATE_LIMIT", "world-drop-client",
                     f"{world}/{client}", "client address"),
            drops,
            "drops",
        )  # fmt: skip


def check_join(world: str, new_team: bool) -> None:
    """A new player (and a new team when ``new_team``): limited per client address and per
    world, so identities cost something."""
    client = client_key()
    buckets = _buckets("WORLD_JOIN_CLIENT_RATE_LIMIT", "world-join-client", client,
                       "client address") + _buckets(
        "WORLD_JOIN_RATE_LIMIT", "world-join", world, "world")  # fmt: skip
    if new_team:
        buckets += _buckets(
            "WORLD_TEAM_CLIENT_RATE_LIMIT", "world-team-client", client, "client address"
        ) + _buckets("WORLD_NEW_TEAM_RATE_LIMIT", "world-new-team", world, "world")
    charge(buckets, 1, "new teams" if new_team else "new players")


VIEW_UNIT = 64 * 64
"""A view costs one per 64x64 cells it covers (at least one)."""


def view_cost(width: int, height: int) -> int:
    return max(1, -(-width * height // VIEW_UNIT))


def check_view(cost: int) -> None:
    """Views (and stream openings) of a client address, in 64x64-cell units."""
    charge(
        _buckets("WORLD_VIEW_RATE_LIMIT", "world-view", client_key(), "client address"),
        cost,
        "view units (64x64 cells each)",
    )


def check_who(world: str) -> None:
    """``who`` lookups of a client address."""
    charge(
        _buckets("WORLD_WHO_RATE_LIMIT", "world-who", client_key(), "client address"),
        1,
        "lookups",
    )


def stream_slots(app: Flask) -> StreamSlots:
    slots: StreamSlots = app.extensions["mine_devil.world.streams"]
    return slots
