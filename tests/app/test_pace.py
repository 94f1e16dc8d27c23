"""app.pace: each client's page views at a pace, in front of Flask. Under the rate a view goes
at once; over it, it waits its turn (a parked greenlet); past the longest wait, 429 with
``Retry-After`` and a body naming the limit. Clients are counted apart, in bounded memory, and
a player's ordinary views (a page load, polls, a replay stepped, a bot reading at its move
rate one request at a time) are never refused."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from flask import Flask

from app.gate import ClientGate
from app.hold import HeldRefusals
from app.pace import Bucket, Pace, ViewPace, paced


class Clock:
    """A clock the test moves; ``sleep`` records the waits and moves it too, unless the views
    are ``at_once`` (sent together on many connections: each waits, none is answered yet)."""

    def __init__(self, at_once: bool = False) -> None:
        self.now = 100.0
        self.slept: list[float] = []
        self.at_once = at_once

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if not self.at_once:
            self.now += seconds


class Answered:
    """The inner app: counts what reached it."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        self.calls += 1
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"page"]


def get(
    layer: ViewPace, client: str = "10.0.0.1", path: str = "/g/abc", method: str = "GET"
) -> tuple[str, dict[str, str], bytes]:
    seen: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        seen["status"], seen["headers"] = status, dict(headers)

    environ = {"REMOTE_ADDR": client, "PATH_INFO": path, "REQUEST_METHOD": method}
    body = b"".join(layer(environ, start_response))
    return seen["status"], seen["headers"], body


def layer(
    pace: Pace, clients: int = 100, at_once: bool = False
) -> tuple[ViewPace, Answered, Clock]:
    inner, clock = Answered(), Clock(at_once)
    return ViewPace(inner, pace, clients, sleep=clock.sleep, clock=clock), inner, clock


# -- the bucket --------------------------------------------------------------------------------


def test_a_burst_goes_at_once_then_views_wait_their_turn_then_are_refused() -> None:
    pace = Pace(rate=10, burst=3, wait_seconds=0.25)
    bucket: Bucket | None = None
    turns = []
    for _ in range(7):
        bucket, turn = pace.take(bucket, 0.0)
        turns.append(turn)
    assert [t.wait for t in turns[:3]] == [0, 0, 0]
    assert [round(t.wait, 3) for t in turns[3:5]] == [0.1, 0.2]
    assert not any(t.refused for t in turns[:5])
    assert turns[5].refused and turns[6].refused  # a third would wait 0.3 s > 0.25 s
    assert turns[5].retry_after >= 1


def test_a_refused_view_takes_no_token_and_the_bucket_refills_at_the_rate() -> None:
    pace = Pace(rate=10, burst=2, wait_seconds=0.0)
    bucket, _ = pace.take(None, 0.0)
    bucket, _ = pace.take(bucket, 0.0)
    for _ in range(50):  # hammering while empty does not push the next turn further away
        bucket, turn = pace.take(bucket, 0.0)
        assert turn.refused
    bucket, turn = pace.take(bucket, 0.1)  # one token back after 1/rate
    assert not turn.refused and turn.wait == 0
    _, turn = pace.take(bucket, 0.1)
    assert turn.refused
    _, turn = pace.take(bucket, 60.0)  # a full bucket holds no more than the burst
    assert not turn.refused
    assert pace.take(bucket, 60.0)[0].tokens == pace.burst - 1


def test_retry_after_says_when_a_view_would_be_admitted() -> None:
    pace = Pace(rate=0.5, burst=1, wait_seconds=0.0)  # a view every 2 s
    bucket, _ = pace.take(None, 0.0)
    _, turn = pace.take(bucket, 0.0)
    assert turn.refused and turn.retry_after == 2
    _, turn = pace.take(bucket, 1.5)
    assert turn.refused and turn.retry_after == 1


@pytest.mark.parametrize(
    ("limit", "rate"), [("30 per second", 30.0), ("600/minute", 10.0), ("2 per 4 seconds", 0.5)]
)
def test_the_rate_is_written_as_the_other_limits_are(limit: str, rate: float) -> None:
    assert Pace.of(limit, 60, 1.0).rate == pytest.approx(rate)


@pytest.mark.parametrize(("limit", "burst", "wait"), [("lots", 60, 1.0), ("30/second", 0, 1.0)])
def test_a_bad_pace_is_named(limit: str, burst: int, wait: float) -> None:
    with pytest.raises(ValueError, match="rate"):
        Pace.of(limit, burst, wait)


# -- the middleware ----------------------------------------------------------------------------


def test_over_the_rate_a_view_waits_then_gets_429_with_retry_after_and_the_limit() -> None:
    views, inner, clock = layer(Pace(rate=20, burst=2, wait_seconds=0.1))
    statuses = [get(views)[0] for _ in range(4)]
    assert statuses == ["200 OK"] * 4
    assert clock.slept == pytest.approx([0.05, 0.05])  # one at a time: each waits its turn
    views, inner, clock = layer(Pace(rate=20, burst=2, wait_seconds=0.1), at_once=True)
    answers = [get(views) for _ in range(6)]
    assert [status[:3] for status, _, _ in answers] == ["200"] * 4 + ["429"] * 2
    assert clock.slept == pytest.approx([0.05, 0.1])  # at once: the 4th after the 3rd
    assert inner.calls == 4
    _, headers, body = answers[-1]
    assert int(headers["Retry-After"]) >= 1
    assert headers["Content-Type"].startswith("text/plain")
    assert b"20 page views a second per client, 2 at once" in body


