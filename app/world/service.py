"""Devil World's moves, views and feeds: the engine (``devil.world``) over the store.

``play_raft``     judge and apply a raft of 1..256 moves for one player, in one team
                  transaction, one logged event per move, one notification per raft;
                  every judgement within a budget per move and per raft (``Judging``)
``switch_colour`` the player's colour, logged as an event
``view``          a rectangle of one team's board as rows of symbols
``feed``          the team's events after a seq, cut to a viewport and one board: only
                  the cells that changed

Nothing here reads a cell's colour except the engine's ``truth`` callback, which the
engine calls only on cells it has proved safe (reveal, cascade) or on a drop's ground;
every cell sent out comes from the team's knowledge or from a move that just established
it. The witness of a devil error is computed from knowledge alone.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.engine import Connection

from app import metrics
from app.notify import Notifier, Outbox
from app.world.chunks import FLAGS, ChunkKey, ChunkKnowledge, StoredChunk, around, chunk_range
from app.world.flight import JudgedOn, Stale, read_ahead
from app.world.idempotency import PendingRaft, RaftKey, RaftReplayed, packed, recall
from app.world.judging import (
    CASCADE_LIMIT,
    Ahead,
    Judged,
    Judging,
    MoveRequest,
    PausingClock,
    cpu_wait,
    judge_ahead,
    judge_moves,
    unchanged,
    written_keys,
)
from app.world.records import (
    Cell,
    MoveRecord,
    NoSuchPlayer,
    PlayerRow,
    WorldEvent,
    player_row,
    utcnow,
)
from app.world.store import WorldStore
from app.world.team import SELECT_PLAYER, TeamTransaction, load_chunks
from devil.world import Colouring, Witness

MAX_RAFT = 256
MAX_VIEW_SIDE = 256
DEFAULT_JUDGING = Judging()


@dataclass(frozen=True)
class MoveAnswer:
    kind: str
    x: int
    y: int
    outcome: str
    cells: tuple[Cell, ...]
    seq: int | None
    """None for an ``undecided`` move: nothing was logged."""
    witness: Witness | None = None
    truncated: bool = False
    at: tuple[int, int] | None = None
    reason: str | None = None
    work: int = 0
    """Budget units its judgement spent (not sent: the caller charges them to the player)."""

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": self.kind,
            "x": self.x,
            "y": self.y,
            "outcome": self.outcome,
            "cells": [[x, y, s] for x, y, s in self.cells],
            "seq": self.seq,
        }
        if self.witness is not None:
            w = self.witness
            body["witness"] = {"x0": w.x0, "y0": w.y0, "rows": list(w.rows)}
        if self.truncated:
            body["truncated"] = True
            body["note"] = (
                f"the cascade stopped after {CASCADE_LIMIT} cells: click its edge to go on"
            )
        if self.at is not None and self.kind == "drop":
            body["at"] = list(self.at)
        if self.reason is not None:
            body["reason"] = self.reason
        return body


class DropTooSoon(Exception):
    """A drop within ``drop_seconds`` of the player's previous one."""

    def __init__(self, retry_after: float, drop_seconds: float):
        super().__init__(
            f"one drop per {drop_seconds:g} s per player: the next drop is possible in "
            f"{retry_after:.0f} s"
        )
        self.retry_after = retry_after


def topic(world: str, team: str) -> str:
    """The notifier topic of one team's knowledge (every colour: flags concern all)."""
    return f"world:{world}:{team}"


class Colourings:
    """One ``Colouring`` per world (precomputed HMAC states); worlds never change key."""

    def __init__(self) -> None:
        self._by_world: dict[str, Colouring] = {}

    def get(self, store: WorldStore, world: str) -> Colouring:
        found = self._by_world.get(world)
        if found is None:
            row = store.world(world)
            found = Colouring(row.key, row.id, row.colours)
            if len(self._by_world) < 1024:
                self._by_world[world] = found
        return found


