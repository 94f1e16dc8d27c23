"""The game service: games as event logs, replayed through ``devil.game``.

Every view (API, HTML pages, teaching) goes through these functions::

    params = parse_params(form_or_json, max_side=BROWSER_MAX_SIDE)   # InputError -> 400
    created = create_game(params, owner=ensure_owner())               # created.id, created.token
    loaded = load_game(game_id)                                       # UnknownGame -> 404
    before, after = play(game_id, "reveal", row, col)                 # InputError 400,
                                                                      # IllegalMove/GameOver 409
    public_state(after)                                               # the API's ``state``
    changed_cells(before.game.position, after.game.position)          # [(row, col), ...]
    replay_game(game_id, n)                                           # the game after n moves
    move_log(game_id); record_hint(game_id, level); hints_used(game_id)

The log is the truth. ``load_game`` always asks the database how far the log goes
(one query) and uses the in-memory cache only for exactly that point, or as a
starting point that it brings forward with the newer events.

``play`` serializes moves on one game twice over: a per-game lock inside the process,
and the database across processes. It first computes the move without holding the
database, on the newest state this process knows (the caller's copy, else the cache:
no query), and appends it with ``Store.append_event(expected_seq=...)``, which checks
while holding the log that the log ends just before (the ``(game_id, seq)`` key backs
this up): a click on a game this process is serving is one write transaction. If the
log moved (another worker played), it reads the log and tries again; if the move is
refused on the cached state, it is refused only once the log confirms that state. Last,
it recomputes the move while holding the game's log (``Store.locked``: ``SELECT ... FOR
UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so it cannot lose again.
Nothing is lost, duplicated or skipped.

The ``games`` row of a game is read once and kept (``game_record``): everything in it
but the derived summary columns is immutable.

Errors: ``InputError`` (400, names the field), ``UnknownGame`` / ``UnknownMove`` (404),
``devil.errors.IllegalMove`` / ``GameOver`` (409). A malformed request never writes an
event.
"""

from __future__ import annotations

import secrets
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, TypeVar, cast

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from app.store import (
    Event,
    GameRow,
    LogWriter,
    SequenceConflict,
    Store,
    Summary,
    get_store,
    hash_token,
)
from devil.analysis import Layout
from devil.board import Board, BoardError, Coord, Topology
from devil.errors import IllegalMove, InvalidMove
from devil.game import Game, GameParams, Move, MoveKind, ParamsError, Status
from devil.position import Position
from devil.rules import Count, Mercy, Rules

T = TypeVar("T")

# -- limits and presets ------------------------------------------------------------------

BROWSER_MAX_SIDE = 200
"""Largest width or height of a game created from the web page."""

API_MAX_SIDE = 1000
"""Largest width or height of a game created through the JSON API."""

PRESETS: dict[str, tuple[int, int, int]] = {
    "beginner": (9, 9, 10),
    "intermediate": (16, 16, 40),
    "expert": (16, 30, 99),
}
"""name -> (height, width, mines)."""

DEFAULT_HEIGHT, DEFAULT_WIDTH, DEFAULT_MINES = PRESETS["expert"]
DEFAULT_DENSITY = DEFAULT_MINES / (DEFAULT_HEIGHT * DEFAULT_WIDTH)
MAX_SEED = 2**63 - 1
MAX_HINT_LEVEL = 100

ACTIONS = ("reveal", "flag", "unflag", "chord", "click")
"""What a player may ask for. ``flag`` toggles (flags a covered cell, unflags a flagged
one); ``unflag`` only unflags; ``click`` reveals a covered cell and chords a number."""

ID_BYTES = 8  # 11 URL-safe characters
TOKEN_BYTES = 24


# -- errors ------------------------------------------------------------------------------


