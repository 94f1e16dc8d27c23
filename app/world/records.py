"""Devil World's values: rows, log entries, counters, errors, and the cells' log encoding."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.errors import AlreadyExists, Missing

Cell = tuple[int, int, str]

MOVE_KINDS = ("reveal", "flag", "drop")
EVENT_KINDS = (*MOVE_KINDS, "colour")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime | None) -> datetime | None:
    """SQLite hands back naive datetimes: they were stored in UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# -- values ----------------------------------------------------------------------------


@dataclass(frozen=True)
class WorldRow:
    id: str
    colours: int
    created_at: datetime
    key: bytes = field(repr=False)
    """The secret key: the colours' only source. Never sent to anyone."""


@dataclass(frozen=True)
class PlayerRow:
    id: str
    world: str
    team: str
    name: str
    colour: int
    last_drop_at: datetime | None


@dataclass(frozen=True)
class NewPlayer:
    player: PlayerRow
    token: str
    """The bearer token, shown once; the store keeps only its sha256."""


@dataclass(frozen=True)
class MoveRecord:
    """One logged event of a player (a move, or a colour switch)."""

    kind: str
    x: int | None
    y: int | None
    outcome: str
    colour: int
    cells: tuple[Cell, ...] = ()


@dataclass(frozen=True)
class WorldEvent:
    world: str
    seq: int
    team: str
    player: str
    colour: int
    kind: str
    x: int | None
    y: int | None
    outcome: str
    opened: int
    cells: tuple[Cell, ...]
    at: datetime


@dataclass(frozen=True)
class Counts:
    moves: int
    revealed: int
    flags: int
    errors: int
    drops: int


@dataclass(frozen=True)
class Standing:
    """A team's or player's counters on the scoreboard."""

    name: str
    counts: Counts
    team: str | None = None
    player: str | None = None


class WorldStoreError(RuntimeError):
    pass


class WorldExists(WorldStoreError, AlreadyExists):
    def __init__(self, world: str):
        super().__init__(f"world {world!r} already exists")
        self.world = world


class NoSuchWorld(WorldStoreError, Missing):
    def __init__(self, world: str):
        super().__init__(f"world {world!r} does not exist")
        self.world = world


class NoSuchPlayer(WorldStoreError, Missing):
    def __init__(self, player: str):
        super().__init__(f"player {player!r} does not exist")
        self.player = player


class ChunkRace(WorldStoreError):
    """A chunk changed under a team transaction: the team lock was bypassed (a bug)."""


def encode_cells(x: int | None, y: int | None, cells: Sequence[Cell]) -> str | None:
    """``[[dx, dy, symbol], ...]`` relative to the move's cell (compact JSON), None if none."""
    if not cells:
        return None
    ox, oy = x or 0, y or 0
    return json.dumps([[cx - ox, cy - oy, s] for cx, cy, s in cells], separators=(",", ":"))


def decode_cells(x: int | None, y: int | None, text: str | None) -> tuple[Cell, ...]:
    if not text:
        return ()
    ox, oy = x or 0, y or 0
    return tuple((ox + dx, oy + dy, str(s)) for dx, dy, s in json.loads(text))


def counts_of(moves: Sequence[MoveRecord]) -> dict[str, int]:
    c = {"moves": 0, "revealed": 0, "flags": 0, "errors": 0, "drops": 0}
    for move in moves:
        if move.kind == "colour":
            continue
        c["moves"] += 1
        c["drops"] += move.kind == "drop"
        c["errors"] += move.outcome == "devil"
        for _, _, sym in move.cells:
            if sym == "F":
                c["flags"] += 1
            else:
                c["revealed"] += 1
    return c


def player_row(row: Mapping[Any, Any]) -> PlayerRow:
    return PlayerRow(
        id=row["id"],
        world=row["world"],
        team=row["team"],
        name=row["name"],
        colour=int(row["colour"]),
        last_drop_at=as_utc(row["last_drop_at"]),
    )


def world_event(row: Mapping[Any, Any]) -> WorldEvent:
    x, y = row["x"], row["y"]
    at = as_utc(row["at"])
    assert at is not None
    return WorldEvent(
        world=row["world"],
        seq=int(row["seq"]),
        team=row["team"],
        player=row["player"],
        colour=int(row["colour"]),
        kind=row["kind"],
        x=None if x is None else int(x),
        y=None if y is None else int(y),
        outcome=row["outcome"],
        opened=int(row["opened"]),
        cells=decode_cells(x, y, row["changes"]),
        at=at,
    )