def play_raft(
    store: WorldStore,
    notifier: Notifier,
    colourings: Colourings,
    player: PlayerRow,
    moves: Sequence[MoveRequest],
    drop_seconds: float = 30.0,
    now: datetime | None = None,
    timings: dict[str, float] | None = None,
    key: RaftKey | None = None,
    judging: Judging = DEFAULT_JUDGING,
) -> list[MoveAnswer]:
    """Judge and apply ``moves`` in order for ``player`` (one transaction, one event per
    decided move; an ``undecided`` one logs nothing and the others still stand).

    Raises ``DropTooSoon`` (nothing applied) when the raft drops within ``drop_seconds`` of
    the player's last drop, or drops twice. With an idempotency ``key`` the answer is stored
    with the events; ``RaftReplayed`` (nothing applied) when the key was played already
    (``app.world.idempotency``)."""
    if not 1 <= len(moves) <= MAX_RAFT:
        raise ValueError(f"a raft has 1 to {MAX_RAFT} moves, got {len(moves)}")
    colouring = colourings.get(store, player.world)
    cells = [(m.x, m.y) for m in moves]
    # the chunks around the raft for the player's colour as of its token (read with the
    # team's row on PostgreSQL; a colour switched meanwhile only costs one more query)
    keys = around(player.colour, cells)
    world, team = player.world, player.team
    raft = _Raft(store, notifier, colouring, player, moves, keys, drop_seconds, now, key, judging)
    queued = time.perf_counter()
    with store.queue(world, team):
        started = time.perf_counter()
        done = raft.ahead_on_postgresql(timings) if store.dialect == "postgresql" else None
        if done is None:
            done = raft.in_the_lock(timings)
    seqs, answers, judged = done
    if timings is not None:
        timings["queue"] = (started - queued) * 1e3  # the team's queue, taken here
        timings["judge"] = judged * 1e3
    for answer in answers:
        metrics.move_judged("world", answer.kind, answer.outcome)
    taken = iter(seqs)
    return [a if a.outcome == "undecided" else replace(a, seq=next(taken)) for a in answers]


_Done = tuple[list[int], list["MoveAnswer"], float]
"""A raft played: its seqs, its answers (unnumbered), the seconds its last judgement took."""