class InputError(ValueError):
    """A request the server cannot act on; ``field`` names the bad input (HTTP 400)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


class UnknownGame(LookupError):
    """No game has this id (HTTP 404)."""

    def __init__(self, game_id: str):
        super().__init__(f"game {game_id!r} does not exist")
        self.game_id = game_id


class UnknownMove(LookupError):
    """A replay asked for a move number the log does not have (HTTP 404)."""


# -- values ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatedGame:
    """A new game; ``token`` is shown once, only its hash is stored."""

    record: GameRow
    token: str
    loaded: LoadedGame

    @property
    def id(self) -> str:
        return self.record.id


@dataclass(frozen=True)
class LoadedGame:
    """A game rebuilt from its log up to event ``seq``.

    ``record`` is the ``games`` row (owner, token hash, created_at; its summary
    columns may lag behind ``game``); ``started_at`` is the time of the first move and
    ``last_move_at`` of the latest one (None before the first move).
    """

    record: GameRow
    game: Game
    seq: int
    hints: int
    started_at: datetime | None
    last_move_at: datetime | None

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def params(self) -> GameParams:
        return self.game.params

    @property
    def status(self) -> Status:
        return self.game.status

    @property
    def over(self) -> bool:
        return self.game.status is not Status.PLAYING

    @property
    def moves(self) -> int:
        return len(self.game.moves)

    def elapsed(self, now: datetime | None = None) -> float:
        """Seconds from the first move to the last (ended) or to ``now`` (running)."""
        if self.started_at is None:
            return 0.0
        end = self.last_move_at if self.over else now
        if end is None:
            return 0.0
        return max(0.0, (end - self.started_at).total_seconds())


# -- parsing input -----------------------------------------------------------------------


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool):
        raise InputError(field, f"{field} must be a whole number, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("-").isdigit() and len(text) <= 20:
            return int(text)
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    raise InputError(field, f"{field} must be a whole number, not {shown}")


def _bounded(value: Any, field: str, low: int, high: int) -> int:
    number = _int(value, field)
    if not low <= number <= high:
        raise InputError(field, f"{field} {number} is out of range: allowed {low} to {high}")
    return number


def _flag(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in {"1", "true", "on", "yes"}:
            return True
        if text in {"0", "false", "off", "no", ""}:
            return False
    raise InputError(field, f"{field} must be true or false, not {value!r}")


def _choice(value: Any, field: str, choices: Iterable[str]) -> str:
    options = tuple(choices)
    if isinstance(value, str) and value.strip().lower() in options:
        return value.strip().lower()
    raise InputError(field, f"{field} must be one of {', '.join(options)}, not {value!r}")


def _present(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key)
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def _holes(value: Any, height: int, width: int) -> frozenset[int]:
    if not isinstance(value, list):
        raise InputError("holes", "holes must be a list of [row, col] pairs")
    cells = set()
    for i, pair in enumerate(value):
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise InputError("holes", f"holes[{i}] must be a [row, col] pair, not {pair!r}")
        row = _bounded(pair[0], f"holes[{i}] row", 0, height - 1)
        col = _bounded(pair[1], f"holes[{i}] col", 0, width - 1)
        cells.add(row * width + col)
    return frozenset(cells)


def max_mines(board: Board) -> int:
    """Most mines a board can take: the first click keeps itself and its neighbours free."""
    keep = 7 if board.topology is Topology.HEX else 9
    return max(0, board.cell_count - min(keep, board.cell_count))


def parse_params(data: Mapping[str, Any], max_side: int = API_MAX_SIDE) -> GameParams:
    """Game parameters from JSON or form fields, all optional.

    Fields: ``preset`` (beginner/intermediate/expert), ``width``, ``height``, ``mines``
    (default: the preset's, or expert's density), ``topology`` (square/torus/hex),
    ``holes`` (list of [row, col]), ``count`` (classic/counted), ``mercy``
    (strict/fair), ``no_guess`` (default true), ``seed`` (default random, secret).
    """
    if not isinstance(data, Mapping):
        raise InputError("body", "the game parameters must be a JSON object")
    height, width, mines = DEFAULT_HEIGHT, DEFAULT_WIDTH, DEFAULT_MINES
    preset_given = _present(data, "preset")
    if preset_given:
        height, width, mines = PRESETS[_choice(data["preset"], "preset", PRESETS)]
    sized = _present(data, "width") or _present(data, "height")
    if _present(data, "width"):
        width = _bounded(data["width"], "width", 1, max_side)
    if _present(data, "height"):
        height = _bounded(data["height"], "height", 1, max_side)
    topology = Topology.SQUARE
    if _present(data, "topology"):
        topology = Topology(_choice(data["topology"], "topology", (t.value for t in Topology)))
    holes: frozenset[int] = frozenset()
    if data.get("holes") not in (None, ""):
        holes = _holes(data["holes"], height, width)
    try:
        board = Board(height, width, topology, holes)
    except BoardError as exc:
        raise InputError("width", str(exc)) from None
    limit = max_mines(board)
    if _present(data, "mines"):
        mines = _bounded(data["mines"], "mines", 0, limit)
    elif sized and not preset_given:
        mines = min(limit, max(1, round(board.cell_count * DEFAULT_DENSITY)))
    if mines > limit:
        raise InputError(
            "mines",
            f"mines {mines} is too many for a {height}x{width} board: at most {limit}",
        )
    count = Count.CLASSIC
    if _present(data, "count"):
        count = Count(_choice(data["count"], "count", (c.value for c in Count)))
    mercy = Mercy.STRICT
    if _present(data, "mercy"):
        mercy = Mercy(_choice(data["mercy"], "mercy", (m.value for m in Mercy)))
    no_guess = _flag(data["no_guess"], "no_guess") if "no_guess" in data else True
    if _present(data, "seed"):
        seed = _bounded(data["seed"], "seed", 0, MAX_SEED)
    else:
        seed = secrets.randbelow(MAX_SEED)
    try:
        return GameParams(
            height=height,
            width=width,
            mines=mines,
            topology=topology,
            holes=holes,
            rules=Rules(count, mercy),
            no_guess=no_guess,
            seed=seed,
        )
    except ParamsError as exc:
        raise InputError("params", str(exc)) from None


def parse_coord(value: Any, field: str, size: int) -> int:
    """A zero-based row or column, checked against the board side ``size``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(field, f"{field} is missing")
    number = _int(value, field)
    if not 0 <= number < size:
        raise InputError(field, f"{field} {number} is off the board: allowed 0 to {size - 1}")
    return number


