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

A build is cooperative: every ``SLICE`` rows it calls ``pause`` (``cooperate``: under the
gevent worker the other requests run), so a world of 50,000 teams and players costs its
worker some CPU now and then, never a stall of everything else. Nothing in a build handles
more than ``SLICE`` rows in one go: sorts are made of sorted runs of ``SLICE`` rows, merged a
slice at a time (``sorted_sliced``), and each team's players are sorted on their own. A big
world is rebuilt at most once per ``min_seconds`` and at most once per ``COST_RATIO`` times
its last build's own time (pauses left out): a build of 0.3 s, in a world whose standings
change all the time, comes back every 3 s, so that building takes at most a tenth of the
worker's time, whatever the world's size.

``pareto_frontier`` finds the teams no other team beats (cells revealed and flags at least as
high, errors at most as high, one of them strictly) in O(n log n): sweep the teams by cells
revealed, keeping the most flags seen per error count in a Fenwick tree of prefix maxima.
"""

from __future__ import annotations

import heapq
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import sqlalchemy as sa

from app.lru import Lru
from app.world.records import Counts, Standing
from app.world.schema import players, teams
from app.world.store import WorldStore

Triple = tuple[str, int, int, int]
"""``(name, revealed, flags, errors)`` of one team."""
SLICE = 1000
"""Rows a build handles between two pauses."""
COST_RATIO = 10.0
"""A big world's rebuilds are at least this many times their own build time apart."""
PAUSE_EVERY = 0.004
"""CPU seconds a build runs between two pauses (at most: it may pause every ``SLICE``)."""
FIRST_PAUSE_EVERY = 0.02
"""The same for a world's first build, which its readers wait for: fewer trips round the
worker's loop (each can take tens of ms under load), other requests still served."""
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


def sorted_sliced(
    items: Sequence[T], key: Callable[[T], Any], pause: Callable[[], None] = _nothing
) -> list[T]:
    """``sorted(items, key=key)``, with ``pause()`` after each ``SLICE`` items sorted or
    merged: runs of ``SLICE`` are sorted, then merged (stable, like ``sorted``)."""
    runs = []
    for start in range(0, len(items), SLICE):
        runs.append(sorted(items[start : start + SLICE], key=key))
        pause()
    if len(runs) <= 1:
        return runs[0] if runs else []
    return list(sliced(heapq.merge(*runs, key=key), pause))


def pareto_frontier(teams: Sequence[Triple], pause: Callable[[], None] = _nothing) -> list[str]:
    """The names (sorted) of the teams no other team beats: at least as many cells revealed
    and flags, no more errors, and better in one of the three. O(n log n)."""
    if not teams:
        return []
    ordered = sorted_sliced(teams, lambda t: (-t[1], -t[2], t[3], t[0]), pause)
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


Row = tuple[str, int, int, int, int, int, str | None, str | None]
"""A standing as a plain tuple: ``(name, moves, revealed, flags, errors, drops, team,
player)``. A scoreboard keeps its rows so, not as ``Standing`` values: the garbage collector
stops walking a tuple of strings and numbers after its first collection, while it walks
every object (two per ``Standing``) in every full collection; 50,000 teams and players
made each full collection of the worker take about 0.1 s more."""


def as_standing(r: Row) -> Standing:
    return Standing(r[0], Counts(r[1], r[2], r[3], r[4], r[5]), team=r[6], player=r[7])


def _rank(r: Row) -> tuple[int, int, str]:
    """The ranking: most cells revealed first, then fewest errors, then by name."""
    return (-r[2], r[4], r[0])


def _most_active(r: Row) -> tuple[int, str]:
    """A team's players: most cells revealed first, then by name."""
    return (-r[2], r[0])


class Standings(Sequence[Standing]):
    """Rows read as ``Standing`` values, each made when it is asked for."""

    __slots__ = ("_rows",)

    def __init__(self, rows: tuple[Row, ...] = ()):
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> Standing: ...
    @overload
    def __getitem__(self, i: slice) -> Standings: ...
    def __getitem__(self, i: int | slice) -> Standing | Standings:
        if isinstance(i, slice):
            return Standings(self._rows[i])
        return as_standing(self._rows[i])

    def __iter__(self) -> Iterator[Standing]:
        return map(as_standing, self._rows)


