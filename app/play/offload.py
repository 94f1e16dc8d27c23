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

Protocol on the child's stdin/stdout: frames of a 4-byte big-endian length and a pickle.
Request ``(game, move)``; answer ``("ok", game)`` or ``("error", message)``. The child
trusts its parent only (pickle): it reads nothing else.

    python -m app.play.offload        # the child's main loop (started by EngineProcess)
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from devil.game import Game, Move

log = logging.getLogger(__name__)

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

    def __init__(self, python: str = sys.executable) -> None:
        self.python = python
        self._lock = threading.Lock()  # gevent-patched in a worker: held by one greenlet
        self._child: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self._lock:
            self._ensure()

    def _ensure(self) -> subprocess.Popen[bytes]:
        child = self._child
        if child is None or child.poll() is not None:
            if child is not None:  # it died: close its pipes
                _discard(child)
            root = Path(__file__).resolve().parents[2]
            child = subprocess.Popen(  # the same checkout's code: run from its root
                [self.python, "-m", "app.play.offload"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=root,
            )
            self._child = child
        return child

    def play(self, game: Game, move: Move) -> Game | None:
        """``game.play(move)`` computed in the child; None if the child could not, or is
        busy with another move (the caller then plays it itself, which also raises the
        engine's own errors): a long first reveal on a huge board never queues others."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return self._play(game, move)
        finally:
            self._lock.release()

    def busy(self) -> bool:
        """Whether a move is in the child now."""
        return self._lock.locked()

    def _play(self, game: Game, move: Move) -> Game | None:
        child = None
        try:
            child = self._ensure()
            assert child.stdin is not None and child.stdout is not None
            write_frame(child.stdin, (game, move))
            status, value = read_frame(child.stdout)
        except Exception as exc:  # any failure: kill the child, the caller computes
            log.warning("engine child failed (%s): computing in the worker", exc)
            self._drop(child)
            return None
        except BaseException:
            # Interrupted (a killed greenlet, gevent.Timeout) with the request in the child:
            # its answer must never be read as the answer to the next move.
            self._drop(child)
            raise
        if status == "ok" and isinstance(value, Game) and _answers(value, game, move):
            return value
        return None

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

    def __init__(self, size: int = 2, python: str = sys.executable) -> None:
        if size < 1:
            raise ValueError(f"an engine pool needs at least 1 process, not {size}")
        self.engines = tuple(EngineProcess(python) for _ in range(size))

    def start(self) -> None:
        for engine in self.engines:
            engine.start()

    def play(self, game: Game, move: Move) -> Game | None:
        for engine in self.engines:
            if not engine.busy():
                return engine.play(game, move)
        return None

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


def main() -> int:
    """The child: play every ``(game, move)`` read from stdin, answer on stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the worker; EOF stops us
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # nothing printed by accident may corrupt the frames
    while True:
        try:
            game, move = read_frame(requests)
        except EOFError:
            return 0
        try:
            answer: tuple[str, Any] = ("ok", game.play(move))
        except Exception as exc:  # the parent replays it itself and raises properly
            answer = ("error", f"{type(exc).__name__}: {exc}")
        try:
            write_frame(answers, answer)
        except BrokenPipeError:
            return 0  # the worker went away (or dropped us mid-move): nobody to answer
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            write_frame(answers, ("error", f"cannot send the result: {exc}"))


if __name__ == "__main__":
    raise SystemExit(main())
