"""Judging a raft's moves: the world rule within budgets, never stalling the worker.

A raft's judgement may take up to its budget (``Judging``: 1 s of CPU by default). The
gevent worker runs every request of its process on one thread, so that CPU must not be
spent in one go, and on SQLite, whose one write lock every team's move needs, it must not
be spent holding that lock. So:

- the judging clock (``PausingClock``) is this request's own CPU time, and every
  ``PAUSE_EVERY`` of it the judgement pauses (``pause_for_others``: under the gevent worker
  the requests that are ready run first, and a pause with none ready costs one poll of the
  sockets; their CPU time is not charged to this raft);
- on SQLite a raft is judged *ahead* (``judge_ahead``), each chunk read in a short read of
  its own (a pausing judgement holds no connection), holding only the team's place in this
  process's queue; the write transaction then checks that the chunks the judgement read
  are unchanged (``unchanged``: their versions, one query) and applies its results, so
  the write lock is held for the writes only. If another process changed the team in
  between, the raft is judged again inside the transaction, without pauses (a paused
  holder of SQLite's lock would leave every other writer of the process waiting in
  SQLite's busy handler, which blocks the worker's one thread);
- on PostgreSQL a raft is judged ahead too, with pauses, on a read that takes no lock; one
  flight then takes the team's row, checks what the judgement read and commits
  (``app.world.flight``). If the team moved meanwhile, the raft is judged again in the
  transaction, holding the team's row, with pauses (other teams' rows stay free).

The answer is the same either way: a judgement reads only the team's knowledge, and the
knowledge it read is the knowledge the transaction holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from app.settings import Settings
from app.world.chunks import FLAGS, ChunkKey, ChunkKnowledge
from app.world.schema import chunks
from devil.budget import Meter
from devil.world import Colouring, MoveResult, drop, flag, reveal
from devil.world.play import Colours
from devil.world.shares import Share
from devil.world.together import NONE, Proofs, prove_together

CASCADE_LIMIT = 10_000
DROP_RADIUS = 32
TOGETHER = 2
"""Rafts with at least this many reveals and flags have them proved together first."""
PAUSE_EVERY = 0.004
"""CPU seconds a judgement runs between two pauses."""
PAUSE_SECONDS = 0.0005
"""A pause at most (``pause_for_others``): long enough to be a timer, so the gevent loop
polls its sockets and runs every request that is ready before the judgement goes on
(``sleep(0)`` would queue the judgement ahead of the requests its sockets have woken
meanwhile)."""


def pause_for_others() -> None:
    """Let every other request that is ready run, then go on; at once if none is.

    Under the gevent worker (``time`` monkey-patched) the judgement waits on two watchers of
    the loop, whichever fires first: an idle watcher, which fires when an iteration of the
    loop finds nothing else to run (no one waits: the pause costs one poll of the sockets,
    not ``PAUSE_SECONDS``), and a ``PAUSE_SECONDS`` timer, which bounds the wait while
    other requests keep the loop busy (each of them runs once first, as with a plain
    ``time.sleep(PAUSE_SECONDS)``). Without gevent: ``time.sleep(PAUSE_SECONDS)``."""
    try:
        from gevent import get_hub, getcurrent, monkey  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - gevent comes with the web extra
        monkey = None
    if monkey is None or not monkey.is_module_patched("time"):
        time.sleep(PAUSE_SECONDS)
        return
    hub = get_hub()
    idle, timer = hub.loop.idle(), hub.loop.timer(PAUSE_SECONDS)
    resume = getcurrent().switch
    idle.start(resume)
    timer.start(resume)
    try:
        hub.switch()
    finally:
        idle.close()  # stops it too: a watcher still pending no longer fires
        timer.close()


def cpu_wait() -> float:
    """Seconds this thread has so far waited for a CPU while it was ready to run (Linux's
    run-queue delay, ``/proc/thread-self/schedstat``; 0.0 where the kernel does not say).
    The difference over a judgement is the part of its wall time the machine's other
    processes took (``Server-Timing: judgewait``), beside the pauses for this worker's
    other requests and the chunk reads beyond the prefetched block."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


@dataclass(frozen=True)
class MoveRequest:
    kind: str
    x: int
    y: int


Clock = Callable[[], float]


class PausingClock:
    """This thread's CPU time as spent by its caller, pausing every ``every`` seconds of it.

    A pause is ``pause_for_others``: under the gevent worker the other requests that are
    ready run meanwhile, and the CPU time they use (the same thread's) is left out of what
    this clock counts."""

    def __init__(self, every: float = PAUSE_EVERY, pause: Callable[[], None] | None = None):
        self.every = every
        self.pause = pause or pause_for_others
        self._away = 0.0
        self._next = time.thread_time() + every

    def __call__(self) -> float:
        now = time.thread_time()
        if now >= self._next:
            self.pause()
            after = time.thread_time()
            self._away += after - now
            now = after
            self._next = now + self.every
        return now - self._away


