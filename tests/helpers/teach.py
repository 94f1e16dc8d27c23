"""Helpers of the teaching tests: games played through the pages, highlights, proof steps."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from flask.testing import FlaskClient

from tests.helpers.web import oracle_verdicts

HX = {"HX-Request": "true"}


def new_game(client: FlaskClient, **form: str) -> str:
    data = {"preset": "beginner", "count": "classic", "mercy": "strict", "no_guess": "on"}
    data.update(form)
    response = client.post("/new", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    match = re.search(r"/g/([\w-]+)$", response.headers["Location"])
    assert match
    return match.group(1)


def click(client: FlaskClient, game_id: str, row: int, col: int, kind: str = "open") -> None:
    response = client.post(f"/g/{game_id}/move", data={"kind": kind, "at": f"{row},{col}"})
    assert response.status_code in (200, 303), response.get_data(as_text=True)


def state(client: FlaskClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


def log(client: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = client.get(f"/api/games/{game_id}/moves").get_json()["moves"]
    return moves


def highlights(body: str, element_id: str) -> dict[str, list[str]]:
    match = re.search(rf'id="{element_id}"[^>]*data-highlight="([^"]*)"', body)
    assert match, f"no data-highlight on #{element_id}"
    data: dict[str, list[str]] = json.loads(html.unescape(match.group(1)))
    return data


def cell_of_id(cell_id: str) -> tuple[int, int]:
    match = re.search(r"c-(\d+)-(\d+)$", cell_id)
    assert match
    return int(match.group(1)), int(match.group(2))


def started_game(client: FlaskClient, **form: str) -> str:
    game_id = new_game(client, **form)
    click(client, game_id, 4, 4)
    assert state(client, game_id)["status"] in ("playing", "won")
    return game_id


def playing_game_with_safe_cell(client: FlaskClient) -> str:
    for seed in range(1, 40):
        game_id = started_game(client, seed=str(seed))
        s = state(client, game_id)
        if s["status"] == "playing" and "S" in oracle_verdicts(s).values():
            return game_id
    raise AssertionError("no beginner game with a safe cell after the first click")


def lose(client: FlaskClient) -> tuple[str, dict[str, Any]]:
    """A strict game lost by clicking an either-cell while safe cells existed."""
    for seed in range(1, 60):
        game_id = started_game(client, seed=str(seed))
        before = state(client, game_id)
        if before["status"] != "playing":
            continue
        verdicts = oracle_verdicts(before)
        either = sorted(rc for rc, v in verdicts.items() if v == "?")
        if either and "S" in verdicts.values():
            click(client, game_id, *either[0])
            assert state(client, game_id)["status"] == "lost"
            return game_id, before
    raise AssertionError("no losable game found")


def cell_classes(body: str, prefix: str = "a-") -> dict[tuple[int, int], str]:
    out = {}
    for match in re.finditer(rf'id="{prefix}c-(\d+)-(\d+)" class="([^"]*)"', body):
        out[(int(match.group(1)), int(match.group(2)))] = match.group(3)
    return out


NAMED = re.compile(r"row (\d+), col (\d+)")
NUMBER_AT = re.compile(r"\bthe (\d) at row (\d+), col (\d+)", re.IGNORECASE)


def proof_items(body: str, section_id: str) -> list[str]:
    start = body.index(f'id="{section_id}"')
    block = body[start:]
    steps = re.search(r'<ol class="proof-steps"[^>]*>(.*?)</ol>', block, re.S)
    assert steps, f"no proof steps in #{section_id}"
    return [html.unescape(s) for s in re.findall(r"<li>(.*?)</li>", steps.group(1), re.S)]


def check_numbers_named_like_the_api(steps: list[str], board_rows: list[str]) -> None:
    """Every "the N at row r, col c" is the number N at board[r][c] counting from 0."""
    named = [m for s in steps for m in NUMBER_AT.findall(s)]
    assert named, f"the steps name no number: {steps}"
    for value, r, c in named:
        assert board_rows[int(r)][int(c)] == value, f"no {value} at row {r}, col {c}"
