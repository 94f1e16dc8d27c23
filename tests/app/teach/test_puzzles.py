"""Puzzles graded with the oracle, boards by level, and the limits on generating them."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient

from devil import oracle
from devil.analysis import Verdict
from devil.position import Position
from devil.rules import Count
from devil.teach.levels import grade
from tests.helpers.teach import (
    HX,
    new_game,
    state,
)
from tests.helpers.web import visible


def test_puzzle_without_seed_redirects_to_a_shareable_one(client: FlaskClient) -> None:
    response = client.get("/puzzle?preset=beginner&level=1")
    assert response.status_code == 303 and "seed=" in response.headers["Location"]


def test_puzzle_grades_answers_with_the_oracle(client: FlaskClient) -> None:
    page = client.get("/puzzle?preset=beginner&level=2&seed=3").get_data(as_text=True)
    assert "Find a safe cell" in page
    line = re.search(r"/analyse\?p=([^&\"]+)", html.unescape(page))
    assert line
    from urllib.parse import unquote

    position = Position.from_line(unquote(line.group(1)))
    truth = oracle.classify(position)
    answers = re.findall(r'href="(/puzzle[^"]*answer=(\d+),(\d+))"', page)
    assert answers
    checked = set()
    for href, r, c in answers:
        verdict = truth.verdict(position.board.cell(int(r), int(c)))
        if verdict.value in checked:
            continue
        checked.add(verdict.value)
        body = client.get(html.unescape(href)).get_data(as_text=True)
        message = re.search(r'id="puzzle-verdict"[^>]*>([^<]*)<', body)
        assert message
        assert message.group(1).startswith("Right" if verdict is Verdict.SAFE else "No")


def test_puzzle_bad_level_is_400(client: FlaskClient) -> None:
    response = client.get("/puzzle?preset=beginner&level=4&seed=1")
    assert response.status_code == 400
    assert "level 4 is outside 1..3" in response.get_data(as_text=True)


def test_level_game_has_the_level_asked_for(app: Flask, client: FlaskClient) -> None:
    response = client.post("/levels/new", data={"preset": "beginner", "level": "2"})
    assert response.status_code == 303
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    assert state(client, game_id)["moves"] == 0, "the player makes the first move"
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Level 2 board: start on the centre cell, row 4, col 4." in page
    assert "Level 2 board" not in client.application.test_client().get(f"/g/{game_id}").get_data(
        as_text=True
    ), "only the browser that asked is told the level"
    assert client.post(f"/g/{game_id}/move", data={"kind": "open", "at": "4,4"}).status_code == 303
    s = state(client, game_id)
    assert s["status"] in ("playing", "won") and "layout" not in s
    with app.app_context():
        from app.play.setup import get_service

        game = get_service().load(game_id).game
        assert game.layout is not None
        board = game.position.board
        result = grade(board, game.layout, board.cell(4, 4), Count.CLASSIC)
    assert result.cleared and result.level == 2
    assert visible(s).board.height == 9


def test_hints_and_puzzles_are_rate_limited(make_app: Callable[..., Flask]) -> None:
    app = make_app(
        WTF_CSRF_ENABLED=False,
        RATELIMIT_ENABLED=True,
        MOVE_RATE_LIMIT="3 per minute",
        CREATE_RATE_LIMIT="2 per minute",
    )
    client = app.test_client()
    game_id = new_game(client)  # one create
    codes = [client.post(f"/g/{game_id}/hint", headers=HX).status_code for _ in range(4)]
    assert codes[:3] == [200, 200, 200] and codes[3] == 429
    assert client.get("/puzzle?preset=beginner&level=1&seed=1").status_code == 200
    assert client.get("/puzzle?preset=beginner&level=1&seed=1").status_code == 429
