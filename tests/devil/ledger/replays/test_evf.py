"""EVF round trips through ms-toollib (an independent reader and writer) and our own reader."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil.board import Topology
from devil.game import Game, GameParams, MoveKind, Status
from devil.ledger.annotate import annotate, final_board
from devil.ledger.replays import read_replay
from devil.ledger.replays.evf import EvfError, read_evf, write_evf
from devil.ledger.replays.movelist import read_movelist
from devil.rules import Mercy, Rules
from tests.helpers.games import random_game
from tests.helpers.paths import REPLAYS
from tests.helpers.strategies import profile

ms = pytest.importorskip("ms_toollib")


@st.composite
def games(draw: st.DrawFn) -> Game:
    height, width = draw(st.integers(4, 9)), draw(st.integers(4, 9))
    mines = draw(st.integers(1, min(12, height * width - 9)))
    mercy = draw(st.sampled_from(list(Mercy)))
    params = GameParams(
        height, width, mines, rules=Rules(mercy=mercy), seed=draw(st.integers(0, 99))
    )
    game = random_game(params, random.Random(draw(st.integers(0, 10**6))), max_moves=150)
    assume(game.moves and final_board(game) is not None)
    return game


def exported(game: Game) -> bytes:
    layout = final_board(game)
    assert layout is not None
    times = [0.25 * i for i in range(len(game.moves))]
    return write_evf(
        game.params, game.moves, times, layout, won=game.status is Status.WON, player="Ann"
    )


def counts(game: Game) -> tuple[int, int, int]:
    kinds = [m.kind for m in game.moves]
    return (
        kinds.count(MoveKind.REVEAL),
        kinds.count(MoveKind.FLAG) + kinds.count(MoveKind.UNFLAG),
        kinds.count(MoveKind.CHORD),
    )


@profile()
@given(games())
def test_ms_toollib_reads_our_export_as_the_same_board_and_clicks(game: Game) -> None:
    video = ms.EvfVideo("game.evf", list(exported(game)))
    video.parse()
    video.analyse()
    video.current_time = 1e9
    board = game.params.board()
    assert (video.row, video.column) == (board.height, board.width)
    layout = final_board(game)
    assert layout is not None
    assert video.mine_num == len(layout)
    mined = {(r, c) for r, row in enumerate(video.board) for c, v in enumerate(row) if v == -1}
    assert mined == {board.coord(c) for c in layout}
    assert video.player_identifier == "Ann"
    assert video.bbbv == annotate(game.params, game.moves, layout).metrics.bbbv
    assert video.is_completed == (game.status is Status.WON)
    shown = video.game_board
    for cell in board.cells():
        number = game.position.number(cell)
        r, c = board.coord(cell)
        if number is not None:
            assert shown[r][c] == number
    if game.moves[0].kind is MoveKind.REVEAL:  # ms-toollib ignores marks made before the start
        assert (video.left, video.right, video.double) == counts(game)


@profile()
@given(games())
def test_our_reader_reads_our_export_back(game: Game) -> None:
    data = exported(game)
    replay = read_evf(data)
    assert replay.moves == game.moves
    assert replay.layout == final_board(game)
    assert replay.params.height == game.params.height
    assert replay.params.rules.mercy is game.params.rules.mercy
    assert replay.times == pytest.approx([0.25 * i for i in range(len(game.moves))])
    assert replay.player == "Ann" and replay.software == "Mine Devil"
    assert read_replay(data) == replay


@pytest.mark.parametrize("name", ["won-chords", "lost", "fair"])
def test_our_reader_reads_what_ms_toollib_writes(name: str) -> None:
    """Fixtures written by ms-toollib (EVF v0.4: delta-coded events, board events, a checksum;
    see tests/data/replays/make_evf_fixtures.py) read as the game recorded."""
    expected = read_movelist((REPLAYS / f"{name}.moves").read_text())
    replay = read_evf((REPLAYS / f"{name}.evf").read_bytes())
    assert replay.moves == expected.moves
    assert replay.layout == expected.layout
    assert replay.params.height == expected.params.height
    assert replay.params.width == expected.params.width


def test_errors_name_the_byte() -> None:
    params = GameParams(4, 4, 2, no_guess=False)
    game = random_game(params, random.Random(1))
    data = exported(game)
    with pytest.raises(EvfError, match=r"^byte 0: EVF version 9 is not supported"):
        read_evf(bytes([9]) + data[1:])
    with pytest.raises(EvfError, match=r"^byte 12: the file ends inside the time"):
        read_evf(data[:12])
    with pytest.raises(EvfError, match=r"unknown mouse event type 77"):
        read_evf(data[:-1] + bytes([77, 0, 0, 0, 0, 0, 0, 0, 255]))
    bad = bytearray(data)
    bad[6] += 1  # the mine count's low byte
    with pytest.raises(EvfError, match=r"the board has \d+ mines but the header says"):
        read_evf(bytes(bad))


def test_boards_evf_cannot_hold_are_refused_by_name() -> None:
    with pytest.raises(EvfError, match="square boards only, not hex"):
        write_evf(GameParams(5, 5, 3, Topology.HEX), [], [], frozenset(), won=False)
    with pytest.raises(EvfError, match="no holes"):
        write_evf(GameParams(5, 5, 3, holes=frozenset({1})), [], [], frozenset(), won=False)
    with pytest.raises(EvfError, match="at most 255x255, not 300x10"):
        write_evf(GameParams(300, 10, 3), [], [], frozenset(), won=False)
