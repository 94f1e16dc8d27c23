"""Costly moves leave the worker (issue 8: "a slow click cannot block other players"): a first
reveal, and on a big board a reveal or chord that is not a proof (a loss builds the devil's
witness, a fair redraw a new layout, each walking the whole board: 0.3 s on 1000x1000), go to
an engine child; proofs stay incremental in the worker; with every child busy, costly moves
run in the worker one at a time and the next waits in a bounded queue (429 past it). The
verdict is exact wherever it is computed (the child plays the same ``Game.play``)."""

from __future__ import annotations

import pickle
import threading
from typing import Any

import pytest
from flask import Flask

import app.play.runner as runner
from app.busy import Overloaded
from app.play.moves import Action, Click
from app.play.offload import EngineProcess
from app.play.service import GameService
from app.store.log import Store
from devil.analysis import Verdict
from devil.game import Game, GameParams, GraphSpec, Move, Status
from devil.position import COVERED
from devil.rules import Mercy, Rules


def covered_with(game: Game, verdict: Verdict) -> tuple[int, int]:
    grid, board = game.position.grid, game.position.board
    analysis = game.analysis()
    cell = next(c for c in board.cells() if grid[c] == COVERED and analysis.verdict(c) is verdict)
    return board.coord(cell)


def opened(params: GameParams) -> Game:
    return Game.new(params).play(Move.reveal(params.height // 2, params.width // 2))


def test_a_game_travels_without_its_solver_and_plays_on_the_same() -> None:
    """A game that has been analysed did not pickle (the solver's compiled state), so a
    child could take only first reveals; ``portable`` leaves the solver behind."""
    game = opened(GameParams(30, 30, 180, no_guess=False, seed=5))
    row, col = covered_with(game, Verdict.EITHER)
    there = pickle.loads(pickle.dumps(game.portable()))
    assert there == game and there.layout == game.layout
    lost_there = there.play(Move.reveal(row, col))
    lost_here = game.play(Move.reveal(row, col))
    assert lost_there == lost_here and lost_there.witness == lost_here.witness
    back = pickle.loads(pickle.dumps(lost_there.portable())).with_solver_of(game)
    assert back == lost_here and back.status is Status.LOST


@pytest.mark.parametrize("mercy", [Mercy.STRICT, Mercy.FAIR])
def test_a_loss_or_redraw_in_the_child_is_the_same_move(
    engine: EngineProcess, mercy: Mercy
) -> None:
    params = GameParams(40, 40, 400, rules=Rules(mercy=mercy), no_guess=False, seed=8)
    game = opened(params)
    move = Move.reveal(*covered_with(game, Verdict.EITHER))
    theirs = engine.play(game, move)
    assert theirs is not None  # it was None: the analysed game did not unpickle in the child
    mine = game.play(move)
    assert theirs == mine and theirs.witness == mine.witness and theirs.layout == mine.layout
    if not theirs.over:  # a fair redraw: the game plays on, incrementally, here
        grid, analysis = mine.position.grid, mine.analysis()
        cell = next(
            c
            for c in mine.position.board.cells()
            if grid[c] == COVERED and analysis.verdict(c) is not Verdict.MINE
        )
        nxt = Move.reveal(*mine.position.board.coord(cell))
        assert theirs.play(nxt) == mine.play(nxt)


class Recorder:
    """An ``offload`` that plays the move here and notes it, or refuses (all children busy)."""

    def __init__(self, refuse: bool = False) -> None:
        self.moves: list[Move] = []
        self.refuse = refuse

    def __call__(self, game: Game, move: Move) -> Game | None:
        self.moves.append(move)
        return None if self.refuse else game.play(move)


def service(app: Flask, offload: Recorder, wait: float = 5.0) -> GameService:
    return GameService(
        Store(app.config["DATABASE_URL"]),
        run_cpu=lambda work: work(),  # "a thread"
        offload=offload,
        wait_seconds=wait,
    )


def big_game(games: GameService, monkeypatch: pytest.MonkeyPatch, mercy: Mercy) -> tuple[str, Game]:
    monkeypatch.setattr(runner, "INLINE_CELLS", 100)  # 30x30 counts as big
    params = GameParams(30, 30, 150, rules=Rules(mercy=mercy), no_guess=False, seed=3)
    created = games.create(params)
    _, after = games.play(created.id, Click(Action.OPEN, 15, 15))
    return created.id, after.game


@pytest.mark.parametrize("mercy", [Mercy.STRICT, Mercy.FAIR])
def test_on_a_big_board_only_costly_moves_go_to_a_child(
    app: Flask, monkeypatch: pytest.MonkeyPatch, mercy: Mercy
) -> None:
    offload = Recorder()
    games = service(app, offload)
    game_id, game = big_game(games, monkeypatch, mercy)
    assert offload.moves == [Move.reveal(15, 15)]  # the first reveal
    games.play(game_id, Click(Action.FLAG, *covered_with(game, Verdict.EITHER)))
    _, after = games.play(game_id, Click(Action.OPEN, *covered_with(game, Verdict.SAFE)))
    assert len(offload.moves) == 1  # a flag and a proof stay here
    risky = covered_with(after.game, Verdict.EITHER)
    before, after = games.play(game_id, Click(Action.OPEN, *risky))
    assert offload.moves[-1] == Move.reveal(*risky)  # a loss (strict) or a redraw (fair)
    assert after.game == before.game.play(Move.reveal(*risky))  # the same exact verdict
    games.store.dispose()


def test_with_every_child_busy_costly_moves_run_here_one_at_a_time(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    offload = Recorder()
    games = service(app, offload, wait=0.2)
    game_id, game = big_game(games, monkeypatch, Mercy.STRICT)
    offload.refuse = True
    risky = Click(Action.OPEN, *covered_with(game, Verdict.EITHER))
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:  # another costly move is computing in this process
        with games._costly_here(game.params):
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(5)
    try:
        with pytest.raises(Overloaded, match="busy with other long moves"):
            games.play(game_id, risky)
        assert games.load(game_id).game == game  # nothing was written
    finally:
        release.set()
        holder.join()
    _, after = games.play(game_id, risky)  # the slot is free: computed here
    assert after.game.status is Status.LOST
    games.store.dispose()


def test_the_service_uses_the_child_pool_under_gevent_only(app: Flask) -> None:
    """Tests and ``flask run`` have no children: every move is computed inline as before."""
    games: Any = app.extensions["mine_devil.games"]
    assert games.offload is None


def test_a_graph_games_board_is_first_built_off_the_event_loop(app: Flask) -> None:
    """Reading a stored graph game builds its board (0.7 s of CPU for 5,000 Penrose cells): on
    a process that has not seen the game it must run where ``run_cpu`` puts it, not inline."""
    ran: list[Any] = []

    def run_cpu(work: Any) -> Any:
        ran.append(work)
        return work()

    store = Store(app.config["DATABASE_URL"])
    first = GameService(store, run_cpu=run_cpu)
    graph = first.create(GameParams(mines=20, graph=GraphSpec("penrose", (80,)), seed=4)).id
    grid = first.create(GameParams(9, 9, 10, seed=4)).id
    fresh = GameService(store, run_cpu=run_cpu)  # another process: nothing cached
    ran.clear()
    fresh.params(fresh.record(grid))
    assert ran == []  # a grid's params are a few numbers: inline
    params = fresh.params(fresh.record(graph))
    assert len(ran) == 1 and params.graph == GraphSpec("penrose", (80,))
    fresh.params(fresh.record(graph))
    assert len(ran) == 1  # then cached
    store.dispose()
