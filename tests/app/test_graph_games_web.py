"""Games on graph boards through the web app: the new-game form (every tiling, a pasted board),
``POST /api/games`` with a tiling or a custom file, moves by cell id, 400s naming the field or
JSON path, the SVG game page and its replay, records per tiling, the ledger's views.

Which cells are safe is asked of the solver on the board file the API serves (public
knowledge only); these tests never read the hidden layout while a game runs."""

from __future__ import annotations

import html
import io
import itertools
import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from app.fields import size_parts
from app.graphs.projection import solid_corners
from app.play.graph_board import CORNERS_KEPT, net_shades, sphere_faces
from app.play.graph_params import parse_graph_params
from app.play.new_game import GRAPH_TILINGS
from devil.analysis import Verdict
from devil.game import Game, GraphSpec, Move
from devil.graphs.fileformat import from_json
from devil.ledger.annotate import final_board
from devil.ledger.replays.movelist import read_movelist, write_movelist
from devil.solver import classify

HX = {"HX-Request": "true"}
META_CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')


def csrf(client: FlaskClient) -> str:
    match = META_CSRF.search(client.get("/").get_data(as_text=True))
    assert match
    return match.group(1)


def create(client: FlaskClient, expect: int = 201, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=body)
    assert response.status_code == expect, response.get_data(as_text=True)
    out: dict[str, Any] = response.get_json()
    return out


def api_move(client: FlaskClient, game: dict[str, Any], action: str, body: Any) -> Any:
    headers = {"Authorization": f"Bearer {game['token']}"}
    return client.post(f"/api/games/{game['id']}/{action}", json=body, headers=headers)


def safe_ids(client: FlaskClient, game_id: str) -> list[str]:
    position = from_json(client.get(f"/api/games/{game_id}/graph").get_json())
    layout = position.board.graph
    assert layout is not None
    verdicts = classify(position).verdicts
    return [layout.id(c) for c, v in verdicts.items() if v is Verdict.SAFE]


def win_by_api(client: FlaskClient, game: dict[str, Any]) -> dict[str, Any]:
    state = api_move(client, game, "reveal", {"cell": game["state"]["cells"][0]["id"]}).get_json()
    while state["status"] == "playing":
        state = api_move(client, game, "reveal", {"cell": safe_ids(client, game["id"])[0]})
        state = state.get_json()
    out: dict[str, Any] = state
    return out


def test_a_penrose_game_through_the_api(client: FlaskClient) -> None:
    game = create(client, tiling="penrose", preset="beginner", seed=4)
    state = game["state"]
    assert state["topology"] == "graph" and "board" not in state
    assert state["graph"] == {"tiling": "penrose", "size": [80], "sides": False, "cells": 80}
    assert state["version"] == 2  # with the seed once ended and the moves: the game again
    assert len(state["cells"]) == 80 and {c["state"] for c in state["cells"]} == {"."}
    assert state["mines"] == 10
    won = win_by_api(client, game)
    assert won["status"] == "won"
    assert len(won["layout_cells"]) == 10 and "witness_cells" not in won
    log = client.get(f"/api/games/{game['id']}/moves").get_json()["moves"]
    assert log[0]["cell"] == state["cells"][0]["id"]
    replayed = client.get(f"/api/games/{game['id']}/replay/1").get_json()
    assert replayed["cells"] != state["cells"]
    replay = client.get(f"/g/{game['id']}/replay/2").get_data(as_text=True)
    assert 'id="move-note"' in replay and "analyse?p=" not in replay  # grid links: none
    notes = client.get(f"/api/games/{game['id']}/annotations").get_json()
    assert notes["moves"][0]["cell"] == state["cells"][0]["id"]
    assert state["cells"][0]["id"] in notes["moves"][0]["opened_cells"]
    # Records are read from the ledger, which a won game fills in the background; asking
    # for the annotation above has written its row.
    records = client.get("/api/records?preset=penrose").get_json()["records"]
    assert [r["game_id"] for r in records] == [game["id"]]


