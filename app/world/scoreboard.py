"""The scoreboard of a world, computed once per change and shared by every request.

Reading every team and player of a world costs time that grows with the world (10,000 free
teams made the old per-request scoreboard take 14 s, with a quadratic Pareto frontier). Here a
world's ``Scoreboard`` is built from one read of its teams and players (O(n log n): sorting and
the frontier below), kept per process in a ``ScoreboardCache`` and answered from memory:

- a change made in this process (a raft, a join) marks the world's entry changed; the next
  reader rebuilds it, at most once per ``min_seconds`` (default 1 s) for a world bigger than
  ``small`` rows (a small world is rebuilt on every change: that costs less than a millisecond),
- changes made by other processes (the other workers, the other hosts) are seen within
  ``max_seconds``: an entry older than that is checked against the world's head seq and its
  number of players and teams (one small query), and rebuilt only if they moved,
- one reader rebuilds a world while the others wait for it (no stampede), and the JSON of the
  API's answer is encoded once per build.

``pareto_frontier`` finds the teams no other team beats (cells revealed and flags at least as
high, errors at most as high, one of them strictly) in O(n log n): sweep the teams by cells
revealed, keeping the most flags seen per error count in a Fenwick tree of prefix maxima.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from app.lru import Lru
from app.world.records import Counts, Standing

Triple = tuple[str, int, int, int]
"""``(name, revealed, flags, errors)`` of one team."""


def pareto_frontier(teams: Sequence[Triple]) -> list[str]:
    """The names (sorted) of the teams no other team beats: at least as many cells revealed
    and flags, no more errors, and better in one of the three. O(n log n)."""
    if not teams:
        return []
    levels = sorted({t[3] for t in teams})
    rank = {errors: i + 1 for i, errors in enumerate(levels)}
    tree = [-1] * (len(levels) + 1)  # prefix maxima of flags over error ranks 1..i

    def best_flags(upto: int) -> int:
        found = -1
        while upto > 0:
            found = max(found, tree[upto])
            upto -= upto & -upto
        return found

    def add(at: int, flags: int) -> None:
        while at < len(tree):
            tree[at] = max(tree[at], flags)
            at += at & -at

    # Only a team earlier in this order can beat a later one (same triple: neither beats).
    ordered = sorted(teams, key=lambda t: (-t[1], -t[2], t[3], t[0]))
    frontier: list[str] = []
    start = 0
    while start < len(ordered):
        end = start
        triple = ordered[start][1:]
        while end < len(ordered) and ordered[end][1:] == triple:
            end += 1
        _, flags, errors = triple
        if best_flags(rank[errors]) < flags:  # nobody earlier has >= flags with <= errors
            frontier.extend(t[0] for t in ordered[start:end])
        add(rank[errors], flags)
        start = end
    return sorted(frontier)


def _counts_json(c: Counts) -> dict[str, int]:
    return {
        "moves": c.moves,
        "revealed": c.revealed,
        "flags": c.flags,
        "errors": c.errors,
        "drops": c.drops,
    }


def ranking_key(s: Standing) -> tuple[int, int, str]:
    """Most cells revealed first, then fewest errors, then by name."""
    return (-s.counts.revealed, s.counts.errors, s.name)


@dataclass(frozen=True)
class Scoreboard:
    """One world's standings at one moment (immutable; shared between requests). The views
    of it are computed on first use and kept (``cached_property``)."""

    world: str
    teams: tuple[Standing, ...]
    """By name (the API's order)."""
    players: tuple[Standing, ...]
    """By team, name, id (the API's order)."""
    frontier: frozenset[str]

    ACTIVE_TEAMS = 100
    """Teams offered in the page's join and watch lists (the most active ones)."""

    @staticmethod
    def build(world: str, teams: Sequence[Standing], players: Sequence[Standing]) -> Scoreboard:
        triples = [(t.name, t.counts.revealed, t.counts.flags, t.counts.errors) for t in teams]
        return Scoreboard(world, tuple(teams), tuple(players), frozenset(pareto_frontier(triples)))

    @property
    def size(self) -> int:
        return len(self.teams) + len(self.players)

    @cached_property
    def ranked(self) -> tuple[Standing, ...]:
        """Teams by ``ranking_key``."""
        return tuple(sorted(self.teams, key=ranking_key))

    @cached_property
    def by_team(self) -> dict[str, tuple[Standing, ...]]:
        """Each team's players, most cells revealed first."""
        found: dict[str, list[Standing]] = {}
        for p in sorted(self.players, key=lambda p: (-p.counts.revealed, p.name)):
            found.setdefault(p.team or "", []).append(p)
        return {team: tuple(people) for team, people in found.items()}

    @cached_property
    def by_player(self) -> dict[str, Standing]:
        return {p.player or "": p for p in self.players}

    @cached_property
    def active(self) -> tuple[str, ...]:
        """The ``ACTIVE_TEAMS`` teams with most cells revealed, by name."""
        most = sorted(self.teams, key=lambda t: (-t.counts.revealed, t.name))
        return tuple(sorted(t.name for t in most[: self.ACTIVE_TEAMS]))

    def to_json(self) -> dict[str, Any]:
        return {
            "world": self.world,
            "teams": [{"team": t.name, **_counts_json(t.counts)} for t in self.teams],
            "players": [
                {"player": p.player, "name": p.name, "team": p.team, **_counts_json(p.counts)}
                for p in self.players
            ],
            "pareto": sorted(self.frontier),
        }

    @cached_property
    def json_bytes(self) -> bytes:
        """``to_json`` encoded, once per scoreboard (the whole world's standings)."""
        return json.dumps(self.to_json(), separators=(",", ":")).encode()


Reader = Callable[[str], tuple[list[Standing], list[Standing]]]
"""A world's (teams, players) from the store."""
Probe = Callable[[str], tuple[int, int, int]]
"""A world's (head seq, players, teams): cheap, to tell whether the standings moved."""


class _Entry:
    __slots__ = ("board", "built", "checked", "dirty", "lock", "probe")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.board: Scoreboard | None = None
        self.built = 0.0
        self.checked = 0.0
        self.dirty = True
        self.probe: tuple[int, int, int] | None = None


class ScoreboardCache:
    """Per process: each world's latest ``Scoreboard`` (see the module doc)."""

    def __init__(
        self,
        read: Reader,
        probe: Probe,
        min_seconds: float = 1.0,
        max_seconds: float = 1.0,
        small: int = 500,
        worlds: int = 64,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.read = read
        self.probe = probe
        self.min_seconds = min_seconds
        self.max_seconds = max_seconds
        self.small = small
        self.clock = clock
        self.builds = 0
        """Scoreboards built (tests: once per change, not once per request)."""
        self._entries: Lru[str, _Entry] = Lru(worlds)

    def changed(self, world: str) -> None:
        """This process changed ``world``'s standings (a raft, a join)."""
        entry = self._entries.get(world)
        if entry is not None:
            entry.dirty = True

    def get(self, world: str) -> Scoreboard:
        entry = self._entries.get_or_compute(world, _Entry)
        with entry.lock:
            now = self.clock()
            board = entry.board
            if board is not None and not entry.dirty and now - entry.checked < self.max_seconds:
                return board  # the common case: fresh enough, no query
            big = board is not None and board.size > self.small
            if board is not None and entry.dirty and big and now - entry.built < self.min_seconds:
                return board  # a big world changed: rebuilt at most once per min_seconds
            probe = self.probe(world)
            entry.checked = now
            if board is not None and not entry.dirty and probe == entry.probe:
                return board  # nobody changed it anywhere
            teams, players = self.read(world)
            entry.board = board = Scoreboard.build(world, teams, players)
            entry.probe, entry.built, entry.dirty = probe, now, False
            self.builds += 1
            return board
