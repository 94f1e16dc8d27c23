"""A finished game's annotation, computed once and kept.

``Ledger.entry(game_id)`` answers from memory, else from the ``ledger`` table, else computes
it (``devil.ledger.annotate.annotate_game`` on the game replayed from its log, with the seconds from
the first move's event to the last and the hints the log holds) and saves it. Entries carry
``ANNOTATION_VERSION``: an entry from an older engine is recomputed. ``warm(game_id)`` does
the same in the background, and ``init_app`` calls it when a move ends a game, so the end
panel, the API and the records usually find it ready; nothing is computed while a game runs
(409: its board must not leak). The work is bounded: boards over ``MAX_CELLS`` are refused and
an annotation that runs over ``MAX_SECONDS`` is given up (422, remembered).
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Callable
from typing import Any

from werkzeug.exceptions import Conflict, UnprocessableEntity

from app.ledger.boards import preset_of, record_board
from app.ledger.store import LedgerRow, LedgerStore
from app.lru import Lru
from app.play.service import GameService
from devil.game import Game, Status
from devil.ledger.annotate import (
    ANNOTATION_VERSION,
    AnnotationTooLong,
    GameAnnotation,
    annotate_game,
)

log = logging.getLogger(__name__)


class StillPlaying(Conflict):
    """Annotations exist only for finished games (HTTP 409: nothing leaks while it runs)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id} is still being played: its annotations come when it ends")


MAX_CELLS = 40_000
"""Boards up to this many cells (200x200) are annotated; bigger ones are refused (422)."""

MAX_SECONDS = 10.0
"""The most one annotation may compute (``devil.ledger.annotate.AnnotationTooLong`` beyond)."""


class TooBig(UnprocessableEntity):
    """A board too big to annotate, or one whose annotation ran out of time (HTTP 422)."""


class Ledger:
    """Annotations of finished games over the game service and the ledger table."""

    def __init__(
        self,
        games: GameService,
        store: LedgerStore,
        run_cpu: Callable[[Callable[[], Any]], Any] | None = None,
        cache_size: int = 256,
    ) -> None:
        self.games = games
        self.store = store
        self.run_cpu = run_cpu
        self._memo: Lru[str, LedgerRow] = Lru(cache_size)
        self._lock = threading.Lock()
        self._locks = tuple(threading.Lock() for _ in range(16))
        """Per game (striped): one annotation of a game computes at a time."""
        self._busy: set[str] = set()
        self._failed: dict[str, str] = {}
        """Games whose annotation ran out of time in this process (not tried again)."""

    def entry(self, game_id: str) -> LedgerRow:
        """The game's ledger row (``UnknownGame`` 404, ``StillPlaying`` 409)."""
        row = self._memo.get(game_id)
        if row is not None and row.version == ANNOTATION_VERSION:
            return row
        loaded = self.games.load(game_id)
        if loaded.status is Status.PLAYING:
            raise StillPlaying(game_id)
        params = loaded.params
        if params.height * params.width > MAX_CELLS:
            raise TooBig(
                f"game {game_id} is {params.height}x{params.width}: boards over {MAX_CELLS} "
                "cells are not annotated"
            )
        # One computation per game at a time in this process: requests that arrive while it
        # runs (the end panel, the API, the background warm-up) wait for it and read its row
        # instead of each annotating the same game again.
        with self._locks[zlib.crc32(game_id.encode()) % len(self._locks)]:
            row = self._memo.get(game_id)
            if row is not None and row.version == ANNOTATION_VERSION:
                return row
            if game_id in self._failed:
                raise TooBig(self._failed[game_id])
            row = self.store.get(game_id)
            if row is None or row.version != ANNOTATION_VERSION:
                row = self._compute(game_id, loaded.game)
                self.store.save(row)
                row = self.store.get(game_id) or row
            self._memo.put(game_id, row)
        return row

    def rebuild(self, game_id: str) -> bool:
        """Recompute a finished game's entry from its log (``flask rebuild-ledger``); False
        for a game still running or too big to annotate."""
        self.forget(game_id)
        loaded = self.games.load(game_id)
        if loaded.status is Status.PLAYING:
            return False
        if loaded.params.height * loaded.params.width > MAX_CELLS:
            return False
        self._failed.pop(game_id, None)
        row = self._compute(game_id, loaded.game)
        self.store.save(row)
        return True

    def annotation(self, game_id: str) -> dict[str, Any]:
        """The annotation JSON of ``GET /api/games/<id>/annotations``."""
        return dict(self.entry(game_id).body)

    def forget(self, game_id: str) -> None:
        """Drop the cached entry (after a display name changed, say)."""
        self._memo.pop(game_id)

    def warm(self, game_id: str) -> None:
        """Compute the entry in the background (once at a time per game)."""
        with self._lock:
            if game_id in self._busy:
                return
            self._busy.add(game_id)

        def work() -> None:
            try:
                self.entry(game_id)
            except TooBig:
                pass  # nothing to compute: the pages say so
            except Exception:  # logged: the page asks again and computes it then
                log.exception("annotating game %s failed", game_id)
            finally:
                with self._lock:
                    self._busy.discard(game_id)

        threading.Thread(target=work, name=f"ledger-{game_id}", daemon=True).start()

    def _compute(self, game_id: str, game: Game) -> LedgerRow:
        events = self.games.events(game_id)
        moves = [e for e in events if e.is_move]
        hints = sum(1 for e in events if e.kind == "hint")
        seconds = (moves[-1].at - moves[0].at).total_seconds() if moves else None

        def work() -> GameAnnotation:
            return annotate_game(game, seconds=seconds, hints=hints, max_seconds=MAX_SECONDS)

        try:
            annotation: GameAnnotation = work() if self.run_cpu is None else self.run_cpu(work)
        except AnnotationTooLong as exc:
            message = f"annotating game {game_id} took too long: {exc}"
            self._failed[game_id] = message
            raise TooBig(message) from None
        metrics = annotation.metrics
        record = self.games.record(game_id)
        board = record_board(game.params)
        return LedgerRow(
            game_id=game_id,
            version=ANNOTATION_VERSION,
            body=annotation.to_json(),
            status=game.status.value,
            preset=preset_of(game.params),
            count=game.params.rules.count.value,
            mercy=game.params.rules.mercy.value,
            no_guess=game.params.no_guess,
            seconds=seconds,
            bbbv=metrics.bbbv,
            bbbv_per_s=metrics.bbbv_per_s,
            hints=hints,
            bits=annotation.bits,
            guesses=len(annotation.guesses),
            max_level=metrics.max_level,
            owner=record.owner,
            finished_at=moves[-1].at if moves else record.created_at,
            board=board.key,
            board_size=board.size,
        )
