"""The graph analysis board (``/analyse/graph``): colours like the oracle, errors named by
JSON path, proofs naming cells by label, export."""

from __future__ import annotations

import html
import itertools
import json
import re

import pytest
from flask.testing import FlaskClient

from app.graphs.drawing import board_svg
from app.graphs.projection import radius, solid_corners
from devil import oracle
from devil.graphs.fileformat import read_graph
from devil.graphs.positions import midgame
from devil.graphs.tilings import TILINGS, tiling_board
from devil.rules import Count
from tests.helpers.graph_boards import HUB_BOARD, drawn_classes


def _check_against_oracle(body: str, text: str, count: str) -> None:
    position = read_graph(text)
    layout = position.board.graph
    assert layout is not None
    truth = oracle.classify(position, Count(count))
    shown = drawn_classes(body)
    assert len(shown) == position.board.cell_count
    for cell in position.covered_cells():
        assert truth.verdict(cell).value in shown[layout.id(cell)]


@pytest.mark.parametrize("count", ["classic", "counted"])
def test_a_pasted_graph_is_coloured_like_the_oracle(client: FlaskClient, count: str) -> None:
    text = json.dumps(HUB_BOARD)
    response = client.post("/analyse/graph", data={"graph": text, "count": count})
    assert response.status_code == 200
    _check_against_oracle(response.get_data(as_text=True), text, count)


def test_a_small_tiling_is_coloured_like_the_oracle(client: FlaskClient) -> None:
    response = client.get("/analyse/graph", query_string={"tiling": "cube", "size": "2", "seed": 3})
    assert response.status_code == 200
    body = response.get_data(as_text=True)
    text = html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", body, re.S).group(1))  # type: ignore[union-attr]
    _check_against_oracle(body, text, "classic")


def test_choosing_a_cell_explains_it_by_label(client: FlaskClient) -> None:
    text = json.dumps(HUB_BOARD)
    response = client.post("/analyse/graph", data={"graph": text, "cell": "s3"})
    body = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 200
    assert "s3: mine" in body
    assert "The 10 at cell the hub (id hub) touches 10 covered cells" in body


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"edges": [["hub", "nobody"]]}, "edges[0]: unknown id &#39;nobody&#39;"),
        ({"cells": [{"id": "a", "state": "?"}]}, "cells[0].state:"),
        ({"version": 3}, "version: must be 1"),
    ],
)
def test_a_bad_file_is_a_400_naming_where(
    client: FlaskClient, change: dict[str, object], message: str
) -> None:
    response = client.post("/analyse/graph", data={"graph": json.dumps({**HUB_BOARD, **change})})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)


def test_an_impossible_number_is_a_400_naming_the_cell(client: FlaskClient) -> None:
    bad = {**HUB_BOARD, "cells": [{"id": "x", "state": 2}, {"id": "y", "state": "."}],
           "edges": [["x", "y"]]}  # fmt: skip
    response = client.post("/analyse/graph", data={"graph": json.dumps(bad)})
    assert response.status_code == 400
    assert "the 2 at cell x has only 1 neighbour" in response.get_data(as_text=True)


def test_the_issue_example_keeps_its_colours_under_the_classic_rule(client: FlaskClient) -> None:
    """Its total (12 mines on 3 cells) only breaks the classic rule's probabilities (the
    density): the page said "No layout of mines fits" and coloured nothing, where
    ``devil-check`` and the grid board show the verdicts (t0 and t2 are mines)."""
    example = {
        "format": "mine-devil-graph", "version": 1,
        "cells": [{"id": "t0", "state": ".", "polygon": [[0, 0], [1, 0], [0.5, 0.866]]},
                  {"id": "t1", "state": 2}, {"id": "t2", "state": "F"}],
        "edges": [["t0", "t1"], ["t1", "t2"]], "mines": 12,
    }  # fmt: skip
    response = client.post("/analyse/graph", data={"graph": json.dumps(example)})
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    shown = drawn_classes(body)
    assert "mine" in shown["t0"] and "mine" in shown["t2"]
    assert "No probabilities: the 12 mines do not fit in the 3 cells" in body


def test_bad_queries_are_400s(client: FlaskClient) -> None:
    assert client.get("/analyse/graph?tiling=heptagon").status_code == 400
    assert client.get("/analyse/graph?tiling=square&size=200x200").status_code == 400
    assert client.get("/analyse/graph?tiling=square&seed=x").status_code == 400
    assert client.get("/analyse/graph?cell=nowhere").status_code == 400
    assert client.get("/analyse/graph?count=both").status_code == 400


@pytest.mark.parametrize("size", ["2,3", "2 3", " 2\u00d73 "])
def test_a_size_is_read_as_the_new_game_form_reads_it(client: FlaskClient, size: str) -> None:
    """The new-game form's "12,12" was a 400 here ("joined by x")."""
    query = {"tiling": "triangle", "size": size}
    assert client.get("/analyse/graph", query_string=query).status_code == 200


