"""A restarted server serves every game exactly as it was, from the log alone."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, session

from app import create_app
from app.security import ensure_owner
from tests.helpers.servers import free_port, start_server, stop
from tests.helpers.web import Api, play_to_win, safe_unflagged

PARAMS = {"width": 8, "height": 8, "mines": 8, "seed": 21}


def fresh_app(data: Path, db_url: str | None = None) -> Flask:
    """An app like production: secret key persisted in the data dir, not given."""
    config: dict[str, Any] = {
        "TESTING": True,
        "DATA_DIR": str(data),
        "DATABASE_URL": db_url or f"sqlite:///{data / 'mine-devil.sqlite3'}",
        "RATELIMIT_ENABLED": False,
    }
    app = create_app(config)

    @app.get("/test-only/claim")
    def claim() -> str:
        return ensure_owner()

    @app.get("/test-only/whoami")
    def whoami() -> str:
        return str(session.get("owner"))

    return app


def snapshot(api: Api, game_id: str) -> tuple[Any, ...]:
    client = api.client
    state = api.state(game_id)
    replays = [
        client.get(f"/api/games/{game_id}/replay/{n}").json for n in range(state["moves"] + 1)
    ]
    return state, api.log(game_id), replays


def test_new_app_on_the_same_database_serves_the_same_games(tmp_path: Path, db_url: str) -> None:
    first = fresh_app(tmp_path, db_url)
    api = Api(first.test_client())
    running = api.create(**PARAMS)
    state = api.move(running, "reveal", 4, 4)
    api.move(running, "flag", *safe_unflagged(state)[0])
    won = api.create(**PARAMS)
    play_to_win(api, won, (4, 4))
    before = {g["id"]: snapshot(api, g["id"]) for g in (running, won)}
    first.extensions["mine_devil.store"].dispose()

    second = fresh_app(tmp_path, db_url)
    again = Api(second.test_client())
    for game_id, expected in before.items():
        assert snapshot(again, game_id) == expected
    # the game goes on where it stopped, the log without a gap
    state = again.state(running["id"])
    cell = safe_unflagged(state)[0]
    after = again.move(running, "reveal", *cell)
    assert after["moves"] == state["moves"] + 1
    assert [m["seq"] for m in again.log(running["id"])] == list(range(1, after["moves"] + 1))
    assert again.move(won, "reveal", 0, 0, expect=409)
    second.extensions["mine_devil.store"].dispose()


def test_owner_cookie_survives_a_restart(tmp_path: Path) -> None:
    first = fresh_app(tmp_path)
    browser = first.test_client()
    owner = browser.get("/test-only/claim").get_data(as_text=True)
    key = (tmp_path / "secret_key").read_text().strip()
    assert len(key) >= 32
    first.extensions["mine_devil.store"].dispose()
    second = fresh_app(tmp_path)
    assert second.config["SECRET_KEY"] == key
    cookie = browser.get_cookie(second.config["SESSION_COOKIE_NAME"])
    assert cookie is not None
    other = second.test_client()
    other.set_cookie(cookie.key, cookie.value)
    assert other.get("/test-only/whoami").get_data(as_text=True) == owner
    second.extensions["mine_devil.store"].dispose()


# -- a real server, killed -----------------------------------------------------------------


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def start_two_workers(data: Path, port: int) -> subprocess.Popen[bytes]:
    process = start_server(data, port, workers=2)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"mine-devil exited with {process.returncode}:\n{err[-2000:]}")
        try:
            if call(base, "GET", "/healthz")["status"] == "ok":
                return process
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    stop(process)
    pytest.fail("mine-devil did not answer /healthz within 60 s")


@pytest.mark.slow
def test_server_killed_mid_game_comes_back_exactly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_two_workers(data, port)
    try:
        created = call(base, "POST", "/api/games", PARAMS)
        game_id, token = created["id"], created["token"]
        state = call(base, "POST", f"/api/games/{game_id}/reveal", {"row": 4, "col": 4}, token)
        for _ in range(3):
            safe = safe_unflagged(state)
            if state["status"] != "playing" or not safe:
                break
            r, c = safe[0]
            state = call(base, "POST", f"/api/games/{game_id}/reveal", {"row": r, "col": c}, token)
        log = call(base, "GET", f"/api/games/{game_id}/moves")
    finally:
        stop(server)  # SIGKILL: no shutdown code runs
    server = start_two_workers(data, port)
    try:
        assert call(base, "GET", f"/api/games/{game_id}") == state
        assert call(base, "GET", f"/api/games/{game_id}/moves") == log
        if state["status"] == "playing":
            r, c = safe_unflagged(state)[0]
            after = call(base, "POST", f"/api/games/{game_id}/reveal", {"row": r, "col": c}, token)
            assert after["moves"] == state["moves"] + 1
    finally:
        stop(server, signal.SIGTERM)