def parse_action(action: Any) -> str:
    return _choice(action, "action", ACTIONS)


# -- state for clients -------------------------------------------------------------------


def layout_rows(board: Board, layout: Layout) -> list[str]:
    """A layout as rows: ``*`` mine, ``#`` hole, ``.`` anything else."""
    grid = bytearray(b"." * board.size)
    for hole in board.holes:
        grid[hole] = ord("#")
    for cell in layout:
        grid[cell] = ord("*")
    text = grid.decode("ascii")
    w = board.width
    return [text[i : i + w] for i in range(0, len(text), w)]


def game_state(game_id: str, game: Game) -> dict[str, Any]:
    """The API's ``state`` for ``game``: mines (``layout``, ``witness``, ``loss``, ``seed``)
    only once the game has ended."""
    params = game.params
    state: dict[str, Any] = {
        "id": game_id,
        "width": params.width,
        "height": params.height,
        "mines": params.mines,
        "topology": params.topology.value,
        "count": params.rules.count.value,
        "mercy": params.rules.mercy.value,
        "no_guess": game.no_guess,
        "status": game.status.value,
        "moves": len(game.moves),
        "board": game.position.rows(),
    }
    if game.status is Status.PLAYING:
        return state
    board = game.position.board
    if game.layout is not None:
        state["layout"] = layout_rows(board, game.layout)
    if game.status is Status.LOST:
        if game.witness is not None:
            state["witness"] = layout_rows(board, game.witness)
        if game.loss is not None:
            state["loss"] = list(board.coord(game.loss))
    state["seed"] = params.seed
    return state


def public_state(loaded: LoadedGame) -> dict[str, Any]:
    return game_state(loaded.id, loaded.game)


