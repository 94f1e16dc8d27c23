"""Devil World on real servers: two ``mine-devil`` processes on one PostgreSQL share one world
(a move through one is in the other's live feed), a kill -9 under load loses no acknowledged
move, and the two gevent workers of one server on SQLite wake each other's feeds."""

from __future__ import annotations

import http.client
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.helpers.servers import free_port, start_server, stop
from tests.helpers.world import WOKEN_WITHIN
from tests.helpers.world_hosts import call, feed, join, opening

ROOT = Path(__file__).resolve().parents[3]


def start(data: Path, port: int, db_url: str | None, workers: int = 1) -> subprocess.Popen[bytes]:
    process = start_server(data, port, {"MINE_DEVIL_DATABASE_URL": db_url or ""}, workers)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode(errors="replace") if process.stderr else ""
            pytest.fail(f"mine-devil exited with {process.returncode}:\n{err[-2000:]}")
        try:
            if call(port, "GET", "/healthz")[1]["status"] == "ok":
                return process
        except OSError:
            time.sleep(0.2)
    stop(process)
    pytest.fail("mine-devil did not answer /healthz within 60 s")


@pytest.fixture
def two_servers(tmp_path: Path, db_url: str) -> Iterator[tuple[int, int]]:
    ports = free_port(), free_port()
    servers = [start(tmp_path / f"data{i}", port, db_url) for i, port in enumerate(ports)]
    try:
        yield ports
    finally:
        for server in servers:
            stop(server, signal.SIGTERM)


@pytest.mark.slow
@pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_a_move_through_one_server_is_in_the_other_servers_feed_at_once(
    two_servers: tuple[int, int],
) -> None:
    a, b = two_servers
    token = join(a, "Ada", "red", 1)
    first, safe = opening(a, token, 1)
    x0, y0 = first["at"]
    path = (
        f"/api/worlds/main/teams/red/events?colour=1&x0={x0 - 40}&y0={y0 - 40}&width=81&height=81"
    )
    with feed(b, path) as events:
        latencies = []
        for x, y in safe[:5]:
            started = time.monotonic()
            status, body = call(
                a,
                "POST",
                "/api/worlds/main/moves",
                {"moves": [{"kind": "reveal", "x": x, "y": y}]},
                token,
            )
            assert status == 200
            (result,) = body["results"]
            if not result["cells"]:
                continue
            event = events.get(timeout=WOKEN_WITHIN)
            latencies.append(time.monotonic() - started)
            assert event == {"seq": result["seq"], "cells": result["cells"]}
        assert latencies and max(latencies) < WOKEN_WITHIN
    # and the other server's view has it, and a resumed feed replays it
    _, summary = call(b, "GET", "/api/worlds/main")
    assert summary["moves"] == summary["seq"] >= 2


@pytest.mark.slow
def test_two_workers_on_sqlite_wake_each_others_feeds(tmp_path: Path) -> None:
    port = free_port()
    server = start(tmp_path / "data", port, None, workers=2)
    try:
        token = join(port, "Ada", "red", 2)
        first, safe = opening(port, token, 2)
        x0, y0 = first["at"]
        box = f"x0={x0 - 40}&y0={y0 - 40}&width=81&height=81"
        path = f"/api/worlds/main/teams/red/events?colour=2&{box}"
        # several streams: the kernel spreads them over both workers
        with feed(port, path) as one, feed(port, path) as two, feed(port, path) as three:
            for x, y in safe[:4]:
                started = time.monotonic()
                _, body = call(
                    port, "POST", "/api/worlds/main/moves",
                    {"moves": [{"kind": "reveal", "x": x, "y": y}]}, token,
                )  # fmt: skip
                (result,) = body["results"]
                if not result["cells"]:
                    continue
                for stream in (one, two, three):
                    assert stream.get(timeout=WOKEN_WITHIN)["seq"] == result["seq"]
                assert time.monotonic() - started < WOKEN_WITHIN
    finally:
        stop(server, signal.SIGTERM)


@pytest.mark.slow
@pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)
def test_kill_9_under_load_loses_no_acknowledged_move(tmp_path: Path, db_url: str) -> None:
    port, other = free_port(), free_port()
    victim = start(tmp_path / "a", port, db_url)
    survivor = start(tmp_path / "b", other, db_url)
    acknowledged: list[tuple[str, dict[str, Any]]] = []
    lock = threading.Lock()
    halt = threading.Event()
    try:
        tokens = [join(port, f"p{i}", f"team{i % 3}", i % 6) for i in range(6)]

        def player(i: int) -> None:
            n = 0
            while not halt.is_set():
                raft = [{"kind": "reveal", "x": 10_000 * i + n + j, "y": 77} for j in range(5)]
                raft.append({"kind": "drop", "x": 10_000 * i + n, "y": -500})
                n += 50
                try:
                    status, body = call(
                        port, "POST", "/api/worlds/main/moves", {"moves": raft}, tokens[i]
                    )
                except (OSError, http.client.HTTPException):
                    # the server died under us (before its answer, or in the middle of its
                    # body: IncompleteRead): this raft was never acknowledged
                    return
                if status == 200:
                    with lock:
                        acknowledged.extend((f"team{i % 3}", r) for r in body["results"])

        threads = [threading.Thread(target=player, args=(i,)) for i in range(6)]
        for thread in threads:
            thread.start()
        time.sleep(3.0)
        stop(victim)  # SIGKILL mid-load
        halt.set()
        for thread in threads:
            thread.join(30)
        assert len(acknowledged) > 20
        engine = sa.create_engine(db_url)
        with engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT team, seq, opened FROM world_events WHERE world = 'main' "
                "ORDER BY team, seq")).all()  # fmt: skip
        engine.dispose()
        seqs: dict[str, list[int]] = {}
        for team, seq, _ in rows:
            seqs.setdefault(team, []).append(seq)
        for numbers in seqs.values():  # each team's log: no gap, no duplicate
            assert numbers == list(range(1, len(numbers) + 1))
        opened = {(team, seq): n for team, seq, n in rows}
        for team, result in acknowledged:
            assert opened[team, result["seq"]] == len(result["cells"])
        # the survivor serves on from where the log stops
        token = join(other, "late", "team0", 0)
        status, body = call(other, "POST", "/api/worlds/main/moves",
                            {"moves": [{"kind": "reveal", "x": 1, "y": 1}]}, token)  # fmt: skip
        assert status == 200 and body["results"][0]["seq"] == len(seqs["team0"]) + 1
    finally:
        halt.set()
        stop(victim)
        stop(survivor, signal.SIGTERM)
