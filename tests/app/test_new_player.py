"""Issue 7 section 2 on the server side of the game pages: a classic-rule loss says what the
counted rule would have said, the mines-out-of-range message explains the first click's safe
zone, the status bar carries the face (a new game with the same settings), boards up to 16
columns are marked to fit a phone. (The browser tests check how all of it looks.)"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from devil.board import Board
from devil.game import GameParams, ParamsError
from devil.position import Position
from devil.rules import Count
from tests.helpers.browser import classic_counted_seed, counted_only_safe
from tests.helpers.teach import new_game


@pytest.fixture
def app(make_app: Any) -> Flask:
    app: Flask = make_app(WTF_CSRF_ENABLED=False)
    return app


def click(client: FlaskClient, game_id: str, row: int, col: int) -> None:
    response = client.post(f"/g/{game_id}/move", data={"kind": "open", "at": f"{row},{col}"})
    assert response.status_code in (200, 303), response.get_data(as_text=True)


def test_a_classic_loss_on_a_cell_the_total_proves_safe_says_so(client: FlaskClient) -> None:
    seed, clicks, (row, col) = classic_counted_seed()
    game_id = new_game(client, seed=str(seed))
    for r, c in clicks:
        click(client, game_id, r, c)
    state = client.get(f"/api/games/{game_id}").get_json()
    position = Position.from_rows(state["board"], mines=10)
    assert position.board.cell(row, col) in counted_only_safe(position)  # the oracle agrees
    click(client, game_id, row, col)
    body = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "The devil wins" in body
    note = re.search(r'<p class="rule-note" id="counted-note">([^<]*)</p>', body)
    assert note, "the loss panel says what the counted rule says"
    text = note.group(1)
    assert "under the classic rule only the numbers count, not the total" in text
    assert f"your click on row {row}, col {col} was provably safe" in text


def test_a_counted_loss_has_no_such_note(client: FlaskClient) -> None:
    game_id = new_game(client, count="counted", seed="3")
    click(client, game_id, 4, 4)
    state = client.get(f"/api/games/{game_id}").get_json()
    rows = state["board"]
    covered = [(r, c) for r, line in enumerate(rows) for c, ch in enumerate(line) if ch == "."]
    position = Position.from_rows(rows, mines=10)
    from devil.analysis import Verdict
    from devil.solver import classify

    verdicts = classify(position, Count.COUNTED).verdicts
    risky = [rc for rc in covered if verdicts[position.board.cell(*rc)] is not Verdict.SAFE]
    click(client, game_id, *risky[0])
    body = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "The devil wins" in body and 'id="counted-note"' not in body


def test_too_many_mines_is_explained_by_the_first_clicks_safe_zone(client: FlaskClient) -> None:
    for mines in ("73", "80", "5000"):
        response = client.post(
            "/new", data={"preset": "custom", "width": "9", "height": "9", "mines": mines}
        )
        assert response.status_code == 400
        body = response.get_data(as_text=True)
        with pytest.raises(ParamsError) as engine:
            GameParams(height=9, width=9, mines=int(mines))
        assert str(engine.value).replace("'", "&#39;") in body, mines
        assert "first click and its neighbours" in body
    api = client.post("/api/games", json={"width": 9, "height": 9, "mines": 80})
    assert api.status_code == 400
    assert api.json["field"] == "mines" and "first click" in api.json["error"]


def test_the_status_bar_has_a_face_that_starts_the_same_game_again(
    client: FlaskClient,
) -> None:
    game_id = new_game(client, preset="intermediate", mercy="fair", seed="9")
    body = client.get(f"/g/{game_id}").get_data(as_text=True)
    status = body[body.index('id="status"') :]
    status = status[: status.index('<div class="lcd clock"')]
    assert 'id="restart"' in status and 'class="face playing"' in status
    for name, value in (("preset", "intermediate"), ("mercy", "fair"), ("count", "classic")):
        assert f'name="{name}" value="{value}"' in status
    response = client.post("/new", data=dict(re.findall(r'name="(\w+)" value="([^"]*)"', status)))
    assert response.status_code == 303
    assert not response.headers["Location"].endswith(game_id)
    assert 'href="#help"' in status
    assert '<details id="help"' in body


def test_boards_up_to_16_columns_are_marked_to_fit(client: FlaskClient) -> None:
    from app.play.board import FIT_COLUMNS, board_view

    for width, fits in ((9, True), (FIT_COLUMNS, True), (FIT_COLUMNS + 1, False), (30, False)):
        view = board_view(Position.covered(Board(8, width)), interactive=True)
        assert ("fit" in view.classes.split()) is fits, width


def test_the_forms_preset_words_for_a_tiling_are_true_of_every_tiling(
    client: FlaskClient,
) -> None:
    """With a tiling chosen, the form's presets read as the tiling's (game.css swaps the
    grid's "9x9, 10 mines" for these words): true of every tiling the form offers."""
    from app.play.new_game import GRAPH_TILINGS
    from devil.graphs.tilings import TILINGS, tiling_graph

    page = html.unescape(client.get("/").get_data(as_text=True))
    words = dict(
        re.findall(r'value="(\w+)"[^>]*>.*?class="preset-size preset-tiling">([^<]+)<', page, re.S)
    )
    assert words == {
        "beginner": "under 100 cells, 1 in 8 a mine",
        "intermediate": "200 to 320 cells, 1 in 6 a mine",
        "expert": "about 500 cells, 1 in 5 a mine",
        "custom": "the tiling's own size",
    }
    bounds = {"beginner": (1, 99), "intermediate": (200, 320), "expert": (450, 550)}
    one_in = {"beginner": 8, "intermediate": 6, "expert": 5}
    for name, _title, _note in GRAPH_TILINGS:
        for preset in TILINGS[name].presets:
            cells = len(tiling_graph(name, preset.size).ids)
            low, high = bounds[preset.name]
            assert low <= cells <= high, (name, preset.name, cells)
            assert round(1 / preset.density) == one_in[preset.name], (name, preset)