def changed_cells(before: Position, after: Position) -> list[Coord]:
    """The (row, col) of every cell whose visible content differs, row-major."""
    if before.board != after.board:
        raise ValueError("changed_cells: the positions are on different boards")
    width = before.board.width
    old, new = before.grid, after.grid
    out: list[Coord] = []
    for start in range(0, len(old), width):
        end = start + width
        if old[start:end] == new[start:end]:
            continue
        row = start // width
        out.extend((row, c) for c in range(width) if old[start + c] != new[start + c])
    return out


def event_dict(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seq": event.seq,
        "kind": event.kind,
        "row": event.row,
        "col": event.col,
        "at": event.at.isoformat(),
    }
    if event.kind == "hint":
        out["level"] = event.extra
    return out


# -- the service -------------------------------------------------------------------------


def _move(event: Event) -> Move:
    assert event.row is not None and event.col is not None
    return Move(MoveKind(event.kind), event.row, event.col)


@dataclass(frozen=True)
class _Cached:
    game: Game
    seq: int
    hints: int
    started_at: datetime | None
    last_move_at: datetime | None


class GameService:
    """Games over one ``Store``; holds the caches and the per-game locks."""

    def __init__(
        self,
        store: Store,
        cache_size: int = 128,
        run_cpu: Callable[[Callable[[], T]], T] | None = None,
        offload: Callable[[Game, Move], Game | None] | None = None,
    ):
        self.store = store
        self.offload = offload
        """Plays a first reveal in a child process (``app.offload``) so it does not hold
        this process's GIL; None means "compute it here" (then ``run_cpu`` runs it)."""
        self.cache_size = cache_size
        self.cache_cells = CACHE_CELLS
        self.run_cpu: Callable[[Callable[[], Any]], Any] = run_cpu or _call
        """Runs the engine's work (moves, replays). Under gevent: a real thread, so the
        worker's other greenlets keep answering while a big first click computes."""
        self._live: OrderedDict[str, _Cached] = OrderedDict()
        self._prefix: OrderedDict[tuple[str, int], Game] = OrderedDict()
        self._params: OrderedDict[str, GameParams] = OrderedDict()
        self._records: OrderedDict[str, GameRow] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._locks = tuple(threading.RLock() for _ in range(64))

    # -- caches ------------------------------------------------------------------------

    def _lock_for(self, game_id: str) -> threading.RLock:
        return self._locks[zlib.crc32(game_id.encode()) % len(self._locks)]

    def _cached(self, game_id: str) -> _Cached | None:
        with self._cache_lock:
            entry = self._live.get(game_id)
            if entry is not None:
                self._live.move_to_end(game_id)
            return entry

    def _remember(self, game_id: str, entry: _Cached) -> None:
        with self._cache_lock:
            old = self._live.get(game_id)
            if old is None or old.seq <= entry.seq:
                self._live[game_id] = entry
                self._live.move_to_end(game_id)
            _trim(self._live, self.cache_size, self.cache_cells, lambda e: _cells(e.game))

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached states (all of them with no argument)."""
        with self._cache_lock:
            if game_id is None:
                self._live.clear()
                self._prefix.clear()
            else:
                self._live.pop(game_id, None)

    # -- reading -----------------------------------------------------------------------

    def record(self, game_id: str) -> GameRow:
        """The game's ``games`` row (UnknownGame if there is none).

        Read once, then served from memory: a game's id, params, owner, token hash and
        creation time never change. Its summary columns (status, moves, last_seq) may
        therefore lag; ``load`` (or the store) has the log's truth."""
        with self._cache_lock:
            row = self._records.get(game_id)
            if row is not None:
                self._records.move_to_end(game_id)
                return row
        row = self.store.get_game(game_id) if _plausible_id(game_id) else None
        if row is None:
            raise UnknownGame(game_id)
        self._remember_record(row)
        return row

    def _remember_record(self, row: GameRow) -> None:
        with self._cache_lock:
            self._records[row.id] = row
            self._records.move_to_end(row.id)
            while len(self._records) > 4 * self.cache_size:
                self._records.popitem(last=False)

    def load(self, game_id: str) -> LoadedGame:
        """The game as its log says now (cache used only when it matches the log)."""
        head = self.store.get_head(game_id) if _plausible_id(game_id) else None
        if head is None:
            raise UnknownGame(game_id)
        record, last = head
        return self._load_at(record, last, self.store.events)

    def params(self, record: GameRow) -> GameParams:
        """The game's parameters (immutable, so cached by id)."""
        with self._cache_lock:
            params = self._params.get(record.id)
            if params is not None:
                self._params.move_to_end(record.id)
                return params
        params = _params(record)
        with self._cache_lock:
            self._params[record.id] = params
            while len(self._params) > 4 * self.cache_size:
                self._params.popitem(last=False)
        return params

    def _load_at(
        self,
        record: GameRow,
        last: int,
        fetch: Callable[..., list[Event]],
        run: Callable[[Callable[[], Any]], Any] | None = None,
    ) -> LoadedGame:
        """The game after log event ``last``; ``fetch(game_id, after=, upto=)`` reads events."""
        game_id = record.id
        entry = self._cached(game_id)
        if entry is not None and entry.seq > last:
            # This process committed newer moves after our read: ask the log again.
            last = max(last, self.store.last_seq(game_id))
        if entry is None or entry.seq != last:
            # Bringing a game forward plays moves on its shared solver: one thread at a time.
            with self._lock_for(game_id):
                entry = self._cached(game_id)
                if entry is None or entry.seq > last:  # the log lost events: start again
                    entry = _Cached(Game.new(self.params(record)), 0, 0, None, None)
                if entry.seq < last:
                    newer = fetch(game_id, after=entry.seq, upto=last)
                    entry = (run or self.run_cpu)(partial(_advance, entry, newer))
                    self._remember(game_id, entry)
        return LoadedGame(
            record, entry.game, entry.seq, entry.hints, entry.started_at, entry.last_move_at
        )

    def lock(self, game_id: str) -> threading.RLock:
        """The lock ``play`` holds for ``game_id``. Hold it while calling anything that runs
        the solver on a loaded game (``game.analysis()``): games of one lineage share a
        solver, which is not thread-safe."""
        return self._lock_for(game_id)

    def events(self, game_id: str) -> list[Event]:
        self.record(game_id)
        return self.store.events(game_id)

    def replay(self, game_id: str, n: int) -> Game:
        """The game after its first ``n`` moves (hints skipped); UnknownGame/UnknownMove.

        Built from the longest cached prefix of the same game (or the live state when
        ``n`` is the current move count), so stepping through a replay costs one move."""
        record = self.record(game_id)
        moves = [_move(e) for e in self.store.events(game_id) if e.is_move]
        if not 0 <= n <= len(moves):
            raise UnknownMove(f"move {n} does not exist: game {game_id} has {len(moves)} moves")
        with self._lock_for(game_id):  # prefixes share solvers: one thread at a time
            live = self._cached(game_id)
            if (
                live is not None
                and len(live.game.moves) == n
                and live.game.moves == tuple(moves[:n])
            ):
                return live.game
            start, game = self._longest_prefix(game_id, n)
            if start == n and game is not None:
                return game
            base = game if game is not None else Game.new(self.params(record))
            game = cast(Game, self.run_cpu(partial(_play_all, base, moves[start:n])))
            with self._cache_lock:
                self._prefix[(game_id, n)] = game
                _trim(self._prefix, self.cache_size, self.cache_cells, _cells)
            return game

    def _longest_prefix(self, game_id: str, n: int) -> tuple[int, Game | None]:
        with self._cache_lock:
            best = max((k for (gid, k) in self._prefix if gid == game_id and k <= n), default=None)
            if best is None:
                return 0, None
            self._prefix.move_to_end((game_id, best))
            return best, self._prefix[(game_id, best)]

    def hints_used(self, game_id: str) -> int:
        return self.load(game_id).hints

    # -- writing -----------------------------------------------------------------------

    def create(self, params: GameParams, owner: str | None = None) -> CreatedGame:
        game = Game.new(params)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        for _ in range(5):
            game_id = secrets.token_urlsafe(ID_BYTES)
            if self.store.get_game(game_id) is None:
                break
        record = self.store.insert_game(game_id, params.to_dict(), hash_token(token), owner)
        self._remember_record(record)
        entry = _Cached(game, 0, 0, None, None)
        self._remember(game_id, entry)
        return CreatedGame(record, token, LoadedGame(record, game, 0, 0, None, None))

    def play(
        self,
        game_id: str,
        action: str,
        row: Any,
        col: Any,
        record: GameRow | None = None,
        loaded: LoadedGame | None = None,
    ) -> tuple[LoadedGame, LoadedGame]:
        """Apply one player action; returns the game before and after it.

        ``record`` or ``loaded`` (the caller's copy, e.g. from its owner check) save a
        query; a stale ``loaded`` is fine: the append notices and the move is recomputed.
        Raises InputError (bad action/row/col), UnknownGame, IllegalMove/GameOver; in
        every error case nothing is written.
        """
        action = parse_action(action)
        if loaded is not None and loaded.id == game_id:
            record = loaded.record
        else:
            loaded = None
        if record is None or record.id != game_id:
            record = self.record(game_id)
        params = self.params(record)
        r = parse_coord(row, "row", params.height)
        c = parse_coord(col, "col", params.width)
        cell = r * params.width + c
        if cell in params.holes:
            raise InputError("row", f"row {r}, col {c} is a hole, not a cell of the board")
        with self._lock_for(game_id):
            # Optimistic: compute outside any database lock on the newest state this
            # process knows (the caller's copy, else the cache: no query), and append it
            # as the next event; the append checks, holding the log, that nobody moved since.
            known = self._newest(loaded) if loaded is not None else self._cached_state(record)
            if known is not None:
                try:
                    return self._commit(known, action, r, c, self.store.append_event)
                except SequenceConflict:
                    pass  # another process moved first
                except (IllegalMove, InputError):
                    # Refused on our copy: refuse for real only if the log agrees with it.
                    if self.store.last_seq(game_id) == known.seq:
                        raise
            # The log as it is now, read without holding it.
            before = self.load(game_id)
            if known is None or before.seq != known.seq:
                try:
                    return self._commit(before, action, r, c, self.store.append_event)
                except SequenceConflict:
                    pass  # another process moved first, again
            # Pessimistic: hold the game's log while recomputing on its newest state. The
            # engine runs inline here: a greenlet holding SQLite's write lock must not
            # yield to others that would block on it inside the sqlite3 C library.
            try:
                with self.store.locked(game_id) as log:
                    before = self._load_at(record, log.last_seq(), _reader(log), _call)
                    return self._commit(before, action, r, c, _appender(log), _call)
            except BaseException:
                # ``_commit`` cached the move before this transaction committed: if it did
                # not, the cache must not keep an event the log does not have.
                self.forget(game_id)
                raise

    def _cached_state(self, record: GameRow) -> LoadedGame | None:
        """This process's newest state of the game, unchecked against the log."""
        entry = self._cached(record.id)
        if entry is None:
            return None
        return LoadedGame(
            record, entry.game, entry.seq, entry.hints, entry.started_at, entry.last_move_at
        )

    def _newest(self, loaded: LoadedGame) -> LoadedGame:
        """``loaded``, or the cached state if this process has moved the game since."""
        entry = self._cached(loaded.id)
        if entry is None or entry.seq <= loaded.seq:
            return loaded
        return LoadedGame(
            loaded.record, entry.game, entry.seq, entry.hints, entry.started_at, entry.last_move_at
        )

    def _commit(
        self,
        before: LoadedGame,
        action: str,
        row: int,
        col: int,
        append: Callable[..., Event],
        run: Callable[[Callable[[], Any]], Any] | None = None,
    ) -> tuple[LoadedGame, LoadedGame]:
        """Play the action on ``before``, append it as event ``before.seq + 1``, cache it."""
        move = _concrete_move(before.game, action, row, col)
        game: Game | None = None
        if run is None and self.offload is not None and _draws_layout(before.game, move):
            game = self.offload(before.game, move)
        if game is None:
            if run is None:
                run = self.run_cpu if _heavy(before.game, move) else _call
            try:
                game = run(partial(before.game.play, move))
            except InvalidMove as exc:
                raise InputError("row", str(exc)) from None
        assert game is not None
        seq = before.seq + 1
        summary = Summary(game.status.value, len(game.moves))
        event = append(before.id, seq, move.kind.value, move.row, move.col, summary=summary)
        entry = _Cached(game, seq, before.hints, before.started_at or event.at, event.at)
        self._remember(before.id, entry)
        after = LoadedGame(
            before.record, game, seq, entry.hints, entry.started_at, entry.last_move_at
        )
        return before, after

    def record_hint(
        self, game_id: str, level: int, row: int | None = None, col: int | None = None
    ) -> int:
        """Log a hint request (``kind="hint"``, ``extra`` = level); returns hints used."""
        if isinstance(level, bool) or not isinstance(level, int):
            raise InputError("level", f"level must be a whole number, not {level!r}")
        if not 0 <= level <= MAX_HINT_LEVEL:
            raise InputError("level", f"level {level} is out of range: 0 to {MAX_HINT_LEVEL}")
        record = self.record(game_id)
        params = _params(record)
        if row is not None:
            row = parse_coord(row, "row", params.height)
        if col is not None:
            col = parse_coord(col, "col", params.width)
        with self._lock_for(game_id), self.store.locked(game_id) as log:
            log.append(log.last_seq() + 1, "hint", row, col, extra=level)
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


