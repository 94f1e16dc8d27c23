"""Where the engine's work runs in a server worker: inline, in a thread, or in a child process.

A first reveal draws the layout (the no-guess search, 10-150 ms) and goes to a child process
(``app.play.offload``) when the worker runs under gevent; other moves on big boards go to
gevent's thread pool; small moves run inline (handing a sub-millisecond click to a thread
costs more than it saves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from devil.game import Game, Move, MoveKind

INLINE_CELLS = 4096
"""Moves on boards up to this many cells (64x64) run inline, except a first reveal."""


def draws_layout(game: Game, move: Move) -> bool:
    """A first reveal: it draws the layout (with no-guess, a search of 10-150 ms)."""
    return game.layout is None and move.kind in (MoveKind.REVEAL, MoveKind.CHORD)


def heavy(game: Game, move: Move) -> bool:
    """Whether playing ``move`` may take long enough to be worth a thread: a first reveal
    or any move on a big board."""
    return game.params.height * game.params.width > INLINE_CELLS or draws_layout(game, move)


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
    if cpu_runner(str(app.config.get("ENGINE_RUNNER", "thread"))) is None:
        return None
    if not app.config.get("ENGINE_OFFLOAD", True):
        return None
    from app.play.offload import EnginePool

    pool = EnginePool(int(app.config.get("ENGINE_PROCESSES", 2)))
    pool.start()
    app.extensions["mine_devil.engine_pool"] = pool
    return pool.play
