"""What the store hands out: rows of ``games`` and ``events`` as frozen values, and its errors."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.store.schema import MOVE_KINDS


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """SQLite hands back naive datetimes: they were stored in UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class GameRow:
    """One row of ``games``. ``status``/``moves``/``last_seq`` are a derived summary."""

    id: str
    params: Mapping[str, Any]
    owner: str | None
    token_hash: str
    created_at: datetime
    status: str
    moves: int
    last_seq: int
    updated_at: datetime


@dataclass(frozen=True)
class Event:
    """One entry of a game's log."""

    game_id: str
    seq: int
    kind: str
    row: int | None
    col: int | None
    extra: Any
    at: datetime

    @property
    def is_move(self) -> bool:
        return self.kind in MOVE_KINDS


@dataclass(frozen=True)
class Summary:
    """The derived columns written together with an event."""

    status: str
    moves: int


class StoreError(RuntimeError):
    """Base class of the store's own errors."""


class SequenceConflict(StoreError):
    """``append_event`` lost a race: the log does not end where the caller expected."""

    def __init__(self, game_id: str, expected_seq: int, last_seq: int):
        super().__init__(
            f"game {game_id}: expected to append event {expected_seq} but the log ends at "
            f"{last_seq}"
        )
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.last_seq = last_seq


class NoSuchGame(StoreError, LookupError):
    def __init__(self, game_id: str):
        super().__init__(f"game {game_id!r} does not exist")
        self.game_id = game_id


def game_record(row: Any) -> GameRow:
    return GameRow(
        id=row["id"],
        params=row["params"],
        owner=row["owner"],
        token_hash=row["token_hash"],
        created_at=as_utc(row["created_at"]),
        status=row["status"],
        moves=row["moves"],
        last_seq=row["last_seq"],
        updated_at=as_utc(row["updated_at"]),
    )


def event_record(row: Any) -> Event:
    return Event(
        game_id=row["game_id"],
        seq=row["seq"],
        kind=row["kind"],
        row=row["row"],
        col=row["col"],
        extra=row["extra"],
        at=as_utc(row["at"]),
    )
