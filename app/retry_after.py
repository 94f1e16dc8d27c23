"""``Retry-After`` on every 429 and 503: never 0, never missing (issue 8 finding 7; issue 17).

Flask-Limiter writes ``int(reset - now)`` in its own ``after_request``, which is 0 (or less)
within the last second of a window, and runs after or before our hooks depending on
registration order; other limiters (streams, worlds) may send none at all; a 503 (the
database is down, ``/healthz`` failing) came without one. The app's outermost WSGI layer
fixes every 429 and 503 on its way out, whichever path produced it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment


class RetryAfterFloor:
    """WSGI middleware: every 429 and 503 says ``Retry-After`` of at least 1 second (0 would
    tell clients to retry at once)."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        def start(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], object]:
            if status.startswith(("429", "503")):
                headers = retry_after_floor(headers)
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def retry_after_floor(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` with one ``Retry-After`` of at least 1 (an HTTP date is kept)."""
    kept = [(k, v) for k, v in headers if k.lower() != "retry-after"]
    value = retry_after_value(headers)
    seconds = _whole_seconds(value)
    if seconds is not None:
        value = str(max(1, seconds))
    elif not value:
        value = "1"
    return [*kept, ("Retry-After", value)]


def retry_after_value(headers: list[tuple[str, str]]) -> str:
    """The last ``Retry-After`` of ``headers``, stripped ("" when there is none)."""
    values = [v for k, v in headers if k.lower() == "retry-after"]
    return values[-1].strip() if values else ""


def retry_after_seconds(headers: list[tuple[str, str]]) -> int | None:
    """``Retry-After`` in whole seconds; None when there is none or it is an HTTP date."""
    return _whole_seconds(retry_after_value(headers))


def _whole_seconds(value: str) -> int | None:
    return int(value) if re.fullmatch(r"-?[0-9]+", value, re.ASCII) else None
