"""The graph-board file: round trips of every tiling, and every malformed file named."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from devil import native
from devil.errors import InconsistentPosition
from devil.graphs import _fast
from devil.graphs.fileformat import (
    GraphFileError,
    looks_like_graph,
    read_graph,
    to_json,
    write_graph,
)
from devil.graphs.positions import midgame
from devil.graphs.tilings import TILINGS, tiling, tiling_board

EXAMPLE: dict[str, Any] = {
    "format": "mine-devil-graph",
    "version": 1,
    "cells": [
        {"id": "t0", "state": ".", "polygon": [[0, 0], [1, 0], [0.5, 0.866]]},
        {"id": "t1", "state": 2},
        {"id": "t2", "state": "F"},
    ],
    "edges": [["t0", "t1"], ["t1", "t2"]],
    "mines": 12,
}


@pytest.fixture(autouse=True, params=["fast", "text", "plain"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test three times: through msgspec's fast path (when installed), with the edges
    and polygons read from their text (``pair_ends``, ``polygon_text_placement``: the
    compiled engine's way) or decoded by msgspec,
    and the plain json path; all must accept the same files, build the same boards and name
    the same errors."""
    if request.param == "plain":
        monkeypatch.setattr(_fast, "msgspec", None)
    elif not _fast.available():
        pytest.skip("msgspec is not installed (the fast extra)")
    else:
        monkeypatch.setattr(_fast, "READ_AS_TEXT", request.param == "text")
    return str(request.param)


def _read(data: dict[str, Any]) -> Any:
    return read_graph(json.dumps(data))


def _broken(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(EXAMPLE))
    data.update(changes)
    return data


def test_the_issue_example_reads() -> None:
    position = _read(EXAMPLE)
    layout = position.board.graph
    assert layout is not None
    assert [c.id for c in layout.graph.cells] == ["t0", "t1", "t2"]
    assert position.number(layout.cell("t1")) == 2
    assert position.is_flagged(layout.cell("t2"))
    assert position.mines == 12
    assert set(position.board.neighbours(layout.cell("t1"))) == {
        layout.cell("t0"),
        layout.cell("t2"),
    }
    assert looks_like_graph(json.dumps(EXAMPLE))
    assert not looks_like_graph("..1\n.2.\n")


def test_a_file_whose_format_comes_last_is_detected() -> None:
    """The web API's ``/api/games/<id>/graph`` sorts its keys: ``"format"`` comes after
    ``"cells"`` and ``"edges"``, past the first 4 KiB of a beginner board's file, and
    ``devil-check`` refused the file it was given ("a JSON object without ...")."""
    board = tiling_board("penrose", (80,), False)
    text = json.dumps(to_json(midgame(board, 10, seed=3)), sort_keys=True)
    assert text.index('"format"') > 4096
    for given in (text, text.encode()):
        assert looks_like_graph(given)
    assert not looks_like_graph('{"cells": [], "format": "mine-devil-grid"}')
    assert not looks_like_graph('["mine-devil-graph"]')


@pytest.mark.parametrize("name", sorted(TILINGS))
def test_every_tiling_round_trips(name: str) -> None:
    preset = tiling(name).presets[0]
    for sides in (False, True):
        board = tiling_board(name, preset.size, sides)
        for position in (
            midgame(board, preset.mines(board.cell_count), seed=3),
            midgame(board, preset.mines(board.cell_count), seed=4).with_mines(None),
        ):
            text = write_graph(position)
            again = read_graph(text)
            assert again == position
            assert again.board == board
            assert write_graph(again) == text


def test_a_board_read_pickles_with_its_drawing() -> None:
    """Games send positions to other processes: a board read from a file (which decodes
    its polygons only when drawn) pickles, and draws and hashes like the tiling's board."""
    board = tiling_board("cube", (2,))
    position = read_graph(write_graph(midgame(board, 4, seed=1)))
    again = pickle.loads(pickle.dumps(position))
    assert again == position and hash(again.board) == hash(board)
    layout, tiled = again.board.graph, board.graph
    assert layout is not None and tiled is not None
    assert layout.graph.cells == tiled.graph.cells and layout.adjacency == tiled.adjacency