def test_a_loss_names_cells_by_id(client: FlaskClient) -> None:
    game = create(client, tiling="cube", preset="beginner", seed=1)
    api_move(client, game, "reveal", {"cell": game["state"]["cells"][0]["id"]})
    position = from_json(client.get(f"/api/games/{game['id']}/graph").get_json())
    layout = position.board.graph
    assert layout is not None
    risky = next(c for c, v in classify(position).verdicts.items() if v is not Verdict.SAFE)
    lost = api_move(client, game, "reveal", {"cell": layout.id(risky)}).get_json()
    assert lost["status"] == "lost" and lost["loss_cell"] == layout.id(risky)
    assert layout.id(risky) in lost["witness_cells"]
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert f"cell {layout.id(risky)}" in page and "EVF replay" not in page
    assert re.search(r'class="gcell covered[^"]*\bboom\b', page)  # the ended board's marks
    assert re.search(r'class="gcell covered[^"]*\bwm\b', page) and 'class="m"' in page
    # its moves file names the board, so it imports back as the same game
    text = client.get(f"/g/{game['id']}/export.moves").get_data(as_text=True)
    replay = read_movelist(text)
    assert replay.params.graph == GraphSpec("cube", (4,)) and replay.params.version == 2
    again = Game.replay(replay.params, replay.moves)
    assert again.loss == risky and again.witness == replay.layout
    assert sorted(map(layout.id, again.witness or ())) == sorted(lost["witness_cells"])
    upload = {"replay": (io.BytesIO(text.encode()), "cube.moves"), "csrf_token": csrf(client)}
    imported = client.post("/import", data=upload, content_type="multipart/form-data")
    body = imported.get_data(as_text=True)
    assert imported.status_code == 200 and "cube.moves: cube 4, " in body
    assert "analyse?p=" not in body  # grid links: none; each move names its cell by id
    m = replay.moves[1]
    assert f"Move 2 ({m.kind.value} {replay.params.board().cell_id(m.row, m.col)}) was" in body
    # the graph analysis board takes a position by form: the page posts the move list back
    # and the study route rebuilds the position after move 1 (each move: test_graph_study)
    form = re.search(r'<form id="import-study" method="post" action="(/import/study)">(.*?)</form>',
                     body, re.S)  # fmt: skip
    assert form, "no way from the imported graph replay to the analysis board"
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form.group(2)))
    posted = {k: html.unescape(v) for k, v in fields.items()}
    assert posted["after"] == "1"
    analysed = client.post(form.group(1), data=posted)
    assert analysed.status_code == 200, analysed.get_data(as_text=True)[:400]
    shown = analysed.get_data(as_text=True)
    assert '<svg class="graph-board' in shown
    board = re.search(r'<textarea id="graph-text" name="graph"[^>]*>(.*?)</textarea>', shown, re.S)
    first = Game.replay(replay.params, replay.moves[:1]).position
    assert board and from_json(json.loads(html.unescape(board.group(1)))).grid == first.grid


def test_an_import_offers_no_form_the_graph_analysis_board_would_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.ledger import imports

    params = parse_graph_params({"tiling": "cube", "size": [2], "mines": 3, "seed": 1})
    board = params.board()
    first = next(iter(board.cells()))
    game = Game.new(params).play(Move.reveal(*board.coord(first)))
    text = write_movelist(params, game.moves, layout=final_board(game)).encode()
    judged = imports.judge_import(text, "cube.moves")
    assert not isinstance(judged, str) and judged.graph_file == text.decode()
    monkeypatch.setattr(imports, "WEB_MAX_TEXT", len(judged.graph_file) - 1)
    judged = imports.judge_import(text, "cube.moves")
    assert not isinstance(judged, str) and judged.graph_file == ""


