"""Refusals that say "not now, retry in N seconds": a bounded queue answers these instead of
making a client wait without limit.

Both are werkzeug ``TooManyRequests`` (429 with ``Retry-After``), so the app's one HTTP error
handler (``app.errors``) answers them as JSON under ``/api`` and as a toast or page elsewhere.
``Busy``: this client or this game has too much in flight; ``Overloaded``: work the server
sheds as a whole (every heavy-work child busy, a piece of work over its time, a big rebuild
already running). Neither is a server failure: no 5xx under load.
"""

from __future__ import annotations

from werkzeug.exceptions import TooManyRequests

RETRY_SECONDS = 1
"""What ``Retry-After`` says by default."""


class Busy(TooManyRequests):
    """429: this client (or this game) has too much in flight; retry after ``retry_after`` s."""

    def __init__(self, description: str, retry_after: int = RETRY_SECONDS) -> None:
        super().__init__(description, retry_after=retry_after)


class Overloaded(TooManyRequests):
    """429: the server will not do this work now (its workers for it are all busy, or it ran
    past its time limit); retry after ``retry_after`` s."""

    def __init__(self, description: str, retry_after: int = RETRY_SECONDS) -> None:
        super().__init__(description, retry_after=retry_after)