@pytest.mark.parametrize("name", ["cube", "geodesic"])
def test_solids_carry_their_3d_corners(name: str) -> None:
    """Every cell of a solid has 3-D corners as many as its drawn corners, written and read
    back; a file without them still reads (the field is optional)."""
    board = tiling_board(name, tiling(name).presets[0].size)
    layout = board.graph
    assert layout is not None
    for cell in layout.graph.cells:
        assert cell.polygon3d is not None and cell.polygon is not None
        assert len(cell.polygon3d) == len(cell.polygon)
    data = to_json(midgame(board, 5, seed=1))
    assert all("polygon3d" in c for c in data["cells"])
    for c in data["cells"]:
        del c["polygon3d"]
    flat = _read(data).board.graph
    assert flat is not None and all(c.polygon3d is None for c in flat.graph.cells)


def test_labels_at_and_big_numbers_round_trip() -> None:
    data = {
        "format": "mine-devil-graph",
        "version": 1,
        "cells": [{"id": "hub", "state": 10, "label": "the hub", "at": [0, 0]}]
        + [{"id": f"s{i}", "state": ".", "at": [i, 1]} for i in range(12)],
        "edges": [["hub", f"s{i}"] for i in range(12)],
    }
    position = _read(data)
    assert to_json(position) == data
    layout = position.board.graph
    assert layout is not None
    assert position.number(layout.cell("hub")) == 10
    assert position.where(layout.cell("hub")) == "cell the hub (id hub)"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_broken(format="mine-devil"), r"^format: must be 'mine-devil-graph'"),
        (_broken(version=2), r"^version: must be 1"),
        (_broken(cells=[]), r"^cells: must be a non-empty list"),
        (_broken(cells={"id": "a"}), r"^cells: must be a non-empty list"),
        (_broken(edges={"a": "b"}), r"^edges: must be a list"),
        (_broken(mines=-1), r"^mines: must be a whole number"),
        (_broken(mines=2.5), r"^mines: must be a whole number"),
        (_broken(cells=[*EXAMPLE["cells"], "x"]), r"^cells\[3\]: a cell is a JSON object"),
        (_broken(cells=[{"state": "."}]), r"^cells\[0\]\.id: must be a non-empty string"),
        (_broken(cells=[{"id": "", "state": "."}]), r"^cells\[0\]\.id: must be a non-empty"),
        (_broken(cells=[{"id": "x" * 41, "state": "."}]), r"^cells\[0\]\.id: .* at most 40"),
        (
            _broken(cells=[*EXAMPLE["cells"], {"id": "t1", "state": "."}]),
            r"^cells\[3\]\.id: duplicate id 't1' \(also cells\[1\]\)",
        ),
        (_broken(cells=[{"id": "a", "state": "?"}]), r'^cells\[0\]\.state: "\?" is not a state'),
        (_broken(cells=[{"id": "a", "state": True}]), r"^cells\[0\]\.state: true is not a state"),
        (_broken(cells=[{"id": "a", "state": 1.0}]), r"^cells\[0\]\.state: 1.0 is not a state"),
        (_broken(cells=[{"id": "a"}]), r"^cells\[0\]\.state: null is not a state"),
        (_broken(cells=[{"id": "a", "state": -1}]), r"^cells\[0\]\.state: -1 is negative"),
        (
            _broken(cells=[{"id": "a", "state": ".", "polygon": [[0, 0], [1, 0]]}]),
            r"^cells\[0\]\.polygon: must be a list of 3",
        ),
        (
            _broken(cells=[{"id": "a", "state": ".", "polygon": [[0, 0], [1, 0], [1, "x"]]}]),
            r"^cells\[0\]\.polygon\[2\]: must be a point",
        ),
        (
            _broken(cells=[{"id": "a", "state": ".", "at": [0]}]),
            r"^cells\[0\]\.at: must be a point",
        ),
        (
            _broken(cells=[{"id": "a", "state": ".", "polygon3d": [[0, 0, 0], [1, 0, 0]]}]),
            r"^cells\[0\]\.polygon3d: must be a list of 3 to 64 points \[x, y, z\]",
        ),
        (
            _broken(cells=[{"id": "a", "state": ".", "polygon3d": [[0, 0, 0], [1, 0], [0, 1, 0]]}]),
            r"^cells\[0\]\.polygon3d\[1\]: must be a point \[x, y, z\]",
        ),
        (
            _broken(
                cells=[{"id": "a", "state": ".", "polygon3d": [[0, 0, 0], [1, 0, 0], [0, True, 0]]}]
            ),
            r"^cells\[0\]\.polygon3d\[2\]: must be a point",
        ),
        (
            _broken(cells=[{"id": "a", "state": ".", "label": 3}]),
            r"^cells\[0\]\.label: must be a non-empty string",
        ),
        (_broken(edges=[["t0", "t1"], ["t1", "t9"]]), r"^edges\[1\]: unknown id 't9'"),
        (_broken(edges=[["t0", "t1"], ["t1"]]), r"^edges\[1\]: an edge is a pair"),
        (_broken(edges=[["t0", 1]]), r"^edges\[0\]: ids are strings"),
        (_broken(edges=[["t1", "t1"]]), r"^edges\[0\]: a cell cannot be its own neighbour"),
        (
            _broken(edges=[["t0", "t1"], ["t1", "t2"], ["t1", "t0"]]),
            r"^edges\[2\]: repeats the pair 't1', 't0' \(edges\[0\]\)",
        ),
    ],
)
def test_malformed_files_name_what_and_where(data: dict[str, Any], message: str) -> None:
    with pytest.raises(GraphFileError, match=message):
        _read(data)


