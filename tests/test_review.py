"""Review of the optimised click path (app/games.py, app/offload.py): regressions for the
bugs found. Each test fails on the code as it was before its fix."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import app.offload as offload
from app.games import GameService
from app.store import SequenceConflict, Store
from devil.game import Game, GameParams, Move


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


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'review.db'}")
    store.migrate()
    yield store
    store.dispose()


def test_a_move_whose_commit_fails_is_not_kept_in_the_cache(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pessimistic path cached its move before the transaction committed: if the
    commit failed, the cache held an event the log never got, and once another process
    wrote that sequence number, the next click was computed on the phantom state."""
    worker = GameService(store)
    params = GameParams(height=9, width=9, mines=10, no_guess=False, seed=11)
    created = worker.create(params)
    game_id = created.id
    opened = Game.new(params).play(Move.parse("reveal 8 8"))
    cell = next(c for c in opened.position.board.cells() if opened.position.is_covered(c))
    row, col = opened.position.board.coord(cell)

    def always_overtaken(game_id: str, expected_seq: int, *args: Any, **kwargs: Any) -> Any:
        raise SequenceConflict(game_id, expected_seq, expected_seq)

    real_locked = store.locked

    @contextmanager
    def commit_fails(game_id: str) -> Iterator[Any]:
        with real_locked(game_id) as log:
            yield log
            raise OSError("disk I/O error at commit")  # rolls the transaction back

    monkeypatch.setattr(store, "append_event", always_overtaken)
    monkeypatch.setattr(store, "locked", commit_fails)
    with pytest.raises(OSError):
        worker.play(game_id, "flag", row, col)
    monkeypatch.undo()
    assert store.last_seq(game_id) == 0  # the log never got the flag

    # Another worker plays event 1 for real: a reveal that leaves (row, col) covered.
    other = GameService(store)
    other.play(game_id, "reveal", 8, 8)

    # This worker's next click toggles the flag there: on the log's state it flags (on
    # the phantom state it unflagged, and the log got a move it cannot replay).
    _, after = worker.play(game_id, "flag", row, col)
    truth = GameService(store).load(game_id)  # a fresh process: the log only
    assert truth.seq == after.seq
    assert truth.game == after.game
    assert after.game.position.is_flagged(cell)
