"""Idempotent rafts: a retry with the same key gets the first answer and logs nothing twice.

A client may send a raft with an idempotency key: the ``Idempotency-Key`` header and/or the
body's ``"idempotency_key"`` field (both: they must be equal), 1 to 64 printable ASCII
characters without spaces (a UUID will do). The key is the player's own: per (world, player).

- The raft's answer is stored with its key in the raft's own transaction (``world_rafts``,
  written with the events: PostgreSQL in the same single flight), so an answer lost on the
  way (a timeout, a killed worker, a dropped connection) is never lost on the server: either
  the raft committed and its answer is stored, or neither happened.
- A request with a key first looks the key up (no lock); under the team's lock the raft looks
  it up again, so two copies sent at once are played once.
- Within ``WORLD_IDEMPOTENCY_SECONDS`` (default a day) a retry gets the stored answer (the
  same results and seqs, with the header ``Idempotent-Replayed: true``); the same key with
  other moves is a 422 naming ``Idempotency-Key``. After the window the key is new again
  (and expired answers of the player are deleted by its next keyed raft).
- Only played rafts are remembered: a refusal (400, 429) played nothing, so a retry is
  judged afresh.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import Request
from sqlalchemy.engine import Connection

from app.errors import Conflicting, InputError
from app.world.records import utcnow
from app.world.schema import rafts

HEADER = "Idempotency-Key"
FIELD = "idempotency_key"
KEY = re.compile(r"[!-~]{1,64}", re.ASCII)
"""1 to 64 printable ASCII characters, no spaces."""
MAX_KEY = 64
UNDECIDED = "undecided"
"""The outcome of a move the judging budget left undecided: it logs no event."""


class KeyReused(Conflicting):
    """The key was used for other moves (HTTP 422, ``app.errors``)."""

    def __init__(self, key: str):
        super().__init__(
            HEADER, f"{HEADER} {key!r} was used for a different raft: send a new key for new moves"
        )
        self.key = key


@dataclass(frozen=True)
class RaftKey:
    """A keyed raft: its key, the digest of its moves, the oldest answer that still counts."""

    key: str
    digest: str
    since: datetime


@dataclass(frozen=True)
class Remembered:
    """A keyed raft's stored answer."""

    digest: str
    results: tuple[dict[str, Any], ...]
    last_seq: int

    def answer(self) -> list[dict[str, Any]]:
        """The results as first sent: each logged move's seq restored (the raft's seqs are
        consecutive, ending at ``last_seq``; an ``undecided`` move logged nothing: None)."""
        logged = sum(1 for r in self.results if r.get("outcome") != UNDECIDED)
        taken = iter(range(self.last_seq - logged + 1, self.last_seq + 1))
        return [
            {**r, "seq": None if r.get("outcome") == UNDECIDED else next(taken)}
            for r in self.results
        ]


class RaftReplayed(Exception):
    """Raised inside the team transaction when the key turns out to be played already."""

    def __init__(self, remembered: Remembered):
        super().__init__("raft already played")
        self.remembered = remembered


def key_of(request: Request, body: dict[str, Any]) -> str | None:
    """The request's idempotency key (header and/or body field), or None."""
    header = request.headers.get(HEADER)
    field = body.get(FIELD)
    for name, value in ((HEADER, header), (FIELD, field)):
        if value is not None and (not isinstance(value, str) or not KEY.fullmatch(value)):
            raise InputError(
                name, f"{name} must be 1 to {MAX_KEY} printable ASCII characters, no spaces"
            )
    if header is not None and field is not None and header != field:
        raise InputError(FIELD, f"{FIELD} differs from the {HEADER} header: send one key")
    key = header if header is not None else field
    return key if isinstance(key, str) else None


def digest_of(moves: Sequence[dict[str, Any]]) -> str:
    """The sha256 of the raft's moves (kind, x, y in order)."""
    canon = [[m["kind"], m["x"], m["y"]] for m in moves]
    return hashlib.sha256(json.dumps(canon, separators=(",", ":")).encode()).hexdigest()


def raft_key(key: str, moves: Sequence[dict[str, Any]], window_seconds: float) -> RaftKey:
    return RaftKey(key, digest_of(moves), utcnow() - timedelta(seconds=window_seconds))


def recall(conn: Connection, world: str, player: str, key: RaftKey) -> Remembered | None:
    """The stored answer of ``key`` (within its window), or None; ``KeyReused`` when the key
    answered other moves."""
    row = conn.execute(
        sa.select(rafts.c.digest, rafts.c.answer, rafts.c.last_seq, rafts.c.created_at).where(
            rafts.c.world == world, rafts.c.player == player, rafts.c.key == key.key
        )
    ).first()
    if row is None:
        return None
    created = row[3] if row[3].tzinfo is not None else row[3].replace(tzinfo=key.since.tzinfo)
    if created < key.since:
        return None
    if row[0] != key.digest:
        raise KeyReused(key.key)
    results = json.loads(zlib.decompress(bytes(row[1])))
    return Remembered(str(row[0]), tuple(results), int(row[2]))


def packed(results: Sequence[dict[str, Any]]) -> bytes:
    """The results without their seqs (restored from the raft's last seq), compressed."""
    plain = [{k: v for k, v in r.items() if k != "seq"} for r in results]
    return zlib.compress(json.dumps(plain, separators=(",", ":")).encode(), 6)


@dataclass(frozen=True)
class PendingRaft:
    """What a team transaction stores with the raft's events (the last seq comes then)."""

    player: str
    key: RaftKey
    answer: bytes
    moves: int


def remember(conn: Connection, world: str, raft: PendingRaft, last_seq: int, at: datetime) -> None:
    """Store ``raft`` (in the caller's transaction), replacing an expired answer of the same
    key and deleting the player's other expired ones."""
    conn.execute(
        rafts.delete().where(
            rafts.c.world == world,
            rafts.c.player == raft.player,
            sa.or_(rafts.c.key == raft.key.key, rafts.c.created_at < raft.key.since),
        )
    )
    conn.execute(
        rafts.insert().values(
            world=world,
            player=raft.player,
            key=raft.key.key,
            digest=raft.key.digest,
            answer=raft.answer,
            last_seq=last_seq,
            moves=raft.moves,
            created_at=at,
        )
    )