def _json_array(
    rows: Iterable[Row], encode: Callable[[Row], str], pause: Callable[[], None]
) -> str:
    """A JSON array of the rows, each written by ``encode``, with a pause every ``SLICE``."""
    return "[" + ",".join(encode(r) for r in sliced(rows, pause)) + "]"


def _team_json(r: Row) -> str:
    return (
        f'{{"team":{json.dumps(r[0])},"moves":{r[1]},"revealed":{r[2]},"flags":{r[3]},'
        f'"errors":{r[4]},"drops":{r[5]}}}'
    )


def _player_json(r: Row) -> str:
    return (
        f'{{"player":{json.dumps(r[7])},"name":{json.dumps(r[0])},"team":{json.dumps(r[6])},'
        f'"moves":{r[1]},"revealed":{r[2]},"flags":{r[3]},"errors":{r[4]},"drops":{r[5]}}}'
    )


@dataclass(frozen=True)
class Scoreboard:
    """One world's standings at one moment, with every view of them a request needs
    (immutable; shared between requests)."""

    world: str
    teams: Standings
    """By name (the API's order)."""
    players: Standings
    """By team, name, id (the API's order)."""
    frontier: frozenset[str]
    ranked: Standings
    """Teams by rank: most cells revealed first, then fewest errors, then by name."""
    active: tuple[str, ...]
    """The ``ACTIVE_TEAMS`` teams with most cells revealed, by name."""
    json_bytes: bytes
    """The API's answer (``/api/worlds/<w>/scoreboard``)."""
    _team_rows: dict[str, Row]
    _team_players: dict[str, tuple[Row, ...]]
    """Each team's players, most cells revealed first."""
    _player_rows: dict[str, Row]

    @staticmethod
    def build(
        world: str,
        teams: Sequence[Row],
        players: Sequence[Row],
        pause: Callable[[], None] = _nothing,
    ) -> Scoreboard:
        """From the world's teams (by name) and players (by team, name, id)."""
        team_rows, player_rows = tuple(teams), tuple(players)
        triples = [(r[0], r[2], r[3], r[4]) for r in sliced(team_rows, pause)]
        frontier = frozenset(pareto_frontier(triples, pause))
        ranked = tuple(sorted_sliced(team_rows, _rank, pause))
        grouped: dict[str, list[Row]] = {}
        for r in sliced(player_rows, pause):
            grouped.setdefault(r[6] or "", []).append(r)
        team_players: dict[str, tuple[Row, ...]] = {}
        sorting = 0
        for team, people in grouped.items():  # each team's most active first
            team_players[team] = tuple(sorted(people, key=_most_active))
            sorting += len(people)
            if sorting >= SLICE:
                sorting = 0
                pause()
        team_json = _json_array(team_rows, _team_json, pause)
        player_json = _json_array(player_rows, _player_json, pause)
        head = json.dumps({"world": world, "pareto": sorted(frontier)}, separators=(",", ":"))
        body = f'{head[:-1]},"teams":{team_json},"players":{player_json}}}'.encode()
        pause()
        return Scoreboard(
            world=world,
            teams=Standings(team_rows),
            players=Standings(player_rows),
            frontier=frontier,
            ranked=Standings(ranked),
            active=tuple(sorted(r[0] for r in ranked[:ACTIVE_TEAMS])),
            json_bytes=body,
            _team_rows={r[0]: r for r in sliced(team_rows, pause)},
            _team_players=team_players,
            _player_rows={r[7] or "": r for r in sliced(player_rows, pause)},
        )

    def team(self, name: str) -> Standing | None:
        found = self._team_rows.get(name)
        return None if found is None else as_standing(found)

    def players_of(self, team: str) -> Standings:
        """``team``'s players, most cells revealed first."""
        return Standings(self._team_players.get(team, ()))

    def player(self, player_id: str) -> Standing | None:
        found = self._player_rows.get(player_id)
        return None if found is None else as_standing(found)

    @property
    def size(self) -> int:
        return len(self.teams) + len(self.players)

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.json_bytes)
        return found


