"""Helpers of the world server's tests: ``World`` (a test client speaking the world API),
its drops and openings, and its event streams read live (``parse_sse``, ``stream_lines``)."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from app.world.feed import HEARTBEAT_SECONDS
from devil.world import deduce

Json = dict[str, Any]


class World:
    """A test client speaking the world API."""

    def __init__(self, client: FlaskClient, world: str = "main"):
        self.client = client
        self.world = world

    def join(self, name: str = "Ada", team: str = "red", colour: int = 1) -> tuple[str, Json]:
        r = self.client.post(
            f"/api/worlds/{self.world}/players",
            json={"name": name, "team": team, "colour": colour},
        )
        assert r.status_code == 201, r.get_data(as_text=True)
        body = r.get_json()
        return body["token"], body

    def moves(self, token: str | None, moves: Any, status: int = 200) -> Json:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        r = self.client.post(
            f"/api/worlds/{self.world}/moves", json={"moves": moves}, headers=headers
        )
        assert r.status_code == status, r.get_data(as_text=True)
        body: Json = r.get_json()
        return body

    def view(self, team: str, colour: int, x0: int, y0: int, w: int, h: int) -> Json:
        r = self.client.get(
            f"/api/worlds/{self.world}/teams/{team}/view",
            query_string={"colour": colour, "x0": x0, "y0": y0, "width": w, "height": h},
        )
        assert r.status_code == 200, r.get_data(as_text=True)
        body: Json = r.get_json()
        return body

    def events(
        self, team: str, colour: int, box: tuple[int, int, int, int], last: int
    ) -> list[Json]:
        x0, y0, w, h = box
        r = self.client.get(
            f"/api/worlds/{self.world}/teams/{team}/events",
            query_string={"colour": colour, "x0": x0, "y0": y0, "width": w, "height": h},
            headers={"Last-Event-ID": str(last)},
        )
        assert r.status_code == 200, r.get_data(as_text=True)
        assert r.mimetype == "text/event-stream"
        return parse_sse(r.get_data(as_text=True))


def parse_sse(text: str) -> list[Json]:
    out = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":")
        )
        if fields:
            assert fields["event"] == "cells"
            data = json.loads(fields["data"])
            assert int(fields["id"]) == data["seq"]
            out.append(data)
    return out


def dropped(api: World, token: str, x: int = 0, y: int = 0) -> Json:
    (result,) = api.moves(token, [{"kind": "drop", "x": x, "y": y}])["results"]
    assert result["outcome"] == "dropped"
    return result


def opening(api: World, token: str, colour: int, team: str = "red") -> tuple[Json, Json, Any]:
    """Drop until the opening proves something (the key is random): the drop's result, the
    view around it (81x81) and its deductions."""
    for attempt in range(20):
        result = dropped(api, token, attempt * 1000, 0)
        x0, y0 = result["at"]
        view = api.view(team, colour, x0 - 40, y0 - 40, 81, 81)
        found = deduce(view["rows"], view["x0"], view["y0"])
        if found.safe and found.mines:
            return result, view, found
    raise AssertionError("20 drops proved nothing")


@contextmanager
def stream_lines(app: Flask, url: str, last: int | None = None) -> Iterator[queue.Queue[str]]:
    """Read an event stream in a thread; its text chunks arrive on the queue. At the end the
    app's notifier closes, which ends the stream, and the thread is joined."""
    chunks: queue.Queue[str] = queue.Queue()
    headers = {} if last is None else {"Last-Event-ID": str(last)}
    response = app.test_client().get(url, headers=headers, buffered=False)
    assert response.status_code == 200
    body = iter(response.response)
    assert next(body) == b": stream open\n\n"

    def pump() -> None:
        for chunk in body:
            chunks.put(chunk.decode())

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        yield chunks
    finally:
        app.extensions["mine_devil.notifier"].close()
        thread.join(10)
        response.close()
        assert not thread.is_alive()


WOKEN_WITHIN = HEARTBEAT_SECONDS / 2
"""A stream woken by its notifier answers well before the heartbeat would have woken it (a
tighter wall-clock bound fails on a loaded 2-core machine without saying anything more)."""


class CpuGaps:
    """A ``pause`` callable recording this thread's CPU seconds since the previous call (or
    since it was made): how long work ran between two of its pauses, whatever the load."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._last = time.thread_time()

    def __call__(self) -> None:
        now = time.thread_time()
        self.gaps.append(now - self._last)
        self._last = now
