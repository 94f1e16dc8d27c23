"""app.play.offload: a first reveal played in a child process is the game the worker would
have computed itself; any failure gives None (the caller computes), never a wrong game."""

from __future__ import annotations

from typing import Any

import pytest

import app.play.offload as offload
from app.play.offload import EnginePool, EngineProcess
from devil.game import Game, GameParams, Move, Status


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_first_reveal_in_the_child_is_the_same_game(engine: EngineProcess, seed: int) -> None:
    params = GameParams(seed=seed)  # expert, no-guess
    before = Game.new(params).play(Move.parse("flag 0 0"))  # a flag before the first reveal
    move = Move.parse("reveal 8 15")
    mine = before.play(move)
    theirs = engine.play(before, move)
    assert theirs is not None
    assert theirs == mine  # params, position, layout, status, moves
    assert theirs.layout == mine.layout and theirs.guaranteed == mine.guaranteed
    # The returned game keeps playing like the local one.
    safe = next(iter(mine.analysis().classification().safe_cells()))
    row, col = mine.position.board.coord(safe)
    assert theirs.play(Move.reveal(row, col)) == mine.play(Move.reveal(row, col))


def test_an_engine_error_in_the_child_gives_none(engine: EngineProcess) -> None:
    game = Game.new(GameParams(height=9, width=9, mines=10, seed=4)).play(Move.parse("flag 2 2"))
    assert engine.play(game, Move.parse("reveal 2 2")) is None  # revealing a flag: illegal
    # The child is still serving after an error.
    after = engine.play(game, Move.parse("reveal 4 4"))
    assert after is not None and after.status is Status.PLAYING


def test_a_dead_child_is_restarted(engine: EngineProcess) -> None:
    game = Game.new(GameParams(height=9, width=9, mines=10, seed=4))
    assert engine._child is not None
    engine._child.kill()
    engine._child.wait()
    assert engine.play(game, Move.parse("reveal 4 4")) == game.play(Move.parse("reveal 4 4"))


def test_a_child_that_cannot_run_gives_none() -> None:
    broken = EngineProcess(python="/bin/false")  # exits at once: the pipe breaks
    game = Game.new(GameParams(height=9, width=9, mines=10, seed=4))
    assert broken.play(game, Move.parse("reveal 4 4")) is None
    broken.close()


def test_a_busy_child_gives_none_instead_of_queueing(engine: EngineProcess) -> None:
    game = Game.new(GameParams(height=9, width=9, mines=10, seed=4))
    with engine._lock:  # another greenlet's move is in the child
        assert engine.play(game, Move.parse("reveal 4 4")) is None
    assert engine.play(game, Move.parse("reveal 4 4")) == game.play(Move.parse("reveal 4 4"))


def test_a_pool_sends_a_move_to_an_idle_child_and_none_when_all_are_busy() -> None:
    pool = EnginePool(2)
    pool.start()
    game = Game.new(GameParams(height=9, width=9, mines=10, seed=4))
    move = Move.parse("reveal 4 4")
    try:
        first, second = pool.engines
        with first._lock:  # busy: the second child takes it
            assert pool.play(game, move) == game.play(move)
            with second._lock:
                assert pool.play(game, move) is None
    finally:
        pool.close()
    with pytest.raises(ValueError, match="at least 1"):
        EnginePool(0)


# -- regressions: an interrupted move --------------------------------------------------


class Interrupted(BaseException):
    """What a killed greenlet sees (gevent.Timeout, GreenletExit): not an Exception."""


def test_an_interrupted_offloaded_move_never_answers_the_next_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = offload.EngineProcess()
    engine.start()
    real = offload.read_frame
    calls = {"n": 0}

    def interrupted_once(stream: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise Interrupted()  # the request is in the child, its answer still to come
        return real(stream)

    monkeypatch.setattr(offload, "read_frame", interrupted_once)
    small = Game.new(GameParams(height=9, width=9, mines=10, seed=4))
    other = Game.new(GameParams(height=16, width=16, mines=40, seed=5))
    try:
        with pytest.raises(Interrupted):
            engine.play(small, Move.parse("reveal 4 4"))
        answer = engine.play(other, Move.parse("reveal 8 8"))
        # Before the fix: the first game's pending answer (a 9x9 game) came back here.
        assert answer is None or answer == other.play(Move.parse("reveal 8 8"))
        again = engine.play(other, Move.parse("reveal 8 8"))
        assert again == other.play(Move.parse("reveal 8 8"))
    finally:
        engine.close()
