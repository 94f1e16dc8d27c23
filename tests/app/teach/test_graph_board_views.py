"""The graph analysis board's step-by-step deduction (every step against the brute-force
oracle), the solid drawn in a projection, and the PNG export."""

from __future__ import annotations

import html
import io
import json
import re
from typing import cast

import pytest
from flask.testing import FlaskClient
from PIL import Image

from app.graphs.png import COLOURS, MAX_PNG_CELLS, graph_png
from app.graphs.projection import DEFAULT_TURN, facing, solid_corners
from devil import oracle
from devil.analysis import Verdict
from devil.graphs.fileformat import read_graph, write_graph
from devil.graphs.positions import midgame
from devil.graphs.tilings import tiling_board
from devil.position import Position
from devil.rules import Count
from devil.teach.levels import deduction_steps
from tests.helpers.graph_boards import HUB_BOARD, drawn_classes

_STEP_HEAD = re.compile(r"Step (\d+) of (\d+)")


def _positions() -> list[tuple[str, Position]]:
    out = []
    for name, size, seed in (("penrose", (60,), 2), ("triangle", (5, 6), 3), ("cube", (2,), 4)):
        board = tiling_board(name, size)
        out.append((name, midgame(board, max(2, board.cell_count // 7), seed)))
    return out


@pytest.mark.parametrize("count", [Count.CLASSIC, Count.COUNTED])
@pytest.mark.parametrize(("name", "position"), _positions())
def test_every_step_agrees_with_the_oracle(name: str, position: Position, count: Count) -> None:
    """Each step's safe cells are safe and its mines mines for the brute-force oracle, given
    only the position; together the steps find no cell the oracle leaves open."""
    truth = oracle.classify(position, count)
    steps = list(deduction_steps(position, count, limit=500))
    assert steps, name
    for step in steps:
        assert all(truth.verdict(c) is Verdict.SAFE for c in step.safe)
        assert all(truth.verdict(c) is Verdict.MINE for c in step.mines)


def test_the_page_steps_through_naming_cells_by_label(client: FlaskClient) -> None:
    text = json.dumps(HUB_BOARD)
    first = client.post("/analyse/graph", data={"graph": text, "to_step": "1"})
    body = html.unescape(first.get_data(as_text=True))
    assert first.status_code == 200
    assert _STEP_HEAD.search(body).groups() == ("1", "1")  # type: ignore[union-attr]
    assert "The 10 at cell the hub (id hub)" in body
    classes = drawn_classes(first.get_data(as_text=True))
    assert "hl-number" in classes["hub"]
    assert all("hl-new-mine" in classes[f"s{i}"] for i in range(10))
    hidden = client.post("/analyse/graph", data={"graph": text, "step": "1", "to_step": "0"})
    assert "Start with" in hidden.get_data(as_text=True)


def test_a_tiling_page_marks_earlier_steps_as_known(client: FlaskClient) -> None:
    query = {"tiling": "penrose", "preset": "beginner", "seed": "2"}
    got = client.get("/analyse/graph", query_string={**query, "step": "3"})
    body = got.get_data(as_text=True)
    assert got.status_code == 200
    assert _STEP_HEAD.search(body).group(1) == "3"  # type: ignore[union-attr]
    classes = drawn_classes(body)
    assert any({"known-safe", "known-mine"} & c for c in classes.values())
    assert any({"hl-new-safe", "hl-new-mine"} & c for c in classes.values())
    assert client.get("/analyse/graph", query_string={**query, "step": "x"}).status_code == 400
    assert client.get("/analyse/graph", query_string={**query, "view": "3d"}).status_code == 400


def test_the_sphere_is_drawn_turnable_and_coloured_like_the_oracle(client: FlaskClient) -> None:
    got = client.get("/analyse/graph", query_string={"tiling": "geodesic", "seed": "4"})
    body = got.get_data(as_text=True)
    assert got.status_code == 200
    assert 'class="graph-board solid"' in body and 'class="solid-controls"' in body
    text = html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", body, re.S).group(1))  # type: ignore[union-attr]
    position = read_graph(text)
    layout = position.board.graph
    assert layout is not None
    truth = oracle.classify(position, Count.CLASSIC)
    shown = drawn_classes(body)
    for cell in position.covered_cells():
        assert truth.verdict(cell).value in shown[layout.id(cell)]
    back = sum("back" in c for c in shown.values())
    assert 0.3 < back / len(shown) < 0.7  # about half the sphere faces away
    assert body.count("data-p3=") == len(shown)
    net = client.get("/analyse/graph", query_string={"tiling": "geodesic", "to_view": "flat"})
    assert 'class="graph-board solid"' not in net.get_data(as_text=True)


def test_half_the_sphere_faces_the_viewer() -> None:
    position = midgame(tiling_board("geodesic", (4,)), 40, 1)
    cells = solid_corners(position)
    front = [facing(DEFAULT_TURN, c) for c in cells]
    assert 0.4 < sum(front) / len(front) < 0.6
    for cell in cells:  # outward normals: away from the centre
        mid = [sum(p[d] for p in cell.corners) for d in range(3)]
        assert sum(m * n for m, n in zip(mid, cell.normal, strict=True)) > 0


@pytest.mark.parametrize("view", ["flat", "solid"])
def test_png_uses_the_svg_colours(view: str) -> None:
    position = midgame(tiling_board("geodesic", (2,)), 10, 4)
    truth = oracle.classify(position, Count.CLASSIC)
    verdicts = {c: truth.verdict(c) for c in position.covered_cells()}
    picture = Image.open(io.BytesIO(graph_png(position, verdicts, view))).convert("RGB")
    counts = cast("list[tuple[int, tuple[int, int, int]]]", picture.getcolors(1 << 20))
    colours = {"#{:02x}{:02x}{:02x}".format(*rgb) for _, rgb in counts}
    for verdict in set(verdicts.values()):
        assert COLOURS[verdict.value] in colours
    assert COLOURS["open"] in colours and COLOURS["line"] in colours


def test_png_export_and_its_bound(client: FlaskClient) -> None:
    text = json.dumps(HUB_BOARD)
    got = client.post("/analyse/graph/export", data={"graph": text, "kind": "png"})
    assert got.status_code == 200 and got.headers["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(got.data)).size[0] > 100
    big = write_graph(midgame(tiling_board("square", (51, 50)), 300, 1))
    refused = client.post("/analyse/graph/export", data={"graph": big, "kind": "png"})
    assert refused.status_code == 400
    assert f"a PNG shows at most {MAX_PNG_CELLS:,}" in refused.get_data(as_text=True)
