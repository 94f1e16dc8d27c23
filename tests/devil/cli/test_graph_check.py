"""``devil-check`` on graph boards: one ``ID S|M|?`` line per covered cell in file order,
JSON keyed by id, ``--cell ID`` with today's exit codes, named errors; checked against the
oracle on random graphs and tilings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil import oracle
from devil.cli.check import main
from devil.graphs.fileformat import read_graph, write_graph
from devil.rules import Count
from tests.helpers.graph_strategies import graph_boards, tiling_boards
from tests.helpers.strategies import Scenario, profile, scenarios

BOARD: dict[str, Any] = {
    "format": "mine-devil-graph",
    "version": 1,
    "cells": [
        {"id": "hub", "state": 10},
        *({"id": f"s{i}", "state": "."} for i in range(10)),
        {"id": "far", "state": "F"},
        {"id": "lone", "state": "."},
    ],
    "edges": [*(["hub", f"s{i}"] for i in range(10)), ["s9", "far"]],
    "mines": 11,
}


def _run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, *args: str
) -> tuple[int, str, str]:
    path = tmp_path / "board.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    code = main([str(path), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_lists_covered_cells_in_file_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(tmp_path, capsys, BOARD)
    assert code == 0
    lines = out.splitlines()
    assert lines[:12] == [*(f"s{i} M" for i in range(10)), "far ?", "lone ?"]
    assert lines[12] == "12 covered: 0 safe, 10 mine, 2 either (classic rule)"


def test_counted_and_mines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(tmp_path, capsys, BOARD, "--counted")
    assert code == 0
    assert "far ?" in out and "(counted rule, 11 mines)" in out
    code, out, _ = _run(tmp_path, capsys, BOARD, "--mines", "10")
    assert out.splitlines()[10:12] == ["far S", "lone S"]


def test_json_is_keyed_by_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        tmp_path, capsys, BOARD, "--format", "json", "--probabilities", "--cell", "s3",
        "--witness", "--explain",
    )  # fmt: skip
    assert code == 1
    data = json.loads(out)
    assert data["cells"][0] == {"id": "s0", "verdict": "mine"}
    assert len(data["cells"]) == 12
    assert data["summary"] == {"covered": 12, "safe": 0, "mine": 10, "either": 2}
    assert data["topology"] == "graph"
    assert {"id": "s3", "probability": 1.0} in data["probabilities"]
    assert data["cell"] == {"id": "s3", "verdict": "mine", "could_be_mine": True}
    assert set(data["witness"]) >= {f"s{i}" for i in range(10)}
    assert data["proof"]["numbers"] == ["hub"]
    assert "The 10 at cell hub" in data["proof"]["steps"][0]


def test_cell_by_id_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = {**BOARD, "cells": [*BOARD["cells"][:-1], {"id": "lone", "state": 0}]}
    board["edges"] = [*BOARD["edges"], ["lone", "far"]]
    code, out, _ = _run(tmp_path, capsys, board, "--cell", "far")
    assert code == 0 and "cell far: safe" in out
    assert _run(tmp_path, capsys, board, "--cell", "s1")[0] == 1
    code, _, err = _run(tmp_path, capsys, board, "--cell", "nobody")
    assert code == 2 and "no cell of the board has that id" in err
    code, _, err = _run(tmp_path, capsys, board, "--cell", "hub")
    assert code == 2 and "already revealed (a 10)" in err
    for option in ("--witness", "--explain"):  # a graph's cell is named by id, not ROW,COL
        code, _, err = _run(tmp_path, capsys, board, option)
        assert code == 2 and f"{option} needs --cell ID" in err


def test_cell_ids_match_exactly_first_then_without_spaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the game form, the API and the analysis board: `` s1`` is the id `` s1`` when
    the board has one, else ``s1``."""
    board = {**BOARD, "cells": [*BOARD["cells"], {"id": " s1", "state": 0}]}
    code, _, err = _run(tmp_path, capsys, board, "--cell", " s1")
    assert code == 2 and "already revealed (a 0)" in err  # the exact id: the revealed 0
    code, out, _ = _run(tmp_path, capsys, board, "--cell", "far ")
    assert code == 1 and "cell far: could be a mine" in out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"edges": [["hub", "x"]]}, "edges[0]: unknown id 'x'"),
        ({"cells": [{"id": "a", "state": "?"}]}, "cells[0].state:"),
        ({"cells": [{"id": "a", "state": "."}, {"id": "a", "state": "."}]}, "duplicate id 'a'"),
        ({"edges": [["hub", "hub"]]}, "edges[0]: a cell cannot be its own neighbour"),
    ],
)
def test_malformed_files_exit_2_naming_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], message: str
) -> None:
    code, _, err = _run(tmp_path, capsys, {**BOARD, **change}, "--input-format", "graph")
    assert code == 2
    assert message in err


@pytest.mark.parametrize("change", [{"format": "mine-devil-grap"}, {"format": None}])
def test_a_json_object_that_is_not_a_graph_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any]
) -> None:
    """Not a grid reader's "unexpected token '{"format":'" at line 1, column 1."""
    board = {k: v for k, v in {**BOARD, **change}.items() if v is not None}
    code, _, err = _run(tmp_path, capsys, board)
    assert code == 2
    assert 'a JSON object without "format": "mine-devil-graph"' in err


