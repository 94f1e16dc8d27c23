"""A graph game's moves on the graph analysis board (``app.ledger.study``): a finished game's
replay says "Why?" as a grid's does, and each move of an imported graph move list opens the
position before it; bad move numbers are 400s naming the field, a running game a 409.

The position shown is checked against ``Game.replay`` of the exported move list (the game
again, not the analysis under test); these tests never read a running game's layout."""

from __future__ import annotations

import html
import io
import json
import re
from typing import Any

from flask.testing import FlaskClient

from app.graphs.routes import tiling_form
from devil.game import Game
from devil.game.graph_params import GraphSpec
from devil.graphs.fileformat import from_json, write_graph
from devil.graphs.positions import blank
from devil.graphs.tilings import tiling_board
from devil.ledger.replays.movelist import read_movelist
from tests.helpers.graph_games import lost_cube, reveal
from tests.helpers.web import Api, csrf

WHY = re.compile(r'class="why" href="([^"]+)"')
TEXTAREA = re.compile(r'<textarea id="graph-text" name="graph"[^>]*>(.*?)</textarea>', re.S)


def shown_position(body: str) -> Any:
    match = TEXTAREA.search(body)
    assert match, "the analysis page carries no board file"
    return from_json(json.loads(html.unescape(match.group(1))))


def test_a_graph_replay_says_why_on_the_graph_analysis_board(client: FlaskClient) -> None:
    game, fatal = lost_cube(client)
    replay = read_movelist(client.get(f"/g/{game['id']}/export.moves").get_data(as_text=True))
    page = client.get(f"/g/{game['id']}/replay/2").get_data(as_text=True)
    assert 'class="move-note fatal"' in page
    why = WHY.search(page)
    assert why, "a graph replay's note has no Why? link"
    url = html.unescape(why.group(1))
    assert url.startswith(f"/g/{game['id']}/study?move=1&cell=")
    answer = client.get(url)
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200, body[:400]
    assert '<svg class="graph-board' in body and 'id="graph-origin"' in body
    assert "Move 2 of 2 of this game (open cell " in body
    assert f'href="/g/{game["id"]}/replay/1"' in body  # back to the replay, at that move
    # the position is the game's before move 2: what the player saw, no layout
    before = Game.replay(replay.params, replay.moves[:1]).position
    assert shown_position(body).grid == before.grid
    # the fatal cell is chosen, and the board does not call it safe (the devil put a mine there)
    assert re.search(r"<h3>[^<]*: (either|mine)</h3>", body)
    assert f'name="cell" value="{fatal}"' in body
    # the first click: the board before any move, the clicked cell explained
    first = client.get(f"/g/{game['id']}/replay/1").get_data(as_text=True)
    first_why = WHY.search(first)
    assert first_why and "move=0" in first_why.group(1)
    body0 = client.get(html.unescape(first_why.group(1))).get_data(as_text=True)
    assert "Move 1 of 2 of this game (open cell " in body0
    blank = shown_position(body0)
    assert all(blank.is_covered(c) for c in blank.board.cells())
    # after the last move: the end position (the lost cell stays covered: no layout)
    end = client.get(f"/g/{game['id']}/study?move=2").get_data(as_text=True)
    assert "The position after the last move (2)" in end
    assert shown_position(end).grid == before.grid


BAD_QUERIES = [
    ("", "move must be a whole number from 0 to 2"),
    ("?move=3", "from 0 to 2, not '3'"),
    ("?move=-1", "not '-1'"),
    ("?move=1e3", "not '1e3'"),
    ("?move=two", "not 'two'"),
    ("?move=" + "9" * 400, "move must be"),
    ("?move=1&cell=nowhere", "no cell has the id 'nowhere'"),
]


def test_a_bad_study_request_is_a_400_naming_the_field(client: FlaskClient) -> None:
    """The study and the move's picture (``/g/<id>/picture.png``) read the move alike."""
    game, _ = lost_cube(client)
    for route in ("study", "picture.png"):
        for query, says in BAD_QUERIES:
            if route == "picture.png" and "cell=" in query:
                continue  # a picture chooses no cell
            answer = client.get(f"/g/{game['id']}/{route}{query}")
            assert answer.status_code == 400, (route, query)
            assert says in html.unescape(answer.get_data(as_text=True)), (route, query)
        assert client.get(f"/g/no-such-game/{route}?move=1").status_code == 404


