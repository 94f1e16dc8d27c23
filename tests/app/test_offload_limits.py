"""The engine children's limits (issue 8, "every piece of engine work has a budget"): any
module-level function runs there with a wall-clock timeout (the child is stopped and replaced)
and a CPU limit; what it raises comes back as itself; a click stays exact, with CP-SAT as the
fallback past its CPU limit."""

from __future__ import annotations

import random
import time

import pytest

from app.play.offload import (
    CpuLimit,
    EngineBusy,
    EngineFailed,
    EngineProcess,
    EngineTimeout,
    cpu_limit,
    play_move,
)
from devil.game import Game, GameParams, Move, Status
from devil.position import PositionError
from tests.helpers.engine_work import double, spin


def test_a_function_runs_in_the_child_and_its_exception_comes_back(
    engine: EngineProcess,
) -> None:
    assert engine.call(double, (21,), timeout=30) == 42
    with pytest.raises(ValueError, match="invalid literal"):
        engine.call(int, ("x",), timeout=30)
    with pytest.raises(PositionError):
        from devil.position import Position

        engine.call(Position.from_line, ("12/3x",), timeout=30)
    assert engine.call(double, (2,), timeout=30) == 4  # still in step


def test_past_its_timeout_the_child_is_stopped_and_replaced(engine: EngineProcess) -> None:
    engine.call(double, (1,), timeout=30)  # started and warm
    first = engine._child
    started = time.monotonic()
    with pytest.raises(EngineTimeout, match=r"took over 0\.5 s"):
        engine.call(spin, (0,), timeout=0.5)
    assert time.monotonic() - started < 5
    assert first is not None and first.poll() is not None  # stopped
    assert engine.call(double, (5,), timeout=30) == 10  # a new child


def test_past_its_cpu_limit_the_work_stops_in_the_child(engine: EngineProcess) -> None:
    with pytest.raises(EngineFailed, match="CPU time limit"):
        engine.call(spin, (0,), timeout=120, cpu_seconds=1)
    assert engine.call(double, (3,), timeout=30) == 6  # the same child goes on


def test_a_busy_child_refuses_instead_of_queueing(engine: EngineProcess) -> None:
    with engine._lock, pytest.raises(EngineBusy):
        engine.call(double, (1,), timeout=30)


def test_cpu_limit_raises_in_this_process_too() -> None:
    with pytest.raises(CpuLimit), cpu_limit(1):
        n = 0
        while True:
            n += 1


@pytest.mark.parametrize("seed", range(6))
def test_a_click_played_with_the_cpsat_fallback_is_the_same_click(seed: int) -> None:
    """The devil rule is exact by either route: the same game after every move."""
    rng = random.Random(seed)
    params = GameParams(height=8, width=8, mines=12, seed=seed, no_guess=False)
    game = Game.new(params).play(Move.reveal(4, 4))
    for _ in range(6):
        if game.status is not Status.PLAYING:
            break
        covered = [c for c in game.position.board.cells() if game.position.is_covered(c)]
        move = Move.reveal(*game.position.board.coord(rng.choice(covered)))
        plain = game.play(move)
        fallback = game.with_backend("cpsat").play(move)
        assert fallback == plain
        assert fallback.witness == plain.witness and fallback.layout == plain.layout
        assert play_move(game, move) == plain
        game = plain
