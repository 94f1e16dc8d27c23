"""At most a few requests of one heavy kind at work in a process; the rest wait their turn.

A gevent worker runs its requests' Python one at a time, in the order they became ready. A
flood of heavy requests that are all ready at once (sixteen clients asking for 256x256
views as fast as they are answered) put a health probe or another team's move behind every
one of them: the world attack bench measured ``/healthz`` at 0.5-0.9 s that way on one
worker. Heavy work of one kind takes a slot here first; a request waiting for a slot is
parked, not ready, so whatever else arrives waits for at most the slots' work. A request
that cannot get a slot within ``wait_seconds`` is refused (``Overloaded``: 429 with
``Retry-After``) instead of queueing without bound.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from app.busy import Overloaded


class Bulkhead:
    """``slots`` at a time of the work named ``what`` (e.g. "views")."""

    def __init__(self, what: str, slots: int, wait_seconds: float) -> None:
        if slots < 1:
            raise ValueError(f"a bulkhead needs at least 1 slot, got {slots}")
        self.what = what
        self.wait_seconds = wait_seconds
        self._slots = threading.BoundedSemaphore(slots)  # gevent's own in a gevent worker

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold a slot for the block; ``Overloaded`` after ``wait_seconds`` without one."""
        if not self._slots.acquire(timeout=self.wait_seconds):
            raise Overloaded(f"the server is busy with other {self.what}: try again shortly")
        try:
            yield
        finally:
            self._slots.release()