def test_a_running_games_positions_stay_closed(client: FlaskClient, api: Api) -> None:
    answer = client.post("/api/games", json={"tiling": "cube", "preset": "beginner", "seed": 2})
    game: dict[str, Any] = answer.get_json()
    reveal(client, game, game["state"]["cells"][0]["id"])
    refused = client.get(f"/g/{game['id']}/study?move=1")
    assert refused.status_code == 409 and "still being played" in refused.get_data(as_text=True)
    # a grid game's study is the grid analysis board's link
    grid = api.create(width=6, height=6, mines=4, seed=11)
    api.move(grid, "reveal", 0, 0)
    assert client.get(f"/g/{grid['id']}/study?move=0").status_code == 409


def test_each_imported_graph_move_opens_the_position_before_it(client: FlaskClient) -> None:
    game, fatal = lost_cube(client)
    text = client.get(f"/g/{game['id']}/export.moves").get_data(as_text=True)
    replay = read_movelist(text)
    upload = {"replay": (io.BytesIO(text.encode()), "cube.moves"), "csrf_token": csrf(client)}
    page = client.post("/import", data=upload, content_type="multipart/form-data")
    body = page.get_data(as_text=True)
    form = re.search(r'<form id="import-study" method="post" action="([^"]+)">(.*?)</form>',
                     body, re.S)  # fmt: skip
    assert form and form.group(1) == "/import/study"
    fields = {k: html.unescape(v) for k, v in re.findall(r'name="([^"]+)" value="([^"]*)"',
                                                          form.group(2))}  # fmt: skip
    assert fields["replay"] == text and fields["name"] == "cube.moves"
    buttons = re.findall(
        r'form="import-study" class="link-button" name="before" value="(\d)"', body
    )
    assert buttons == ["1", "2"]
    del fields["after"]
    answer = client.post(form.group(1), data={**fields, "before": "2"})
    shown = answer.get_data(as_text=True)
    assert answer.status_code == 200, shown[:400]
    assert "Move 2 of 2 of cube.moves (open cell " in shown
    assert shown_position(shown).grid == Game.replay(replay.params, replay.moves[:1]).position.grid
    assert f'name="cell" value="{fatal}"' in shown
    after = client.post(form.group(1), data={**fields, "after": "1"})
    assert after.status_code == 200
    bad_posts = [
        ({"before": "0"}, "before must be a whole number from 1 to 2"),
        ({"after": "x"}, "after must be"),
        ({"before": "1", "replay": text.replace("reveal", "shout")}, "cannot read"),
    ]
    for bad, says in bad_posts:
        refused = client.post(form.group(1), data={**fields, **bad})
        assert refused.status_code == 400 and says in html.unescape(refused.get_data(as_text=True))


SELECTED = re.compile(r'<option value="([^"]+)" data-about="[^"]*" selected>')


def test_the_tiling_form_starts_on_the_studied_games_tiling(client: FlaskClient) -> None:
    """Studying a cube game, "a built-in tiling" starts on the cube (it said Penrose)."""
    game, _ = lost_cube(client)
    body = client.get(f"/g/{game['id']}/study?move=1").get_data(as_text=True)
    assert SELECTED.findall(body) == ["cube"]
    assert "<option selected>beginner</option>" in body
    assert 'name="size" value=""' in body
    # the analysis board on its own still starts on Penrose
    assert SELECTED.findall(client.get("/analyse/graph").get_data(as_text=True)) == ["penrose"]


def test_the_tiling_form_keeps_a_custom_size_and_sides() -> None:
    assert tiling_form(GraphSpec("triangle", (16, 16))) == {
        "tiling": "triangle", "preset": "intermediate", "sides": False
    }  # fmt: skip
    assert tiling_form(GraphSpec("triangle", (5, 7), sides=True)) == {
        "tiling": "triangle", "size": "5x7", "sides": True
    }  # fmt: skip
    assert tiling_form(None) == {}
    custom = GraphSpec(file=write_graph(blank(tiling_board("hex", (3, 3)), 2)))
    assert tiling_form(custom) == {}, "a custom board: the form's own default"
