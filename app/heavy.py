"""Heavy engine work of a request, off the worker's event loop and bounded in time.

``run_heavy(function, args, seconds)`` computes ``function(*args)`` (a module-level function
of plain values: it may travel to another process) in one of the app's engine children for
heavy work (``ENGINE_WORK_PROCESSES``, default 1 per worker, started with the click children
of ``app.play.offload`` under gevent), with a wall-clock limit of ``seconds`` plus a grace
and the same CPU limit. The functions sent here take an engine budget of ``seconds``
themselves (``devil.budget``) and answer partially, so the limits are a backstop.

Bounded queue: when every heavy child is busy the request is refused at once (``Overloaded``,
429 with ``Retry-After``) instead of waiting; past its time limit it is refused the same way
(the child is stopped and restarted). Without children (tests, ``flask run``) the work runs
inline, still under its engine budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, copy_current_request_context, current_app

from app.busy import Overloaded
from app.play.offload import EngineBusy, EnginePool, EngineTimeout, EngineUnavailable
from app.play.runner import cpu_runner

T = TypeVar("T")

POOL = "mine_devil.work_pool"
CHILD = "app.heavy_child"
"""The heavy-work children's ``python -m`` module."""
GRACE_SECONDS = 3.0
"""How long past its own budget a piece of work may run before its child is stopped."""


def run_heavy(function: Callable[..., T], args: tuple[Any, ...], seconds: float) -> T:
    """``function(*args)`` in a heavy-work child (inline without one). Raises what the
    function raises, and ``Overloaded`` when no child is free or the time ran out."""
    pool: EnginePool | None = current_app.extensions.get(POOL)
    if pool is None:
        return function(*args)
    limit = seconds + GRACE_SECONDS
    try:
        return pool.call(function, args, timeout=limit, cpu_seconds=limit)
    except EngineBusy:
        raise Overloaded("the server is busy with other analyses: retry in a moment") from None
    except EngineTimeout:
        raise Overloaded(f"this took longer than {limit:g} s: stopped", retry_after=5) from None
    except EngineUnavailable:
        raise Overloaded("the analysis engine is restarting: retry in a moment") from None


def off_loop(work: Callable[[], T]) -> T:
    """``work()`` (with this request's context) in gevent's thread pool when the worker runs
    under gevent, else inline: building and rendering a big page (a 100x100 analysis board is
    over 1 MB of HTML) must not hold the event loop, whose other greenlets then keep getting
    the GIL every switch interval (5 ms)."""
    run = cpu_runner("thread")
    if run is None:
        return work()
    result: T = run(copy_current_request_context(work))
    return result


def init_app(app: Flask, processes: int) -> None:
    """Start ``processes`` heavy-work children for ``app`` (0: run heavy work inline)."""
    if processes < 1:
        return
    pool = EnginePool(processes, module=CHILD)  # named apart from the click children
    pool.start()
    app.extensions[POOL] = pool
