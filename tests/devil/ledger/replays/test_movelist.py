"""The plain-text move list: round trips and errors named by line and column."""

from __future__ import annotations

import dataclasses
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
