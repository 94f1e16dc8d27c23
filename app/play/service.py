"""The game service: games as event logs, replayed through ``devil.game``.

Every view (API, HTML pages, teaching) reaches games through one ``GameService`` per app
(``app.play.setup.get_service()``)::

    created = service.create(params, owner)         # created.id, created.token
    loaded = service.load(game_id)                  # UnknownGame -> 404
    before, after = service.play(game_id, click)    # IllegalMove/GameOver -> 409
    service.replay(game_id, n)                      # the game after n moves (UnknownMove)
    service.record_hint(game_id, level, row, col)   # a hint request joins the log

The log is the truth. ``load`` always asks the database how far the log goes (one query) and
uses the in-memory cache only for exactly that point, or as a starting point that it brings
forward with the newer events.

``play`` serializes moves on one game twice over: a per-game lock inside the process, and
the database across processes. It first computes the move without holding the database, on
the newest state this process knows (the cache: no query), and appends it with
``Store.append_event(expected_seq=...)``, which checks while holding the log that the log
ends just before (the ``(game_id, seq)`` key backs this up): a click on a game this process
is serving is one write transaction. If the log moved (another worker played), it reads the
log and tries again; if the move is refused on the cached state, it is refused only once the
log confirms that state. Last, it recomputes the move while holding the game's log
(``Store.locked``: ``SELECT ... FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite),
so it cannot lose again. Nothing is lost, duplicated or skipped. A malformed request never
gets here (``app.play.moves`` parses it first), so it never writes an event.

The ``games`` row of a game is read once and kept (``record``): everything in it but the
derived summary columns is immutable.

Bounded waiting: at most ``queue`` moves wait for one game's lock (more get ``Busy``, 429
with ``Retry-After``, at once), and none waits longer than ``wait_seconds``; 50 clients
clicking one game never queue behind each other for seconds. Every committed event is
announced through ``on_event(game_id, seq)`` (the live streams' notifier).
"""

from __future__ import annotations

import secrets
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

from app import metrics
from app.busy import Busy, Overloaded
from app.errors import InputError, UnknownGame, UnknownMove
from app.fields import coordinate
from app.lru import Lru
from app.play.loaded import CreatedGame, LoadedGame, advance, event_move
from app.play.moves import Click
from app.play.runner import INLINE_CELLS, costly, heavy
from app.store.log import LogWriter, Store
from app.store.records import Event, GameRow, SequenceConflict, Summary, hash_token
from devil.errors import IllegalMove
from devil.game import Game, GameParams, Move

T = TypeVar("T")

CACHE_CELLS = 8_000_000
"""Most board cells each cache keeps (a cached 1000x1000 game holds a few MB)."""

REBUILD_CELLS = INLINE_CELLS
"""Rebuilding a game of more cells than this from its log (not from the cache) is heavy."""
REBUILDS = 1
"""Heavy rebuilds one process runs at a time; one more is refused (``Overloaded``, 429 with
``Retry-After``) rather than queued, so cycling GETs over more big games than the cache holds
costs at most one thread, never a queue."""

COSTLY_IN_THREADS = 1
"""Costly moves (``app.play.runner.costly``) one process computes in its own threads at a
time, when every engine child is busy: each holds the worker's GIL against the other
players it serves, so more wait (up to ``wait_seconds``, then ``Overloaded``: 429)."""

MAX_HINT_LEVEL = 100
ID_BYTES = 8  # 11 URL-safe characters
TOKEN_BYTES = 24


def _cells(game: Game) -> int:
    return game.params.height * game.params.width


