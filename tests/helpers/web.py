"""Helpers of the web tests: the app's test configuration, the PostgreSQL URL of the store
tests, and ``Api`` (playing through the JSON API) with the brute-force oracle's view of a
game's state (``visible``, ``oracle_verdicts``, ``safe_unflagged``, ``play_to_win``)."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from app.store.log import Store
from devil import oracle
from devil.game import Game, GameParams, Move, MoveKind
from devil.rules import Count

POSTGRES_ENV = "MINE_DEVIL_TEST_POSTGRES_URL"


def app_config(data_dir: Path, **overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "TESTING": True,
        "SECRET_KEY": "test-secret-key",
        "DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'test.sqlite3'}",
        "RATELIMIT_ENABLED": False,
        "LIVE_MAX_SECONDS": 0,  # event streams send the current state and close
    }
    config.update(overrides)
    return config


def postgres_base_url() -> str | None:
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if url:
        return url
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {POSTGRES_ENV} is not: the PostgreSQL tests cannot run")
    pytest.skip(f"{POSTGRES_ENV} is not set: PostgreSQL tests skipped (they run in CI)")
    return None


class Api:
    """Small helper over a test client for the JSON API."""

    def __init__(self, client: FlaskClient):
        self.client = client

    def create(self, expect: int = 201, **params: Any) -> dict[str, Any]:
        response = self.client.post("/api/games", json=params)
        assert response.status_code == expect, response.get_data(as_text=True)
        body: dict[str, Any] = response.get_json()
        return body

    def state(self, game_id: str, expect: int = 200) -> dict[str, Any]:
        response = self.client.get(f"/api/games/{game_id}")
        assert response.status_code == expect, response.get_data(as_text=True)
        body: dict[str, Any] = response.get_json()
        return body

    def move(
        self,
        game: dict[str, Any],
        kind: str,
        row: Any,
        col: Any,
        expect: int = 200,
        token: str | None = None,
    ) -> dict[str, Any]:
        response = self.client.post(
            f"/api/games/{game['id']}/{kind}",
            json={"row": row, "col": col},
            headers={"Authorization": f"Bearer {token or game['token']}"},
        )
        assert response.status_code == expect, response.get_data(as_text=True)
        body: dict[str, Any] = response.get_json()
        return body

    def log(self, game_id: str) -> list[dict[str, Any]]:
        response = self.client.get(f"/api/games/{game_id}/moves")
        assert response.status_code == 200, response.get_data(as_text=True)
        moves: list[dict[str, Any]] = response.get_json()["moves"]
        return moves


def visible(state: dict[str, Any]):  # -> devil.position.Position
    """The position a player sees in an API state (for the brute-force oracle)."""
    from devil.board import Topology
    from devil.position import Position

    return Position.from_rows(state["board"], Topology(state["topology"]), state["mines"])


def oracle_verdicts(state: dict[str, Any]) -> dict[tuple[int, int], str]:
    """(row, col) -> 'S'/'M'/'?' for every covered cell, from ``devil.oracle`` (not the solver)."""

    position = visible(state)
    classification = oracle.classify(position, Count(state["count"]))
    board = position.board
    return {board.coord(c): v.letter for c, v in classification.verdicts.items()}


def safe_unflagged(state: dict[str, Any]) -> list[tuple[int, int]]:
    return [
        rc
        for rc, v in sorted(oracle_verdicts(state).items())
        if v == "S" and state["board"][rc[0]][rc[1]] == "."
    ]


def play_to_win(api: Api, game: dict[str, Any], first: tuple[int, int]) -> list[dict[str, Any]]:
    """Reveal ``first``, then only oracle-proven safe cells until the game is won.

    Returns every state seen. Needs a no-guess game small enough for the oracle."""
    states = [api.move(game, "reveal", *first)]
    while states[-1]["status"] == "playing":
        safe = safe_unflagged(states[-1])
        assert safe, "stuck: no provably safe cell on a no-guess board\n" + "\n".join(
            states[-1]["board"]
        )
        states.append(api.move(game, "reveal", *safe[0]))
    return states


SMALL = {"width": 6, "height": 6, "mines": 4, "seed": 11}


def safe_or_any(state: dict[str, Any]) -> tuple[int, int]:
    return next(
        (r, c) for r, row in enumerate(state["board"]) for c, ch in enumerate(row) if ch == "."
    )


HX = {"HX-Request": "true"}


META_CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def csrf_token(client: FlaskClient) -> str:
    match = META_CSRF.search(client.get("/").get_data(as_text=True))
    assert match, "the home page has no csrf-token meta tag"
    return match.group(1)


def new_game(client: FlaskClient, **fields: str) -> str:
    form = {"preset": "beginner", "topology": "square", "count": "classic",
            "mercy": "strict", "no_guess": "on", "seed": "3"}  # fmt: skip
    form.update(fields)
    form["csrf_token"] = csrf_token(client)
    response = client.post("/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    location = response.headers["Location"]
    match = re.fullmatch(r"/g/([\w-]+)", location)
    assert match, location
    return match.group(1)


def move(client: FlaskClient, game_id: str, at: str, kind: str = "open", htmx: bool = True) -> Any:
    headers = {"X-CSRFToken": csrf_token(client), **(HX if htmx else {})}
    return client.post(f"/g/{game_id}/move", data={"kind": kind, "at": at}, headers=headers)


def chunked_post(client: FlaskClient, url: str, body: bytes, **kw: Any) -> Any:
    """POST ``body`` as a chunked request: ``Transfer-Encoding: chunked`` makes Werkzeug
    ignore the Content-Length the test client computes, and the server ends the stream
    (``wsgi.input_terminated``, as gunicorn and Werkzeug's server set for chunked bodies)."""
    return client.post(
        url,
        input_stream=io.BytesIO(body),
        headers={"Transfer-Encoding": "chunked", **kw.pop("headers", {})},
        environ_overrides={"wsgi.input_terminated": True},
        **kw,
    )


def replayed(store: Store, game_id: str) -> Game:
    """The game rebuilt straight from the stored log, without the app's service."""
    row = store.get_game(game_id)
    assert row is not None
    moves = [
        Move(MoveKind(e.kind), e.row, e.col)  # type: ignore[arg-type]
        for e in store.events(game_id)
        if e.is_move
    ]
    return Game.replay(GameParams.from_dict(dict(row.params)), moves)


def covered_cells(state: dict[str, Any]) -> list[tuple[int, int]]:
    return [(r, c) for r, row in enumerate(state["board"]) for c, ch in enumerate(row) if ch == "."]


CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


def csrf(client: FlaskClient, path: str = "/records") -> str:
    page = client.get(path).get_data(as_text=True)
    return page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
