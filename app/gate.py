"""Per client, bounded: the requests it has in the app at once, and the time a body may take;
and every answer says how long the app took (``Server-Timing``, ``timed``).

A client that opened thousands of connections and sent their bodies a byte at a time (a
slowloris) held as many of the workers' connection slots (1,000 per worker) for as long as it
liked: 3,000 such connections from one client made 6 of 19 ``/healthz`` probes miss. Two
bounds, in the app's WSGI stack inside the proxy fix (a client is ``REMOTE_ADDR`` as the rate
limits see it), each answered at once and with the connection closed for reading, so the
server does not wait for the rest of a body nobody will read:

- ``CLIENT_REQUESTS``: requests of one client the app is working on at once in this process
  (reading the body, computing the answer; a live stream's later events are capped apart, by
  ``LIVE_STREAMS_PER_CLIENT``); one more gets 429 with ``Retry-After``, its body unread.
- ``BODY_SECONDS``: the whole body must arrive within that many seconds of the request's
  start; past it, 408. Enforced under gevent (the ``mine-devil`` worker), where a read that
  waits for the client can be interrupted; without it (tests, ``flask run``) bodies come from
  memory or a trusted test client.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any

from werkzeug.exceptions import RequestTimeout

from app import metrics

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CLIENT_REQUESTS = 128
"""Requests of one client one process works on at once."""
BODY_SECONDS = 10.0
"""Seconds a request's whole body may take to arrive."""

Timeouts = Callable[[float], Any]
"""A factory of interrupting timers (``gevent.Timeout``): ``start()``, ``close()``, raised
into the waiting greenlet when it expires."""


def gevent_timeouts() -> Timeouts | None:
    """``gevent.Timeout`` when gevent has patched this process's sockets, else None."""
    try:
        from gevent import Timeout, monkey  # type: ignore[import-untyped]
    except ImportError:
        return None
    if not monkey.is_module_patched("socket"):
        return None
    timeouts: Timeouts = Timeout
    return timeouts


def stop_reading(environ: WSGIEnvironment) -> None:
    """Close the client's connection for reading (the answer still goes out): gunicorn then
    reads the end of the stream instead of waiting for the rest of the body, and closes."""
    sock = environ.get("gunicorn.socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)


def client_gone(environ: WSGIEnvironment) -> Callable[[], bool] | None:
    """A check that the client closed its connection (a stream's reader left), without
    waiting: its socket reads as ended. None where the app cannot see the socket (tests,
    ``flask run``): there a stream notices only when a write fails."""
    sock = environ.get("gunicorn.socket")
    if sock is None:
        return None

    def gone() -> bool:
        try:
            readable, _, _ = select.select([sock], [], [], 0)
            return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):  # reset, or already closed
            return True

    return gone


class DeadlineInput:
    """``wsgi.input`` whose reads stop at ``deadline`` (``time.monotonic()``): 408."""

    def __init__(
        self,
        stream: IO[bytes],
        deadline: float,
        timeouts: Timeouts,
        environ: WSGIEnvironment,
        seconds: float = BODY_SECONDS,
    ) -> None:
        self.seconds = seconds
        """The limit the deadline came from (for the message)."""
        self.stream = stream
        self.deadline = deadline
        self.timeouts = timeouts
        self.environ = environ

    def _within(self, read: Callable[..., Any], *args: Any) -> Any:
        left = self.deadline - time.monotonic()
        if left <= 0:
            self._late()
        timer = self.timeouts(left)
        timer.start()
        try:
            return read(*args)
        except BaseException as exc:
            if exc is timer:
                self._late()
            raise
        finally:
            timer.close()

    def _late(self) -> None:
        stop_reading(self.environ)
        raise RequestTimeout(f"the request body did not arrive within {self.seconds:g} s")

    def read(self, *args: Any) -> bytes:
        data: bytes = self._within(self.stream.read, *args)
        return data

    def readline(self, *args: Any) -> bytes:
        data: bytes = self._within(self.stream.readline, *args)
        return data

    def readlines(self, *args: Any) -> list[bytes]:
        lines: list[bytes] = self._within(self.stream.readlines, *args)
        return lines

    def __iter__(self) -> DeadlineInput:
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def timed(start_response: StartResponse) -> StartResponse:
    """``start_response`` that adds ``Server-Timing: app;dur=<ms>, cpu;dur=<ms>`` to an answer
    that has none (the world API sends its own, with more parts): the wall time from the
    gate to the answer's headers, and the CPU time of this thread meanwhile (under gevent
    the worker's one thread: other requests' work overlapping this one counts too). So a
    client tells a slow server from a slow way there (a queue before the worker took the
    request, a busy machine): ``bench/bench_hostile.py`` reports the player's clicks both
    ways."""
    wall, cpu = time.perf_counter(), time.thread_time()

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        if not any(name.lower() == "server-timing" for name, _ in headers):
            app_ms = (time.perf_counter() - wall) * 1e3
            cpu_ms = (time.thread_time() - cpu) * 1e3
            headers = [*headers, ("Server-Timing", f"app;dur={app_ms:.2f}, cpu;dur={cpu_ms:.2f}")]
        if exc_info is None:
            return start_response(status, headers)
        return start_response(status, headers, exc_info)

    return start


class ClientGate:
    """WSGI middleware: at most ``limit`` requests per client in the app at once (429
    beyond), bodies within ``body_seconds`` (408 past it) when ``timeouts`` can interrupt."""

    def __init__(
        self,
        app: WSGIApplication,
        limit: int = CLIENT_REQUESTS,
        body_seconds: float = BODY_SECONDS,
        timeouts: Timeouts | None = None,
    ) -> None:
        self.app = app
        self.limit = limit
        self.body_seconds = body_seconds
        self.timeouts = timeouts
        self._lock = threading.Lock()
        self._inflight: dict[str, int] = {}

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        client = str(environ.get("REMOTE_ADDR") or "unknown")
        with self._lock:
            count = self._inflight.get(client, 0)
            admitted = count < self.limit
            if admitted:
                self._inflight[client] = count + 1
        if not admitted:
            metrics.rate_limited("client-requests")
            stop_reading(environ)
            message = (
                f"this client already has {self.limit} requests in progress here: "
                "finish or close some, then retry"
            )
            return refuse(environ, start_response, message)
        if self.timeouts is not None and "wsgi.input" in environ:
            deadline = time.monotonic() + self.body_seconds
            environ["wsgi.input"] = DeadlineInput(
                environ["wsgi.input"], deadline, self.timeouts, environ, self.body_seconds
            )
        try:
            return self.app(environ, timed(start_response))
        finally:
            self._release(client)

    def _release(self, client: str) -> None:
        with self._lock:
            left = self._inflight.get(client, 1) - 1
            if left > 0:
                self._inflight[client] = left
            else:
                self._inflight.pop(client, None)


def refuse(
    environ: WSGIEnvironment, start_response: StartResponse, message: str, retry_after: int = 1
) -> list[bytes]:
    """Answer 429 with ``Retry-After`` before Flask sees the request: ``message`` as JSON
    (``{"error": ...}``) under ``/api``, as plain text elsewhere."""
    if str(environ.get("PATH_INFO", "")).startswith("/api"):
        body = json.dumps({"error": message}).encode()
        kind = "application/json"
    else:
        body = (message + "\n").encode()
        kind = "text/plain; charset=utf-8"
    start_response(
        "429 TOO MANY REQUESTS",
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(body))),
            ("Retry-After", str(max(1, retry_after))),
        ],
    )
    return [body]
