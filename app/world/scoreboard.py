"""The scoreboard of a world, computed once per change and shared by every request.

Reading every team and player of a world costs time that grows with the world (10,000 free
teams made the old per-request scoreboard take 14 s, with a quadratic Pareto frontier). Here a
world's ``Scoreboard`` is built from one read of its teams and players (O(n log n): sorting and
the frontier below), kept per process in a ``ScoreboardCache`` and answered from memory:

- a change made in this process (a raft, a join) marks the world's entry changed; the next
  reader rebuilds it, at most once per ``min_seconds`` (default 1 s) for a world bigger than
  ``small`` rows (a small world is rebuilt on every change: that costs about a millisecond),
- changes made by other processes (the other workers, the other hosts) are seen within
  ``max_seconds``: an entry older than that is checked against the world's head seq and its
  number of players and teams (one small query), and rebuilt only if they moved,
- one reader rebuilds a world while the others answer from the board it replaces (only the
  first build of a world is waited for), and everything a request needs is made by the build:
  the ranking, each team's players, the API's JSON.

A build is cooperative: every ``SLICE`` rows it calls ``pause`` (``time.sleep(0)``: under the
gevent worker the other requests run), so a world of 50,000 teams and players costs its
worker some CPU once a second, never a stall of everything else.

``pareto_frontier`` finds the teams no other team beats (cells revealed and flags at least as
high, errors at most as high, one of them strictly) in O(n log n): sweep the teams by cells
revealed, keeping the most flags seen per error count in a Fenwick tree of prefix maxima.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from app.lru import Lru
from app.world.records import Counts, Standing

Triple = tuple[str, int, int, int]
"""``(name, revealed, flags, errors)`` of one team."""
SLICE = 1000
"""Rows a build handles between two pauses."""
ACTIVE_TEAMS = 100
"""Teams offered in the page's join and watch lists (the most active ones)."""
T = TypeVar("T")


def _nothing() -> None:
    return None


def sliced(items: Iterable[T], pause: Callable[[], None]) -> Iterator[T]:
    """``items``, with ``pause()`` every ``SLICE`` of them."""
    for i, item in enumerate(items):
        if i and i % SLICE == 0:
            pause()
        yield item


def pareto_frontier(teams: Sequence[Triple], pause: Callable[[], None] = _nothing) -> list[str]:
    """The names (sorted) of the teams no other team beats: at least as many cells revealed
    and flags, no more errors, and better in one of the three. O(n log n)."""
    if not teams:
        return []
    ordered = sorted(teams, key=lambda t: (-t[1], -t[2], t[3], t[0]))
    pause()
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

    # Only a team earlier in ``ordered`` can beat a later one (same triple: neither beats).
    frontier: list[str] = []
    start = 0
    steps = 0
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
        steps += 1
        if steps % SLICE == 0:
            pause()
    pause()
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