CACHE_CELLS = 8_000_000
"""Most board cells each cache keeps (a cached 1000x1000 game holds a few MB)."""

K = TypeVar("K")
V = TypeVar("V")


def _cells(game: Game) -> int:
    return game.params.height * game.params.width


def _trim(cache: OrderedDict[K, V], count: int, cells: int, size: Callable[[V], int]) -> None:
    """Evict least recently used entries until at most ``count`` and ``cells`` remain
    (the newest entry always stays)."""
    total = sum(size(v) for v in cache.values())
    while len(cache) > 1 and (len(cache) > count or total > cells):
        _, evicted = cache.popitem(last=False)
        total -= size(evicted)


INLINE_CELLS = 4096
"""Moves on boards up to this many cells (64x64) run inline, except a first reveal: handing
a sub-millisecond click to a thread costs more than it saves."""


def _draws_layout(game: Game, move: Move) -> bool:
    """A first reveal: it draws the layout (with no-guess, a search of 10-150 ms)."""
    return game.layout is None and move.kind in (MoveKind.REVEAL, MoveKind.CHORD)


def _heavy(game: Game, move: Move) -> bool:
    """Whether playing ``move`` may take long enough to be worth a thread: a first reveal
    or any move on a big board."""
    return game.params.height * game.params.width > INLINE_CELLS or _draws_layout(game, move)


