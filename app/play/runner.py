"""Where the engine's work runs in a server worker: inline, in a thread, or in a child process.

Costly moves go to a child process (``app.play.offload``) when the worker runs under gevent:
a first reveal (it draws the layout: the no-guess search, 10 ms on expert, up to 2 s on
100x100), and on a big board any reveal or chord that is not a proof (a loss builds the
devil's witness, a fair-mercy redraw a new layout: both walk the whole board, 0.3 s on
1000x1000). In the worker's thread pool such a move would hold the worker's GIL against
every other player it serves. Proofs on big boards (incremental, well under a millisecond)
go to the thread pool; small moves run inline (handing a sub-millisecond click to a thread
costs more than it saves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from app.settings import settings
from devil.analysis import Verdict
from devil.game import Game, Move, MoveKind
from devil.position import COVERED

INLINE_CELLS = 4096
"""Moves on boards up to this many cells (64x64) run inline, except a first reveal."""


def draws_layout(game: Game, move: Move) -> bool:
    """A first reveal: it draws the layout (with no-guess, a search of 10-150 ms)."""
    return game.layout is None and move.kind in (MoveKind.REVEAL, MoveKind.CHORD)


def heavy(game: Game, move: Move) -> bool:
    """Whether playing ``move`` may take long enough to be worth a thread: a first reveal
    or any move on a big board."""
    return big(game) or draws_layout(game, move)


def big(game: Game) -> bool:
    """A board of more than ``INLINE_CELLS`` cells."""
    return game.params.height * game.params.width > INLINE_CELLS


def costly(game: Game, move: Move) -> bool:
    """Whether ``move`` may cost more than an incremental analysis: a first reveal, or on a
    big board a reveal or chord some of whose cells are not provably safe (it loses or
    redraws). Asks the game's analysis (incremental: the work the move starts with anyway);
    a move that is not legal is not costly (``Game.play`` refuses it at once)."""
    if draws_layout(game, move):
        return True
    if not big(game) or move.kind not in (MoveKind.REVEAL, MoveKind.CHORD) or game.over:
        return False
    position = game.position
    board = position.board
    if not (0 <= move.row < board.height and 0 <= move.col < board.width):
        return False
    cell = board.cell(move.row, move.col)
    if cell in board.holes:
        return False
    grid = position.grid
    if move.kind is MoveKind.REVEAL:
        targets = [cell] if grid[cell] == COVERED else []
    else:
        targets = [n for n in board.neighbours(cell) if grid[n] == COVERED]
    if not targets:
        return False
    analysis = game.analysis()
    return any(analysis.verdict(t) is not Verdict.SAFE for t in targets)


def cpu_runner(mode: str) -> Callable[[Callable[[], Any]], Any] | None:
    """``"thread"``: run engine work in gevent's thread pool when gevent has patched this
    process (the ``mine-devil`` worker), else inline (None). ``"inline"``: always inline."""
    if mode != "thread":
        return None
    try:
        from gevent import get_hub, monkey  # type: ignore[import-untyped]
    except ImportError:
        return None
    if not monkey.is_module_patched("threading"):
        return None
    pool = get_hub().threadpool
    return lambda work: in_thread(pool.apply, work)


def in_thread(apply: Callable[[Callable[[], Any]], Any], work: Callable[[], Any]) -> Any:
    """``work()`` run by ``apply`` in another thread, its exception raised here: gevent's
    thread pool prints a traceback for every exception that leaves a task, so a refused move
    (an ``IllegalMove``, an ordinary 409) must come back as a value, not as a raise."""

    def captured() -> tuple[bool, Any]:
        try:
            return True, work()
        except Exception as exc:
            return False, exc

    done, value = apply(captured)
    if not done:
        raise value
    return value


def engine_offload(app: Flask) -> Callable[[Game, Move], Game | None] | None:
    """A gevent worker's engine child processes (``ENGINE_PROCESSES``, default 2), started
    now; None when moves run in this process (tests, ``flask run``, ``ENGINE_OFFLOAD=False``)."""
    options = settings(app)
    if cpu_runner(options.engine_runner) is None:
        return None
    if not options.engine_offload:
        return None
    from app.play.offload import EnginePool

    pool = EnginePool(options.engine_processes)
    pool.start()
    app.extensions["mine_devil.engine_pool"] = pool
    return pool.play