def _json_array(items: Iterable[dict[str, Any]], pause: Callable[[], None]) -> str:
    """A JSON array of ``items``, encoded a slice at a time."""
    parts: list[str] = []
    chunk: list[dict[str, Any]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == SLICE:
            parts.append(json.dumps(chunk, separators=(",", ":"))[1:-1])
            chunk = []
            pause()
    if chunk:
        parts.append(json.dumps(chunk, separators=(",", ":"))[1:-1])
    return "[" + ",".join(parts) + "]"


@dataclass(frozen=True)
class Scoreboard:
    """One world's standings at one moment, with every view of them a request needs
    (immutable; shared between requests)."""

    world: str
    teams: tuple[Standing, ...]
    """By name (the API's order)."""
    players: tuple[Standing, ...]
    """By team, name, id (the API's order)."""
    frontier: frozenset[str]
    ranked: tuple[Standing, ...]
    """Teams by ``ranking_key``."""
    by_team: dict[str, tuple[Standing, ...]]
    """Each team's players, most cells revealed first."""
    by_player: dict[str, Standing]
    active: tuple[str, ...]
    """The ``ACTIVE_TEAMS`` teams with most cells revealed, by name."""
    json_bytes: bytes
    """The API's answer (``/api/worlds/<w>/scoreboard``)."""

    @staticmethod
    def build(
        world: str,
        teams: Sequence[Standing],
        players: Sequence[Standing],
        pause: Callable[[], None] = _nothing,
    ) -> Scoreboard:
        triples = [(t.name, t.counts.revealed, t.counts.flags, t.counts.errors) for t in teams]
        pause()
        frontier = frozenset(pareto_frontier(triples, pause))
        pause()
        ranked = tuple(sorted(teams, key=ranking_key))
        pause()
        by_team: dict[str, list[Standing]] = {}
        most_active = sorted(players, key=lambda p: (-p.counts.revealed, p.name))
        pause()
        for p in sliced(most_active, pause):
            by_team.setdefault(p.team or "", []).append(p)
        pause()
        active = sorted(t.name for t in ranked[:ACTIVE_TEAMS])
        team_json = _json_array(({"team": t.name, **_counts_json(t.counts)} for t in teams), pause)
        player_json = _json_array(
            (
                {"player": p.player, "name": p.name, "team": p.team, **_counts_json(p.counts)}
                for p in players
            ),
            pause,
        )
        head = json.dumps({"world": world, "pareto": sorted(frontier)}, separators=(",", ":"))
        body = f'{head[:-1]},"teams":{team_json},"players":{player_json}}}'
        pause()
        by_player = {p.player or "": p for p in sliced(players, pause)}
        pause()
        return Scoreboard(
            world=world,
            teams=tuple(teams),
            players=tuple(players),
            frontier=frontier,
            ranked=ranked,
            by_team={team: tuple(people) for team, people in sliced(by_team.items(), pause)},
            by_player=by_player,
            active=tuple(active),
            json_bytes=body.encode(),
        )

    @property
    def size(self) -> int:
        return len(self.teams) + len(self.players)

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.json_bytes)
        return found


Reader = Callable[[str, Callable[[], None]], tuple[list[Standing], list[Standing]]]
"""A world's (teams, players) from the store, pausing now and then."""
Probe = Callable[[str], tuple[int, int, int]]
"""A world's (head seq, players, teams): cheap, to tell whether the standings moved."""


def cooperate() -> None:
    """Let the worker's other requests run (``time.sleep`` is gevent's under the worker)."""
    time.sleep(0)


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
        pause: Callable[[], None] = cooperate,
    ):
        self.read = read
        self.probe = probe
        self.min_seconds = min_seconds
        self.max_seconds = max_seconds
        self.small = small
        self.clock = clock
        self.pause = pause
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
        board = entry.board
        if board is not None and not self._due(entry, board, self.clock()):
            return board
        if board is not None and not entry.lock.acquire(blocking=False):
            return board  # another request is building it: answer from the last one
        if board is None:
            entry.lock.acquire()  # the first build of this world: wait for it
        try:
            now = self.clock()
            board = entry.board
            if board is not None and not self._due(entry, board, now):
                return board
            probe = self.probe(world)
            entry.checked = now
            if board is not None and not entry.dirty and probe == entry.probe:
                return board  # nobody changed it anywhere
            entry.dirty = False  # changes from here on mark the new board stale
            teams, players = self.read(world, self.pause)
            entry.board = board = Scoreboard.build(world, teams, players, self.pause)
            entry.probe, entry.built = probe, now
            self.builds += 1
            return board
        finally:
            entry.lock.release()

    def _due(self, entry: _Entry, board: Scoreboard, now: float) -> bool:
        """Whether ``board`` may need a rebuild: changed here (a big world at most once per
        ``min_seconds``) or not checked for ``max_seconds``."""
        if entry.dirty:
            return board.size <= self.small or now - entry.built >= self.min_seconds
        return now - entry.checked >= self.max_seconds