class GameService:
    """Games over one ``Store``; holds the caches and the per-game locks."""

    def __init__(
        self,
        store: Store,
        cache_size: int = 128,
        run_cpu: Callable[[Callable[[], Any]], Any] | None = None,
        offload: Callable[[Game, Move], Game | None] | None = None,
        on_event: Callable[[str, int], None] | None = None,
        queue: int = 16,
        wait_seconds: float = 5.0,
    ):
        self.store = store
        self.on_event = on_event
        """Called after each committed event (game id, seq): wakes the live streams."""
        self.queue = queue
        self.wait_seconds = wait_seconds
        self._waiting: dict[str, int] = {}
        self._waiting_lock = threading.Lock()
        self._rebuilds = threading.BoundedSemaphore(REBUILDS)
        self._costly = threading.BoundedSemaphore(COSTLY_IN_THREADS)
        self.offload = offload
        """Plays a first reveal in a child process (``app.play.offload``) so it does not hold
        this process's GIL; None means "compute it here"."""
        self.run_cpu = run_cpu
        """Runs heavy engine work (big boards, replays). Under gevent: a real thread, so the
        worker's other greenlets keep answering while a big first click computes. None:
        inline."""
        self._live: Lru[str, LoadedGame] = Lru(cache_size, lambda s: _cells(s.game), CACHE_CELLS)
        self._prefix: Lru[tuple[str, int], Game] = Lru(cache_size, _cells, CACHE_CELLS)
        self._params: Lru[str, GameParams] = Lru(4 * cache_size)
        self._records: Lru[str, GameRow] = Lru(4 * cache_size)
        self._locks = tuple(threading.RLock() for _ in range(64))
        self.on_end: list[Callable[[str], None]] = []
        """Called with a game's id when a move ends it (the ledger annotates it then)."""

    @property
    def cache_cells(self) -> int:
        """Most board cells each of the two game caches keeps."""
        return self._live.budget or 0

    @cache_cells.setter
    def cache_cells(self, cells: int) -> None:
        self._live.budget = self._prefix.budget = cells

    # -- caches ------------------------------------------------------------------------

    def _lock_for(self, game_id: str) -> threading.RLock:
        """The game's lock: moves on one game, and anything that plays moves on its shared
        solver, run one at a time."""
        return self._locks[zlib.crc32(game_id.encode()) % len(self._locks)]

    def _remember(self, state: LoadedGame) -> None:
        self._live.put(state.id, state, keep_if=lambda old: old.seq > state.seq)

    @contextmanager
    def _turn(self, game_id: str) -> Iterator[None]:
        """Hold the game's lock for one move, waiting in a bounded queue: ``Busy`` when
        ``queue`` moves already wait for this game or the lock is not free within
        ``wait_seconds``."""
        with self._waiting_lock:
            waiting = self._waiting.get(game_id, 0)
            if waiting >= self.queue:
                raise Busy(
                    f"game {game_id} is busy: {waiting} moves are already waiting for it; "
                    "retry in a moment"
                )
            self._waiting[game_id] = waiting + 1
        lock = self._lock_for(game_id)
        try:
            acquired = lock.acquire(timeout=self.wait_seconds)
        finally:
            with self._waiting_lock:
                left = self._waiting[game_id] - 1
                if left:
                    self._waiting[game_id] = left
                else:
                    del self._waiting[game_id]
        if not acquired:
            raise Busy(
                f"game {game_id} is busy: its previous move took over "
                f"{self.wait_seconds:g} s; retry in a moment"
            )
        try:
            yield
        finally:
            lock.release()

    @contextmanager
    def _rebuilding(self, params: GameParams, steps: int) -> Iterator[None]:
        """Hold a rebuild slot while replaying ``steps`` logged moves of a big game from
        scratch; ``Overloaded`` when every slot is taken (small games and single steps pass)."""
        if params.height * params.width <= REBUILD_CELLS or steps <= 1:
            yield
            return
        if not self._rebuilds.acquire(blocking=False):
            raise Overloaded(
                f"another big game is being rebuilt from its log: retry in a moment ({steps} "
                f"moves on a {params.height}x{params.width} board)",
                retry_after=2,
            )
        try:
            yield
        finally:
            self._rebuilds.release()

    @contextmanager
    def _costly_here(self, params: GameParams) -> Iterator[None]:
        """Hold the slot for computing a costly move in this process (every engine child was
        busy); ``Overloaded`` when it is not free within ``wait_seconds``."""
        if not self._costly.acquire(timeout=self.wait_seconds):
            raise Overloaded(
                f"the server is busy with other long moves: retry in a moment (a move on a "
                f"{params.height}x{params.width} board)",
                retry_after=2,
            )
        try:
            yield
        finally:
            self._costly.release()

    def _announce(self, game_id: str, seq: int) -> None:
        if self.on_event is not None:
            self.on_event(game_id, seq)

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached states (all of them with no argument)."""
        if game_id is None:
            self._live.clear()
            self._prefix.clear()
        else:
            self._live.pop(game_id)

    def _run(self, work: Callable[[], T], inline: bool = False) -> T:
        if inline or self.run_cpu is None:
            return work()
        result: T = self.run_cpu(work)
        return result

    # -- reading -----------------------------------------------------------------------

    def record(self, game_id: str) -> GameRow:
        """The game's ``games`` row (UnknownGame if there is none).

        Read once, then served from memory: a game's id, params, owner, token hash and
        creation time never change. Its summary columns (status, moves, last_seq) may
        therefore lag; ``load`` (or the store) has the log's truth."""
        row = self._records.get(game_id)
        if row is None:
            row = self.store.get_game(game_id) if _plausible_id(game_id) else None
            if row is None:
                raise UnknownGame(game_id)
            self._records.put(game_id, row)
        return row

    def params(self, record: GameRow) -> GameParams:
        """The game's parameters (immutable, so cached by id). A graph game's board is built
        when they are first read (0.2-0.7 s of CPU for 5,000 cells): in ``run_cpu``, not on
        the worker's event loop, where every other request of the worker would wait."""
        inline = record.params.get("graph") is None
        return self._params.get_or_compute(
            record.id, lambda: self._run(partial(GameParams.from_dict, dict(record.params)), inline)
        )

    def load(self, game_id: str) -> LoadedGame:
        """The game as its log says now (cache used only when it matches the log)."""
        head = self.store.get_head(game_id) if _plausible_id(game_id) else None
        if head is None:
            raise UnknownGame(game_id)
        record, last = head
        return self._load_at(record, last, self.store.events)

    def _load_at(
        self,
        record: GameRow,
        last: int,
        fetch: Callable[..., list[Event]],
        inline: bool = False,
    ) -> LoadedGame:
        """The game after log event ``last``; ``fetch(game_id, after=, upto=)`` reads events."""
        game_id = record.id
        state = self._live.get(game_id)
        if state is not None and state.seq > last:
            # This process committed newer moves after our read: ask the log again.
            last = max(last, self.store.last_seq(game_id))
        if state is None or state.seq != last:
            # Bringing a game forward plays moves on its shared solver: one thread at a time.
            with self._lock_for(game_id):
                state = self._live.get(game_id)
                if state is None or state.seq > last:  # the log lost events: start again
                    state = LoadedGame(record, Game.new(self.params(record)))
                if state.seq < last:
                    newer = fetch(game_id, after=state.seq, upto=last)
                    with self._rebuilding(state.params, len(newer)):
                        state = self._run(partial(advance, state, newer), inline)
                    self._remember(state)
        return state

    def events(self, game_id: str) -> list[Event]:
        self.record(game_id)
        return self.store.events(game_id)

    def replay(self, game_id: str, n: int) -> Game:
        """The game after its first ``n`` moves (hints skipped); UnknownGame/UnknownMove.

        Built from the longest cached prefix of the same game (or the live state when
        ``n`` is the current move count), so stepping through a replay costs one move."""
        record = self.record(game_id)
        moves = [event_move(e) for e in self.store.events(game_id) if e.is_move]
        if not 0 <= n <= len(moves):
            raise UnknownMove(f"move {n} does not exist: game {game_id} has {len(moves)} moves")
        with self._lock_for(game_id):  # prefixes share solvers: one thread at a time
            live = self._live.get(game_id)
            if live is not None and live.game.moves == tuple(moves[:n]):
                return live.game
            start, game = self._longest_prefix(game_id, n)
            if start == n and game is not None:
                return game
            base = game if game is not None else Game.new(self.params(record))
            with self._rebuilding(base.params, n - start):
                game = self._run(partial(_play_all, base, moves[start:n]))
            self._prefix.put((game_id, n), game)
            return game

    def _longest_prefix(self, game_id: str, n: int) -> tuple[int, Game | None]:
        best = max((k for (gid, k) in self._prefix if gid == game_id and k <= n), default=None)
        game = None if best is None else self._prefix.get((game_id, best))
        return (0, None) if best is None or game is None else (best, game)

    def hints_used(self, game_id: str) -> int:
        return self.load(game_id).hints

    # -- writing -----------------------------------------------------------------------

    def create(self, params: GameParams, owner: str | None = None) -> CreatedGame:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        for _ in range(5):
            game_id = secrets.token_urlsafe(ID_BYTES)
            if self.store.get_game(game_id) is None:
                break
        record = self.store.insert_game(game_id, params.to_dict(), hash_token(token), owner)
        self._records.put(record.id, record)
        state = LoadedGame(record, Game.new(params))
        self._remember(state)
        return CreatedGame(state, token)

    def play(self, game_id: str, click: Click) -> tuple[LoadedGame, LoadedGame]:
        """Play one click (parsed at the edge); returns the game before and after it.

        Raises UnknownGame, IllegalMove/GameOver, Busy; in every error case nothing is
        written.
        """
        try:
            with self._turn(game_id):
                before, after = self._play(game_id, click)
        except IllegalMove:
            metrics.move_judged("game", click.action.value, "refused")
            raise
        metrics.move_judged("game", click.action.value, after.status.value)
        self._announce(game_id, after.seq)
        return before, after

    def _play(self, game_id: str, click: Click) -> tuple[LoadedGame, LoadedGame]:
        record = self.record(game_id)
        # Optimistic: compute outside any database lock on the newest state this
        # process knows (no query), and append it as the next event; the append
        # checks, holding the log, that nobody moved since.
        known = self._live.get(game_id)
        if known is not None:
            try:
                return self._commit(known, click, self.store.append_event)
            except SequenceConflict:
                pass  # another process moved first
            except IllegalMove:
                # Refused on our copy: refuse for real only if the log agrees with it.
                if self.store.last_seq(game_id) == known.seq:
                    raise
        # The log as it is now, read without holding it.
        before = self.load(game_id)
        if known is None or before.seq != known.seq:
            try:
                return self._commit(before, click, self.store.append_event)
            except SequenceConflict:
                pass  # another process moved first, again
        # Pessimistic: hold the game's log while recomputing on its newest state. The
        # engine runs inline here: a greenlet holding SQLite's write lock must not
        # yield to others that would block on it inside the sqlite3 C library.
        try:
            with self.store.locked(game_id) as log:
                before = self._load_at(record, log.last_seq(), _reader(log), inline=True)
                return self._commit(before, click, _appender(log), inline=True)
        except BaseException:
            # ``_commit`` cached the move before this transaction committed: if it did
            # not, the cache must not keep an event the log does not have.
            self.forget(game_id)
            raise

    def _commit(
        self,
        before: LoadedGame,
        click: Click,
        append: Callable[..., Event],
        inline: bool = False,
    ) -> tuple[LoadedGame, LoadedGame]:
        """Play the click on ``before``, append it as event ``before.seq + 1``, cache it.

        The engine's ``Game.play`` runs here: in a child process for a costly move (a first
        reveal; a loss or redraw on a big board: ``app.play.runner.costly``) when one is
        free, else in a thread one at a time (``_costly_here``); other moves on big boards in
        a thread; the rest directly. The verdict is exact wherever it is computed."""
        game = before.game
        move = click.move(game.position)
        after_game = None
        if inline or not heavy(game, move):
            after_game = game.play(move)
        elif self.offload is not None and self._run(partial(costly, game, move)):
            after_game = self.offload(game, move)
            if after_game is None:  # every child busy (or failing): here, one at a time
                with self._costly_here(game.params):
                    after_game = self._run(partial(game.play, move))
        else:
            after_game = self._run(partial(game.play, move))
        summary = Summary(after_game.status.value, len(after_game.moves))
        event = append(
            before.id, before.seq + 1, move.kind.value, move.row, move.col, summary=summary
        )
        after = before.after(after_game, event)
        self._remember(after)
        if after_game.over and not game.over:
            for ended in self.on_end:
                ended(before.id)
        return before, after

    def record_hint(
        self, game_id: str, level: int, row: int | None = None, col: int | None = None
    ) -> int:
        """Log a hint request (``kind="hint"``, ``extra`` = level); returns hints used."""
        if isinstance(level, bool) or not isinstance(level, int):
            raise InputError("level", f"level must be a whole number, not {level!r}")
        if not 0 <= level <= MAX_HINT_LEVEL:
            raise InputError("level", f"level {level} is out of range: 0 to {MAX_HINT_LEVEL}")
        params = self.params(self.record(game_id))
        if row is not None:
            row = coordinate(row, "row", params.height)
        if col is not None:
            col = coordinate(col, "col", params.width)
        with self._turn(game_id), self.store.locked(game_id) as log:
            seq = log.last_seq() + 1
            log.append(seq, "hint", row, col, extra=level)
        self._announce(game_id, seq)
        return self.load(game_id).hints

    def rebuild_summaries(self) -> int:
        """Recompute every game's derived columns from its log; returns games updated."""
        count = 0
        for game_id in self.store.game_ids():
            self.forget(game_id)
            loaded = self.load(game_id)
            self.store.update_summary(
                game_id, Summary(loaded.status.value, loaded.moves), loaded.seq
            )
            count += 1
        return count


def _reader(log: LogWriter) -> Callable[..., list[Event]]:
    def fetch(game_id: str, after: int = 0, upto: int | None = None) -> list[Event]:
        return log.events(after, upto)

    return fetch


def _appender(log: LogWriter) -> Callable[..., Event]:
    def append(game_id: str, expected_seq: int, *args: Any, **kwargs: Any) -> Event:
        return log.append(expected_seq, *args, **kwargs)

    return append


def _plausible_id(game_id: str) -> bool:
    return 0 < len(game_id) <= 32


def _play_all(game: Game, moves: list[Move]) -> Game:
    for move in moves:
        game = game.play(move)
    return game
