"""A refusal goes out late: every 429 of the app waits up to ``seconds`` (never past its own
``Retry-After``) before it is sent, under gevent, where a waiting answer is a parked greenlet.

A rate limit in Flask refuses a request for about what answering it costs (2.4 ms of a
worker's CPU for Flask-Limiter's 429: the session, the SQLite counter, the error body), and a
client refused at once asks again at once: the hostile bench's malformed bodies came ~95 a
second from one connection, three in four of them refused. Held for a second, a refused
client on one connection asks about once a second; one on many connections holds at most
``CLIENT_REQUESTS`` of them (this layer is inside ``app.gate``), then is refused by the gate.
A client that keeps to its limits never sees a 429, so it never waits here; one told to
retry after N seconds loses nothing by hearing it a moment later.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from app.retry_after import retry_after_seconds

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

HOLD_SECONDS = 1.0
"""The longest a 429 waits before it is sent."""


class HeldRefusals:
    """WSGI middleware: the app's 429s are sent after ``min(seconds, Retry-After)``."""

    def __init__(
        self,
        app: WSGIApplication,
        seconds: float = HOLD_SECONDS,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self.app = app
        self.seconds = seconds
        self.sleep = sleep

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        holds: list[float] = []

        def start(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], object]:
            if status.startswith("429"):
                told = retry_after_seconds(headers)
                holds.append(self.seconds if told is None else min(self.seconds, told))
            return start_response(status, headers, exc_info)

        body = self.app(environ, start)
        if holds and holds[-1] > 0:  # nothing is sent before the body is iterated
            self.sleep(holds[-1])
        return body