Reader = Callable[[str, Callable[[], None]], tuple[list[Row], list[Row]]]
"""A world's (teams, players) from the store, pausing now and then."""


def store_reader(store: WorldStore) -> Reader:
    """``Reader`` over ``store``: the rows as plain tuples straight from the database, a
    slice at a time (no ``Standing`` values: 100,000 of them, alive for the length of a
    build, made the collector's full collections walk them)."""
    counts = ("moves", "revealed", "flags", "errors", "drops")

    def read(world: str, pause: Callable[[], None]) -> tuple[list[Row], list[Row]]:
        store.world(world)  # NoSuchWorld
        team_query = (
            sa.select(teams.c.name, *(teams.c[n] for n in counts))
            .where(teams.c.world == world)
            .order_by(teams.c.name)
        )
        player_query = (
            sa.select(players.c.name, *(players.c[n] for n in counts), players.c.team, players.c.id)
            .where(players.c.world == world)
            .order_by(players.c.team, players.c.name, players.c.id)
        )
        team_rows: list[Row] = []
        player_rows: list[Row] = []
        blank = (None, None)  # a team's row has no team and no player
        with store.reading() as conn:
            for part in conn.execute(team_query).partitions(SLICE):
                team_rows.extend(tuple(r) + blank for r in part)
                pause()
            for part in conn.execute(player_query).partitions(SLICE):
                player_rows.extend(tuple(r) for r in part)
                pause()
        return team_rows, player_rows

    return read


Probe = Callable[[str], tuple[int, int, int]]
"""A world's (head seq, players, teams): cheap, to tell whether the standings moved."""


def cooperate() -> None:
    """Let the worker's other requests run (``time.sleep`` is gevent's under the worker; a
    timer, not ``sleep(0)``, so that the requests its sockets woke meanwhile run first)."""
    time.sleep(0.0005)


class _Entry:
    __slots__ = ("board", "built", "checked", "cost", "dirty", "lock", "probe")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.board: Scoreboard | None = None
        self.built = 0.0
        self.checked = 0.0
        self.cost = 0.0
        """The last build's own time in seconds, its pauses left out."""
        self.dirty = True
        self.probe: tuple[int, int, int] | None = None


class _Stopwatch:
    """``pause`` for a build: lets it go on without pausing until it has run ``every``
    seconds of CPU since its last pause (a pause costs a trip round the worker's loop), and
    adds up the build's own CPU time, its pauses left out."""

    def __init__(self, pause: Callable[[], None], every: float = PAUSE_EVERY):
        self._pause = pause
        self._every = every
        self.spent = 0.0
        self._since = time.thread_time()

    def __call__(self) -> None:
        ran = time.thread_time() - self._since
        if ran < self._every:
            return
        self.spent += ran
        self._pause()
        self._since = time.thread_time()

    def stop(self) -> float:
        self.spent += time.thread_time() - self._since
        return self.spent


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
            # every reader of a world waits for its first build: it pauses less often
            watch = _Stopwatch(self.pause, FIRST_PAUSE_EVERY if board is None else PAUSE_EVERY)
            teams, players = self.read(world, watch)
            entry.board = board = Scoreboard.build(world, teams, players, watch)
            entry.probe, entry.built, entry.cost = probe, now, watch.stop()
            self.builds += 1
            return board
        finally:
            entry.lock.release()

    def _due(self, entry: _Entry, board: Scoreboard, now: float) -> bool:
        """Whether ``board`` may need a rebuild: changed here or not checked for
        ``max_seconds``; a big world not before ``min_seconds`` and ``COST_RATIO`` times its
        last build's time since that build."""
        if board.size > self.small:
            if now - entry.built < max(self.min_seconds, COST_RATIO * entry.cost):
                return False
        elif entry.dirty:
            return True
        return entry.dirty or now - entry.checked >= self.max_seconds
