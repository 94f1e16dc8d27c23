"""Heavy engine work in a child process, so it does not hold a gunicorn worker's GIL.

A first reveal draws the layout (the no-guess search: 10-150 ms of pure Python on an
expert board). Run in a thread of the gevent worker, it still shares that process's GIL
with every other request the worker is answering, so their clicks slow down for as long
as it runs. ``EngineProcess`` plays such a move in a child process instead: the parent
sends the pickled ``(game, move)`` and gets the pickled new ``Game`` back (a few KB; the
engine is deterministic, so it is the same game the parent would have computed). The
parent's greenlet waits on a pipe, which gevent makes cooperative: the worker keeps
answering other players meanwhile, at full speed, and the OS runs the child on another
core.

Anything unusual (the child died, an engine error, a value that does not pickle) makes
``play`` return None, and the caller computes the move itself as before: the child is
an accelerator, never the source of truth.

Other heavy work goes the same way (``EngineProcess.call`` / ``EnginePool.call``): the
analysis board, hints, proofs, level boards and puzzles send a module-level function and its
arguments, with a wall-clock ``timeout``: past it the parent kills the child (a new one
starts for the next request) and raises ``EngineTimeout``. In the child each request runs
under a CPU limit (``RLIMIT_CPU`` raised to the time used so far plus ``cpu_seconds``;
SIGXCPU interrupts the work), so a runaway computation stops by itself too.

A game's click stays exact (the devil rule never guesses): ``play_move`` plays it under a
CPU limit of ``CLICK_CPU_SECONDS``; past it, the child plays the same move again with the
CP-SAT backend (``Game.with_backend("cpsat")``, same answers by another route). The player
sees the click's spinner meanwhile; other players are not slowed (another core), and other
clicks on the same game wait at most ``GAME_WAIT_SECONDS`` before a 429 "busy, retry".

Protocol on the child's stdin/stdout: frames of a 4-byte big-endian length and a pickle.
Request ``(function, args, cpu_seconds)``; answer ``("ok", value)``, ``("raise",
exception)``, ``("error", message)`` (an exception that does not pickle) or ``("cpu",
message)`` (the CPU limit stopped it). The child trusts its parent
only (pickle): it reads nothing else.

    python -m app.play.offload        # the child's main loop (started by EngineProcess)
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from devil.game import Game, Move

log = logging.getLogger(__name__)

T = TypeVar("T")

CLICK_CPU_SECONDS = 10.0
"""CPU seconds a click may take in a child before it is played again with CP-SAT."""
CLICK_TIMEOUT = 120.0
"""Wall-clock seconds a click may take in a child (both tries) before the parent gives up
on the child and plays it itself."""


STARTUP_SECONDS = 15.0
"""Extra time the first request to a new child gets (the interpreter starts, imports)."""


class EngineUnavailable(RuntimeError):
    """No engine child is free for this work now (or none could start)."""


class EngineBusy(EngineUnavailable):
    """Every engine child is working on something else."""


class EngineTimeout(EngineUnavailable):
    """The work ran past its time limit (the child was stopped)."""


class EngineFailed(RuntimeError):
    """The work raised in the child; the message names the exception."""


class CpuLimit(Exception):
    """Raised inside a child when a request used up its CPU seconds (SIGXCPU)."""


_HEADER = struct.Struct(">I")
MAX_FRAME = 256 * 1024 * 1024


def write_frame(stream: IO[bytes], value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    """The next frame's value; EOFError when the other side has closed the pipe."""
    header = _read_exactly(stream, _HEADER.size)
    (size,) = _HEADER.unpack(header)
    if size > MAX_FRAME:
        raise ValueError(f"frame of {size} bytes is larger than {MAX_FRAME}")
    return pickle.loads(_read_exactly(stream, size))


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError("the pipe was closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class EngineProcess:
    """One child process playing moves, one move at a time."""

    def __init__(self, python: str = sys.executable, module: str = __name__) -> None:
        self.python = python
        self.module = module
        """The child's ``python -m`` module (its ``main`` is this module's ``main``)."""
        self._lock = threading.Lock()  # gevent-patched in a worker: held by one greenlet
        self._child: subprocess.Popen[bytes] | None = None
        self._answered = False  # whether the current child has answered once (is warm)
        self._started = False  # whether a child was ever started (the next is a restart)

    def start(self) -> None:
        with self._lock:
            self._ensure()

    def _ensure(self) -> subprocess.Popen[bytes]:
        child = self._child
        if child is None or child.poll() is not None:
            if child is not None:  # it died: close its pipes
                _discard(child)
            if self._started:
                from app import metrics  # not at import: the child imports this module too

                metrics.ENGINE_RESTARTS.inc()
            self._started = True
            root = Path(__file__).resolve().parents[2]
            child = subprocess.Popen(  # the same checkout's code: run from its root
                [self.python, "-m", self.module],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=root,
            )
            self._child = child
            self._answered = False
        return child

    def play(self, game: Game, move: Move) -> Game | None:
        """``game.play(move)`` computed in the child; None if the child could not, or is
        busy with another move (the caller then plays it itself, which also raises the
        engine's own errors): a long first reveal on a huge board never queues others."""
        try:
            value = self.call(play_move, (game.portable(), move), CLICK_TIMEOUT, cpu_seconds=None)
        except EngineUnavailable as exc:
            if not isinstance(exc, EngineBusy):
                log.warning("engine child failed (%s): computing in the worker", exc)
            return None
        except Exception:  # the engine refused the move: the caller raises it properly
            return None
        if isinstance(value, Game) and _answers(value, game, move):
            return value.with_solver_of(game)  # the next click here stays incremental
        return None

    def call(
        self,
        function: Callable[..., T],
        args: tuple[Any, ...],
        timeout: float,
        cpu_seconds: float | None = None,
    ) -> T:
        """``function(*args)`` computed in the child (``function`` must be a module-level
        function: it travels by name). Raises ``EngineUnavailable`` when the child is busy
        or cannot run, ``EngineTimeout`` after ``timeout`` seconds (the child is stopped);
        what the function raised there is raised again here (``EngineFailed`` when it does
        not pickle, or the CPU limit stopped it)."""
        from app import metrics  # not at import: the child imports this module too

        if not self._lock.acquire(blocking=False):
            raise EngineBusy("the engine child is busy")
        try:
            status, value = self._ask((function, args, cpu_seconds), timeout)
        except EngineTimeout:
            metrics.ENGINE_JOBS.labels("timeout").inc()
            raise
        except EngineUnavailable:
            metrics.ENGINE_JOBS.labels("failed").inc()
            raise
        finally:
            self._lock.release()
        metrics.ENGINE_JOBS.labels({"ok": "ok", "raise": "raised"}.get(status, "failed")).inc()
        if status == "ok":
            result: T = value
            return result
        if status == "raise" and isinstance(value, Exception):
            raise value
        raise EngineFailed(str(value))

    def busy(self) -> bool:
        """Whether a request is in the child now."""
        return self._lock.locked()

    def _ask(self, request: tuple[Any, ...], timeout: float) -> tuple[str, Any]:
        child = None
        try:
            child = self._ensure()
            assert child.stdin is not None and child.stdout is not None
            write_frame(child.stdin, request)
            # A child that never answered is still starting (imports): allow for that.
            allowed = timeout if self._answered else timeout + STARTUP_SECONDS
            if not _readable(child.stdout, allowed):
                self._drop(child)
                raise EngineTimeout(f"the engine child took over {timeout:g} s: stopped")
            answer = read_frame(child.stdout)
            self._answered = True
        except EngineTimeout:
            raise
        except Exception as exc:  # any failure: kill the child, the caller decides
            self._drop(child)
            raise EngineUnavailable(f"engine child failed: {exc}") from None
        except BaseException:
            # Interrupted (a killed greenlet, gevent.Timeout) with the request in the child:
            # its answer must never be read as the answer to the next request.
            self._drop(child)
            raise
        if not (isinstance(answer, tuple) and len(answer) == 2):
            self._drop(child)
            raise EngineUnavailable("engine child sent an unreadable answer")
        status, value = answer
        return str(status), value

    def _drop(self, child: subprocess.Popen[bytes] | None) -> None:
        if child is not None:
            _discard(child)
        self._child = None

    def close(self) -> None:
        """Stop the child (it exits when its stdin closes)."""
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            _discard(child, grace=5.0)


class EnginePool:
    """A few engine children: a first reveal goes to an idle one; None when all are busy
    (the caller computes it itself) or when the child fails."""

    def __init__(self, size: int = 2, python: str = sys.executable, module: str = __name__) -> None:
        if size < 1:
            raise ValueError(f"an engine pool needs at least 1 process, not {size}")
        self.engines = tuple(EngineProcess(python, module) for _ in range(size))

    def start(self) -> None:
        for engine in self.engines:
            engine.start()

    def play(self, game: Game, move: Move) -> Game | None:
        for engine in self.engines:
            if not engine.busy():
                return engine.play(game, move)
        return None

    def call(
        self,
        function: Callable[..., T],
        args: tuple[Any, ...],
        timeout: float,
        cpu_seconds: float | None = None,
    ) -> T:
        """``EngineProcess.call`` on an idle child; ``EngineUnavailable`` when all are busy
        (a bounded queue of zero: the caller answers "busy, retry" at once)."""
        for engine in self.engines:
            if not engine.busy():
                return engine.call(function, args, timeout, cpu_seconds)
        raise EngineBusy(f"all {len(self.engines)} engine children are busy")

    def close(self) -> None:
        for engine in self.engines:
            engine.close()


def _answers(value: Game, game: Game, move: Move) -> bool:
    """Whether ``value`` is ``game`` after ``move`` (and not some other game's answer)."""
    return value.params == game.params and value.moves == (*game.moves, move)


def _discard(child: subprocess.Popen[bytes], grace: float = 0.0) -> None:
    """Close the child's pipes and reap it (killed unless it exits within ``grace`` s)."""
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()
    try:
        child.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def _readable(stream: IO[bytes], timeout: float) -> bool:
    """Whether the child's answer starts within ``timeout`` seconds (select: cooperative
    under gevent). Each answer is read whole, so nothing waits in the pipe's buffer."""
    ready, _, _ = select.select([stream], [], [], timeout)
    return bool(ready)


def play_move(game: Game, move: Move) -> Game:
    """A click in the child: exact always; the answer travels without the solver's state
    (``Game.portable``), which does not pickle. Under ``CLICK_CPU_SECONDS`` of CPU with the
    default solver; past that, the same move with the CP-SAT backend (no limit: the parent's
    ``CLICK_TIMEOUT`` is the last bound)."""
    try:
        with cpu_limit(CLICK_CPU_SECONDS):
            return game.play(move).portable()
    except CpuLimit:
        log.warning("a click used %g CPU seconds: playing it with CP-SAT", CLICK_CPU_SECONDS)
        return game.with_backend("cpsat").play(move).portable()


def _on_cpu_limit(_signum: int, _frame: Any) -> None:
    raise CpuLimit("the CPU time limit of this request ran out")


@contextlib.contextmanager
def cpu_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``CpuLimit`` (from SIGXCPU) once this process used ``seconds`` more CPU (whole
    seconds, at least 1); None: no limit. Only for the child's main thread."""
    if seconds is None:
        yield
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(used + max(1.0, seconds))
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    previous = signal.signal(signal.SIGXCPU, _on_cpu_limit)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        signal.signal(signal.SIGXCPU, previous)


def main() -> int:
    """The child: compute every ``(function, args, cpu_seconds)`` read from stdin, answer on
    stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the worker; EOF stops us
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # nothing printed by accident may corrupt the frames
    while True:
        try:
            request = read_frame(requests)
        except EOFError:
            return 0
        except Exception as exc:  # the whole frame was read: answer and carry on
            write_frame(answers, ("error", f"unreadable request: {type(exc).__name__}: {exc}"))
            continue
        function, args, cpu_seconds = request
        try:
            with cpu_limit(cpu_seconds):
                answer: tuple[str, Any] = ("ok", function(*args))
        except CpuLimit as exc:
            answer = ("cpu", f"{exc} ({cpu_seconds:g} s)")
        except Exception as exc:  # the parent raises it again (or says what it was)
            answer = ("raise", exc)
        try:
            write_frame(answers, answer)
        except BrokenPipeError:
            return 0  # the worker went away (or dropped us mid-move): nobody to answer
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            failed = answer[1] if answer[0] == "raise" else exc
            write_frame(answers, ("error", f"{type(failed).__name__}: {failed}"))


if __name__ == "__main__":
    raise SystemExit(main())