@dataclass(frozen=True)
class Judging:
    """How much work judging may do (budget units: cells read, window cells / 16, the
    solver's nodes; seconds: this thread's CPU time). Each move gets ``move_*`` inside
    what is left of the raft's ``raft_*``. A move the budget stops is ``undecided``: not
    logged, not an error, nothing opened; the raft's other moves stand."""

    move_seconds: float = 0.25
    move_nodes: int = 20_000
    raft_seconds: float = 1.0
    raft_nodes: int = 100_000

    @classmethod
    def from_settings(cls, options: Settings) -> Judging:
        """From the app's ``world_judge_*`` settings (``app.settings``)."""
        return cls(
            options.world_judge_move_seconds,
            options.world_judge_move_nodes,
            options.world_judge_raft_seconds,
            options.world_judge_raft_nodes,
        )

    def raft(self, clock: Clock = time.thread_time) -> Meter:
        return Share(self.raft_seconds, self.raft_nodes, clock=clock).start()

    def move(self, raft: Meter, clock: Clock = time.thread_time) -> Share:
        return Share(self.move_seconds, self.move_nodes, within=raft, clock=clock)

    def spent(self) -> str:
        """Why a move after the raft's budget ran out is ``undecided``."""
        return (
            f"the raft's judging budget ({self.raft_seconds:g} s / {self.raft_nodes} "
            "nodes) is spent: send this move again in a new raft"
        )


Judged = tuple[MoveRequest, MoveResult, int]
"""A move, what it did, and the budget units its judgement spent."""


def judge_one(
    k: ChunkKnowledge,
    truth: Colours,
    colour: int,
    move: MoveRequest,
    budget: Share,
    proofs: Proofs = NONE,
) -> MoveResult:
    if move.kind == "reveal":
        return reveal(k, truth, colour, move.x, move.y, CASCADE_LIMIT, budget, proofs)
    if move.kind == "flag":
        return flag(k, colour, move.x, move.y, budget, proofs)
    if move.kind == "drop":
        return drop(k, truth, colour, move.x, move.y, DROP_RADIUS, CASCADE_LIMIT)
    raise ValueError(f"unknown move kind {move.kind!r}")


def judge_moves(
    k: ChunkKnowledge,
    colouring: Colouring,
    colour: int,
    moves: Sequence[MoveRequest],
    judging: Judging,
    clock: Clock = time.thread_time,
) -> list[Judged]:
    """Judge ``moves`` in order on board ``colour``, each decided move's cells applied to
    ``k`` before the next is judged. The moves lie next to each other: their clicks are
    first proved together (``devil.world.together``, within one move's budget, charged to
    the first move), and the colours they ask for are hashed once per raft (``Colours``)."""
    raft = judging.raft(clock)
    truth = Colours(colouring.colour)
    judged: list[Judged] = []
    before = raft.used
    clicks = [(m.x, m.y) for m in moves if m.kind in ("reveal", "flag")]
    proofs = NONE
    if len(clicks) >= TOGETHER:
        proofs = prove_together(k, colour, clicks, judging.move(raft, clock))
    for move in moves:
        if raft.exceeded:
            result = MoveResult("undecided", reason=judging.spent())
        else:
            result = judge_one(k, truth, colour, move, judging.move(raft, clock), proofs)
        if result.outcome != "undecided":  # nothing happened: nothing to apply
            k.apply(colour, result.cells)
        judged.append((move, result, raft.used - before))
        before = raft.used
    return judged


@dataclass(frozen=True)
class Ahead:
    """A raft judged ahead of its write transaction (``judge_ahead``)."""

    colour: int
    judged: list[Judged]
    read: dict[ChunkKey, int | None]
    """Every chunk the judgement looked at, with the version it read (None: absent)."""


def judge_ahead(
    k: ChunkKnowledge,
    colouring: Colouring,
    colour: int,
    cells: Sequence[tuple[int, int]],
    moves: Sequence[MoveRequest],
    judging: Judging,
) -> Ahead:
    """Judge ``moves`` on ``k`` (knowledge read outside any write transaction), pausing as
    it goes."""
    k.prefetch_around(colour, cells)
    judged = judge_moves(k, colouring, colour, moves, judging, PausingClock())
    return Ahead(colour, judged, k.read_versions())


_VERSIONS = sa.select(chunks.c.layer, chunks.c.cx, chunks.c.cy, chunks.c.version).where(
    chunks.c.world == sa.bindparam("w"),
    chunks.c.team == sa.bindparam("t"),
    sa.tuple_(chunks.c.layer, chunks.c.cx, chunks.c.cy).in_(sa.bindparam("keys", expanding=True)),
)


def unchanged(conn: Connection, world: str, team: str, read: dict[ChunkKey, int | None]) -> bool:
    """Whether every chunk of ``read`` is still at the version read (absent ones absent)."""
    if not read:
        return True
    rows = conn.execute(_VERSIONS, {"w": world, "t": team, "keys": list(read)})
    now = {(int(layer), int(cx), int(cy)): int(v) for layer, cx, cy, v in rows}
    return all(now.get(key) == version for key, version in read.items())


def written_keys(colour: int, judged: Collection[Judged]) -> list[ChunkKey]:
    """The chunks applying ``judged`` writes (to load them in one query)."""
    keys: dict[ChunkKey, None] = {}
    for _, result, _ in judged:
        for x, y, sym in result.cells:
            keys[(FLAGS if sym == "F" else colour, x >> 6, y >> 6)] = None
    return list(keys)
