"""One read of the log per process per change, however many streams watch a team.

Every stream of a team wakes on the same notification. Without this cache each would query
the team's new events itself (500 watchers in a process: 500 queries per move). Here the
first woken stream reads them, under the team's lock in this cache, and the others take
them from memory.

Per ``(world, team)`` the cache holds *every* event of the team with ``low < seq <= high``
(a window of at most ``events`` of the newest ones). A notification carries the raft's last
seq (``known``): a stream whose cache window already reaches it reads nothing; otherwise one
query brings the window up to the log's end. Without a seq (a stream's first read: always
read; a heartbeat: at most one read per team per ``recheck`` seconds, so a lost notification
is made up for without every idle stream querying). A stream behind the window (resumed from an old
``Last-Event-ID``) reads the log directly. The cache holds at most ``teams`` teams (least
recently used goes) and drops a team's oldest events beyond ``events`` or ``cells`` cells.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from app.world.records import WorldEvent
from app.world.store import WorldStore


class _Window:
    __slots__ = ("checked", "events", "high", "lock", "low")

    def __init__(self, low: int):
        self.lock = threading.Lock()
        self.low = low
        self.high = low
        self.events: list[WorldEvent] = []
        self.checked = 0.0


class FeedCache:
    def __init__(
        self,
        store: WorldStore,
        teams: int = 256,
        events: int = 512,
        cells: int = 50_000,
        recheck: float = 1.0,
    ):
        self.store = store
        self.recheck = recheck
        self.max_teams = teams
        self.max_events = events
        self.max_cells = cells
        self._lock = threading.Lock()
        self._windows: OrderedDict[tuple[str, str], _Window] = OrderedDict()
        self.reads = 0
        """Queries made (tests: one per change, not one per stream)."""

    def _window(self, world: str, team: str, after: int) -> _Window:
        key = (world, team)
        with self._lock:
            window = self._windows.get(key)
            if window is None:
                window = self._windows[key] = _Window(after)
                while len(self._windows) > self.max_teams:
                    self._windows.popitem(last=False)
            else:
                self._windows.move_to_end(key)
            return window

    def after(
        self,
        world: str,
        team: str,
        after: int,
        limit: int,
        known: int | None = None,
        first: bool = False,
    ) -> list[WorldEvent]:
        """The team's events with ``seq > after`` (at most ``limit``), in order. ``known``:
        a seq the log is known to have reached (from the notification), or None; ``first``:
        the stream's first read (always up to date)."""
        window = self._window(world, team, after)
        with window.lock:
            if after < window.low:
                self.reads += 1
                return self.store.team_events(world, team, after, limit)
            stale = time.monotonic() - window.checked >= self.recheck
            if first or (known is None and stale) or (known is not None and known > window.high):
                self._refresh(window, world, team, limit)
            answer = [e for e in window.events if e.seq > after][:limit]
            self._trim(window)  # after answering: the caller may need what is trimmed
            return answer

    def _refresh(self, window: _Window, world: str, team: str, limit: int) -> None:
        self.reads += 1
        window.checked = time.monotonic()
        fresh = self.store.team_events(world, team, window.high, limit)
        if fresh:
            window.events.extend(fresh)
            window.high = fresh[-1].seq

    def _trim(self, window: _Window) -> None:
        cells = sum(len(e.cells) for e in window.events)
        while window.events and (len(window.events) > self.max_events or cells > self.max_cells):
            dropped = window.events.pop(0)
            cells -= len(dropped.cells)
            window.low = dropped.seq
