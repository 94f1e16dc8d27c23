"""AVF and MBF imports: our readers against ms-toollib's on videos built from the format facts."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from devil.game import Game, GameParams, MoveKind
from devil.ledger.annotate import annotate, final_board
from devil.ledger.replays import ReplayFormatError, detect, read_replay
from devil.ledger.replays.avf import AvfError, read_avf
from devil.ledger.replays.mbf import MbfError, read_mbf
from tests.helpers.arbiter import arbiter_video
from tests.helpers.games import random_game
from tests.helpers.strategies import profile

ms = pytest.importorskip("ms_toollib")


@st.composite
def games(draw: st.DrawFn) -> Game:
    preset = draw(st.sampled_from([(8, 8, 10), (16, 16, 40), None]))
    if preset is None:
        height, width = draw(st.integers(4, 12)), draw(st.integers(4, 12))
        preset = (height, width, draw(st.integers(1, min(20, height * width - 9))))
    params = GameParams(*preset, seed=draw(st.integers(0, 999)))
    game = random_game(params, random.Random(draw(st.integers(0, 10**6))), max_moves=120)
    assume(game.moves and final_board(game) is not None)
    return game


@profile()
@given(games())
def test_avf_reads_as_ms_toollib_reads_it(game: Game) -> None:
    board = game.params.board()
    layout = final_board(game)
    assert layout is not None
    data = arbiter_video(board, layout, game.moves)
    replay = read_avf(data)
    assert replay.moves == game.moves
    assert replay.layout == layout
    assert replay.times[0] == pytest.approx(0.5)
    video = ms.AvfVideo("game.avf", list(data))
    video.parse()
    video.analyse()
    video.current_time = 1e9
    mined = {(r, c) for r, row in enumerate(video.board) for c, v in enumerate(row) if v == -1}
    assert mined == {board.coord(c) for c in layout}
    kinds = [m.kind for m in game.moves]
    flags = kinds.count(MoveKind.FLAG) + kinds.count(MoveKind.UNFLAG)
    if kinds[0] is MoveKind.REVEAL:  # ms-toollib counts marks made before the start its own way
        assert (video.left, video.right, video.double) == (
            kinds.count(MoveKind.REVEAL), flags, kinds.count(MoveKind.CHORD)
        )  # fmt: skip
    assert detect(data) == "avf"
    notes = annotate(replay.params, replay.moves, layout, devil=False, first_free=False)
    assert len(notes.moves) == len(game.moves)


def test_avf_errors_name_the_byte() -> None:
    params = GameParams(8, 8, 10, seed=1)
    game = random_game(params, random.Random(1))
    layout = final_board(game)
    assert layout is not None
    data = arbiter_video(params.board(), layout, game.moves)
    with pytest.raises(AvfError, match=r"^byte 5: unknown level byte 9"):
        read_avf(data[:5] + bytes([9]) + data[6:])
    with pytest.raises(AvfError, match=r"^byte 6: mine 1 at row 199, col "):
        read_avf(data[:6] + bytes([200]) + data[7:])
    with pytest.raises(AvfError, match="the file ends inside mine 3"):
        read_avf(data[:10])
    with pytest.raises(AvfError, match=r"no '\[' starts the text header"):
        read_avf(data[:26])


def mbf(cols: int, rows: int, mines: list[tuple[int, int]]) -> bytes:
    out = bytearray([cols, rows]) + len(mines).to_bytes(2, "big")
    for row, col in mines:
        out += bytes([col, row])
    return bytes(out)


@given(st.integers(4, 30), st.integers(4, 24), st.data())
def test_mbf_boards_read_back(cols: int, rows: int, data: st.DataObject) -> None:
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    mines = data.draw(st.lists(st.sampled_from(cells), unique=True, max_size=rows * cols - 9))
    raw = mbf(cols, rows, mines)
    replay = read_mbf(raw)
    board = replay.params.board()
    assert (board.height, board.width) == (rows, cols)
    assert replay.layout == frozenset(board.cell(r, c) for r, c in mines)
    assert replay.moves == ()
    assert read_replay(raw, name="board.mbf") == replay


def test_mbf_errors_name_the_byte() -> None:
    with pytest.raises(MbfError, match=r"^byte 2: 2 mines need 8 bytes, the file has 6"):
        read_mbf(bytes([5, 5, 0, 2, 1, 1]))
    with pytest.raises(MbfError, match=r"^byte 4: mine 1 at row 9, col 1 is off the 5x5 board"):
        read_mbf(mbf(5, 5, [(9, 1)]))
    with pytest.raises(MbfError, match=r"^byte 6: mine 2 at row 1, col 1 is given twice"):
        read_mbf(mbf(5, 5, [(1, 1), (1, 1)]))
    with pytest.raises(ReplayFormatError, match="unknown replay format 'rmv'"):
        read_replay(b"", fmt="rmv")
