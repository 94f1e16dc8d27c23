"""HTTP plumbing every request or response passes through: the body limit for streamed
bodies, security headers, and ``Vary`` + gzip for pages that are also fragments."""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any, TypeVar

from flask import Response, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


_BODY_LIMIT_ATTR = "_mine_devil_body_limit"

F = TypeVar("F", bound=Callable[..., Any])


def body_limit(size: int) -> Callable[[F], F]:
    """Mark a view as taking bodies up to ``size`` bytes instead of ``MAX_CONTENT_LENGTH``
    (the analysis board's paste). ``limit_body`` applies it before anything reads the body:
    CSRF reads the form in its own ``before_request``, before the view runs."""

    def mark(view: F) -> F:
        setattr(view, _BODY_LIMIT_ATTR, size)
        return view

    return mark


def limit_body() -> None:
    """``before_request``, first: the body limit of this request's view (``body_limit``, else
    ``MAX_CONTENT_LENGTH``), enforced on streamed bodies too.

    A body without Content-Length (chunked) over the limit gets 413, like one whose
    Content-Length says so. Werkzeug enforces the limit on such a stream only when a read goes
    past it; reading the whole body stops quietly at the limit, so a view would see it cut
    short (a 400 for bad JSON). Buffer it here, at most one byte over the limit, before
    anything reads it.
    """
    view = current_app.view_functions.get(request.endpoint or "")
    marked = getattr(view, _BODY_LIMIT_ATTR, None)
    if marked is not None:
        request.max_content_length = marked
    limit = request.max_content_length
    environ = request.environ
    if limit is None or request.content_length is not None:
        return
    if "wsgi.input_terminated" not in environ or "stream" in request.__dict__:
        return  # no streamed body (Werkzeug reads none), or too late to buffer it
    body = read_at_most(environ["wsgi.input"], limit + 1)
    if len(body) > limit:
        raise RequestEntityTooLarge()
    environ["wsgi.input"] = io.BytesIO(body)


def read_at_most(stream: IO[bytes], size: int) -> bytes:
    """Up to ``size`` bytes, reading until the stream ends (a read may return fewer)."""
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def security_headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    headers.setdefault("X-Frame-Options", "DENY")
    if not request.path.startswith("/static/"):
        # game state changes with every move: no cached page may show an old board
        headers.setdefault("Cache-Control", "no-store")
    return response


class RetryAfterFloor:
    """WSGI middleware: every 429 says ``Retry-After`` of at least 1 second.

    Flask-Limiter writes ``int(reset - now)`` in its own ``after_request``, which is 0 (or
    less) within the last second of a window, and runs after or before our hooks depending on
    registration order; other limiters (streams, worlds) may send none. Fixing it here, on the
    way out of the app, covers every path: ``0`` would tell clients to retry at once."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        def start(
            status: str, headers: list[tuple[str, str]], exc_info: Any = None
        ) -> Callable[[bytes], object]:
            if status.startswith("429"):
                headers = [*retry_after_floor(headers)]
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def retry_after_floor(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` with one ``Retry-After`` of at least 1 (an HTTP date is kept)."""
    values = [v for k, v in headers if k.lower() == "retry-after"]
    kept = [(k, v) for k, v in headers if k.lower() != "retry-after"]
    value = values[-1].strip() if values else ""
    if value.lstrip("-").isascii() and value.lstrip("-").isdigit():
        value = str(max(1, int(value)))
    elif not value:
        value = "1"
    return [*kept, ("Retry-After", value)]


GZIP_MIN_BYTES = 16 * 1024
"""HTML answers larger than this are gzipped for clients that accept it (a 200x200 board's
page is ~6 MB of very repetitive markup and compresses ~30x)."""


def vary_and_compress(response: Response) -> Response:
    """``Vary: HX-Request`` (the URL answers a page or a fragment), and gzip for big HTML."""
    response.vary.add("HX-Request")
    return compress(response)


def compress(response: Response) -> Response:
    if (
        response.direct_passthrough
        or response.status_code != 200
        or response.mimetype != "text/html"
        or "Content-Encoding" in response.headers
        or "gzip" not in request.headers.get("Accept-Encoding", "").lower()
    ):
        return response
    body = response.get_data()
    if len(body) < GZIP_MIN_BYTES:
        return response
    response.set_data(gzip.compress(body, compresslevel=5))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response
