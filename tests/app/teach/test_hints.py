"""The hint ladder of a running game: one rung at a time, recorded, nothing the position does
not prove, cells named as the API names them; a teaching failure never breaks the game page."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.helpers.teach import (
    HX,
    NUMBER_AT,
    cell_of_id,
    check_numbers_named_like_the_api,
    click,
    highlights,
    log,
    new_game,
    playing_game_with_safe_cell,
    proof_items,
    started_game,
    state,
)
from tests.helpers.web import oracle_verdicts


def test_hint_ladder_climbs_one_rung_at_a_time_and_is_recorded(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="hints"' in page and "Is there a safe cell at all?" in page

    bodies = []
    for _ in range(4):
        response = client.post(f"/g/{game_id}/hint", headers=HX)
        assert response.status_code == 200
        bodies.append(response.get_data(as_text=True))
    assert "Yes:" in bodies[0] and "Where should I look?" in bodies[0]
    assert "Look at rows" in bodies[1] and "hl-region" in highlights(bodies[1], "hints")
    assert "is safe." in bodies[2]
    assert "Why is it safe?" in bodies[2]

    final = highlights(bodies[3], "hints")
    (target,) = final["hl-target"]
    verdicts = oracle_verdicts(state(client, game_id))
    assert verdicts[cell_of_id(target)] == "S"
    board_rows = state(client, game_id)["board"]
    for number in final["hl-number"]:
        r, c = cell_of_id(number)
        assert board_rows[r][c] in "12345678", "a highlighted number is not a revealed number"
    assert 'class="proof-steps"' in bodies[3]

    hints = [e for e in log(client, game_id) if e["kind"] == "hint"]
    assert [e["level"] for e in hints] == [1, 2, 3, 4]
    assert (hints[2]["row"], hints[2]["col"]) == cell_of_id(target)

    # the top of the ladder: asking again records nothing more
    client.post(f"/g/{game_id}/hint", headers=HX)
    assert len([e for e in log(client, game_id) if e["kind"] == "hint"]) == 4
    assert 'id="hints-used">4<' in client.get(f"/g/{game_id}").get_data(as_text=True)


def test_a_move_resets_the_ladder(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    for _ in range(3):
        client.post(f"/g/{game_id}/hint", headers=HX)
    target = highlights(client.get(f"/g/{game_id}/hints").get_data(as_text=True), "hints")
    r, c = cell_of_id(target["hl-target"][0])
    click(client, game_id, r, c)
    panel = client.get(f"/g/{game_id}/hints").get_data(as_text=True)
    assert "Is there a safe cell at all?" in panel and "hint-answer" not in panel
    assert 'id="hints-used">3<' in panel


def test_before_the_first_click_the_hint_says_it_is_safe(client: FlaskClient) -> None:
    game_id = new_game(client)
    body = client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True)
    assert "your first click is always safe" in body
    assert 'id="hint-button"' not in body, "nothing more to ask before the first click"


def test_hints_without_htmx_redirect_to_the_game(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    response = client.post(f"/g/{game_id}/hint")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/g/{game_id}")


def test_watchers_cannot_ask_for_hints(app: Flask, client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    watcher = app.test_client()
    assert watcher.post(f"/g/{game_id}/hint", headers=HX).status_code == 403
    assert 'id="hints"' not in watcher.get(f"/g/{game_id}").get_data(as_text=True)
    assert not [e for e in log(client, game_id) if e["kind"] == "hint"]


def test_hint_on_unknown_game_is_404(client: FlaskClient) -> None:
    assert client.post("/g/nope/hint", headers=HX).status_code == 404


def test_hints_need_the_csrf_token(make_app: Callable[..., Flask]) -> None:
    client = make_app(WTF_CSRF_ENABLED=True).test_client()
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert token
    response = client.post("/new", data={"preset": "beginner", "csrf_token": token.group(1)})
    game_id = response.headers["Location"].rsplit("/", 1)[1]
    assert client.post(f"/g/{game_id}/hint", headers=HX).status_code == 400
    ok = client.post(f"/g/{game_id}/hint", headers={**HX, "X-CSRFToken": token.group(1)})
    assert ok.status_code == 200


def test_hints_reveal_nothing_the_position_does_not_prove(client: FlaskClient) -> None:
    """Every cell the ladder names or marks safe is provably safe (oracle)."""
    for seed in (3, 4, 5):
        game_id = started_game(client, seed=str(seed))
        for _ in range(4):
            body = client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True)
        s = state(client, game_id)
        if s["status"] != "playing":
            continue
        verdicts = oracle_verdicts(s)
        marks = highlights(body, "hints")
        for cell_id in marks.get("hl-target", []):
            assert verdicts[cell_of_id(cell_id)] == "S"
        for cell_id in marks.get("hl-known", []):
            assert verdicts[cell_of_id(cell_id)] == "M"


def test_a_teaching_failure_does_not_break_the_game_page(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.teach.panels

    game_id = playing_game_with_safe_cell(client)

    def broken(*args: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(app.teach.panels, "hint_view", broken)
    response = client.get(f"/g/{game_id}")
    assert response.status_code == 200
    assert 'id="board"' in response.get_data(as_text=True)
    assert 'id="hints"' not in response.get_data(as_text=True)


def test_hints_name_cells_as_the_api_and_devil_check_do(client: FlaskClient) -> None:
    game_id = playing_game_with_safe_cell(client)
    bodies = [client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True)]
    for _ in range(3):
        bodies.append(client.post(f"/g/{game_id}/hint", headers=HX).get_data(as_text=True))
    logged = [e for e in log(client, game_id) if e["kind"] == "hint"][2]
    which = re.search(r"The cell at row (\d+), col (\d+) is safe\.", html.unescape(bodies[2]))
    assert which, "rung 3 names the cell"
    assert (int(which.group(1)), int(which.group(2))) == (logged["row"], logged["col"])
    (target,) = highlights(bodies[2], "hints")["hl-target"]
    assert cell_of_id(target) == (logged["row"], logged["col"])

    region = re.search(r"Look at rows (\d+) to (\d+), cols (\d+) to (\d+)", bodies[1])
    assert region
    top, bottom, left, right = map(int, region.groups())
    marked = [cell_of_id(i) for i in highlights(bodies[1], "hints")["hl-region"]]
    assert (top, bottom) == (min(r for r, _ in marked), max(r for r, _ in marked))
    assert (left, right) == (min(c for _, c in marked), max(c for _, c in marked))

    board_rows = state(client, game_id)["board"]
    steps = proof_items(bodies[3], "hints")
    check_numbers_named_like_the_api(steps, board_rows)
    numbers = {cell_of_id(i) for i in highlights(bodies[3], "hints")["hl-number"]}
    named = {(int(r), int(c)) for s in steps for _, r, c in NUMBER_AT.findall(s)}
    assert numbers <= named, "the highlighted numbers are the ones the steps name"
    assert "counting from 1" not in bodies[3]