def test_a_custom_board_is_stored_with_the_game(client: FlaskClient) -> None:
    ids = [f"v{i}" for i in range(12)]
    board = {
        "format": "mine-devil-graph",
        "version": 1,
        "cells": [{"id": i, "state": ".", "label": f"Node {i}"} for i in ids],
        "edges": [[ids[i], ids[i + 1]] for i in range(11)],
        "mines": 3,
    }
    game = create(client, graph=board, seed=2)
    assert game["state"]["graph"] == {"custom": True, "cells": 12}
    assert game["state"]["mines"] == 3
    served = client.get(f"/api/games/{game['id']}/graph").get_json()
    assert [c["label"] for c in served["cells"]] == [f"Node {i}" for i in ids]
    page = client.get(f"/g/{game['id']}")
    assert page.status_code == 200
    # cells without polygons are dots: lines show which are neighbours
    assert page.get_data(as_text=True).count("<line ") == 11


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tiling": "hexagonal"}, "tiling"),
        ({"tiling": "cube", "size": [2, 3]}, "size"),
        ({"tiling": "cube", "size": [0]}, "size[0]"),
        ({"tiling": "penrose", "size": [9000]}, "size"),
        ({"tiling": "cube", "width": 4}, "width"),
        ({"tiling": "cube", "preset": "beginner", "mines": 500}, "mines"),
        ({"tiling": "cube", "sides": "maybe"}, "sides"),
        ({"graph": {"format": "other"}}, "graph.format"),
        ({"graph": {"format": "mine-devil-graph", "version": 1, "cells": []}}, "graph.cells"),
        (
            {
                "graph": {
                    "format": "mine-devil-graph",
                    "version": 1,
                    "cells": [{"id": "a", "state": "."}, {"id": "a", "state": "."}],
                }
            },
            "graph.cells[1].id",
        ),
        (
            {
                "graph": {
                    "format": "mine-devil-graph",
                    "version": 1,
                    "cells": [{"id": "a", "state": "."}],
                    "edges": [["a", "zz"]],
                }
            },
            "graph.edges[0]",
        ),
        ({"graph": [1, 2]}, "graph"),
    ],
)
def test_bad_graph_games_are_400s_naming_the_path(
    client: FlaskClient, body: dict[str, Any], field: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["field"] == field
    # a tiling's error names the request's field (size), not the stored form's (graph.size)
    assert field.startswith("graph") or "graph." not in response.get_json()["error"]


def _board_of(cells: list[dict[str, Any]]) -> dict[str, Any]:
    ids = [c["id"] for c in cells]
    edges = [[a, b] for a, b in itertools.pairwise(ids)]
    return {"format": "mine-devil-graph", "version": 1, "cells": cells, "edges": edges}


@pytest.mark.parametrize(
    ("cells", "field"),
    [
        (  # 1e308 overflowed the layout's spans: a 500
            [{"id": "a", "state": ".", "polygon": [[0, 0], [1e308, 0], [0, 1e308]]},
             {"id": "b", "state": ".", "at": [-1e308, -1e308]}],
            "graph.cells[0].polygon[1]",
        ),
        (  # a lone surrogate was stored, and the game page was a 500 for good
            [{"id": "a", "state": "."}, {"id": "\ud800", "state": "."}],
            "graph.cells[1].id",
        ),
    ],
)  # fmt: skip
def test_hostile_custom_boards_are_400s_naming_the_path(
    client: FlaskClient, cells: list[dict[str, Any]], field: str
) -> None:
    response = client.post("/api/games", json={"graph": _board_of(cells), "seed": 1})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["field"] == field


def _dense(cells: int) -> dict[str, Any]:
    ids = [f"c{i}" for i in range(cells)]
    return {"format": "mine-devil-graph", "version": 1,
            "cells": [{"id": i, "state": "."} for i in ids],
            "edges": [list(pair) for pair in itertools.combinations(ids, 2)]}  # fmt: skip


def test_a_custom_game_has_at_most_ten_pairs_a_cell(client: FlaskClient) -> None:
    """A 2 MB body held 133,000 pairs: every cold load of the game read them again (seconds
    holding a worker's event loop) and its page drew each as a line (7.7 MB). A stored game
    with more still loads: the bound is checked when a game is made."""
    dense = _dense(320)  # 51,040 pairs
    response = client.post("/api/games", json={"graph": dense, "seed": 1})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["field"] == "graph.edges"
    assert "at most 50,000" in response.get_json()["error"]
    stored = GraphSpec.from_dict({"file": json.dumps(dense)})
    assert stored.board().cell_count == 320
    assert create(client, graph=_dense(300), seed=1)["state"]["graph"]["cells"] == 300


def test_a_board_of_zero_width_cells_draws(client: FlaskClient) -> None:
    """Polygons that are points or vertical lines (a median width of 0) divided by zero on
    every view of the game page: a stored game no one could open."""
    line = [[0, 0], [0, 1], [0, 2]]
    cells = [{"id": f"c{i}", "state": ".", "polygon": line} for i in range(4)]
    game = create(client, graph=_board_of(cells), seed=1)
    assert client.get(f"/g/{game['id']}").status_code == 200
    point = [{"id": f"p{i}", "state": ".", "polygon": [[i, i]] * 3} for i in range(4)]
    game = create(client, graph=_board_of(point), seed=1)
    assert client.get(f"/g/{game['id']}").status_code == 200


def test_the_form_refuses_a_board_nested_too_deep(client: FlaskClient) -> None:
    """json.loads of 100,000 brackets raised RecursionError: a 500."""
    deep = '{"format": "mine-devil-graph", "version": 1, "cells": ' + "[" * 100_000
    form = {"preset": "custom", "graph": deep + "]" * 100_000 + "}", "csrf_token": csrf(client)}
    response = client.post("/new", data=form)
    assert response.status_code == 400
    assert "nest too deep" in response.get_data(as_text=True)


@pytest.mark.parametrize(("preset", "mines"), [("beginner", 3), ("custom", 4)])
def test_a_pasted_board_takes_the_mines_field_only_under_custom(
    client: FlaskClient, preset: str, mines: int
) -> None:
    """The form's Mines box (10, shown only under Custom) overrode a pasted board's total
    under every preset: an 18-cell board on Beginner was "10 mines do not fit"."""
    board = {**_board_of([{"id": f"c{i}", "state": "."} for i in range(18)]), "mines": 3}
    form = {"preset": preset, "mines": "4" if preset == "custom" else "10",
            "graph": json.dumps(board), "csrf_token": csrf(client)}  # fmt: skip
    response = client.post("/new", data=form)
    assert response.status_code == 303, html.unescape(response.get_data(as_text=True))
    game_id = response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    assert client.get(f"/api/games/{game_id}").get_json()["mines"] == mines


def test_moves_name_cells_by_id_on_graphs_and_by_row_col_on_grids(client: FlaskClient) -> None:
    game = create(client, tiling="triangle", preset="beginner", seed=3)
    for body, field in (
        ({"row": 0}, "row"),
        ({}, "cell"),
        ({"cell": "nope"}, "cell"),
        ({"cell": 7}, "cell"),
    ):
        response = api_move(client, game, "reveal", body)
        assert response.status_code == 400 and response.get_json()["field"] == field
    grid = create(client, preset="beginner")
    response = api_move(client, grid, "reveal", {"cell": "t1"})
    assert response.status_code == 400 and response.get_json()["field"] == "cell"
    assert api_move(client, grid, "reveal", {"row": 0, "col": 0}).status_code == 200
    assert client.get(f"/api/games/{grid['id']}/graph").status_code == 404


@pytest.mark.parametrize("tiling", ["triangle", "truncated-square", "rhombille", "cairo",
                                    "snub-square", "penrose", "cube", "geodesic"])  # fmt: skip
def test_the_form_offers_every_tiling(client: FlaskClient, tiling: str) -> None:
    home = client.get("/").get_data(as_text=True)
    assert f'name="topology" value="{tiling}"' in home
    form = {"preset": "beginner", "topology": tiling, "count": "classic", "mercy": "strict",
            "no_guess": "on", "seed": "5", "csrf_token": csrf(client)}  # fmt: skip
    response = client.post("/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert '<svg class="graph-game fit live"' in page
    assert re.search(r'<g id="c-\d+-\d+" class="gcell covered(?: f[xyz])?" data-cell="[^"]+"', page)
    assert 'aria-label="cell ' in page and "graph-game.js" in page
    # the note under the board names the tiling
    word = {"geodesic": "ball"}.get(tiling, dict((v, n) for v, n, _ in GRAPH_TILINGS)[tiling])
    note = re.search(r'<p class="board-note">([^<]*)', page)
    assert note and word.split()[0].lower() in note.group(1).lower(), note
    # nothing about mines while the game runs: no layout marks, no mine glyphs
    assert not re.search(r'class="gcell[^"]*\b(rm|wm|boom|m-shown|m-real)\b', page)
    assert 'class="m"' not in page


def test_a_custom_boards_states_are_ignored_even_impossible_ones(client: FlaskClient) -> None:
    """The API and the form say a pasted board's states are ignored (a game starts covered):
    a 3 on a cell with one neighbour was refused all the same."""
    states: list[Any] = [".", 3, 1, ".", "."]  # the 3 has two neighbours
    board = _board_of([{"id": f"v{i}", "state": s} for i, s in enumerate(states)])
    response = client.post("/api/games", json={"graph": board, "mines": 1, "no_guess": False})
    assert response.status_code == 201, response.get_data(as_text=True)
    cells = response.get_json()["state"]["cells"]
    assert [c["state"] for c in cells] == ["."] * 5


def test_the_form_takes_a_custom_size_and_a_pasted_board(client: FlaskClient) -> None:
    form = {"preset": "custom", "topology": "cube", "size": "3", "mines": "6",
            "csrf_token": csrf(client)}  # fmt: skip
    response = client.post("/new", data=form)
    assert response.status_code == 303
    spaced = {**form, "topology": "triangle", "size": "5 6", "csrf_token": csrf(client)}
    assert client.post("/new", data=spaced).status_code == 303  # as typed: "5 6", "5x6", "5,6"
    bad = {"preset": "custom", "graph": '{"format": "mine-devil-graph", "version": 1}',
           "csrf_token": csrf(client)}  # fmt: skip
    response = client.post("/new", data=bad)
    assert response.status_code == 400
    assert "graph.cells: must be a non-empty list" in response.get_data(as_text=True)
    missing = {"preset": "custom", "topology": "penrose", "csrf_token": csrf(client)}
    response = client.post("/new", data=missing)
    assert response.status_code == 400 and "size is missing" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    ("topology", "size", "said"),
    [
        ("penrose", "9000", "penrose at [9000] is too big: it makes about 9,000 cells"),
        ("penrose", "20000", "penrose at [20000] is too big: it makes about 20,000 cells"),
        ("triangle", "80x80", "triangle at [80, 80] makes 6,400 cells"),
        ("cube", "40", "cube at [40] makes 9,600 cells"),
    ],
)
def test_the_form_says_a_size_is_too_big_in_cells(
    client: FlaskClient, topology: str, size: str, said: str
) -> None:
    """The bound is a game's 5,000 cells, named with the cells the size makes (a size
    number was allowed up to 10,000, "out of range: allowed 1 to 10000")."""
    form = {"preset": "custom", "topology": topology, "size": size, "mines": "6",
            "csrf_token": csrf(client)}  # fmt: skip
    response = client.post("/new", data=form)
    body = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 400
    assert said in body and "at most 5,000" in body
    answer = client.post(
        "/api/games", json={"tiling": topology, "size": [int(p) for p in size_parts(size)]}
    )
    assert answer.status_code == 400 and answer.get_json()["field"] == "size"
    assert said in answer.get_json()["error"]  # the API says it alike (it said "allowed 1 to
    # 10000" above 10,000)


def test_a_page_click_answers_with_the_whole_svg_and_the_replay_draws_it(
    client: FlaskClient,
) -> None:
    game = create(client, tiling="geodesic", preset="beginner", seed=6)
    page = client.get(f"/g/{game['id']}").get_data(as_text=True)
    # the API made the game: its page is watch-only here (no move form)
    assert '<svg class="graph-game fit"' in page
    form = {"preset": "beginner", "topology": "geodesic", "seed": "6", "csrf_token": csrf(client)}
    location = client.post("/new", data=form).headers["Location"]
    page = client.get(location).get_data(as_text=True)
    first = re.search(r'data-at="(\d+,\d+)"', page)
    assert first and 'id="first-click"' in page  # "your first click is always safe"
    headers = {"X-CSRFToken": csrf(client), **HX}
    answer = client.post(f"{location}/move", data={"kind": "open", "at": first.group(1)},
                         headers=headers).get_data(as_text=True)  # fmt: skip
    assert 'id="game"' in answer and "hx-swap-oob" in answer and "gcell open" in answer
    assert 'id="first-click"' not in answer
    # a number's accessible name names the covered cells it touches
    assert re.search(r'aria-label="cell [^",]+, [1-9][^"]* \(cell [^"]+\)"', answer)
    # a sphere: its net shaded by big triangle, its 3-D corners there to turn it as a ball
    assert {"fx", "fy", "fz"} <= set(re.findall(r'class="gcell covered (f[xyz])"', page))
    assert 'data-turn="' in page and page.count("data-p3=") == 80
    assert 'data-graph-view="solid"' in page and "graph-ball.js" in page
    replay = client.get(f"{location}/replay/1").get_data(as_text=True)
    assert '<g id="rp-c-' in replay and "gcell open" in replay
    # the replay rings the move's cell and tints what it opened; it can be turned as a ball
    # too (its corners left out of a step's answer when the page kept them)
    moved = rf'class="gcell [^"]*\bmoved\b[^"]*" [^>]*data-at="{first.group(1)}"'
    clicked = re.search(moved + r'[^>]*aria-label="[^"]*, this move"', replay)
    assert clicked and "opened by this move" in replay and replay.count("data-p3=") == 80
    assert 'data-board="replay-board"' in replay
    step = client.get(f"{location}/replay/1", headers={**HX, CORNERS_KEPT: "kept"})
    assert "data-p3=" not in step.get_data(as_text=True) and 'data-turn="' in step.get_data(
        as_text=True
    )
    assert CORNERS_KEPT in step.headers["Vary"]
    full = client.get(f"{location}/replay/1", headers=HX).get_data(as_text=True)
    assert full.count("data-p3=") == 80
    assert re.search(r'class="gcell open[^"]*\bfresh\b', replay)
    replay0 = client.get(f"{location}/replay/0").get_data(as_text=True)
    assert "gcell open" not in replay0 and " moved" not in replay0


def test_a_move_leaves_out_the_corners_a_page_kept(client: FlaskClient) -> None:
    """A cube's 3-D corners come with the page; a move's answer to a page that says it kept
    them (graph-ball.js's header) leaves them out, and only then: the same cells, the same
    turn, a much smaller answer."""
    form = {"preset": "beginner", "topology": "cube", "seed": "4", "csrf_token": csrf(client)}
    location = client.post("/new", data=form).headers["Location"]
    page = client.get(location).get_data(as_text=True)
    assert page.count("data-p3=") == 96
    headers = {"X-CSRFToken": csrf(client), **HX}
    cells = re.findall(r'data-at="(\d+,\d+)"', page)
    full = client.post(f"{location}/move", data={"kind": "flag", "at": cells[0]}, headers=headers)
    kept = client.post(f"{location}/move", data={"kind": "flag", "at": cells[0]},
                       headers={**headers, CORNERS_KEPT: "kept"})  # fmt: skip
    with_corners, without = full.get_data(as_text=True), kept.get_data(as_text=True)
    assert CORNERS_KEPT in kept.headers["Vary"]
    assert with_corners.count("data-p3=") == 96 and "data-p3=" not in without
    assert 'data-turn="' in without and without.count("<g id=") == with_corners.count("<g id=")
    assert len(without) < 0.9 * len(with_corners)
    # a watcher's poll (a GET) the same way
    watch = f"{location}?since=0"
    assert "data-p3=" not in client.get(watch, headers={**HX, CORNERS_KEPT: "kept"}).get_data(
        as_text=True
    )
    assert client.get(watch, headers=HX).get_data(as_text=True).count("data-p3=") == 96


def test_the_hint_ladder_names_cells_by_label(client: FlaskClient) -> None:
    form = {"preset": "beginner", "topology": "penrose", "seed": "3", "no_guess": "on",
            "csrf_token": csrf(client)}  # fmt: skip
    location = client.post("/new", data=form).headers["Location"]
    first = re.search(r'data-at="(\d+,\d+)"', client.get(location).get_data(as_text=True))
    assert first
    headers = {"X-CSRFToken": csrf(client), **HX}
    client.post(f"{location}/move", data={"kind": "open", "at": first.group(1)}, headers=headers)
    text = ""
    for _ in range(4):
        text = client.post(f"{location}/hint", headers=headers).get_data(as_text=True)
    assert "highlighted cells" in text and re.search(r"Cell [\w-]+ is safe\.", text)
    assert "row" not in re.sub(r"<[^>]+>", " ", text).lower().replace("arrow", "")


def test_a_spheres_big_triangles_that_share_a_side_differ_in_shade() -> None:
    params = parse_graph_params({"tiling": "geodesic", "size": [3]})
    position = Game.new(params).position
    shades = sphere_faces(position)
    assert shades is not None and set(shades) == {"fx", "fy", "fz"}
    corners = [set(c.corners) for c in solid_corners(position)]
    ids = [i.split("-")[0] for i in position.board.graph.graph.ids]  # type: ignore[union-attr]
    for a, b in itertools.combinations(range(len(corners)), 2):
        if len(corners[a] & corners[b]) == 2 and shades[a] == shades[b]:
            assert ids[a] == ids[b], "big triangles sharing a side must differ in shade"
    # the cube keeps its faces' three shades; a flat tiling has none
    assert sphere_faces(Game.new(parse_graph_params({"tiling": "cube"})).position) is None
    assert net_shades(Game.new(parse_graph_params({"tiling": "penrose"})).position) is None


SPACED: dict[str, Any] = {  # ids that differ only by spaces at either end, each alone
    "format": "mine-devil-graph",
    "version": 1,
    "cells": [
        {"id": " a", "state": ".", "label": "spaced"},
        {"id": "a", "state": ".", "label": "plain"},
        *({"id": f"c{i}", "state": "."} for i in range(10)),
    ],
    "edges": [[f"c{i}", f"c{i + 1}"] for i in range(9)],
}


def test_ids_with_spaces_at_either_end_are_matched_exactly_first(client: FlaskClient) -> None:
    """The form's ``cell=`` stripped the id, so `` a`` opened ``a``; the analysis board did
    the same. Every way in now takes the exact id first, then the id without the spaces."""
    form = {"preset": "custom", "graph": json.dumps(SPACED), "mines": "1", "seed": "3",
            "csrf_token": csrf(client)}  # fmt: skip
    location = client.post("/new", data=form).headers["Location"]
    game_id = location.rsplit("/", 1)[1]
    headers = {"X-CSRFToken": csrf(client), **HX}
    moved = client.post(f"{location}/move", data={"kind": "open", "cell": " a"}, headers=headers)
    assert moved.status_code == 200
    state = client.get(f"/api/games/{game_id}").get_json()
    opened = {c["id"] for c in state["cells"] if c["state"] != "."}
    assert opened == {" a"}  # alone: no cascade
    flag = {"kind": "flag", "cell": "c4 "}  # no such id: the id without the space
    assert client.post(f"{location}/move", data=flag, headers=headers).status_code == 200
    pasted = {"graph": json.dumps(SPACED), "cell": " a", "csrf_token": csrf(client)}
    analysed = client.post("/analyse/graph", data=pasted)
    body = html.unescape(analysed.get_data(as_text=True))
    assert analysed.status_code == 200 and "<h3>spaced: " in body and "<h3>plain" not in body
    state = client.get(f"/api/games/{game_id}").get_json()
    assert [c["id"] for c in state["cells"] if c["state"] == "F"] == ["c4"]


def test_a_title_of_one_mine_is_singular() -> None:
    from app.play.view import game_title
    from devil.game import GameParams

    assert game_title(GameParams(5, 5, 1)) == "Custom 5\N{MULTIPLICATION SIGN}5, 1 mine"
    cube = parse_graph_params({"tiling": "cube", "size": [2], "mines": 1})
    assert game_title(cube).endswith(", 24 cells, 1 mine")
