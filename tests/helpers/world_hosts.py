"""The world API over HTTP on a real server's port (the hosts and edge tests): ``call``,
``join``, ``opening`` and a live ``feed``."""

from __future__ import annotations

import http.client
import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def call(
    port: int, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        conn.close()


@contextmanager
def feed(port: int, path: str, last: int | None = None) -> Iterator[queue.Queue[dict[str, Any]]]:
    """An SSE stream read in a thread: each ``cells`` event's data arrives on the queue."""
    out: queue.Queue[dict[str, Any]] = queue.Queue()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {} if last is None else {"Last-Event-ID": str(last)}
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    assert response.status == 200
    assert response.readline() == b": stream open\n"

    def pump() -> None:
        try:
            while line := response.readline():
                if line.startswith(b"data: "):
                    out.put(json.loads(line[6:]))
        except (OSError, ValueError, AttributeError):
            pass  # closed under us at the end of the test

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    try:
        yield out
    finally:
        conn.sock and conn.sock.shutdown(2)  # type: ignore[func-returns-value]
        conn.close()
        thread.join(10)


def opening(port: int, token: str, colour: int) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """Drop until the opening proves a safe cell: the drop and the proved cells."""
    from devil.world import deduce

    for attempt in range(20):
        status, body = call(
            port, "POST", "/api/worlds/main/moves",
            {"moves": [{"kind": "drop", "x": attempt * 1000, "y": 0}]}, token,
        )  # fmt: skip
        assert status == 200, body
        (result,) = body["results"]
        x0, y0 = result["at"]
        query = f"colour={colour}&x0={x0 - 40}&y0={y0 - 40}&width=81&height=81"
        _, view = call(port, "GET", f"/api/worlds/main/teams/red/view?{query}")
        safe = deduce(view["rows"], view["x0"], view["y0"]).safe
        if safe:
            return result, sorted(safe)
    raise AssertionError("20 drops proved nothing")


def join(port: int, name: str, team: str, colour: int) -> str:
    status, body = call(
        port, "POST", "/api/worlds/main/players", {"name": name, "team": team, "colour": colour}
    )
    assert status == 201, body
    token: str = body["token"]
    return token