def test_the_refusal_is_json_under_the_api() -> None:
    views, _, _ = layer(Pace(rate=1, burst=1, wait_seconds=0))
    get(views, path="/api/games/abc")
    status, headers, body = get(views, path="/api/games/abc")
    assert status.startswith("429") and headers["Content-Type"] == "application/json"
    assert "page views" in json.loads(body)["error"]


def test_clients_are_paced_apart() -> None:
    views, inner, _ = layer(Pace(rate=1, burst=2, wait_seconds=0))
    assert [get(views, "10.0.0.66")[0][:3] for _ in range(5)] == ["200", "200", "429", "429", "429"]
    assert [get(views, "10.0.0.7")[0][:3] for _ in range(2)] == ["200", "200"]
    assert inner.calls == 4


@pytest.mark.parametrize(
    ("method", "path", "is_paced"),
    [
        ("GET", "/g/abc", True),
        ("HEAD", "/g/abc/replay/3", True),
        ("GET", "/api/games/abc/events", True),
        ("GET", "/static/game.js", True),
        ("POST", "/g/abc/move", False),  # moves: Flask-Limiter's move limit
        ("POST", "/api/games", False),
        ("GET", "/api/worlds/w/scoreboard", True),
        ("GET", "/api/worlds/w/teams/t/view", False),  # metered by size in its own limit
        ("GET", "/api/worlds/w/teams/t/events", False),
        ("GET", "/api/worlds/w/teams/t/map", False),
        ("GET", "/api/worlds/w/teams/t/timelapse", False),
    ],
)
def test_what_is_paced(method: str, path: str, is_paced: bool) -> None:
    assert paced({"REQUEST_METHOD": method, "PATH_INFO": path}) is is_paced
    views, inner, _ = layer(Pace(rate=1, burst=1, wait_seconds=0))
    for _ in range(3):
        get(views, path=path, method=method)
    assert inner.calls == (1 if is_paced else 3)


def test_memory_is_bounded_by_the_clients_kept() -> None:
    views, inner, _ = layer(Pace(rate=1, burst=1, wait_seconds=0), clients=50)
    for n in range(5000):
        get(views, client=f"10.{n // 65536}.{n // 256 % 256}.{n % 256}")
    assert views.clients() == 50 and inner.calls == 5000


# -- a player is never refused -------------------------------------------------------------


def one_at_a_time(pace: Pace, asks: Iterable[float]) -> tuple[int, float]:
    """A client that sends each view at the times ``asks`` (seconds) or when its previous
    view was answered, whichever is later: (views refused, the longest wait)."""
    bucket: Bucket | None = None
    now, refused, longest = 0.0, 0, 0.0
    for at in asks:
        now = max(now, at)
        bucket, turn = pace.take(bucket, now)
        refused += turn.refused
        longest = max(longest, turn.wait)
        now += turn.wait
    return refused, longest


DEFAULT = Pace.of("30 per second", 60, 1.0)


def test_a_page_load_polls_and_a_replay_stepped_by_its_slider_never_wait() -> None:
    page_load = [0.0] * 25  # the page, its scripts and styles, its htmx fragments, its stream
    polls = [10.0 * n for n in range(1, 7)]
    slider = [60 + n / 12.5 for n in range(12 * 60)]  # htmx's 80 ms delay, for a minute
    refused, longest = one_at_a_time(DEFAULT, [*page_load, *polls, *slider])
    assert refused == 0 and longest == 0


def test_a_bot_reading_one_view_at_a_time_is_paced_never_refused() -> None:
    refused, longest = one_at_a_time(DEFAULT, [0.0] * 3000)  # as fast as it is answered
    assert refused == 0 and longest <= 1 / 30 + 1e-9


# -- in the app --------------------------------------------------------------------------------


def test_the_app_paces_views_when_rate_limits_are_on(make_app: Callable[..., Flask]) -> None:
    app = make_app(RATELIMIT_ENABLED=True, VIEW_RATE_LIMIT="1/minute", VIEW_BURST=3)
    client = app.test_client()
    statuses = [client.get("/healthz").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]  # no gevent: refused, never waiting
    refused = client.get("/healthz")
    assert int(refused.headers["Retry-After"]) >= 1 and b"page views" in refused.data
    assert client.get("/healthz", environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code == 200


def test_no_pace_when_rate_limits_are_off(make_app: Callable[..., Flask]) -> None:
    client = make_app(RATELIMIT_ENABLED=False, VIEW_BURST=1).test_client()
    assert [client.get("/healthz").status_code for _ in range(3)] == [200] * 3


def test_under_gevent_the_pace_refusal_is_held_and_waiting_views_are_in_progress(
    make_app: Callable[..., Flask], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stack as a gevent worker builds it: the gate, then the held refusals, then the
    pace (so a waiting view and a held 429 count as requests in progress)."""
    import app.gate

    monkeypatch.setattr(app.gate, "gevent_timeouts", lambda: object())
    built = make_app(
        RATELIMIT_ENABLED=True,
        VIEW_RATE_LIMIT="1/minute",
        VIEW_BURST=2,
        VIEW_WAIT_SECONDS=0,
        REFUSAL_HOLD_SECONDS=0.2,
        CLIENT_REQUESTS=1,
    )
    gate = built.wsgi_app.app  # type: ignore[attr-defined]  # inside RetryAfterFloor
    assert isinstance(gate, ClientGate) and isinstance(gate.app, HeldRefusals)
    assert isinstance(gate.app.app, ViewPace)
    client = built.test_client()
    assert [client.get("/healthz").status_code for _ in range(2)] == [200, 200]
    started = time.monotonic()
    refused = client.get("/healthz")
    assert refused.status_code == 429 and time.monotonic() - started >= 0.2
