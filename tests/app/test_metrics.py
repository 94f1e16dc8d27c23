"""``GET /metrics``: Prometheus text, behind a token, counting what the app did (in one process
here; across the workers of a real server in the last test)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.servers import free_port, mine_devil

TOKEN = "metrics-secret"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def scrape(client: FlaskClient) -> Samples:
    response = client.get("/metrics", headers=AUTH)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/plain"
    return parse(response.get_data(as_text=True))


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def metered(make_app: Callable[..., Flask]) -> Flask:
    return make_app(METRICS_TOKEN=TOKEN)


def test_metrics_are_not_public_by_default(app: Flask) -> None:
    assert app.test_client().get("/metrics").status_code == 404
    assert app.test_client().get("/metrics", headers=AUTH).status_code == 404


def test_metrics_need_the_token(metered: Flask) -> None:
    client = metered.test_client()
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert client.get("/metrics", headers=AUTH).status_code == 200


def test_requests_and_moves_are_counted_by_route_template_kind_and_outcome(
    metered: Flask,
) -> None:
    client = metered.test_client()
    before = scrape(client)
    game = client.post("/api/games", json={"width": 8, "height": 8, "mines": 10}).get_json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    for _ in range(2):
        opened = client.post(
            f"/api/games/{game['id']}/reveal", json={"row": 0, "col": 0}, headers=auth
        )
    assert opened.status_code in (200, 409)
    after = scrape(client)
    route = "/api/games/<game_id>/reveal"
    assert (
        value(after, "mine_devil_request_seconds_count", route=route, method="POST")
        - value(before, "mine_devil_request_seconds_count", route=route, method="POST")
        == 2
    )
    created = ("mine_devil_responses_total", {"route": "/api/games", "code": "201"})
    assert value(after, created[0], **created[1]) - value(before, created[0], **created[1]) == 1
    judged = sum(
        v - before.get(k, 0.0)
        for k, v in after.items()
        if k[0] == "mine_devil_moves_total" and ("game", "game") in k[1]
    )
    assert judged == 2
    refused = value(after, "mine_devil_moves_total", game="game", kind="reveal", outcome="refused")
    refused_before = value(
        before, "mine_devil_moves_total", game="game", kind="reveal", outcome="refused"
    )
    errors = value(after, "mine_devil_devil_errors_total", error="IllegalMove") + value(
        after, "mine_devil_devil_errors_total", error="GameOver"
    )
    errors_before = value(before, "mine_devil_devil_errors_total", error="IllegalMove") + value(
        before, "mine_devil_devil_errors_total", error="GameOver"
    )
    # the second reveal of the same cell is refused (revealed already, or the game is over)
    assert refused - refused_before == 1
    assert errors - errors_before == 1


def test_429s_are_counted_by_reason(make_app: Callable[..., Flask]) -> None:
    app = make_app(METRICS_TOKEN=TOKEN, RATELIMIT_ENABLED=True, CREATE_RATE_LIMIT="1 per minute")
    client = app.test_client()
    before = value(scrape(client), "mine_devil_rate_limited_total", reason="create")
    codes = [client.post("/api/games", json={}).status_code for _ in range(3)]
    assert codes == [201, 429, 429]
    after = value(scrape(client), "mine_devil_rate_limited_total", reason="create")
    assert after - before == 2


def test_world_moves_time_the_lock_and_the_commit(metered: Flask) -> None:
    client = metered.test_client()
    before = scrape(client)
    joined = client.post(
        "/api/worlds/main/players", json={"name": "Ada", "team": "red", "colour": 1}
    ).get_json()
    answer = client.post(
        "/api/worlds/main/moves",
        json={"moves": [{"kind": "drop", "x": 0, "y": 0}, {"kind": "flag", "x": 9, "y": 9}]},
        headers={"Authorization": f"Bearer {joined['token']}"},
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    after = scrape(client)
    for name in ("mine_devil_world_lock_seconds_count", "mine_devil_world_commit_seconds_count"):
        assert value(after, name) - value(before, name) == 1  # one transaction for the raft
    kinds = {
        dict(k[1])["kind"]: v - before.get(k, 0.0)
        for k, v in after.items()
        if k[0] == "mine_devil_moves_total" and ("game", "world") in k[1]
    }
    assert kinds.get("drop") == 1 and kinds.get("flag") == 1
    assert value(after, "mine_devil_db_connections_in_use") >= 0


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.mark.slow
def test_a_server_reports_every_worker_in_one_scrape(tmp_path: Path) -> None:
    port = free_port()
    env = {"MINE_DEVIL_METRICS_TOKEN": TOKEN}
    with mine_devil(tmp_path / "data", port, env, workers=2):
        for _ in range(20):  # new connections: gunicorn spreads them over both workers
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request(
                "POST",
                "/api/games",
                json.dumps({"width": 5, "height": 5, "mines": 3}),
                {"Content-Type": "application/json"},
            )
            assert conn.getresponse().status == 201
            conn.close()
        scrapes = [get(port, "/metrics", AUTH) for _ in range(6)]
        assert get(port, "/metrics")[0] == 403
    for status, body in scrapes:
        assert status == 200
        samples = parse(body.decode())
        # every scrape, whichever worker answers it, counts the creates of both workers
        assert value(samples, "mine_devil_responses_total", route="/api/games", code="201") == 20