def _call(work: Callable[[], T]) -> T:
    return work()


def cpu_runner(mode: str) -> Callable[[Callable[[], Any]], Any] | None:
    """``"thread"``: run engine work in gevent's thread pool when gevent has patched this
    process (the ``mine-devil`` worker), else inline. ``"inline"``: always inline."""
    if mode != "thread":
        return None
    try:
        from gevent import get_hub, monkey  # type: ignore[import-untyped]
    except ImportError:
        return None
    if not monkey.is_module_patched("threading"):
        return None
    pool = get_hub().threadpool
    return lambda work: pool.apply(work)


def _params(record: GameRow) -> GameParams:
    return GameParams.from_dict(dict(record.params))


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


def _advance(entry: _Cached, newer: list[Event]) -> _Cached:
    """Bring a cached state forward through the log's newer events."""
    game, hints = entry.game, entry.hints
    started, last_at = entry.started_at, entry.last_move_at
    seq = entry.seq
    for event in newer:
        if event.seq != seq + 1:
            raise RuntimeError(f"game {event.game_id}: the log jumps from {seq} to {event.seq}")
        seq = event.seq
        if event.kind == "hint":
            hints += 1
            continue
        game = game.play(_move(event))
        started = started or event.at
        last_at = event.at
    return _Cached(game, seq, hints, started, last_at)


