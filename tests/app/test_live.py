"""Live updates (``app.live``): the Server-Sent Events stream of a game."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.helpers.web import SMALL, Api, safe_unflagged


def parse_sse(chunk: bytes) -> tuple[str, dict[str, Any]]:
    fields = dict(line.split(": ", 1) for line in chunk.decode().strip().splitlines())
    return fields["event"], json.loads(fields["data"])


def test_event_stream_announces_moves_and_the_end(make_app) -> None:
    app = make_app(LIVE_MAX_SECONDS=60, LIVE_POLL_SECONDS=0.01)
    api = Api(app.test_client())
    game = api.create(**SMALL)
    response = app.test_client().get(f"/api/games/{game['id']}/events", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    chunks = iter(response.response)
    assert parse_sse(next(chunks)) == (
        "move",
        {"id": game["id"], "seq": 0, "moves": 0, "status": "playing"},
    )
    state = api.move(game, "reveal", 2, 2)
    event, data = parse_sse(next(chunks))
    assert (event, data["seq"], data["moves"]) == ("move", 1, 1)
    while state["status"] == "playing":
        state = api.move(game, "reveal", *safe_unflagged(state)[0])
    event, data = parse_sse(next(chunks))
    assert (event, data["status"], data["moves"]) == ("end", "won", state["moves"])
    assert set(data) == {"id", "seq", "moves", "status"}  # never a board or a layout
    with pytest.raises(StopIteration):
        next(chunks)
    response.close()


def test_event_stream_of_unknown_game_is_404(client: FlaskClient) -> None:
    response = client.get("/api/games/nope/events")
    assert response.status_code == 404 and "does not exist" in response.json["error"]


def test_event_stream_closes_after_its_time(api: Api, client: FlaskClient) -> None:
    game = api.create(**SMALL)
    body = client.get(f"/api/games/{game['id']}/events").get_data(as_text=True)
    assert body.count("event: move") == 1  # LIVE_MAX_SECONDS = 0 in tests
