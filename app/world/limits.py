"""Bounds on world clients: move rate limits per player and per team, open streams per client.

Move limits count *moves* (a raft of 40 costs 40), per player and per team, with the app's
Flask-Limiter storage (``RATELIMIT_STORAGE_URI``: per process with the default
``memory://``; a shared store such as Redis makes them global). ``RATELIMIT_ENABLED``
(``MINE_DEVIL_RATELIMIT=0``) switches them off, as for games. A raft over either limit is
refused whole (429 with ``Retry-After``), so one busy bot cannot starve its team mates, and
one busy team cannot starve the others (each team has its own bucket).

Streams: at most ``WORLD_STREAMS_PER_CLIENT`` open event streams per client address and
``WORLD_STREAMS_MAX`` per process; each stream lives at most ``LIVE_MAX_SECONDS``.
"""

from __future__ import annotations

import math
import threading
import time

from flask import Flask, current_app
from limits import parse_many
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from app.world.records import PlayerRow


class RateLimited(TooManyRequests):
    def __init__(self, description: str, retry_after: float):
        super().__init__(description, retry_after=max(1, math.ceil(retry_after)))


def check_moves(player: PlayerRow, moves: int) -> None:
    """Count ``moves`` against the player's and the team's limits, or raise 429."""
    config = current_app.config
    if not config.get("RATELIMIT_ENABLED", True):
        return
    strategy = current_app.extensions["mine_devil.limiter"].limiter
    buckets = [
        (item, "world-player", f"{player.world}/{player.id}", "player")
        for item in parse_many(str(config["WORLD_PLAYER_RATE_LIMIT"]))
    ] + [
        (item, "world-team", f"{player.world}/{player.team}", "team")
        for item in parse_many(str(config["WORLD_TEAM_RATE_LIMIT"]))
    ]
    for item, scope, key, who in buckets:
        if not strategy.test(item, scope, key, cost=moves):
            reset = strategy.get_window_stats(item, scope, key).reset_time
            raise RateLimited(
                f"{moves} more moves would exceed the {who}'s limit of {item}",
                reset - time.time(),
            )
    for item, scope, key, _ in buckets:
        strategy.hit(item, scope, key, cost=moves)


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


class StreamSlots:
    """Open event streams per client address in this process (and in all)."""

    def __init__(self, per_client: int, total: int):
        self.per_client = per_client
        self.total = total
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}
        self._count = 0

    def acquire(self, client: str) -> None:
        with self._lock:
            if self._count >= self.total:
                raise ServiceUnavailable(
                    f"this server holds its maximum of {self.total} event streams: retry later"
                )
            mine = self._open.get(client, 0)
            if mine >= self.per_client:
                raise RateLimited(
                    f"at most {self.per_client} open event streams per client: close one", 5
                )
            self._open[client] = mine + 1
            self._count += 1

    def release(self, client: str) -> None:
        with self._lock:
            mine = self._open.get(client, 0) - 1
            if mine <= 0:
                self._open.pop(client, None)
            else:
                self._open[client] = mine
            self._count = max(0, self._count - 1)

    def open(self) -> int:
        with self._lock:
            return self._count


def stream_slots(app: Flask) -> StreamSlots:
    slots: StreamSlots = app.extensions["mine_devil.world.streams"]
    return slots