def _concrete_move(game: Game, action: str, row: int, col: int) -> Move:
    """Turn a player action into the engine move it means on this game now."""
    cell = row * game.params.width + col
    position = game.position
    if action == "flag":
        kind = MoveKind.UNFLAG if position.is_flagged(cell) else MoveKind.FLAG
    elif action == "click":
        kind = MoveKind.REVEAL if position.is_covered(cell) else MoveKind.CHORD
    else:
        kind = MoveKind(action)
    return Move(kind, row, col)


# -- Flask glue --------------------------------------------------------------------------


def get_service() -> GameService:
    service: GameService = current_app.extensions["mine_devil.games"]
    return service


def init_app(app: Flask) -> None:
    runner = cpu_runner(str(app.config.get("ENGINE_RUNNER", "thread")))
    offload = None
    if runner is not None and app.config.get("ENGINE_OFFLOAD", True):
        # A gevent worker (``mine-devil``): first reveals go to child processes.
        from app.offload import EnginePool

        pool = EnginePool(int(app.config.get("ENGINE_PROCESSES", 2)))
        pool.start()
        app.extensions["mine_devil.engine_pool"] = pool
        offload = pool.play
    app.extensions["mine_devil.games"] = GameService(
        get_store_for(app),
        int(app.config.get("GAME_CACHE_SIZE", 128)),
        runner,
        offload,
    )
    app.cli.add_command(rebuild_summaries_command)