def test_text_that_is_not_json_or_not_an_object() -> None:
    with pytest.raises(GraphFileError, match="not JSON"):
        read_graph('{"format": "mine-devil-graph",')
    with pytest.raises(GraphFileError, match="a graph board is a JSON object"):
        read_graph("[1, 2]")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            _broken(cells=[{"id": "a", "state": ".", "polygon": [[0, 0], [1e308, 0], [0, 1]]}]),
            r"^cells\[0\]\.polygon\[1\]: must be a point \[x, y\] of two numbers from -1e\+09",
        ),
        (
            _broken(cells=[{"id": "a", "state": "."}, {"id": "b", "state": ".", "at": [0, -2e9]}]),
            r"^cells\[1\]\.at: must be a point",
        ),
        (
            _broken(
                cells=[{"id": "a", "state": ".", "polygon3d": [[0, 0, 0], [1, 0, 0], [0, 0, 1e10]]}]
            ),
            r"^cells\[0\]\.polygon3d\[2\]: must be a point \[x, y, z\] of three numbers from",
        ),
        (
            _broken(cells=[{"id": "t0", "state": "."}, {"id": "\ud800", "state": "."}], edges=[]),
            r"^cells\[1\]\.id: has a lone surrogate \(\\ud800\), not Unicode text",
        ),
        (
            _broken(cells=[{"id": "t0", "state": ".", "label": "x\udfff"}], edges=[]),
            r"^cells\[0\]\.label: has a lone surrogate",
        ),
    ],
)
def test_hostile_drawings_and_text_are_named(data: dict[str, Any], message: str) -> None:
    """Coordinates of 1e308 overflowed the layout's spans to inf (OverflowError, a 500 on
    the web); a lone surrogate is valid JSON but no page or file can carry it."""
    with pytest.raises(GraphFileError, match=message):
        _read(data)


