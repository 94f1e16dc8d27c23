"""Teammates' presence: where each player of a team is looking, shown live to the team's page.

A player's page reports its view (``POST /api/worlds/<w>/presence``: the rectangle of cells
in view and, if any, the keyboard or pointer cell) when it changes, coalesced by the page to
one a second at most, and once more every 15 s while open; leaving the page says
``{"gone": true}``. The server checks the numbers, refuses more than
``WORLD_PRESENCE_RATE_LIMIT`` reports per player (429), and publishes the report on the
team's notifier topic, beside the team's moves: every stream of the team's live feed sends it
on as ``event: presence`` (no ``id``: it is not part of the log). A presence carries the
player's id, name and colour (public on the scoreboard) and rectangle: no cell, nothing the
team knows or does not know.

Each process keeps the newest presence of every teammate it saw (``PresenceBoard``: at most
``MAX_PER_TEAM`` per team, ``MAX_TEAMS`` teams), so a stream that opens starts with who is
there. It is best effort: a report lost between processes is corrected by the next one, at
most 15 s later; a page forgets a teammate not heard of for ``TTL`` seconds.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.settings import settings
from app.world.limits import _buckets, charge
from app.world.records import PlayerRow

KEY = "pr"
"""The notification payload's key for a presence (a move's payload has ``s``, its seq)."""
MAX_SIDE = 512
"""The largest view reported, in cells (a 4K screen at the page's smallest zoom)."""
MAX_XY = 2**53
"""Coordinates a page can hold exactly (the page itself goes no further)."""
TTL = 45.0
MAX_PER_TEAM = 64
MAX_TEAMS = 512


class PresenceError(ValueError):
    """A bad report: ``field`` names it."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class Presence:
    player: str
    name: str
    colour: int
    x0: int
    y0: int
    width: int
    height: int
    x: int | None = None
    y: int | None = None

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "p": self.player,
            "n": self.name,
            "c": self.colour,
            "x0": self.x0,
            "y0": self.y0,
            "w": self.width,
            "h": self.height,
        }
        if self.x is not None and self.y is not None:
            body["x"], body["y"] = self.x, self.y
        return body


def _whole(data: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PresenceError(name, "must be an integer")
    if not low <= value <= high:
        raise PresenceError(name, f"{value} is out of range: allowed {low} to {high}")
    return value


def parse_report(data: Any, player: PlayerRow) -> Presence | None:
    """The report's presence, or None for ``{"gone": true}``; raises ``PresenceError``."""
    if not isinstance(data, dict):
        raise PresenceError("body", "must be a JSON object")
    unknown = set(data) - {"x0", "y0", "width", "height", "x", "y", "gone"}
    if unknown:
        raise PresenceError(sorted(unknown)[0], "is not a presence field")
    if data.get("gone") is True:
        return None
    x0 = _whole(data, "x0", -MAX_XY, MAX_XY)
    y0 = _whole(data, "y0", -MAX_XY, MAX_XY)
    width = _whole(data, "width", 1, MAX_SIDE)
    height = _whole(data, "height", 1, MAX_SIDE)
    x = y = None
    if "x" in data or "y" in data:
        x = _whole(data, "x", -MAX_XY, MAX_XY)
        y = _whole(data, "y", -MAX_XY, MAX_XY)
    return Presence(player.id, player.name, player.colour, x0, y0, width, height, x, y)


def gone(player: PlayerRow) -> dict[str, Any]:
    return {"p": player.id, "gone": True}


def check_rate(player: PlayerRow) -> None:
    """Count one report against the player's presence limit, or raise 429."""
    limit = settings().world_presence_rate_limit
    key = f"{player.world}/{player.id}"
    charge(_buckets(limit, "world-presence", key, "player"), 1, "presence reports")


def valid_payload(payload: Any) -> dict[str, Any] | None:
    """A presence read back from a notification (another process sent it): the same shape
    as ``Presence.to_json`` or ``gone``, else None."""
    if not isinstance(payload, dict) or not isinstance(payload.get("p"), str):
        return None
    if payload.get("gone") is True:
        return {"p": payload["p"][:32], "gone": True}
    fields = ("c", "x0", "y0", "w", "h")
    if not isinstance(payload.get("n"), str) or not all(
        isinstance(payload.get(f), int) and not isinstance(payload.get(f), bool) for f in fields
    ):
        return None
    if not all(abs(payload[f]) <= MAX_XY for f in fields):
        return None
    keep = ("p", "n", "c", "x0", "y0", "w", "h", "x", "y")
    return {k: payload[k] for k in keep if k in payload}


class PresenceBoard:
    """The newest presence of each teammate this process saw, per (world, team); bounded."""

    def __init__(self, per_team: int = MAX_PER_TEAM, teams: int = MAX_TEAMS, ttl: float = TTL):
        self.per_team = per_team
        self.max_teams = teams
        self.ttl = ttl
        self._lock = threading.Lock()
        self._teams: OrderedDict[tuple[str, str], OrderedDict[str, tuple[float, dict[str, Any]]]]
        self._teams = OrderedDict()

    def note(self, world: str, team: str, payload: dict[str, Any]) -> None:
        now = time.monotonic()
        with self._lock:
            people = self._teams.get((world, team))
            if people is None:
                people = self._teams[(world, team)] = OrderedDict()
                while len(self._teams) > self.max_teams:
                    self._teams.popitem(last=False)
            else:
                self._teams.move_to_end((world, team))
            player = payload["p"]
            people.pop(player, None)
            if not payload.get("gone"):
                people[player] = (now, payload)
                while len(people) > self.per_team:
                    people.popitem(last=False)

    def recent(self, world: str, team: str) -> list[dict[str, Any]]:
        """The team's presences heard of within ``ttl`` seconds, oldest first."""
        cutoff = time.monotonic() - self.ttl
        with self._lock:
            people = self._teams.get((world, team))
            if people is None:
                return []
            return [p for at, p in people.values() if at >= cutoff]

    def size(self) -> int:
        with self._lock:
            return sum(len(p) for p in self._teams.values())
