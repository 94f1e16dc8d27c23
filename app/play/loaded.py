"""A game as its log rebuilds it: ``LoadedGame`` (the state after event ``seq``), and how a
state is brought forward through newer events of the log."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from app.store.records import Event, GameRow
from devil.game import Game, GameParams, Move, MoveKind, Status


@dataclass(frozen=True)
class LoadedGame:
    """A game rebuilt from its log up to event ``seq``.

    ``record`` is the ``games`` row (owner, token hash, created_at; its summary columns may
    lag behind ``game``); ``hints`` counts the hint events, ``ladder`` those since the last
    move (the rung of the hint ladder the player stands on); ``started_at`` is the time of
    the first move and ``last_move_at`` of the latest one (None before the first move).
    """

    record: GameRow
    game: Game
    seq: int = 0
    hints: int = 0
    ladder: int = 0
    started_at: datetime | None = None
    last_move_at: datetime | None = None

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
    def moves(self) -> int:
        return len(self.game.moves)

    def after(self, game: Game, event: Event) -> LoadedGame:
        """This state followed by the move ``event`` that made ``game``."""
        return LoadedGame(
            self.record, game, event.seq, self.hints, 0, self.started_at or event.at, event.at
        )


@dataclass(frozen=True)
class CreatedGame:
    """A new game; ``token`` is shown once, only its hash is stored."""

    loaded: LoadedGame
    token: str

    @property
    def id(self) -> str:
        return self.loaded.id


def event_move(event: Event) -> Move:
    """The move a move event records."""
    assert event.row is not None and event.col is not None
    return Move(MoveKind(event.kind), event.row, event.col)


def advance(state: LoadedGame, newer: Iterable[Event]) -> LoadedGame:
    """``state`` brought forward through the log's next events."""
    for event in newer:
        if event.seq != state.seq + 1:
            raise RuntimeError(
                f"game {event.game_id}: the log jumps from {state.seq} to {event.seq}"
            )
        if event.kind == "hint":
            state = LoadedGame(
                state.record,
                state.game,
                event.seq,
                state.hints + 1,
                state.ladder + 1,
                state.started_at,
                state.last_move_at,
            )
        else:
            state = state.after(state.game.play(event_move(event)), event)
    return state
