"""Finding one's way (app/world/orientation.py): teammates' presence on the live feed, bounded
and rate-limited, carrying no cell; the team's map and per-colour counts, checked cell by cell
against the view API; the time-lapse, whose pages replayed rebuild exactly the view and hold
nothing else."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from app.notify.topics import RECENT, TopicRegistry
from app.world import timelapse
from app.world.presence import PresenceBoard
from tests.helpers.world import World, opening, stream_lines

Json = dict[str, Any]


def presence_events(chunks: queue.Queue[str], timeout: float) -> list[Json]:
    """Presence events on a stream until ``timeout`` passes without one."""
    found: list[Json] = []
    while True:
        try:
            chunk = chunks.get(timeout=timeout)
        except queue.Empty:
            return found
        for block in chunk.split("\n\n"):
            if block.startswith("event: presence"):
                assert "\nid:" not in block  # not part of the log: Last-Event-ID untouched
                found.append(json.loads(block.split("data: ", 1)[1]))


def report(client: FlaskClient, token: str, body: Any, world: str = "main") -> Any:
    return client.post(
        f"/api/worlds/{world}/presence", json=body, headers={"Authorization": f"Bearer {token}"}
    )


VIEW = {"x0": -40, "y0": -20, "width": 80, "height": 40}


def test_presence_reaches_teammates_streams_and_says_nothing_of_cells(
    make_app: Callable[..., Flask],
) -> None:
    app = make_app(LIVE_MAX_SECONDS=20)
    api = World(app.test_client())
    ana, _ = api.join("ana", "red", 1)
    bob, _ = api.join("bob", "red", 2)
    url = "/api/worlds/main/teams/red/events?colour=2&x0=0&y0=0&width=64&height=64"
    with stream_lines(app, url) as chunks:
        r = report(api.client, ana, {**VIEW, "x": 3, "y": 4})
        assert r.status_code == 204
        (seen,) = presence_events(chunks, 2.0)
        assert seen == {"p": seen["p"], "n": "ana", "c": 1, **{"x0": -40, "y0": -20},
                        "w": 80, "h": 40, "x": 3, "y": 4}  # fmt: skip
        assert report(api.client, ana, {"gone": True}).status_code == 204
        assert presence_events(chunks, 2.0) == [{"p": seen["p"], "gone": True}]
        # a move still arrives as cells: presence never stands in for the log
        report(api.client, bob, VIEW)
        assert [p["n"] for p in presence_events(chunks, 2.0)] == ["bob"]
    # a stream that opens later starts with who is there (bob), not who left (ana)
    opened = app.test_client().get(url.replace("colour=2", "colour=0"))
    text = opened.get_data(as_text=True)
    assert text.count("event: presence") == 1 and '"n":"bob"' in text


def test_presence_is_checked_bounded_and_needs_a_player(client: FlaskClient) -> None:
    api = World(client)
    token, _ = api.join("ana", "red", 1)
    assert client.post("/api/worlds/main/presence", json=VIEW).status_code == 401
    for body, field in (
        ({**VIEW, "width": 513}, "width"),
        ({**VIEW, "x0": 2**60}, "x0"),
        ({**VIEW, "x0": "1"}, "x0"),
        ({**VIEW, "cells": [[0, 0, "1"]]}, "cells"),
        ({**VIEW, "x": 1}, "y"),
        ([1, 2], "body"),
    ):
        r = report(client, token, body)
        assert r.status_code == 400 and r.get_json()["field"] == field, (body, r.get_json())
    r = client.post(
        "/api/worlds/main/presence",
        data=json.dumps({**VIEW, "pad": "x" * 2000}),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert r.status_code == 413
    assert report(client, token, VIEW, world="nowhere").status_code == 404


def test_presence_is_rate_limited_per_player(make_app: Callable[..., Flask]) -> None:
    app = make_app(RATELIMIT_ENABLED=True, WORLD_PRESENCE_RATE_LIMIT="3 per second")
    api = World(app.test_client())
    ana, _ = api.join("ana", "red", 1)
    bob, _ = api.join("bob", "red", 1)
    codes = [report(api.client, ana, VIEW).status_code for _ in range(5)]
    assert codes[:3] == [204] * 3 and codes[3:] == [429, 429]
    r = report(api.client, ana, VIEW)
    assert int(r.headers["Retry-After"]) >= 1 and "presence" in r.get_json()["error"]
    assert report(api.client, bob, VIEW).status_code == 204  # each player has their own


def test_the_presence_board_is_bounded_and_forgets() -> None:
    board = PresenceBoard(per_team=3, teams=2, ttl=0.2)
    for i in range(10):
        board.note("w", "t", {"p": f"p{i}", "n": "x"})
    assert [p["p"] for p in board.recent("w", "t")] == ["p7", "p8", "p9"]
    board.note("w", "u", {"p": "a"})
    board.note("w", "v", {"p": "b"})
    assert board.recent("w", "t") == [] and board.size() == 2  # two teams at most
    time.sleep(0.25)
    assert board.recent("w", "v") == []


def test_a_waiter_reads_every_publication_it_slept_through() -> None:
    registry = TopicRegistry()
    with registry.subscribe("t") as sub:
        for i in range(3):
            registry.deliver("t", {"i": i})
        assert sub.wait(0) and sub.payloads == [{"i": 0}, {"i": 1}, {"i": 2}]
        for i in range(RECENT + 5):
            registry.deliver("t", {"i": i})
        assert sub.wait(0)
        assert sub.payloads[0] is None and len(sub.payloads) == RECENT + 1  # "re-read all"


def test_presence_wakes_streams_without_reading_the_log(make_app: Callable[..., Flask]) -> None:
    app = make_app(LIVE_MAX_SECONDS=20)
    api = World(app.test_client())
    ana, _ = api.join("ana", "red", 1)
    url = "/api/worlds/main/teams/red/events?colour=1&x0=0&y0=0&width=64&height=64"
    cache = app.extensions["mine_devil.world.feeds"]
    with stream_lines(app, url) as chunks:
        time.sleep(0.3)
        reads = cache.reads
        for i in range(5):
            report(api.client, ana, {**VIEW, "x0": i})
        assert len(presence_events(chunks, 1.5)) == 5
        assert cache.reads == reads


# -- the map ---------------------------------------------------------------------------


def test_the_map_counts_what_the_view_shows(client: FlaskClient) -> None:
    api = World(client)
    token, _ = api.join("ana", "red", 1)
    first, _, found = opening(api, token, 1)
    x, y = first["at"]
    mines = sorted(found.mines)[:3]
    api.moves(token, [{"kind": "flag", "x": mx, "y": my} for mx, my in mines])
    body = client.get(f"/api/worlds/main/teams/red/map?x={x}&y={y}").get_json()
    near = body["near"]
    assert near["side"] == 576
    for board in body["boards"]:
        c = board["colour"]
        rows: list[str] = []
        for dy in range(0, near["side"], 256):
            part = [
                api.view("red", c, near["x0"] + dx, near["y0"] + dy, 256, 256)["rows"]
                for dx in range(0, near["side"], 256)
            ]
            rows += ["".join(p[i] for p in part)[: near["side"]] for i in range(256)]
        text = "".join(rows[: near["side"]])
        assert board["open"] == sum(text.count(d) for d in "012345678"), c
        assert board["flags"] == text.count("F"), c
        assert board["free"] == text.count("*"), c
        if board["free"]:
            fx, fy = board["nearest_free"]
            assert rows[fy - near["y0"]][fx - near["x0"]] == "*"
            stars = [
                (near["x0"] + i % near["side"], near["y0"] + i // near["side"])
                for i, s in enumerate(text)
                if s == "*"
            ]
            best = min((sx - x) ** 2 + (sy - y) ** 2 for sx, sy in stars)
            assert (fx - x) ** 2 + (fy - y) ** 2 == best
        else:
            assert board["nearest_free"] is None
    # the opening may prove fewer than three mines (the key is random): count what was flagged
    assert body["boards"][1]["flags"] == len(mines) and body["boards"][0]["free"] == len(mines)
    known = {(cx, cy) for cx, cy, _ in body["map"]["known"]}
    assert (x >> 6, y >> 6) in known
    assert client.get("/api/worlds/main/teams/red/map?x=1").status_code == 400
    assert client.get("/api/worlds/main/teams/nobody/map?x=1&y=1").status_code == 404


# -- the time-lapse --------------------------------------------------------------------


def replay(client: FlaskClient, query: str) -> tuple[list[Json], int]:
    frames: list[Json] = []
    after, pages = 0, 0
    while True:
        r = client.get(f"/api/worlds/main/teams/red/timelapse?{query}&after={after}")
        assert r.status_code == 200, r.get_data(as_text=True)
        body = r.get_json()
        frames += body["frames"]
        pages += 1
        if body["next"] is None:
            return frames, pages
        after = body["next"]


def test_a_time_lapse_replayed_is_the_view_and_comes_in_pages(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = World(client)
    token, _ = api.join("ana", "red", 1)
    other, _ = api.join("bob", "red", 2)
    first, _, found = opening(api, token, 1)
    x, y = first["at"]
    for sx, sy in sorted(found.safe)[:6]:
        api.moves(token, [{"kind": "reveal", "x": sx, "y": sy}])
    mx, my = sorted(found.mines)[0]
    api.moves(other, [{"kind": "flag", "x": mx, "y": my}])  # a green flag: * on red's board 1
    monkeypatch.setattr(timelapse, "SCAN", 1)
    x0, y0 = x - 40, y - 40
    query = f"colour=1&x0={x0}&y0={y0}&width=81&height=81"
    frames, pages = replay(client, query)
    assert pages >= 4  # one event a page: the drop, a reveal, the flag, then the end
    board = [["."] * 81 for _ in range(81)]
    for frame in frames:
        for cx, cy, sym in frame["cells"]:
            assert 0 <= cx - x0 < 81 and 0 <= cy - y0 < 81
            if sym != "*" or board[cy - y0][cx - x0] == ".":
                board[cy - y0][cx - x0] = sym
    assert ["".join(r) for r in board] == api.view("red", 1, x0, y0, 81, 81)["rows"]
    seqs = [f["seq"] for f in frames]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_a_time_lapse_is_bounded(client: FlaskClient) -> None:
    World(client).join("ana", "red", 1)
    base = "/api/worlds/main/teams/red/timelapse?colour=1&x0=0&y0=0"
    for query, field in (
        ("&width=257", "width"),
        ("&height=300", "height"),
        ("&after=-1", "after"),
        ("&after=x", "after"),
    ):
        r = client.get(base + query)
        assert r.status_code == 400 and r.get_json()["field"] == field
    assert client.get(base.replace("colour=1", "colour=6")).status_code == 400
    r = client.get(base)
    assert r.status_code == 200 and r.get_json()["frames"] == [] and r.get_json()["next"] is None