@dataclass(frozen=True)
class _Raft:
    """One raft on its way (``play_raft``), inside the team's queue of this process."""

    store: WorldStore
    notifier: Notifier
    colouring: Colouring
    player: PlayerRow
    moves: Sequence[MoveRequest]
    keys: list[ChunkKey]
    drop_seconds: float
    now: datetime | None
    key: RaftKey | None
    judging: Judging

    def ahead_on_postgresql(self, timings: dict[str, float] | None) -> _Done | None:
        """Judged ahead, on a read of the player and chunks that takes no lock; then one
        flight takes the team's row, checks that what the judgement read still holds, writes
        and commits (``app.world.flight``): the row is held for no wait of this process.
        None when the team moved meanwhile (nothing written: judge again, in the lock)."""
        world, team = self.player.world, self.player.team
        try:
            with (
                self.notifier.outbox() as box,
                self.store.team_ahead(world, team, timings) as tx,
            ):
                read = time.perf_counter()
                me, found = read_ahead(tx.conn, world, team, self.player.id, self.keys)
                read = time.perf_counter() - read
                if me is None:
                    raise NoSuchPlayer(f"{self.player.id} of team {team!r} of world {world!r}")
                _check_drops(me, self.moves, self.drop_seconds, self.now or tx.at)
                k = tx.knowledge
                k.stage(self.keys, found)  # the check then covers only the chunks judged on
                started, waited = time.perf_counter(), cpu_wait()
                if me.colour != self.player.colour:  # switched since its token was read
                    k.prefetch_around(me.colour, [(m.x, m.y) for m in self.moves])
                answers = judge_moves(
                    k, self.colouring, me.colour, self.moves, self.judging, PausingClock()
                )
                judged = time.perf_counter() - started
                if timings is not None:
                    timings["judgewait"] = (cpu_wait() - waited) * 1e3
                tx.judged = JudgedOn(
                    me,
                    k.read_versions(),
                    None if self.key is None else self.key.key,
                    None if self.key is None else self.key.since,
                )
                tx.at = utcnow()  # the commit's time (checked: after the team's last)
                seqs, unnumbered = self._log(tx, box, me, answers)
        except Stale:
            if timings is not None:
                timings["again"] = 1.0  # judged again in the lock: the team moved meanwhile
            return None
        if timings is not None:
            timings["read"] = read * 1e3
        return seqs, unnumbered, judged

    def in_the_lock(self, timings: dict[str, float] | None) -> _Done:
        """Judged holding the team (on SQLite, judged ahead first and checked in the lock)."""
        store, world, team = self.store, self.player.world, self.player.team
        ahead: Ahead | None = None
        started = time.perf_counter()
        if store.dialect == "sqlite":  # judged out of the database's one write lock
            ahead = self.judged_ahead_on_sqlite()
        judged_ahead = time.perf_counter()
        with (
            self.notifier.outbox() as box,
            store.team(world, team, timings, self.player.id, self.keys) as tx,
        ):
            me = tx.player(self.player.id)  # its colour now, under the team's lock
            if self.key is not None:
                played = recall(tx.conn, world, me.id, self.key)
                if played is not None:  # a copy of this raft got here first
                    raise RaftReplayed(played)
            _check_drops(me, self.moves, self.drop_seconds, self.now or tx.at)
            k = tx.knowledge
            judging_started, waited = time.perf_counter(), cpu_wait()
            if ahead is not None and _still_holds(tx.conn, world, team, me.colour, ahead):
                answers = ahead.judged
                k.prefetch(written_keys(me.colour, answers))
                for _, result, _ in answers:
                    if result.outcome != "undecided":
                        k.apply(me.colour, result.cells)
            else:  # PostgreSQL, or the team changed meanwhile in another process
                k.prefetch_around(me.colour, [(m.x, m.y) for m in self.moves])
                clock = PausingClock() if ahead is None else time.thread_time
                answers = judge_moves(k, self.colouring, me.colour, self.moves, self.judging, clock)
            judged = time.perf_counter() - judging_started
            if timings is not None:
                timings["judgewait"] = (cpu_wait() - waited) * 1e3
            seqs, unnumbered = self._log(tx, box, me, answers)
        if timings is not None:
            timings["ahead"] = (judged_ahead - started) * 1e3
        return seqs, unnumbered, judged

    def judged_ahead_on_sqlite(self) -> Ahead:
        """The raft judged ahead of its write transaction (``app.world.judging``), after the
        checks that would refuse it anyway (a replayed key, a drop too soon), so a refused
        raft costs no judgement; the write transaction checks them again, under the team's
        lock. Each read takes a connection for itself only: a judgement that pauses holds
        none (the versions checked at the write make the reads one snapshot)."""
        store, player, key = self.store, self.player, self.key
        world, team = player.world, player.team
        with store.reading() as conn:
            found = conn.execute(SELECT_PLAYER, {"p": player.id}).mappings().first()
            if found is None:
                raise NoSuchPlayer(player.id)
            me = player_row(found)
            if key is not None:
                played = recall(conn, world, me.id, key)
                if played is not None:
                    raise RaftReplayed(played)
        _check_drops(me, self.moves, self.drop_seconds, self.now or utcnow())

        def load(keys: Collection[ChunkKey]) -> dict[ChunkKey, StoredChunk]:
            with store.reading() as conn:
                return load_chunks(conn, world, team, keys)

        k = ChunkKnowledge(load)
        moves = self.moves
        return judge_ahead(k, self.colouring, me.colour, [(m.x, m.y) for m in moves], moves,
                           self.judging)  # fmt: skip

    def _log(
        self, tx: TeamTransaction, box: Outbox, me: PlayerRow, answers: list[Judged]
    ) -> tuple[list[int], list[MoveAnswer]]:
        """Log the decided moves of ``answers``, store the keyed raft's answer, notify and
        commit (``tx``'s last step); the seqs and the answers without them."""
        world, team = tx.world.id, tx.team
        for move, result, _ in answers:
            if result.outcome != "undecided":  # nothing happened: nothing to log
                tx.record(
                    me.id,
                    MoveRecord(move.kind, move.x, move.y, result.outcome, me.colour, result.cells),
                )
        unnumbered = [
            MoveAnswer(
                move.kind, move.x, move.y, r.outcome, r.cells, None, r.witness, r.truncated,
                r.at, r.reason, work,
            )
            for move, r, work in answers
        ]  # fmt: skip
        if self.key is not None:
            logged = sum(1 for a in unnumbered if a.outcome != "undecided")
            tx.raft = PendingRaft(
                me.id, self.key, packed([a.to_json() for a in unnumbered]), logged
            )
        about = topic(world, team)
        payload = {"w": world, "t": team, "c": me.colour}
        wire = self.notifier.sql_wire(about, payload, "s") if tx.flies else None
        seqs = tx.finish_and_commit(wire)
        if wire is None and seqs:  # the notifier does not ride on the commit: after it
            box.add(None if tx.committed else tx.conn, about, {**payload, "s": seqs[-1]})
        return seqs, unnumbered


def _still_holds(conn: Connection, world: str, team: str, colour: int, ahead: Ahead) -> bool:
    """Whether a judgement made ahead stands: same colour, every chunk it read unchanged."""
    return ahead.colour == colour and unchanged(conn, world, team, ahead.read)


def _check_drops(
    player: PlayerRow, moves: Sequence[MoveRequest], drop_seconds: float, now: datetime
) -> None:
    drops = sum(1 for m in moves if m.kind == "drop")
    if not drops or drop_seconds <= 0:
        return
    if drops > 1:
        raise DropTooSoon(drop_seconds, drop_seconds)
    last = player.last_drop_at
    if last is not None and now - last < timedelta(seconds=drop_seconds):
        wait = drop_seconds - (now - last).total_seconds()
        raise DropTooSoon(max(1.0, wait), drop_seconds)


