"""The example bot plays only provable moves (no devil error) and waits out rate limits."""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

ROOT = Path(__file__).resolve().parents[3]


def load_bot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("world_bot", ROOT / "examples" / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["world_bot"] = module
    spec.loader.exec_module(module)
    return module


def transport(client: FlaskClient) -> Callable[..., tuple[int, dict[str, str], Any]]:
    def call(
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        extra: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = client.open(path, method=method, json=body, headers={**headers, **(extra or {})})
        return response.status_code, dict(response.headers), response.get_json()

    return call


def test_the_bot_plays_only_provable_moves(app: Flask) -> None:
    bot_module = load_bot()
    client = app.test_client()
    bot = bot_module.Bot(transport(client), "main", "bots", "b1", 2, view=48, rng=random.Random(5))
    stats = bot.run(seconds=60, at=(0, 0), rounds=12)
    assert stats.devil == 0
    assert stats.opened > 0 and stats.rafts >= 2
    board = client.get("/api/worlds/main/scoreboard").get_json()
    (team,) = board["teams"]
    assert team["errors"] == 0
    assert (team["revealed"], team["flags"], team["moves"]) == (
        stats.opened,
        stats.flags,
        stats.moves,
    )


def test_the_bot_waits_out_the_rate_limit(make_app: Callable[..., Flask]) -> None:
    """What the limit guarantees, whatever the machine's speed: a raft of 11 moves never
    fits a window of 10 moves a second, so it is refused with ``Retry-After``; the bot waits
    that long and sends it in halves, which pass, and every move is played exactly once."""
    app = make_app(
        RATELIMIT_ENABLED=True,
        WORLD_PLAYER_RATE_LIMIT="10 per second",
        WORLD_TEAM_RATE_LIMIT="1000 per second",
        WORLD_DROP_SECONDS=0,
    )
    bot_module = load_bot()
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    client = app.test_client()
    bot = bot_module.Bot(transport(client), "main", "bots", "b2", 0, view=64, sleep=sleep,
                         rng=random.Random(7))  # fmt: skip
    bot.join()
    assert bot.drop(500, 500) and not waits
    x, y = bot.focus
    results = bot.moves([{"kind": "reveal", "x": x, "y": y}] * 11)
    assert len(results) == 11 and {r["outcome"] for r in results} == {"revealed"}
    assert waits and all(0 < wait <= 1 for wait in waits)  # it was slowed down, not failed
    seqs = [r["seq"] for r in results]
    assert len(set(seqs)) == 11  # each move played once
    assert client.get("/api/worlds/main").get_json()["moves"] == 12  # the drop and the 11


def test_the_bot_command_line_explains_itself() -> None:
    import subprocess

    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "bot.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0
    assert "--team" in done.stdout and "--seconds" in done.stdout


def test_the_bot_retries_a_lost_answer_and_plays_it_once(app: Flask) -> None:
    """Every second raft's answer is lost after the server played it (as when a worker dies
    or the connection drops): the bot sends it again with its idempotency key, the server
    answers the first result, and the team's log counts each move once."""
    bot_module = load_bot()
    client = app.test_client()
    plain = transport(client)
    rafts = {"sent": 0, "lost": 0}
    keys: list[str] = []

    def lossy(method: str, path: str, body: Any = None, token: str | None = None,
              extra: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:  # fmt: skip
        answer = plain(method, path, body, token, extra)
        if path.endswith("/moves"):
            rafts["sent"] += 1
            keys.append((extra or {})["Idempotency-Key"])
            if rafts["sent"] % 2 == 0 and answer[1].get("Idempotent-Replayed") != "true":
                rafts["lost"] += 1
                raise ConnectionResetError("the answer was lost on the way")
        return answer

    bot = bot_module.Bot(lossy, "main", "bots", "b3", 1, view=48, sleep=lambda s: None,
                         rng=random.Random(9))  # fmt: skip
    stats = bot.run(seconds=60, at=(0, 0), rounds=6)
    assert rafts["lost"] >= 1 and len(set(keys)) < len(keys)  # lost, then sent again
    (team,) = client.get("/api/worlds/main/scoreboard").get_json()["teams"]
    assert team["moves"] == stats.moves and stats.devil == 0
