"""The edge: ``deploy/nginx/mine-devil.conf`` (Debian's nginx, in the foreground on a free
port) in front of two ``mine-devil`` processes sharing one data directory, with
``MINE_DEVIL_PROXY_HOPS=1``. A game, a world raft and a live feed work through it, events
arrive within 1 s, a slow body is cut off at the edge, the client's own address reaches the
app (and a forged one does not), and the edge's body limits are the app's."""

from __future__ import annotations

import http.client
import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from app.config import MAX_CONTENT_LENGTH
from app.pace import Pace
from app.settings import Settings
from app.teach.query import ANALYSE_MAX_BODY
from app.world.api import MOVES_BODY_BYTES
from tests.helpers.servers import EDGE_CONFIG, free_port, mine_devil, nginx
from tests.helpers.world_hosts import call, feed, join, opening

pytestmark = pytest.mark.nginx

WITHIN = 1.0
"""Seconds an event may take from the raft's answer to a watcher behind the edge."""


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """nginx's port, in front of two app processes (one worker each) on one SQLite file."""
    base = tmp_path_factory.mktemp("edge")
    ports = [free_port(), free_port()]
    env = {
        "MINE_DEVIL_PROXY_HOPS": "1",
        "MINE_DEVIL_RATELIMIT": "1",
        "MINE_DEVIL_RATELIMIT_CREATE": "4 per minute",
        "MINE_DEVIL_WORLD_DROP_SECONDS": "0",
    }
    with (
        mine_devil(base / "data", ports[0], env),
        mine_devil(base / "data", ports[1], env),
        nginx(base / "nginx", (port := free_port()), ports),
    ):
        yield port


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    source: str = "127.0.0.1",
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        conn.request(method, path, data, {"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def test_a_game_through_the_edge(edge: int) -> None:
    status, _, body = request(
        edge, "POST", "/api/games", {"width": 8, "height": 8, "mines": 10}, source="127.0.0.5"
    )
    assert status == 201, body
    game = json.loads(body)
    status, _, body = request(
        edge,
        "POST",
        f"/api/games/{game['id']}/reveal",
        {"row": 3, "col": 3},
        {"Authorization": f"Bearer {game['token']}"},
    )
    assert status == 200, body
    assert json.loads(body)["moves"] == 1
    status, _, body = request(edge, "GET", f"/api/games/{game['id']}")
    assert status == 200 and json.loads(body)["moves"] == 1


def test_a_world_raft_reaches_a_watcher_through_the_edge_within_a_second(edge: int) -> None:
    token = join(edge, "Ada", "red", 1)
    first, safe = opening(edge, token, 1)
    x0, y0 = first["at"]
    path = (
        f"/api/worlds/main/teams/red/events?colour=1&x0={x0 - 40}&y0={y0 - 40}&width=81&height=81"
    )
    latencies = []
    with feed(edge, path) as events:  # nginx spreads the feed and the rafts over both processes
        for x, y in safe[:4]:
            started = time.monotonic()
            status, body = call(
                edge,
                "POST",
                "/api/worlds/main/moves",
                {"moves": [{"kind": "reveal", "x": x, "y": y}]},
                token,
            )
            assert status == 200, body
            (result,) = body["results"]
            if not result["cells"]:
                continue
            event = events.get(timeout=WITHIN + 1)
            latencies.append(time.monotonic() - started)
            assert event == {"seq": result["seq"], "cells": result["cells"]}
    assert latencies and max(latencies) < WITHIN, latencies


def test_the_app_sees_the_clients_address_not_the_edges_nor_a_forged_one(edge: int) -> None:
    """Limits count per client: through the edge, two clients are two (the edge's own
    address would make them one), and a client naming another address is still itself."""
    new_game = {"width": 5, "height": 5, "mines": 3}
    forged = {"X-Forwarded-For": "203.0.113.9"}
    first = [
        request(edge, "POST", "/api/games", new_game, forged, source="127.0.0.2")[0]
        for _ in range(6)
    ]
    assert first == [201] * 4 + [429] * 2
    assert request(edge, "POST", "/api/games", new_game, source="127.0.0.3")[0] == 201
    status, headers, _ = request(edge, "POST", "/api/games", new_game, source="127.0.0.2")
    assert status == 429 and int(headers["Retry-After"]) >= 1


@pytest.mark.slow
def test_a_slow_body_is_cut_off_at_the_edge(edge: int) -> None:
    """A body that stops arriving: nginx drops the request after client_body_timeout; it
    never reaches (or holds) an app process, which still answers others meanwhile."""
    timeout = int(re.search(r"client_body_timeout (\d+)s;", EDGE_CONFIG.read_text())[1])  # type: ignore[index]
    with socket.create_connection(("127.0.0.1", edge), timeout=timeout + 10) as slow:
        slow.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        started = time.monotonic()
        assert request(edge, "GET", "/healthz")[0] == 200
        answer = b""
        while chunk := slow.recv(4096):
            answer += chunk
        waited = time.monotonic() - started
    assert timeout - 1 <= waited <= timeout + 5, waited
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:100]


def body_limits() -> dict[str, int]:
    """``client_max_body_size`` of the server and of each location, from the config."""
    text = EDGE_CONFIG.read_text()
    server = text[text.index("server {") :]
    limits = {"default": int(re.search(r"\n    client_max_body_size (\d+);", server)[1])}  # type: ignore[index]
    for where, size in re.findall(r"location ([^{]+?) \{\n\s+client_max_body_size (\d+);", server):
        limits[where] = int(size)
    return limits


def test_the_edge_takes_the_bodies_the_app_takes_and_no_larger() -> None:
    assert body_limits() == {
        "default": MAX_CONTENT_LENGTH,
        "/api/worlds/": MOVES_BODY_BYTES,
        "= /analyse": ANALYSE_MAX_BODY,
    }


def test_the_edge_paces_views_as_the_app_does() -> None:
    """nginx's ``limit_req`` on views is the app's view pace (``app.pace``) over the edge:
    the same rate, the same burst at once, and as many more waiting as the app's longest wait
    holds."""
    text = EDGE_CONFIG.read_text()
    rate = re.search(r"zone=mine_devil_views:\S+ rate=(\d+)r/s;", text)
    used = re.search(r"limit_req zone=mine_devil_views burst=(\d+) delay=(\d+);", text)
    assert rate is not None and used is not None
    app = Settings()
    pace = Pace.of(app.view_rate_limit, app.view_burst, app.view_wait_seconds)
    burst, delay = int(used[1]), int(used[2])
    assert int(rate[1]) == pace.rate and delay == pace.burst
    assert burst - delay == pace.rate * pace.wait_seconds


def test_a_body_over_the_limit_is_refused_at_the_edge(edge: int) -> None:
    big = b'{"width": 5, "pad": "' + b"x" * MAX_CONTENT_LENGTH + b'"}'
    status, _, _ = request(edge, "POST", "/api/games", big, source="127.0.0.4")
    assert status == 413
    raft = {"moves": [{"kind": "flag", "x": n, "y": 0} for n in range(1000)]}
    body = json.dumps(raft).encode()
    assert MAX_CONTENT_LENGTH < len(body) < MOVES_BODY_BYTES
    status, _, answer = request(edge, "POST", "/api/worlds/main/moves", body)
    assert status != 413, answer  # the app judges it (here: no token, 401)