def test_a_tiling_too_big_for_the_web_is_refused_before_it_is_built(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``size`` is refused on the tiling's estimate: a 99,999-cell Penrose board was built
    (30 s of a web worker's CPU, holding its event loop) only to be refused for its size."""
    import devil.graphs.tilings as tilings

    def never(*_: object, **__: object) -> None:
        raise AssertionError("built a board the web refuses")

    monkeypatch.setattr(tilings, "penrose", never)
    monkeypatch.setattr(tilings, "graph_of_faces", never)
    for query in (
        {"tiling": "penrose", "size": "99999"},
        {"tiling": "triangle", "size": "300x333"},
    ):
        response = client.get("/analyse/graph", query_string=query)
        assert response.status_code == 400
        assert "cells" in response.get_data(as_text=True)


@pytest.mark.parametrize("name", ["square", "hex", "torus", "triangle", "snub-square", "penrose"])
def test_a_one_cell_tiling_is_drawn(client: FlaskClient, name: str) -> None:
    """The preset's density gave a one-cell board 1 mine: midgame's ValueError was a 500."""
    size = "1" if name == "penrose" else "1x1"
    for sides in ("0", "1"):
        query = {"tiling": name, "size": size, "sides": sides}
        assert client.get("/analyse/graph", query_string=query).status_code == 200


def test_a_solid_facing_nowhere_exports_a_png(client: FlaskClient) -> None:
    """Every face of a solid turned away (corners all one point): the PNG had no corner to
    frame (``min()`` of nothing, a 500); it draws the flat net instead."""
    flat = [[0, 0], [1, 0], [0, 1]]
    cells = [{"id": k, "state": ".", "polygon": flat, "polygon3d": [[0, 0, 0]] * 3} for k in "ab"]
    text = json.dumps({**HUB_BOARD, "cells": cells, "edges": [["a", "b"]]})
    got = client.post("/analyse/graph/export", data={"graph": text, "kind": "png", "view": "solid"})
    assert got.status_code == 200 and got.headers["Content-Type"] == "image/png"


def test_a_pasted_board_has_at_most_ten_pairs_a_cell(client: FlaskClient) -> None:
    """130,000 pairs fit in the 2 MB a paste may have: 5 s and a 5 MB page each."""
    ids = [f"c{i}" for i in range(320)]
    cells = [{"id": i, "state": "."} for i in ids]
    edges = [list(pair) for pair in itertools.combinations(ids, 2)]  # 51,040
    text = json.dumps({**HUB_BOARD, "cells": cells, "edges": edges})
    response = client.post("/analyse/graph", data={"graph": text})
    assert response.status_code == 400
    assert "edges: 51,040 pairs; a graph board has at most 50,000" in response.get_data(
        as_text=True
    )


def test_a_pasted_file_nested_too_deep_is_a_400(client: FlaskClient) -> None:
    deep = '{"format": "mine-devil-graph", "version": 1, "cells": ' + "[" * 100_000
    response = client.post("/analyse/graph", data={"graph": deep + "]" * 100_000 + "}"})
    assert response.status_code == 400
    assert "nest too deep" in response.get_data(as_text=True)


def test_export_json_and_svg(client: FlaskClient) -> None:
    text = json.dumps(HUB_BOARD)
    got = client.post("/analyse/graph/export", data={"graph": text, "kind": "json"})
    assert got.status_code == 200
    assert read_graph(got.get_data(as_text=True)) == read_graph(text)
    svg = client.post("/analyse/graph/export", data={"graph": text, "kind": "svg"})
    assert svg.status_code == 200
    assert svg.headers["Content-Type"].startswith("image/svg+xml")
    body = svg.get_data(as_text=True)
    assert body.startswith("<?xml") and body.count('data-cell="') == 12
    # cells drawn as dots: a line joins each pair of neighbours (the hub's ten and s9-far)
    assert body.count("<line ") == 11 and ".edges line{" in body


@pytest.mark.parametrize("name", ["penrose", "geodesic", "cairo", "snub-square"])
def test_every_preset_page_draws(client: FlaskClient, name: str) -> None:
    response = client.get("/analyse/graph", query_string={"tiling": name})
    assert response.status_code == 200
    assert len(drawn_classes(response.get_data(as_text=True))) > 50


def test_a_zero_is_blank_but_named() -> None:
    """A revealed 0 is drawn blank, as the game draws it; its accessible name says it is a 0."""
    position = midgame(tiling_board("cube", (3,)), 8, 5)
    zeros = [c for c in position.board.cells() if position.number(c) == 0]
    assert zeros
    svg = board_svg(position, {}, {})
    assert svg.count("revealed 0, no mines around") == 2 * len(zeros)  # aria-label and title
    assert not re.search(r">0</text>", svg)


@pytest.mark.parametrize(("name", "size"), [("cube", (3,)), ("geodesic", (2,))])
def test_a_solid_fills_its_view_and_stays_in_it_when_turned(
    name: str, size: tuple[int, ...]
) -> None:
    """The view is the solid's radius (no turn takes a corner out of it) and little more, so
    the solid fills the frame's width as the game page's does."""
    position = midgame(tiling_board(name, size), 8, 5)
    svg = board_svg(position, {}, {}, view="solid")
    x, y, w, h = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())  # type: ignore[union-attr]
    r = radius(solid_corners(position))
    assert x == y == pytest.approx(-w / 2, abs=0.002) and w == h
    assert r <= -x and w / 2 <= 1.05 * r


def test_the_tiling_menu_names_and_the_chosen_one_described(client: FlaskClient) -> None:
    """The side column is narrow: the menu shows each tiling's name, and the chosen tiling's
    description is written under it (static/graph.js follows a new choice)."""
    body = client.get("/analyse/graph", query_string={"tiling": "geodesic"}).get_data(as_text=True)
    menu = re.search(r'<select name="tiling"[^>]*>(.*?)</select>', body, re.S).group(1)  # type: ignore[union-attr]
    names = re.findall(r"<option[^>]*>([^<]*)</option>", menu)
    assert names == list(TILINGS)
    about = re.search(r'<p class="tiling-about" id="tiling-about">([^<]*)</p>', body)
    assert about and html.unescape(about.group(1)) == TILINGS["geodesic"].description