@click.command("rebuild-summaries")
@with_appcontext
def rebuild_summaries_command() -> None:
    """Recompute every game's derived columns (status, moves, last_seq) from its log."""
    count = get_service().rebuild_summaries()
    click.echo(f"Rebuilt the summaries of {count} games from their logs.")


def get_store_for(app: Flask) -> Store:
    store: Store = app.extensions["mine_devil.store"]
    return store


# Module-level shortcuts for views: they use the current app's service.


def create_game(params: GameParams, owner: str | None = None) -> CreatedGame:
    return get_service().create(params, owner)


def load_game(game_id: str) -> LoadedGame:
    return get_service().load(game_id)


def game_record(game_id: str) -> GameRow:
    return get_service().record(game_id)


def play(
    game_id: str,
    action: str,
    row: Any,
    col: Any,
    record: GameRow | None = None,
    loaded: LoadedGame | None = None,
) -> tuple[LoadedGame, LoadedGame]:
    """Apply a player's action; ``record``/``loaded`` (from the owner check) save a query."""
    return get_service().play(game_id, action, row, col, record, loaded)


def replay_game(game_id: str, n: int) -> Game:
    return get_service().replay(game_id, n)


def move_log(game_id: str) -> list[dict[str, Any]]:
    """The log, each entry with ``n``: the number of board moves made once it was written.

    Hints are events too (they take sequence numbers) but change no cell, so ``seq`` and
    the move count differ once a hint was asked; ``/replay/<n>`` takes ``n``.
    """
    log = []
    n = 0
    for event in get_service().events(game_id):
        entry = event_dict(event)
        if event.kind != "hint":
            n += 1
        entry["n"] = n
        log.append(entry)
    return log


def record_hint(game_id: str, level: int, row: int | None = None, col: int | None = None) -> int:
    return get_service().record_hint(game_id, level, row, col)


def hints_used(game_id: str) -> int:
    return get_service().hints_used(game_id)


__all__ = [
    "ACTIONS",
    "API_MAX_SIDE",
    "BROWSER_MAX_SIDE",
    "PRESETS",
    "CreatedGame",
    "GameService",
    "InputError",
    "LoadedGame",
    "UnknownGame",
    "UnknownMove",
    "changed_cells",
    "create_game",
    "game_record",
    "game_state",
    "get_service",
    "get_store",
    "hints_used",
    "layout_rows",
    "load_game",
    "move_log",
    "parse_params",
    "play",
    "public_state",
    "record_hint",
    "replay_game",
]
