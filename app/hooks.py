"""HTTP plumbing every request or response passes through: the body limit for streamed
bodies, security headers, and ``Vary`` + gzip for pages that are also fragments."""

from __future__ import annotations

import gzip
import io
from collections.abc import Callable
from typing import IO, Any, TypeVar

from flask import Response, current_app, request
from werkzeug.exceptions import RequestEntityTooLarge

F = TypeVar("F", bound=Callable[..., Any])
BODY_LIMIT_ATTR = "max_body_bytes"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def body_limit(size: int) -> Callable[[F], F]:
    """Mark a view that takes bodies up to ``size`` bytes instead of ``MAX_CONTENT_LENGTH``
    (the analysis board's paste: a 10,000-cell position is more than 16 KiB once
    form-encoded). ``limit_streamed_body`` applies it before anything reads the body."""

    def mark(view: F) -> F:
        setattr(view, BODY_LIMIT_ATTR, size)
        return view

    return mark


def view_body_limit() -> int | None:
    """This request's body limit: the view's own (``body_limit``) or ``MAX_CONTENT_LENGTH``."""
    view = current_app.view_functions.get(request.endpoint or "")
    own = getattr(view, BODY_LIMIT_ATTR, None)
    if isinstance(own, int):
        request.max_content_length = own
    return request.max_content_length


def limit_streamed_body() -> None:
    """A body without Content-Length (chunked) over ``MAX_CONTENT_LENGTH``: 413, like one
    whose Content-Length says so.

    Werkzeug enforces the limit on such a stream only when a read goes past it; reading the
    whole body stops quietly at the limit, so a view would see it cut short (a 400 for bad
    JSON). Buffer it here, at most one byte over the limit, before anything reads it.
    """
    limit = view_body_limit()
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
