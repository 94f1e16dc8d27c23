"""A graph game's move list names cells by id; old files (by the virtual grid) still read."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devil.board import Board, BoardError
from devil.game import Game, GameParams, GraphSpec
from devil.graphs.ids import quote_id
from devil.ledger.annotate import annotate, annotate_game, final_board
from devil.ledger.replays import ReplayFormatError, read_replay
from devil.ledger.replays.cell_names import words
from devil.ledger.replays.movelist import HEADER, read_movelist, write_movelist
from tests.helpers.games import random_game
from tests.helpers.strategies import profile

PENROSE = GameParams(mines=8, graph=GraphSpec("penrose", (60,)), seed=3, version=2)

OLD_EXPORT = """\
# Mine Devil move list 1
board 6x14 graph
tiling penrose 60 corners
game-version 2
mines 8
rules classic/strict
no-guess yes
seed 3
layout 0,1 1,3 1,4 2,7 3,7 3,11 4,0 4,3
moves
0.000 flag 3 0
0.500 unflag 3 0
1.000 reveal 0 4
1.500 reveal 3 9
2.000 reveal 2 4
2.500 flag 2 7
"""
"""``main`` at 949f08a's export of the first six moves of a seeded Penrose game."""

ODD_IDS = [" a", "b ", "North pole", 'say "hi"', "back\\slash", "tab\there", "line\nbreak",
           "x\u2028y", "z\x85", "#c", "1,2", "3 4", "é漢🙂", "  ", "e" * 40]  # fmt: skip


def _odd_board() -> GraphSpec:
    cells = [{"id": i, "state": ".", "at": [k % 5, k // 5]} for k, i in enumerate(ODD_IDS)]
    edges = [[ODD_IDS[k], ODD_IDS[k + 1]] for k in range(len(ODD_IDS) - 1)]
    file = {"format": "mine-devil-graph", "version": 1, "cells": cells, "edges": edges}
    return GraphSpec.custom(file)


def _export(params: GameParams, seed: int) -> tuple[Game, str]:
    game = random_game(params, random.Random(seed))
    times = [0.5 * i for i in range(len(game.moves))]
    return game, write_movelist(params, game.moves, times, final_board(game), seed=True)


def test_a_graph_export_names_each_move_and_mine_by_id() -> None:
    game, text = _export(PENROSE, 3)
    board = PENROSE.board()
    moves = text.split("\nmoves\n")[1].splitlines()
    for move, line in zip(game.moves, moves, strict=True):
        cell = json.dumps(board.cell_id(move.row, move.col))
        assert line.endswith(f" {move.kind.value} {cell}")
    layout_line = next(x for x in text.splitlines() if x.startswith("layout "))
    assert layout_line.split()[1].startswith('"')
    assert text.splitlines()[1] == "board 6x14 graph"  # still there: old readers' board line


def test_an_old_export_of_a_graph_game_reads_as_before() -> None:
    old = read_movelist(OLD_EXPORT)
    game = random_game(PENROSE, random.Random(3))
    assert old.params == PENROSE and old.moves == game.moves[:6]
    assert old.layout == final_board(game)
    new = read_movelist(write_movelist(PENROSE, old.moves, old.times, old.layout, seed=True))
    assert new == old
    mixed = OLD_EXPORT.replace("1.000 reveal 0 4", f"1.000 reveal {quote_id('k4')}")
    board = PENROSE.board()
    assert board.cell_id(0, 4) != "k4"
    assert read_movelist(mixed).moves[2] == type(old.moves[2])(
        old.moves[2].kind,
        *board.coord(board.graph.cell("k4")),  # type: ignore[union-attr]
    )


def test_odd_ids_round_trip_through_a_whole_game() -> None:
    params = GameParams(mines=3, graph=_odd_board(), seed=5, version=2, no_guess=False)
    game, text = _export(params, 5)
    assert len(text.splitlines()) == text.count("\n")  # every id on its own line
    replay = read_replay(text.encode(), name="game.moves")
    assert replay.params == params and replay.moves == game.moves
    assert replay.layout == final_board(game)
    again = Game.replay(replay.params, replay.moves)
    assert (again.position, again.status, again.witness) == (
        game.position, game.status, game.witness,
    )  # fmt: skip
    if replay.layout is not None:
        assert annotate(replay.params, replay.moves, replay.layout) == annotate_game(game)


_ID = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)  # no lone surrogates


@profile()
@given(st.lists(_ID, min_size=1, max_size=4))
def test_quoted_ids_read_back_as_one_word_each(ids: list[str]) -> None:
    line = "layout " + " ".join(quote_id(i) for i in ids)
    assert line.splitlines() == [line]
    assert [w.text for w in words(line, 1, 1)[1:]] == ids


def _with_moves(*moves: str) -> str:
    head = OLD_EXPORT.split("moves\n")[0].replace("layout 0,1 1,3 1,4 2,7 3,7 3,11 4,0 4,3\n", "")
    return head + "moves\n" + "".join(m + "\n" for m in moves)


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (_with_moves('reveal "nope"'), 10, 8, "unknown cell id 'nope'"),
        (_with_moves('0.5 reveal "k4"', 'reveal "k4"'), 11, 1, "has no time"),
        (_with_moves('reveal "a4'), 10, 8, "not a JSON string"),
        (_with_moves('reveal "k4"x'), 10, 12, "a space after"),
        (_with_moves('reveal "k4" "k5"'), 10, 8, "expected a move"),
        (_with_moves("reveal a4"), 10, 1, 'reveal "t17"'),
        (_with_moves('"k4" reveal 0 1'), 10, 1, "expected a move"),
        (OLD_EXPORT.replace("layout 0,1", 'layout "zz" 0,1'), 9, 8, "unknown cell id 'zz'"),
        (OLD_EXPORT.replace("layout 0,1", 'layout "k4" "k4"'), 9, 13, "given twice"),
        (OLD_EXPORT.replace("6x14", "7x13"), 2, 7, "sit on a 6x14 grid"),
        (
            f'{HEADER}\nboard 4x4\nmines 2\nmoves\nreveal "0"\n',
            5,
            8,
            "named by id on graph boards only",
        ),
        (f'{HEADER}\nboard 4x4\nmines 2\nlayout "0"\nmoves\n', 4, 8, "graph boards only"),
    ],
)
def test_id_errors_name_line_column_and_id(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(ReplayFormatError, match=message) as e:
        read_movelist(text)
    assert (e.value.line, e.value.column) == (line, column)


def test_a_file_by_id_does_not_depend_on_where_cells_sit() -> None:
    """The board line's grid is only checked when a cell is named by ROW COL."""
    game, text = _export(PENROSE, 3)
    moved = text.replace("board 6x14 graph", "board 7x13 graph")
    assert read_movelist(moved).moves == game.moves


def test_one_method_names_a_graph_cell() -> None:
    board = PENROSE.board()
    assert board.graph is not None
    cell = board.graph.cell("k4")
    assert board.cell_id(*board.coord(cell)) == "k4"
    with pytest.raises(BoardError, match="grid"):
        Board(3, 3).cell_id(0, 0)
