"""app.gate: one client's requests in the app at once are capped, and a body that trickles
in is cut off at its deadline (a slowloris held the workers' connection slots: 3,000 slow
bodies from one client made /healthz miss). Both answer at once and close the connection
for reading, so the server never waits for the rest of the body."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path
from typing import Any

import gevent
import pytest
from werkzeug.exceptions import RequestTimeout

from app.gate import ClientGate, DeadlineInput


class FakeSocket:
    def __init__(self) -> None:
        self.shut: list[int] = []

    def shutdown(self, how: int) -> None:
        self.shut.append(how)


class Trickle(io.RawIOBase):
    """A client that sends nothing more (cooperative waiting, as in a gevent worker)."""

    def read(self, size: int = -1) -> bytes:
        gevent.sleep(30)
        return b""


def environ(client: str = "10.0.0.1", path: str = "/api/games/x/reveal") -> dict[str, Any]:
    return {
        "REMOTE_ADDR": client,
        "PATH_INFO": path,
        "wsgi.input": io.BytesIO(b"{}"),
        "gunicorn.socket": FakeSocket(),
    }


def test_one_client_has_at_most_limit_requests_in_the_app() -> None:
    inside, release = threading.Barrier(3), threading.Event()

    def slow_app(env: Any, start: Any) -> list[bytes]:  # a request reading a slow body
        if not release.is_set():
            inside.wait(5)
            release.wait(5)
        start("200 OK", [])
        return [b"ok"]

    gate = ClientGate(slow_app, limit=2)
    statuses: list[str] = []
    workers = [
        threading.Thread(target=gate, args=(environ(), lambda s, h: statuses.append(s)))
        for _ in range(2)
    ]
    for w in workers:
        w.start()
    inside.wait(5)  # both are in the app
    refused: list[Any] = []
    env = environ()
    body = gate(env, lambda s, h: refused.append((s, dict(h))))
    assert refused[0][0].startswith("429") and refused[0][1]["Retry-After"] == "1"
    assert b"already has 2 requests in progress" in b"".join(body)
    assert env["gunicorn.socket"].shut  # the unread body is not waited for
    release.set()
    for w in workers:
        w.join(5)
    assert statuses == ["200 OK", "200 OK"]
    again: list[str] = []
    gate(environ(), lambda s, h: again.append(s))  # they finished: the client is let in
    assert again == ["200 OK"] and gate._inflight == {}


def test_a_body_that_trickles_past_its_deadline_is_a_408_and_stops_reading() -> None:
    env = environ()
    stream = DeadlineInput(Trickle(), deadline=0.0, timeouts=gevent.Timeout, environ=env)
    with pytest.raises(RequestTimeout):
        stream.read(10)  # already past the deadline
    stream = DeadlineInput(
        Trickle(), deadline=time.monotonic() + 0.05, timeouts=gevent.Timeout, environ=env
    )
    started = time.monotonic()
    with pytest.raises(RequestTimeout, match="did not arrive within"):
        stream.read(10)
    assert time.monotonic() - started < 20  # interrupted, not the 30 s read
    assert env["gunicorn.socket"].shut
    fast = DeadlineInput(
        io.BytesIO(b'{"row": 1}\nmore'), time.monotonic() + 60, gevent.Timeout, environ()
    )
    assert fast.readline() == b'{"row": 1}\n' and fast.read() == b"more"


def test_the_app_answers_a_late_body_with_408(make_app: Any) -> None:
    """Through the real app: the 408 comes back as the app's JSON error under /api."""
    from app.gate import ClientGate

    app = make_app()
    gate = app.wsgi_app
    while not isinstance(gate, ClientGate):
        gate = gate.app
    assert gate.timeouts is None  # no gevent here: nothing to interrupt a read with
    gate.timeouts = gevent.Timeout
    gate.body_seconds = 0.05

    from werkzeug.test import EnvironBuilder, run_wsgi_app

    client = app.test_client()
    created = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10}).get_json()
    env = EnvironBuilder(
        path=f"/api/games/{created['id']}/reveal",
        method="POST",
        headers={
            "Authorization": f"Bearer {created['token']}",
            "Content-Type": "application/json",
            "Content-Length": "20",
        },
    ).get_environ()
    env["wsgi.input"] = Trickle()
    env["CONTENT_LENGTH"] = "20"
    env["gunicorn.socket"] = sock = FakeSocket()
    body, status, _ = run_wsgi_app(app, env, buffered=True)
    assert status.startswith("408"), b"".join(body)
    assert b"did not arrive within" in b"".join(body)
    assert sock.shut


def test_the_per_client_request_cap_is_set_from_the_environment(tmp_path: Path) -> None:
    from app.config import defaults

    env = {"MINE_DEVIL_DATA": str(tmp_path), "MINE_DEVIL_CLIENT_REQUESTS": "900"}
    assert defaults(environ=env)["CLIENT_REQUESTS"] == 900
    assert defaults(environ={"MINE_DEVIL_DATA": str(tmp_path)})["CLIENT_REQUESTS"] == 128


def test_every_answer_says_how_long_the_app_took(make_app: Any) -> None:
    """``Server-Timing: app;dur=<ms>, cpu;dur=<ms>`` on answers that have none (a client tells
    a slow server from a slow way there); an answer's own ``Server-Timing`` is kept."""
    spin_until = time.perf_counter() + 0.02

    def busy_app(env: Any, start: Any) -> list[bytes]:
        while time.perf_counter() < spin_until:  # 20 ms of CPU in the app
            pass
        start("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    seen: list[dict[str, str]] = []
    ClientGate(busy_app)(environ(), lambda s, h: seen.append(dict(h)))
    parts = dict(p.strip().split(";dur=") for p in seen[0]["Server-Timing"].split(","))
    assert set(parts) == {"app", "cpu"} and float(parts["app"]) >= 19.0
    assert 0.0 <= float(parts["cpu"]) <= float(parts["app"]) + 1.0

    def timed_app(env: Any, start: Any) -> list[bytes]:
        start("200 OK", [("Server-Timing", "analyse;dur=3.0")])
        return [b"ok"]

    seen.clear()
    ClientGate(timed_app)(environ(), lambda s, h: seen.append(dict(h)))
    assert seen[0]["Server-Timing"] == "analyse;dur=3.0"

    client = make_app().test_client()
    answer = client.post("/api/games", json={"width": 9, "height": 9, "mines": 10})
    assert answer.status_code == 201 and answer.headers["Server-Timing"].startswith("app;dur=")
    assert client.get("/healthz").headers["Server-Timing"].startswith("app;dur=")
