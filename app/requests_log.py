"""Request ids and the one log line of a server failure.

Every request has an id: the client's ``X-Request-ID`` when it is a short token (letters,
digits, ``.``, ``_``, ``-``; at most 64), else a fresh random one. Every answer carries it in
``X-Request-ID``; a 5xx answer shows it (JSON ``request_id``, or the text of the page) and the
server logs that failure once, with its traceback and the id, so a user's report finds it.

Expected outcomes (400, 403, 404, 409, 413, 429) log nothing here: they are answers, not
failures.
"""

from __future__ import annotations

import re
import uuid
from types import TracebackType

from flask import Flask, Response, g, has_request_context, request

HEADER = "X-Request-ID"

_TOKEN = re.compile(r"[A-Za-z0-9._-]{1,64}", re.ASCII)

ExcInfo = tuple[type[BaseException], BaseException, TracebackType] | tuple[None, None, None]


def request_id() -> str:
    """This request's id (``-`` outside a request)."""
    if not has_request_context():
        return "-"
    rid: str | None = g.get("request_id")
    if rid is None:
        given = request.headers.get(HEADER, "")
        rid = given if _TOKEN.fullmatch(given) else uuid.uuid4().hex
        g.request_id = rid
    return rid


def echo_request_id(response: Response) -> Response:
    """``after_request``: every answer says its request id."""
    response.headers[HEADER] = request_id()
    return response


class MineDevilFlask(Flask):
    """Flask whose unhandled errors are logged once, on one record, with the request id."""

    def log_exception(self, exc_info: ExcInfo) -> None:
        self.logger.error(
            "request %s failed: %s %s", request_id(), request.method, request.path,
            exc_info=exc_info,
        )  # fmt: skip


def init_app(app: Flask) -> None:
    app.after_request(echo_request_id)
