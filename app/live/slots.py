"""Open live streams, counted per client and per process: each client may hold at most
``per_client`` streams and the process at most ``total``; one more is refused (``Busy``,
429 with ``Retry-After``) instead of costing a greenlet and a socket without limit.

Every kind of stream (a game's, a world team's) also takes a slot of the process's
``stream_room``: what the worker can hold with room left for ordinary requests. A gevent
worker serves at most ``worker_connections`` connections at once (gunicorn's setting,
``mine-devil --worker-connections``, passed to the app as ``WORKER_CONNECTIONS``); streams
beyond ``stream_room_size`` of them would leave health probes and moves waiting in the
listen queue (2,000 streams on a 1,000-connection worker made it stop answering)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

from flask import Flask

from app import metrics
from app.busy import Busy
from app.notify.topics import Subscription
from app.settings import settings


class StreamSlots:
    """A counter of open streams per client key (thread- and greenlet-safe)."""

    def __init__(
        self,
        per_client: int,
        total: int,
        within: StreamSlots | None = None,
        kind: str | None = None,
    ) -> None:
        if per_client < 1 or total < 1:
            raise ValueError(f"stream caps must be >= 1, not {per_client} / {total}")
        self.per_client = per_client
        self.total = total
        self.within = within
        """A wider count each slot also takes (the process's ``stream_room``)."""
        self.kind = kind
        """The ``mine_devil_streams_open`` label it counts under (None: not counted, e.g.
        the process's room, which every kind's slot also takes)."""
        self._open: dict[str, int] = {}
        self._count = 0
        self._lock = threading.Lock()

    def take(self, client: str) -> Callable[[], None]:
        """Reserve a slot for ``client``; returns the function that frees it (call it once;
        later calls do nothing). Raises ``Busy`` when the client or the process is full."""
        with self._lock:
            held = self._open.get(client, 0)
            if held >= self.per_client:
                raise Busy(
                    f"this client already has {held} live streams open (at most "
                    f"{self.per_client}): close one first",
                    retry_after=5,
                )
            if self._count >= self.total:
                raise Busy(f"the server has {self._count} live streams open: retry later", 5)
            self._open[client] = held + 1
            self._count += 1
        try:
            outer = self.within.take(client) if self.within is not None else None
        except BaseException:
            self._give_back(client)
            raise
        if self.kind is not None:
            metrics.STREAMS_OPEN.labels(self.kind).inc()
        released = threading.Event()

        def release() -> None:
            if released.is_set():
                return
            released.set()
            if outer is not None:
                outer()
            self._give_back(client)
            if self.kind is not None:
                metrics.STREAMS_OPEN.labels(self.kind).dec()

        return release

    def _give_back(self, client: str) -> None:
        with self._lock:
            left = self._open.get(client, 0) - 1
            if left > 0:
                self._open[client] = left
            else:
                self._open.pop(client, None)
            self._count -= 1

    def held(self, client: str | None = None) -> int:
        """Streams open for ``client`` (all clients with None)."""
        with self._lock:
            return self._count if client is None else self._open.get(client, 0)


def releasing(stream: Iterator[str], release: Callable[[], None]) -> Iterator[str]:
    """``stream``, its slot freed the moment it ends (the client left, the time is up, the
    database went away), before the server gets round to closing the response."""
    try:
        yield from stream
    finally:
        release()


GONE_POLL_SECONDS = 0.5
"""How often a waiting stream checks that its client is still there (``app.gate.client_gone``):
its slot is free within this of the client leaving, not at the next heartbeat's failed write."""


class Departure:
    """Whether the client left, asked at most once per ``GONE_POLL_SECONDS`` (a stream woken
    by every move of a busy team checks its socket no more often than an idle one)."""

    def __init__(self, gone: Callable[[], bool]):
        self.gone = gone
        self.next_check = time.monotonic() + GONE_POLL_SECONDS

    def __call__(self) -> bool:
        now = time.monotonic()
        if now < self.next_check:
            return False
        self.next_check = now + GONE_POLL_SECONDS
        return self.gone()


def wait_or_leave(
    subscription: Subscription, seconds: float, gone: Departure | None
) -> bool | None:
    """True: the topic was published; False: ``seconds`` passed; None: the client left
    (``gone``; None: the stream cannot tell, it waits the whole time)."""
    if gone is None:
        return subscription.wait(seconds)
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        woke = subscription.wait(max(0.0, min(GONE_POLL_SECONDS, left)))
        if gone():
            return None
        if woke:
            return True
        if time.monotonic() >= deadline:
            return False


ROOM = "mine_devil.stream_room"
UNBOUNDED = 1 << 30


def stream_room_size(worker_connections: int | None) -> int:
    """Streams a worker of ``worker_connections`` holds: a quarter of its connections (at
    least 100; half of a worker smaller than 200) stay free for everything else."""
    if worker_connections is None:
        return UNBOUNDED  # not under gunicorn's gevent worker: the kinds' own caps bound it
    reserve = max(100, worker_connections // 4)
    if worker_connections < 2 * reserve:
        return max(1, worker_connections // 2)
    return worker_connections - reserve


def stream_room(app: Flask) -> StreamSlots:
    """The app's (process's) count of open streams of every kind (made on first use)."""
    room = app.extensions.get(ROOM)
    if room is None:
        size = stream_room_size(settings(app).worker_connections)
        room = app.extensions[ROOM] = StreamSlots(UNBOUNDED, size)
    assert isinstance(room, StreamSlots)
    return room