def test_far_flung_and_tiny_drawings_lay_out() -> None:
    """Spans of 1e-320 next to 1e9 made the layout's band count inf (OverflowError)."""
    tiny = [[0, 0], [5e-324, 0], [0, 5e-324]]
    data = _broken(
        cells=[
            {"id": "a", "state": ".", "polygon": tiny},
            {"id": "b", "state": 1, "polygon": [[0, 1e9], [5e-324, 1e9], [0, 1e9]]},
        ],
        edges=[["a", "b"]],
    )
    assert _read(data).board.cell_count == 2
    spread = [{"id": k, "state": ".", "at": at} for k, at in
              (("a", [0, 0]), ("b", [5e-324, 1e9]), ("c", [0, -1e9]))]  # fmt: skip
    assert _read(_broken(cells=spread, edges=[["a", "b"]])).board.cell_count == 3


@pytest.mark.parametrize("where", ["cells", "unknown"])
def test_a_file_nested_too_deep_is_named(where: str) -> None:
    """100,000 nested brackets raised RecursionError (a 500, a traceback from devil-check)."""
    deep = "[" * 100_000 + "]" * 100_000
    head = '{"format": "mine-devil-graph", "version": 1, '
    text = head + (f'"cells": {deep}}}' if where == "cells" else f'"x": {deep}, "cells": []}}')
    assert looks_like_graph(text)
    for given in (text, text.encode()):
        with pytest.raises(GraphFileError, match=r"^its arrays and objects nest too deep"):
            read_graph(given)


def test_a_number_above_its_neighbours_is_inconsistent_naming_the_id() -> None:
    data = _broken(cells=[{"id": "lonely", "state": 3}, {"id": "b", "state": "."}],
                   edges=[["lonely", "b"]])  # fmt: skip
    with pytest.raises(InconsistentPosition, match="the 3 at cell lonely has only 1 neighbour"):
        _read(data)


def test_an_unsatisfiable_number_names_its_id() -> None:
    from devil.solver import classify

    data = _broken(
        cells=[
            {"id": "a", "state": 2},
            {"id": "b", "state": "."},
            {"id": "c", "state": "."},
            {"id": "d", "state": 0},
        ],
        edges=[["a", "b"], ["a", "c"], ["d", "b"]],
    )
    position = _read(data)
    with pytest.raises(InconsistentPosition, match=r"cell a|cell d"):
        classify(position)


def _only_compiled_for_text(reader: str) -> None:
    """A million pairs are read from their text by a loop per byte: run it compiled."""
    if reader == "text" and native.ENGINE != "compiled":
        pytest.skip("a million pairs read from their text by the pure-Python loop")


def test_size_bounds_refuse_clearly(reader: str) -> None:
    _only_compiled_for_text(reader)
    cells = [{"id": str(i), "state": "."} for i in range(100_001)]
    with pytest.raises(GraphFileError, match=r"^cells: 100,001 cells; .* at most 100,000"):
        _read(_broken(cells=cells, edges=[]))
    edges = [["t0", "t1"]] * 1_000_001
    with pytest.raises(GraphFileError, match=r"^edges: 1,000,001 pairs; .* at most 1,000,000"):
        _read(_broken(edges=edges))


@pytest.fixture(scope="module")
def large_text() -> str:
    """100,000 cells, each paired with the next ten: written once for the three readers
    (writing it took as long as reading it), dropped after this module."""
    n = 100_000
    cells = [{"id": f"c{i}", "state": "."} for i in range(n)]
    edges = [[f"c{i}", f"c{(i + k) % n}"] for i in range(n) for k in range(1, 11)]
    return json.dumps({**EXAMPLE, "cells": cells, "edges": edges})


def test_a_large_graph_reads(reader: str, large_text: str) -> None:
    """100,000 cells and a million edges read (the benchmark times it: under 1 s)."""
    _only_compiled_for_text(reader)
    n = 100_000
    position = read_graph(large_text)
    assert position.board.cell_count == n
    layout = position.board.graph
    assert layout is not None
    assert len(position.board.neighbours(layout.cell("c5"))) == 20