def switch_colour(store: WorldStore, player: PlayerRow, colour: int) -> tuple[PlayerRow, int]:
    with store.team(player.world, player.team) as tx:
        me = tx.player(player.id)
        tx.switch_colour(me.id, colour)
        (seq,) = tx.finish_and_commit()
    return PlayerRow(me.id, me.world, me.team, me.name, colour, me.last_drop_at), seq


# -- reading ---------------------------------------------------------------------------

_FLAG_TABLES: dict[int, bytes] = {}


def _flag_table(colour: int) -> bytes:
    """Translate a flags row to board ``colour``'s symbols: own colour ``F``, others ``*``."""
    table = _FLAG_TABLES.get(colour)
    if table is None:
        t = bytearray(range(256))
        for c in range(8):
            t[ord("0") + c] = ord("F") if c == colour else ord("*")
        table = _FLAG_TABLES[colour] = bytes(t)
    return table


def render_rows(
    k: ChunkKnowledge, colour: int, x0: int, y0: int, width: int, height: int
) -> list[str]:
    """Board ``colour``'s symbols over the rectangle, straight from the chunks' bytes."""
    cx0, _, cx1, _ = chunk_range(x0, y0, width, height)
    table = _flag_table(colour)
    blank = b"." * 64
    rows: list[str] = []
    for y in range(y0, y0 + height):
        cy, ry = y >> 6, (y & 63) << 6
        parts: list[bytes] = []
        for cx in range(cx0, cx1 + 1):
            numbers = k.raw(colour, cx, cy)
            flags = k.raw(FLAGS, cx, cy)
            nrow = blank if numbers is None else bytes(numbers[ry : ry + 64])
            frow = blank if flags is None else bytes(flags[ry : ry + 64]).translate(table)
            if frow == blank:
                parts.append(nrow)
            elif nrow == blank:
                parts.append(frow)
            else:
                parts.append(bytes(n if n != 46 else f for n, f in zip(nrow, frow, strict=True)))
        line = b"".join(parts)
        start = x0 - (cx0 << 6)
        rows.append(line[start : start + width].decode("ascii"))
    return rows


def view(
    store: WorldStore, world: str, team: str, colour: int, x0: int, y0: int, w: int, h: int
) -> tuple[int, list[str]]:
    """``(seq, rows)``: the log's head and the rectangle on board ``colour`` as of it."""
    head, k = store.region(world, team, (colour, FLAGS), x0, y0, w, h)
    return head, render_rows(k, colour, x0, y0, w, h)


@dataclass(frozen=True)
class Viewport:
    colour: int
    x0: int
    y0: int
    width: int
    height: int

    def contains(self, x: int, y: int) -> bool:
        return 0 <= x - self.x0 < self.width and 0 <= y - self.y0 < self.height


def visible_changes(
    store: WorldStore, world: str, team: str, port: Viewport, batch: Iterable[WorldEvent]
) -> list[tuple[int, list[Cell]]]:
    """Per event of ``batch`` (in order), the cells of ``port`` it changed on its board.

    An event of the viewer's colour changes its own cells (digits, ``F``). A flag of
    another colour makes its cell ``*`` (known safe) unless board ``port.colour`` already
    shows a number there (the number wins); events that change nothing visible are left out.
    """
    out: list[tuple[int, list[Cell]]] = []
    others: list[tuple[int, int]] = []
    staged: list[tuple[int, list[Cell]]] = []
    for event in batch:
        cells: list[Cell] = []
        for x, y, sym in event.cells:
            if not port.contains(x, y):
                continue
            if event.colour == port.colour:
                cells.append((x, y, sym))
            elif sym == "F":
                cells.append((x, y, "*"))
                others.append((x, y))
        staged.append((event.seq, cells))
    numbered: set[tuple[int, int]] = set()
    if others:
        xs = [x for x, _ in others]
        ys = [y for _, y in others]
        bx, by = min(xs), min(ys)
        k = store.chunks_in(world, team, (port.colour,), bx, by, max(xs) - bx + 1, max(ys) - by + 1)
        numbered = {(x, y) for x, y in others if k.symbol(port.colour, x, y) in "012345678"}
    for seq, cells in staged:
        kept = [c for c in cells if c[2] != "*" or (c[0], c[1]) not in numbered]
        if kept:
            out.append((seq, kept))
    return out
