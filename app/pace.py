"""Per client, paced: the page views one client gets per second in this process, enforced in
front of Flask, where an over-rate request costs a dict lookup instead of a request.

An attacker's page views (a 1000x1000 game's page, its ``?since=0`` fragment, its replay:
1.0-3.7 ms of a worker's CPU each) had no rate limit, and a limit in Flask did not help: its
refusal cost what a page does (2.4 ms: Flask, the session, the SQLite-backed limiter, the
error page), and an attacker asking on one connection just asked again at once. Nor does a
refusal that is only cheaper: gunicorn and gevent alone take 0.4 ms a request, and a client
refused in 0.4 ms asks four times as often (788 a second measured on one connection, against
170 pages), so the server's CPU falls by half at best while the attacker's own process, on
the same machine in the hostile bench, spins faster.

So a view over the rate *waits* (``time.sleep``, a parked greenlet under gevent: nothing to
run) until the client's bucket has a token, as nginx's ``limit_req`` delays within its burst;
a client asking on one connection is then answered at the rate and never refused, and one
that asks on many gets 429 (``Retry-After``, a short body naming the limit) once its waiting
requests would wait longer than ``wait_seconds``. Without gevent (``flask run``, tests,
threads) a wait would hold a thread, so over-rate views are refused at once instead.

Keys: ``REMOTE_ADDR`` inside the proxy fix, as the rate limits and ``app.gate`` key clients.
Inside the gate: a waiting view is one of the client's ``CLIENT_REQUESTS`` in progress, and
a refusal is held like every 429 of the app (``app.hold``).
Memory: at most ``CLIENTS`` buckets per process, the least recently seen forgotten first (a
forgotten client starts again with a full bucket).

Paced: every ``GET`` and ``HEAD`` except Devil World's team views, streams, maps and
time-lapses (``METERED``), which its own limit meters by size (``WORLD_VIEW_RATE_LIMIT``).
Moves and new games are not paced here: their Flask-Limiter limits, shared by the host's
workers, are the truth.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from limits import parse

from app import metrics
from app.gate import refuse
from app.lru import Lru
from app.settings import Settings

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CLIENTS = 10_000
"""Buckets kept per process (about 100 bytes each)."""
METERED = re.compile(r"/api/worlds/[^/]+/teams/[^/]+/(?:view|events|map|timelapse)")
"""Paths whose views have a limit of their own, by size (``app.world.limits``)."""


@dataclass(frozen=True)
class Bucket:
    """A client's tokens (views it may ask for now; below 0 while views wait) at ``at``
    (``time.monotonic()``)."""

    tokens: float
    at: float


@dataclass(frozen=True)
class Turn:
    """What one view gets: to go after ``wait`` seconds, or (``refused``) a 429 saying
    ``Retry-After: retry_after``."""

    wait: float = 0.0
    refused: bool = False
    retry_after: int = 0


@dataclass(frozen=True)
class Pace:
    """``rate`` views a second per client, ``burst`` at once, a view waiting at most
    ``wait_seconds`` for its turn."""

    rate: float
    burst: int
    wait_seconds: float

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.burst < 1 or self.wait_seconds < 0:
            raise ValueError(
                f"a pace needs a rate above 0, a burst of at least 1 and a wait of at least 0 "
                f"seconds, not {self.rate:g}/s, burst {self.burst}, {self.wait_seconds:g} s"
            )

    @classmethod
    def of(cls, limit: str, burst: int, wait_seconds: float) -> Pace:
        """``limit`` in the rate limits' notation (``30 per second``, ``600/minute``)."""
        try:
            item = parse(limit)
        except ValueError as exc:
            raise ValueError(f"the view rate {limit!r} is not a rate limit: {exc}") from None
        return cls(item.amount / item.get_expiry(), burst, wait_seconds)

    def take(self, bucket: Bucket | None, now: float) -> tuple[Bucket, Turn]:
        """One view from ``bucket`` (None: a client not seen lately, its bucket full): the
        bucket after it and the view's turn. A refused view takes no token."""
        tokens = float(self.burst)
        if bucket is not None:
            tokens = min(tokens, bucket.tokens + (now - bucket.at) * self.rate)
        left = tokens - 1
        wait = max(0.0, -left / self.rate)
        if wait > self.wait_seconds:
            short = -left - self.wait_seconds * self.rate  # tokens missing for the longest wait
            retry = max(1, math.ceil(short / self.rate))
            return Bucket(tokens, now), Turn(refused=True, retry_after=retry)
        return Bucket(left, now), Turn(wait=wait)

    def describe(self) -> str:
        return f"{self.rate:g} page views a second per client, {self.burst} at once"


def view_pace(options: Settings, waits: bool) -> Pace:
    """The app's pace (``VIEW_*`` settings); ``waits`` False (no gevent): no waiting."""
    wait = options.view_wait_seconds if waits else 0.0
    return Pace.of(options.view_rate_limit, options.view_burst, wait)


def paced(environ: WSGIEnvironment) -> bool:
    """A view this layer paces: ``GET`` or ``HEAD``, not ``METERED``."""
    if environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
        return False
    return METERED.fullmatch(str(environ.get("PATH_INFO", ""))) is None


class ViewPace:
    """WSGI middleware: each client's views at ``pace`` in this process (wait, then 429)."""

    def __init__(
        self,
        app: WSGIApplication,
        pace: Pace,
        clients: int = CLIENTS,
        sleep: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.pace = pace
        self.sleep = sleep
        self.clock = clock
        self._buckets: Lru[str, Bucket] = Lru(clients)
        self._lock = threading.Lock()

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if not paced(environ):
            return self.app(environ, start_response)
        turn = self.turn(str(environ.get("REMOTE_ADDR") or "unknown"))
        if turn.refused:
            metrics.rate_limited("views")
            message = f"too many page views: at most {self.pace.describe()}; retry shortly"
            return refuse(environ, start_response, message, turn.retry_after)
        if turn.wait > 0:
            self.sleep(turn.wait)
        return self.app(environ, start_response)

    def turn(self, client: str) -> Turn:
        """Take ``client``'s next view from its bucket."""
        with self._lock:
            bucket, turn = self.pace.take(self._buckets.get(client), self.clock())
            self._buckets.put(client, bucket)
        return turn

    def clients(self) -> int:
        """Buckets kept now."""
        return sum(1 for _ in self._buckets)
