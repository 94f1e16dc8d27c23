"""app.hold: a 429 of the app goes out after a hold (never past its Retry-After), so a client
refused at once cannot ask again at once; every other answer goes out as it was."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from app.hold import HeldRefusals


def answering(status: str, headers: list[tuple[str, str]]) -> Callable[..., Iterable[bytes]]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        start_response(status, headers)
        return [b"answer"]

    return app


def call(status: str, headers: list[tuple[str, str]], seconds: float = 1.0) -> list[float]:
    """The holds of one answer through the layer; the answer itself must be unchanged."""
    slept: list[float] = []
    layer = HeldRefusals(answering(status, headers), seconds, sleep=slept.append)
    seen: list[tuple[str, list[tuple[str, str]]]] = []
    start: Any = lambda s, h, exc_info=None: seen.append((s, h))  # noqa: E731
    body = layer({}, start)
    assert seen == [(status, headers)] and list(body) == [b"answer"]
    return slept


@pytest.mark.parametrize(
    ("retry_after", "held"), [("5", [1.0]), ("1", [1.0]), ("0", []), (None, [1.0])]
)
def test_a_429_is_held_at_most_its_retry_after(retry_after: str | None, held: list[float]) -> None:
    headers = [] if retry_after is None else [("Retry-After", retry_after)]
    assert call("429 TOO MANY REQUESTS", headers) == held


def test_a_short_hold_is_the_hold() -> None:
    assert call("429 TOO MANY REQUESTS", [("Retry-After", "3")], seconds=0.25) == [0.25]


@pytest.mark.parametrize("status", ["200 OK", "204 NO CONTENT", "400 BAD REQUEST", "503 X"])
def test_other_answers_are_not_held(status: str) -> None:
    assert call(status, [("Retry-After", "2")]) == []
