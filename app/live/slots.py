"""Open live streams, counted per client and per process: each client may hold at most
``per_client`` streams and the process at most ``total``; one more is refused (``Busy``,
429 with ``Retry-After``) instead of costing a greenlet and a socket without limit."""

from __future__ import annotations

import threading
from collections.abc import Callable

from app import metrics
from app.busy import Busy


class StreamSlots:
    """A counter of open streams per client key (thread- and greenlet-safe)."""

    def __init__(self, per_client: int, total: int) -> None:
        if per_client < 1 or total < 1:
            raise ValueError(f"stream caps must be >= 1, not {per_client} / {total}")
        self.per_client = per_client
        self.total = total
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
        metrics.STREAMS_OPEN.labels("game").inc()
        released = threading.Event()

        def release() -> None:
            if released.is_set():
                return
            released.set()
            with self._lock:
                left = self._open.get(client, 0) - 1
                if left > 0:
                    self._open[client] = left
                else:
                    self._open.pop(client, None)
                self._count -= 1
            metrics.STREAMS_OPEN.labels("game").dec()

        return release

    def held(self, client: str | None = None) -> int:
        """Streams open for ``client`` (all clients with None)."""
        with self._lock:
            return self._count if client is None else self._open.get(client, 0)
