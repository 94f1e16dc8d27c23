"""The plain-text move list: round trips and errors named by line and column."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.game import GameParams, Move
from devil.ledger.annotate import annotate, annotate_game, final_board
from devil.ledger.replays import ReplayFormatError, read_replay
from devil.ledger.replays.movelist import HEADER, read_movelist, write_movelist
from devil.rules import Count, Mercy, Rules
from tests.helpers.games import random_game, small_games
from tests.helpers.strategies import profile

EXAMPLE = """\
# Mine Devil move list 1
board 4x4 square
mines 2
rules classic/strict
no-guess no
layout 0,0 0,3
moves
0.000 reveal 3 0
0.500 flag 0 0
1.000 flag 0 3
1.750 reveal 0 1
2.000 reveal 0 2
"""


def test_the_documented_example_reads_and_annotates() -> None:
    replay = read_movelist(EXAMPLE)
    assert replay.params == GameParams(4, 4, 2, no_guess=False)
    assert replay.layout == frozenset({0, 3})
    assert replay.moves[0] == Move.reveal(3, 0)
    assert replay.times == (0.0, 0.5, 1.0, 1.75, 2.0)
    assert replay.seconds == 2.0
    assert replay.layout is not None
    notes = annotate(replay.params, replay.moves, replay.layout, seconds=replay.seconds)
    assert [n.level for n in notes.moves] == [None, None, None, 1, 1]
    assert read_replay(EXAMPLE.encode()) == replay


@profile()
@given(small_games(), st.booleans(), st.booleans())
def test_a_game_round_trips(game: object, with_times: bool, with_seed: bool) -> None:
    from devil.game import Game

    assert isinstance(game, Game)
    times = [i * 0.25 for i in range(len(game.moves))] if with_times else None
    layout = final_board(game)
    text = write_movelist(game.params, game.moves, times, layout, seed=with_seed)
    replay = read_movelist(text)
    expected = game.params if with_seed else dataclasses.replace(game.params, seed=0)
    assert replay.params == expected
    assert replay.moves == game.moves
    assert replay.layout == layout
    assert replay.times == (tuple(times) if times else (None,) * len(game.moves))
    if layout is not None and game.moves:
        assert annotate(replay.params, replay.moves, layout) == annotate_game(game)


def test_rules_holes_and_topology_round_trip() -> None:
    params = GameParams(
        6, 7, 5, holes=frozenset({3, 10}), rules=Rules(Count.COUNTED, Mercy.FAIR), seed=9
    )
    game = random_game(params, random.Random(2))
    replay = read_movelist(write_movelist(params, game.moves, seed=True))
    assert replay.params == params
    assert replay.layout is None


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("", 1, None, "empty move list"),
        ("hello\n", 1, 1, "expected the header"),
        ("# Mine Devil move list 7\n", 1, 24, "version '7' is not known"),
        (f"{HEADER}\nboard 4x4\nmines 2\n", 4, None, "no 'moves' line"),
        (f"{HEADER}\nboard 4x4\nmines 2\ncolour red\nmoves\n", 4, 1, "unknown field 'colour'"),
        (f"{HEADER}\nboard 4x4\nboard 4x4\nmines 2\nmoves\n", 3, 1, "given twice"),
        (f"{HEADER}\nboard 4by4\nmines 2\nmoves\n", 2, 7, "expected HEIGHTxWIDTH"),
        (f"{HEADER}\nboard 4x4 cube\nmines 2\nmoves\n", 2, 11, "unknown topology 'cube'"),
        (f"{HEADER}\nmines 2\nmoves\n", 2, None, "missing field 'board'"),
        (f"{HEADER}\nboard 4x4\nmines two\nmoves\n", 3, 7, "mines 'two' is not a whole"),
        (f"{HEADER}\nboard 4x4\nmines 2\nrules classic/kind\nmoves\n", 4, 15, "mercy rule 'kind'"),
        (f"{HEADER}\nboard 4x4\nmines 2\nrules easy\nmoves\n", 4, 7, "count rule 'easy'"),
        (f"{HEADER}\nboard 4x4\nmines 2\nno-guess maybe\nmoves\n", 4, 10, "expected yes or no"),
        (f"{HEADER}\nboard 4x4\nmines 2\nlayout 0,0 9,9\nmoves\n", 4, 12, "'9,9' is off the 4x4"),
        (f"{HEADER}\nboard 4x4\nmines 2\nlayout 0,0 1-1\nmoves\n", 4, 12, "expected ROW,COL"),
        (f"{HEADER}\nboard 4x4\nmines 20\nmoves\n", 2, 7, "20 mines do not fit"),
        (
            f"{HEADER}\nboard 4x4\nmines 3\nrules counted/strict\nlayout 0,0 0,3\nmoves\n",
            5,
            8,
            "the layout has 2 mines but 'mines' says 3",
        ),
        (f"{HEADER}\nboard 4x4\nmines 2\nmoves\nreveal 1\n", 5, 1, "expected a move"),
        (f"{HEADER}\nboard 4x4\nmines 2\nmoves\nprobe 1 1\n", 5, 1, "unknown move 'probe'"),
        (f"{HEADER}\nboard 4x4\nmines 2\nmoves\nreveal 1 x\n", 5, 10, "column 'x' is not"),
        (f"{HEADER}\nboard 4x4\nmines 2\nmoves\nsoon reveal 1 1\n", 5, 1, "time 'soon'"),
        (
            f"{HEADER}\nboard 4x4\nmines 2\nmoves\n2.0 reveal 1 1\n1.0 flag 0 0\n",
            6,
            1,
            "earlier than the move before",
        ),
        (
            f"{HEADER}\nboard 4x4\nmines 2\nmoves\n2.0 reveal 1 1\nflag 0 0\n",
            6,
            1,
            "give times on all moves or none",
        ),
    ],
)
def test_errors_name_line_and_column(
    text: str, line: int, column: int | None, message: str
) -> None:
    with pytest.raises(ReplayFormatError, match=message) as e:
        read_movelist(text)
    assert (e.value.line, e.value.column) == (line, column)
    where = f"line {line}" + (f", column {column}" if column is not None else "")
    assert str(e.value).startswith(where + ": ")


def test_unknown_bytes_are_not_a_replay() -> None:
    with pytest.raises(ReplayFormatError, match="byte 0: not a replay"):
        read_replay(b"\x00\x01garbage")


# -- graph games --------------------------------------------------------------------------

FAR_FLUNG = {  # a custom board with ids spaced at either end, drawn far out (stored before
    "format": "mine-devil-graph",  # the +-1e9 bound): its export must still import
    "version": 1,
    "cells": [
        {"id": " a", "state": ".", "at": [0, 0], "label": "left"},
        {"id": "b ", "state": ".", "at": [1e12, 0]},
        {"id": "c", "state": ".", "polygon": [[0, 5], [1, 5], [0.5, 6]]},
        *({"id": f"d{i}", "state": ".", "at": [i, 9]} for i in range(9)),
    ],
    "edges": [[" a", "b "], ["b ", "c"], ["c", "d0"], *([f"d{i}", f"d{i + 1}"] for i in range(8))],
}


def _graph_games() -> list[GameParams]:
    from devil.game import GraphSpec

    custom = GraphSpec.stored(json.dumps(FAR_FLUNG))
    return [
        GameParams(mines=8, graph=GraphSpec("penrose", (60,)), seed=3, version=2),
        GameParams(
            mines=6,
            graph=GraphSpec("cube", (2,), sides=True),
            seed=4,
            no_guess=False,
            rules=Rules(Count.COUNTED, Mercy.FAIR),
        ),
        GameParams(mines=3, graph=custom, seed=7, version=2, no_guess=False),
    ]


@pytest.mark.parametrize("params", _graph_games(), ids=["penrose-v2", "cube-sides-v1", "custom"])
def test_a_graph_game_exports_and_imports_to_the_same_game(params: GameParams) -> None:
    from devil.game import Game

    game = random_game(params, random.Random(params.seed))
    assert game.moves
    layout = final_board(game)
    text = write_movelist(
        params, game.moves, [0.5 * i for i in range(len(game.moves))], layout, seed=True
    )
    assert "board " in text and ("tiling " in text or "graph {" in text)
    replay = read_replay(text.encode(), name="game.moves")
    assert replay.params == params  # the same board (cells, drawing, rule) and version
    assert replay.moves == game.moves and replay.layout == layout
    again = Game.replay(replay.params, replay.moves)
    assert (again.position, again.status, again.witness, again.layout) == (
        game.position, game.status, game.witness, game.layout,
    )  # fmt: skip
    if layout is not None:
        assert annotate(replay.params, replay.moves, layout) == annotate_game(game)


def test_a_grid_game_writes_no_graph_lines() -> None:
    params = GameParams(5, 6, 4, seed=2)
    text = write_movelist(params, random_game(params, random.Random(1)).moves, seed=True)
    assert text.splitlines()[1:6] == [
        "board 5x6 square", "mines 4", "rules classic/strict", "no-guess yes", "seed 2",
    ]  # fmt: skip


_G = f"{HEADER}\nboard 7x13 graph\n"


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (f"{_G}mines 2\nmoves\n", 2, 12, "needs a 'tiling' line"),
        (f"{_G}tiling penrose 60 corners\ngraph {{}}\nmines 2\nmoves\n", 4, 7, "not both"),
        (f"{_G}tiling hexagonal 9 9\nmines 2\nmoves\n", 3, 8, "unknown tiling 'hexagonal'"),
        (f"{_G}tiling penrose\nmines 2\nmoves\n", 3, 8, "expected NAME SIZE"),
        (f"{_G}tiling square 9 x9 corners\nmines 2\nmoves\n", 3, 17, "size 'x9' is not"),
        (f"{_G}tiling square 9 corners\nmines 2\nmoves\n", 3, 8, "takes 2 whole numbers"),
        (f"{_G}tiling penrose 99999999\nmines 2\nmoves\n", 3, 8, "too big"),
        (f"{_G}tiling penrose 60\nmines 2\nmoves\nreveal 0 0\n", 2, 7, "sit on a 6x14 grid"),
        (f"{_G}tiling penrose 60\nmines 2\ngame-version 9\nmoves\n", 5, 14, "game-version 9 is"),
        (f"{_G}tiling penrose 60\nmines 99\nmoves\n", 3, 8, "99 mines do not fit"),
        (f"{_G}tiling penrose 60\nholes 0,0\nmines 2\nmoves\n", 4, 7, "holes are for grid"),
        (f'{_G}graph {{"format": 1\nmines 2\nmoves\n', 3, 7, "graph: not JSON"),
        (f"{_G}graph {'[' * 100_000}\nmines 2\nmoves\n", 3, 7, "graph: its arrays"),
        (
            f'{_G}graph {{"format": "mine-devil-graph", "version": 1, "cells": [{{"id": "a",'
            ' "state": "."}], "edges": [["a", "z"]]}\nmines 0\nmoves\n',
            3,
            7,
            r"graph.edges\[0\]: unknown id 'z'",
        ),
        (f"{HEADER}\nboard 4x4\ntiling penrose 60\nmines 2\nmoves\n", 3, 1, "must say 'graph'"),
    ],
)
def test_graph_errors_name_line_and_column(
    text: str, line: int, column: int | None, message: str
) -> None:
    test_errors_name_line_and_column(text, line, column, message)


def test_a_graph_layout_names_only_cells_of_the_board() -> None:
    params = _graph_games()[0]
    board = params.board()
    empty = next(iter(board.holes))  # a place on the virtual grid without a cell
    text = write_movelist(params, [], seed=True).replace(
        "moves\n", "layout {},{}\nmoves\n".format(*board.coord(empty))
    )
    with pytest.raises(ReplayFormatError, match="is not a cell of the graph board"):
        read_movelist(text)
