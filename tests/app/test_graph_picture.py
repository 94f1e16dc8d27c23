"""A finished graph game's moves as PNG pictures (``GET /g/<id>/picture.png``, linked from
the replay's note): what the player saw after each move, the last position of a lost game as
its replay shows it; a running game refused, bad move numbers named, a board too big for a PNG
refused before any rebuilding (bad move numbers: ``test_graph_study``, the same check).

The expected pictures are drawn from ``Game.replay`` of the exported move list (the game
again, not the route under test); these tests never read a running game's layout."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from PIL import Image

from app.graphs.png import COLOURS, Loss, graph_png
from devil.game import Game
from devil.ledger.replays.movelist import read_movelist
from tests.helpers.graph_games import lost_cube, reveal
from tests.helpers.web import Api

PICTURE = re.compile(r'class="picture" href="([^"]+)"')
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


def has_colour(png: bytes, colour: str) -> bool:
    rgb = bytes(int(colour[k : k + 2], 16) for k in (1, 3, 5))
    data = pixels(png)
    return any(data[i : i + 3] == rgb for i in range(0, len(data), 3))


def test_each_move_of_a_graph_game_has_its_picture(client: FlaskClient) -> None:
    game, _ = lost_cube(client)
    replay = read_movelist(client.get(f"/g/{game['id']}/export.moves").get_data(as_text=True))
    for n in (1, 2):
        page = client.get(f"/g/{game['id']}/replay/{n}").get_data(as_text=True)
        link = PICTURE.search(page)
        assert link, f"move {n}'s note has no picture"
        assert link.group(1) == f"/g/{game['id']}/picture.png?move={n}"
    mid = client.get(f"/g/{game['id']}/picture.png?move=1")
    assert mid.status_code == 200 and mid.mimetype == "image/png"
    assert mid.data.startswith(PNG_SIGNATURE)
    assert f"mine-devil-{game['id']}-move-1.png" in mid.headers["Content-Disposition"]
    # what the player saw: the position, no verdicts, no mines
    seen = Game.replay(replay.params, replay.moves[:1]).position
    assert pixels(mid.data) == pixels(graph_png(seen, {}))
    assert not has_colour(mid.data, COLOURS["boom"])
    # the lost game's end: the position is the same (the lost cell stays covered), the
    # picture adds what the replay shows: the losing click, red, and the devil's mines
    end = client.get(f"/g/{game['id']}/picture.png?move=2")
    assert end.status_code == 200 and end.data.startswith(PNG_SIGNATURE)
    lost = Game.replay(replay.params, replay.moves)
    assert lost.loss is not None and lost.witness is not None
    assert pixels(end.data) == pixels(graph_png(seen, {}, loss=Loss(lost.loss, lost.witness)))
    assert has_colour(end.data, COLOURS["boom"])
    assert pixels(end.data) != pixels(mid.data)
    # move 0: the covered board
    blank = client.get(f"/g/{game['id']}/picture.png?move=0")
    assert blank.status_code == 200
    covered = Game.replay(replay.params, ()).position
    assert pixels(blank.data) == pixels(graph_png(covered, {}))
    # bounded in size: a beginner cube is a few hundred pixels a side
    width, height = Image.open(io.BytesIO(end.data)).size
    assert 100 < width <= 4000 and 100 < height <= 4000
    assert len(end.data) < 200_000


def test_a_running_games_pictures_stay_closed(client: FlaskClient, api: Api) -> None:
    answer = client.post("/api/games", json={"tiling": "cube", "preset": "beginner", "seed": 2})
    game: dict[str, Any] = answer.get_json()
    reveal(client, game, game["state"]["cells"][0]["id"])
    for n in (0, 1):
        refused = client.get(f"/g/{game['id']}/picture.png?move={n}")
        assert refused.status_code == 409, n
        assert "still being played" in refused.get_data(as_text=True)
        assert not refused.data.startswith(PNG_SIGNATURE)
    # a grid game's picture is the grid's position picture (once it has ended)
    grid = api.create(width=6, height=6, mines=4, seed=11)
    api.move(grid, "reveal", 0, 0)
    assert client.get(f"/g/{grid['id']}/picture.png?move=1").status_code == 409


def test_a_board_too_big_for_a_png_has_no_picture(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, _ = lost_cube(client)  # a beginner cube: 6 x 4 x 4 = 96 cells
    monkeypatch.setattr("app.ledger.picture.MAX_PNG_CELLS", 95)
    monkeypatch.setattr("app.ledger.notes.MAX_PNG_CELLS", 95)
    refused = client.get(f"/g/{game['id']}/picture.png?move=1")
    assert refused.status_code == 400
    assert "a PNG shows at most 95" in refused.get_data(as_text=True)
    page = client.get(f"/g/{game['id']}/replay/1").get_data(as_text=True)
    assert 'class="move-note' in page and not PICTURE.search(page)