def test_input_format_graph_reads_an_object_without_its_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message for such a file says "or read the file as a graph board with
    --input-format graph", which answered "format: must be 'mine-devil-graph'"."""
    board = {k: v for k, v in BOARD.items() if k != "format"}
    code, _, err = _run(tmp_path, capsys, board)
    assert code == 2 and "--input-format graph" in err
    code, out, _ = _run(tmp_path, capsys, board, "--input-format", "graph")
    assert code == 0
    assert "12 covered: 0 safe, 10 mine, 2 either" in out
    code, _, err = _run(tmp_path, capsys, {**BOARD, "format": "x"}, "--input-format", "graph")
    assert code == 2 and "format: must be 'mine-devil-graph'" in err


def test_a_broken_graph_file_says_where_it_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file cut short was "a JSON object without "format": ..." though it has one."""
    text = json.dumps(BOARD, indent=1)
    code, _, err = _run(tmp_path, capsys, text[: text.index('"edges"')])
    assert code == 2
    assert "board.json: not JSON: " in err and "line " in err
    assert "without" not in err


@pytest.mark.parametrize("input_format", ["auto", "graph"])
def test_hostile_files_exit_2_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], input_format: str
) -> None:
    """RecursionError, OverflowError and UnicodeEncodeError were tracebacks (exit 1: "could
    be a mine"). A coordinate that is no finite number (NaN, Infinity, 1e999: ``json``
    reads all three) is exit 2 naming the path."""
    deep = '{"format": "mine-devil-graph", "version": 1, "cells": ' + "[" * 100_000
    lone = {**BOARD, "cells": [{"id": "\ud800", "state": "."}], "edges": []}  # fmt: skip
    head = '{"format": "mine-devil-graph", "version": 1, "edges": [], "cells": '
    for data, message in (
        (deep + "]" * 100_000 + "}", "nest too deep"),
        (lone, "cells[0].id: has a lone surrogate"),
        (head + '[{"id": "a", "state": ".", "at": [0, NaN]}]}', "cells[0].at: must be a point"),
        (
            head + '[{"id": "a", "state": "."}, {"id": "b", "state": ".", '
            '"polygon": [[0, 0], [1, 0], [-Infinity, 1]]}]}',
            "cells[1].polygon[2]: must be a point [x, y] of two finite numbers",
        ),
        (
            head
            + '[{"id": "a", "state": ".", "polygon3d": [[0, 0, 0], [1, 0, 0], [0, 0, 1e999]]}]}',
            "cells[0].polygon3d[2]: must be a point [x, y, z] of three finite numbers",
        ),
    ):
        code, _, err = _run(tmp_path, capsys, data, "--input-format", input_format)
        assert code == 2 and message in err, err


def test_far_flung_drawings_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """devil-check never draws: any finite coordinate is read, as it was before new boards
    on the web were bounded to +-1e9 (1e12 was refused, exit 2; 1e308 a traceback)."""
    far = {
        **BOARD,
        "cells": [
            {"id": "a", "state": 1, "at": [1e308, 1e308]},
            {"id": "b", "state": ".", "at": [-1e308, -1e308]},
            {"id": "c", "state": ".", "polygon": [[0, 0], [1e12, 0], [0, -1e12]]},
        ],
        "edges": [["a", "b"], ["b", "c"]],
        "mines": 1,
    }
    code, out, _ = _run(tmp_path, capsys, far, "--cell", "c", "--counted")
    assert code == 0 and out.splitlines()[:2] == ["b M", "c S"]


def test_inconsistent_numbers_exit_3_naming_the_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    too_big = {**BOARD, "cells": [{"id": "x", "state": 2}, {"id": "y", "state": "."}],
               "edges": [["x", "y"]]}  # fmt: skip
    code, _, err = _run(tmp_path, capsys, too_big)
    assert code == 3 and "the 2 at cell x has only 1 neighbour" in err
    clash = {
        **BOARD,
        "cells": [{"id": "a", "state": 1}, {"id": "b", "state": "."}, {"id": "c", "state": 0}],
        "edges": [["a", "b"], ["b", "c"]],
    }
    code, _, err = _run(tmp_path, capsys, clash)
    assert code == 3 and ("cell a" in err or "cell c" in err)


def test_topology_is_refused_and_grids_are_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(tmp_path, capsys, BOARD, "--topology", "hex")
    assert code == 2 and "--topology is for grid boards" in err
    code, out, _ = _run(tmp_path, capsys, "1.\n..\n")
    assert code == 0 and out.splitlines()[0] == "1?"
    code, _, err = _run(tmp_path, capsys, "1.\n..\n", "--cell", "x")
    assert code == 2 and "argument --cell: expected ROW,COL" in err


@profile()
@given(scenarios(graph_boards() | tiling_boards()), st.sampled_from(Count))
def test_verdicts_match_the_oracle(scenario: Scenario, count: Count) -> None:
    import contextlib
    import io
    import tempfile

    position = scenario.position
    layout = position.board.graph
    assert layout is not None
    truth = oracle.classify(position, count)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "board.json"
        path.write_text(write_graph(position))
        assert read_graph(path.read_text()) == position
        out = io.StringIO()
        args = [str(path), "--format", "json"] + (["--counted"] if count is Count.COUNTED else [])
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(args) == 0
    got = {c["id"]: c["verdict"] for c in json.loads(out.getvalue())["cells"]}
    covered = [c for c in layout.slots if position.is_covered(c)]
    assert list(got) == [layout.id(c) for c in covered]
    for cell in covered:
        assert got[layout.id(cell)] == truth.verdict(cell).value
