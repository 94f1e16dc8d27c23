"""Rate limits mean what they say: one count per client whatever the number of workers (the
default SQLite store in the data directory) or hosts (Redis), and a store that fails costs
per-process counting with a warning, never a 500 (``app/limitstore.py``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from flask import Flask
from limits import parse
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from app import limitstore
from tests.helpers.servers import free_port, mine_devil, redis_server, status

GAME = b'{"width": 5, "height": 5, "mines": 3}'


def creates(app: Flask, count: int) -> list[int]:
    client = app.test_client()
    return [
        client.post("/api/games", json={"width": 5, "height": 5, "mines": 3}).status_code
        for _ in range(count)
    ]


def test_the_default_store_is_the_sqlite_file_in_the_data_directory(
    make_app: Callable[..., Flask], tmp_path: Path
) -> None:
    app = make_app(RATELIMIT_ENABLED=True)
    assert app.config["RATELIMIT_STORAGE_URI"] == f"sqlite:///{tmp_path / 'ratelimits.sqlite3'}"
    storage = app.extensions["mine_devil.limiter"].storage
    assert isinstance(storage, limitstore.SQLiteStorage)


def test_sqlite_counters_are_shared_by_every_storage_on_the_file(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'limits.sqlite3'}"
    first, second = (FixedWindowRateLimiter(storage_from_string(uri)) for _ in range(2))
    item = parse("5 per minute")
    hits = [(first if n % 2 else second).hit(item, "client") for n in range(9)]
    assert hits == [True] * 5 + [False] * 4
    assert first.get_window_stats(item, "client").remaining == 0
    assert first.test(parse("5 per minute"), "someone-else")


def test_a_sqlite_window_ends_and_counts_again(tmp_path: Path) -> None:
    limiter = FixedWindowRateLimiter(storage_from_string(f"sqlite:///{tmp_path / 'l.sqlite3'}"))
    item = parse("2 per second")
    assert [limiter.hit(item, "c") for _ in range(3)] == [True, True, False]
    reset = limiter.get_window_stats(item, "c").reset_time
    assert time.time() < reset <= time.time() + 1
    time.sleep(max(0.0, reset - time.time()) + 0.05)
    assert limiter.hit(item, "c", cost=2)
    assert not limiter.hit(item, "c")


def test_two_apps_on_one_data_directory_give_a_client_its_limit_once(
    make_app: Callable[..., Flask],
) -> None:
    apps = [make_app(RATELIMIT_ENABLED=True, CREATE_RATE_LIMIT="4 per minute") for _ in range(2)]
    codes = [creates(apps[n % 2], 1)[0] for n in range(10)]
    assert codes.count(201) == 4, codes
    assert codes[4:] == [429] * 6


@pytest.mark.slow
def test_a_server_with_two_workers_gives_its_configured_limit(tmp_path: Path) -> None:
    """gunicorn spreads new connections over its workers: with counters per worker (the old
    ``memory://`` default) a client got up to twice its limit."""
    port = free_port()
    env = {"MINE_DEVIL_RATELIMIT": "1", "MINE_DEVIL_RATELIMIT_CREATE": "5 per minute"}
    with mine_devil(tmp_path / "data", port, env, workers=2):
        codes = [status(port, "POST", "/api/games", GAME) for _ in range(14)]
    assert codes.count(201) == 5, codes
    assert set(codes[5:]) == {429}


def test_an_unreachable_redis_costs_per_process_counting_and_a_warning(
    make_app: Callable[..., Flask], caplog: pytest.LogCaptureFixture
) -> None:
    uri = f"redis://127.0.0.1:{free_port()}/0"  # nobody listens
    app = make_app(
        RATELIMIT_ENABLED=True, CREATE_RATE_LIMIT="3 per minute", RATELIMIT_STORAGE_URI=uri
    )
    with caplog.at_level(logging.WARNING, logger="mine_devil.limits"):
        codes = creates(app, 5)
    close_redis(app)
    assert codes == [201, 201, 201, 429, 429]
    warnings = [r.getMessage() for r in caplog.records if r.name == "mine_devil.limits"]
    assert len(warnings) == 1 and "unreachable" in warnings[0], warnings


def close_redis(app: Flask) -> None:
    """Drop the app's Redis connections (the test apps outlive nothing, but pytest counts
    unclosed sockets)."""
    app.extensions["mine_devil.limiter"].storage.storage.connection_pool.disconnect()


def test_redis_shares_limits_between_apps_and_survives_a_stop_and_start(
    make_app: Callable[..., Flask],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limitstore, "RETRY_SECONDS", 0.2)
    port = free_port()
    uri = f"redis://127.0.0.1:{port}/0"
    with redis_server(port, tmp_path / "redis"):
        apps = [
            make_app(
                RATELIMIT_ENABLED=True, CREATE_RATE_LIMIT="4 per minute", RATELIMIT_STORAGE_URI=uri
            )
            for _ in range(2)
        ]
        assert isinstance(
            apps[0].extensions["mine_devil.limiter"].storage, limitstore.SharedRedisStorage
        )
        shared = [creates(apps[n % 2], 1)[0] for n in range(6)]
        assert shared == [201] * 4 + [429] * 2
    # Redis is gone: each app counts alone, from zero, and nothing answers 500
    with caplog.at_level(logging.WARNING, logger="mine_devil.limits"):
        alone = [creates(app, 5) for app in apps]
    assert alone == [[201] * 4 + [429]] * 2
    assert sum("unreachable" in r.getMessage() for r in caplog.records) == 2
    with redis_server(port, tmp_path / "redis"):  # an empty Redis again, on the same port
        time.sleep(0.3)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="mine_devil.limits"):
            back = [creates(apps[n % 2], 1)[0] for n in range(6)]
        for app in apps:
            close_redis(app)
        assert back == [201] * 4 + [429] * 2
        assert sum("answers again" in r.getMessage() for r in caplog.records) == 2
