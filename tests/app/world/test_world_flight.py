"""The PostgreSQL flights of a team transaction (``app.world.flight``): two processes on one
team, a chunk moved under the lock, the notification whose seq only SQL knows, and a flight
on a connection the server ended."""

from __future__ import annotations

import contextlib
import functools
import json
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from app.notify.postgres import PostgresNotifier
from app.notify.wire import decode, encode
from app.store.database import make_engine
from app.store.log import Store
from app.world import flight, hotreads
from app.world.chunks import FLAGS, ChunkKnowledge
from app.world.records import Cell, ChunkRace, MoveRecord
from app.world.schema import chunks
from app.world.store import WorldStore
from devil.world import deduce

ROOT = Path(__file__).resolve().parents[3]
ON_POSTGRES = pytest.mark.parametrize(
    "db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)], indirect=True
)


# A process of its own (its engine, its in-process locks, as another server): it plays
# rafts of provable moves (and drops when it has none) for the players it is given, all of
# one team, around the same spot as the other process: same and neighbouring cells.
PLAYER_SCRIPT = textwrap.dedent(
    """
    import json, random, sys
    sys.path.insert(0, {root!r})
    from app.notify.base import LocalNotifier
    from app.store.log import Store
    from app.world.records import PlayerRow
    from app.world.judging import MoveRequest
    from app.world.service import Colourings, play_raft, view
    from app.world.store import WorldStore
    from devil.world import deduce

    store = WorldStore(Store({url!r}).engine)
    players = [store.player(p) for p in {players!r}]
    rng = random.Random({seed})
    colourings, notifier = Colourings(), LocalNotifier()
    acknowledged = []
    for round in range({rounds}):
        me = players[round % len(players)]
        x0, y0 = -16 + rng.randint(-4, 4), -16 + rng.randint(-4, 4)
        _, rows = view(store, "main", me.team, me.colour, x0, y0, 32, 32)
        found = deduce(rows, x0, y0)
        raft = [MoveRequest("reveal", x, y) for x, y in sorted(found.safe)]
        raft += [MoveRequest("flag", x, y) for x, y in sorted(found.mines)]
        if not raft:
            raft = [MoveRequest("drop", rng.randint(-8, 8), rng.randint(-8, 8))]
        raft = raft[:16]
        answers = play_raft(store, notifier, colourings, me, raft, drop_seconds=0)
        acknowledged += [a.seq for a in answers]
    print(json.dumps(acknowledged))
    """
)


def run_players(db_url: str, players: list[str], seed: int, rounds: int) -> subprocess.Popen[str]:
    script = PLAYER_SCRIPT.format(
        root=str(ROOT), url=db_url, players=players, seed=seed, rounds=rounds
    )
    return subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )


@ON_POSTGRES
def test_two_processes_on_one_team_lose_nothing_and_the_knowledge_is_the_log_replayed(
    store: WorldStore, db_url: str
) -> None:
    team = [store.add_player("main", f"p{i}", "red", i % 3).player.id for i in range(6)]
    store.add_player("main", "elsewhere", "blue", 0)  # another team's counters stay apart
    runs = [run_players(db_url, team[i::2], seed=i, rounds=25) for i in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    acknowledged = [seq for out, _ in outputs for seq in json.loads(out)]

    log = store.events("main", 0, 100_000)
    # every acknowledged move logged once, the log gapless
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    assert sorted(acknowledged) == [e.seq for e in log]
    assert {e.team for e in log} == {"red"}
    by_process = [{e.player for e in log} & set(team[i::2]) for i in range(2)]
    assert all(by_process), "both processes played"
    assert sum(len(e.cells) for e in log) > len(log), "the moves opened ground"
    # no cell established twice: each (board, cell) in one event only
    established = Counter(
        (FLAGS if sym == "F" else e.colour, x, y) for e in log for x, y, sym in e.cells
    )
    assert [cell for cell, n in established.items() if n > 1] == []
    # the counters are the log's
    teams, people = store.scoreboard("main")
    red = next(t for t in teams if t.name == "red")
    assert red.counts.moves == len(log)
    assert red.counts.revealed == sum(sym != "F" for e in log for *_, sym in e.cells)
    assert red.counts.flags == sum(sym == "F" for e in log for *_, sym in e.cells)
    assert sum(p.counts.moves for p in people if p.team == "red") == len(log)
    # the stored chunks are exactly the log replayed in seq order
    replay = ChunkKnowledge(lambda keys: {})
    for event in log:
        replay.apply(event.colour, event.cells)
    with store.engine.connect() as conn:
        stored = {
            (int(layer), int(cx), int(cy)): bytes(cells)
            for layer, cx, cy, cells in conn.execute(
                sa.select(chunks.c.layer, chunks.c.cx, chunks.c.cy, chunks.c.cells).where(
                    chunks.c.world == "main", chunks.c.team == "red"
                )
            )
        }
    assert stored == {key: cells for key, (cells, _) in replay.dirty().items()}
    assert sum(e.outcome == "devil" for e in log) == 0  # only proved moves were played


@ON_POSTGRES
def test_a_chunk_moved_under_the_lock_aborts_the_whole_transaction(
    store: WorldStore, db_url: str
) -> None:
    p = store.add_player("main", "Ada", "red", 1).player
    with store.team("main", "red") as tx:
        tx.knowledge.apply(1, [(0, 0, "1")])
        tx.record(p.id, MoveRecord("reveal", 0, 0, "revealed", 1, ((0, 0, "1"),)))
        assert tx.finish_and_commit() == [1]
    with pytest.raises(ChunkRace, match="chunk race"), store.team("main", "red") as tx:
        tx.knowledge.apply(1, [(1, 0, "2")])
        tx.record(p.id, MoveRecord("reveal", 1, 0, "revealed", 1, ((1, 0, "2"),)))
        # a writer that bypassed the team's lock (a bug) moves the chunk on meanwhile
        bypass = Store(db_url)
        try:
            with bypass.engine.begin() as conn:
                conn.execute(chunks.update().values(version=chunks.c.version + 1))
        finally:
            bypass.dispose()
        tx.finish_and_commit()
    assert [e.seq for e in store.events("main")] == [1]
    assert store.head("main") == 1
    _, k = store.region("main", "red", (1, FLAGS), 0, 0, 2, 1)
    assert [k.symbol(1, x, 0) for x in (0, 1)] == ["1", "."]


@pytest.mark.parametrize("seq", [0, 7, 2**62])
def test_the_sql_wire_is_the_notification_with_its_seq_in_place(seq: int) -> None:
    notifier = PostgresNotifier(sa.create_engine("postgresql+psycopg://u@127.0.0.1/d"))
    payload = {"w": "main", "t": "red team", "c": 3}
    channel, head, tail = notifier.sql_wire("world:main:red team", payload, "s")
    assert channel == notifier.channel
    text = head + str(seq) + tail
    assert text == encode("world:main:red team", {**payload, "s": seq})
    assert decode(text) == ("world:main:red team", {**payload, "s": seq})


@ON_POSTGRES
def test_a_raft_judged_ahead_takes_the_row_only_in_its_commit(
    store: WorldStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL a raft is judged on a read that locks nothing; the team's row is taken
    by the flight that commits. Meanwhile another process's commit on the team goes through
    (it would wait for the row if the judgement held it)."""
    from app.notify.base import LocalNotifier
    from app.world import service
    from app.world.judging import MoveRequest

    ada = store.add_player("main", "Ada", "red", 0).player
    bob = store.add_player("main", "Bob", "red", 0).player
    read_ahead = service.read_ahead

    def meanwhile(*args: Any) -> Any:
        found = read_ahead(*args)
        with store.team("main", "red") as tx:  # as another process would: not blocked
            tx.record(bob.id, MoveRecord("colour", None, None, "switched", 0))
            tx.finish_and_commit()
        return found

    monkeypatch.setattr(service, "read_ahead", meanwhile)
    timings: dict[str, float] = {}
    (got,) = service.play_raft(
        store, LocalNotifier(), service.Colourings(), ada, [MoveRequest("drop", 0, 0)],
        drop_seconds=0, timings=timings,
    )  # fmt: skip
    assert got.outcome == "dropped" and got.seq == 2
    assert timings["lock"] == 0.0 and "connect" in timings  # judged ahead, not in the lock
    assert [(e.seq, e.player) for e in store.events("main")] == [(1, bob.id), (2, ada.id)]


@ON_POSTGRES
def test_a_raft_whose_team_moved_meanwhile_is_judged_again_in_the_lock(
    store: WorldStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process reveals a cell the judgement ahead read: the commit's check finds the
    chunk's version moved, writes nothing, and the raft is judged again holding the row, so
    the cell is established once."""
    from app.notify.base import LocalNotifier
    from app.world import service
    from app.world.judging import MoveRequest

    ada = store.add_player("main", "Ada", "red", 0).player
    bob = store.add_player("main", "Bob", "red", 0).player
    play = functools.partial(
        service.play_raft, store, LocalNotifier(), service.Colourings(), drop_seconds=0
    )
    safe: list[tuple[int, int]] = []
    for spot in range(20):  # a drop whose opening proves two cells safe
        (dropped,) = play(ada, [MoveRequest("drop", 1000 * spot, 0)])
        x, y = dropped.at or (0, 0)
        _, rows = service.view(store, "main", "red", 0, x - 32, y - 32, 64, 64)
        safe = sorted(deduce(rows, x - 32, y - 32).safe)
        if len(safe) >= 2:
            break
    assert len(safe) >= 2
    read_ahead = service.read_ahead
    taken: list[Cell] = []
    meddled: list[bool] = []

    def meddling(*args: Any) -> Any:
        found = read_ahead(*args)
        if not meddled:  # another process reveals the raft's first cell meanwhile
            meddled.append(True)
            (theirs,) = play(bob, [MoveRequest("reveal", *safe[0])])
            taken.extend(theirs.cells)
        return found

    monkeypatch.setattr(service, "read_ahead", meddling)
    timings: dict[str, float] = {}
    mine = play(ada, [MoveRequest("reveal", x, y) for x, y in safe[:2]], timings=timings)
    assert "connect" not in timings  # the locked path answered
    opened = [c for a in mine for c in a.cells]
    assert taken and not set(taken) & set(opened)  # judged again: nothing established twice
    log = store.events("main")
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    established = Counter((x, y) for e in log for x, y, _ in e.cells)
    assert max(established.values()) == 1


@ON_POSTGRES
def test_a_flight_on_a_connection_the_server_ended_is_the_database_unavailable(
    db_url: str,
) -> None:
    """A flight's cursor is psycopg's own: its errors must still reach ``app.errors`` as
    SQLAlchemy's ``OperationalError`` (a 503 with ``Retry-After``), not as a 500, when
    PostgreSQL restarts under a raft (``bench/bench_faults.py`` found that 500)."""
    engine = make_engine(db_url)
    killer = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            pid = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
            conn.commit()
            with killer.connect() as other:
                other.execute(sa.text("SELECT pg_terminate_backend(:p, 5000)"), {"p": pid})
            with pytest.raises(sa.exc.OperationalError):
                flight.open_team(conn, "main", "t0", "p", [])
    finally:
        killer.dispose()
        engine.dispose()


@ON_POSTGRES
def test_arrays_sent_as_text_arrive_as_the_lists_they_were(db_url: str) -> None:
    """The flight sends its arrays in their text form (``flight.ints``, ``texts``,
    ``byteas``: quoting lists element by element in Python was most of its binding): what
    PostgreSQL reads back is every value as it was, whatever the text holds."""
    words = ["", "NULL", "null", 'a "quoted", {braced} word', "back\\slash\\", "'", "é ✓", "\\x"]
    words += [json.dumps([[0, 1, "F"], [-1, 2, "3"]], separators=(",", ":")), " spaced "]
    blobs = [b"", bytes(range(256)), b"\\x00'\"{},", bytes(4096)]
    numbers = [0, -1, 2**62, -(2**62), None, 7]
    engine = make_engine(db_url)
    try:
        with engine.connect() as conn, flight._cursor(conn) as cursor:
            cursor.execute(
                "SELECT %(t)s::text[], %(b)s::bytea[], %(n)s::bigint[], %(e)s::text[],"
                " %(z)s::bytea[], %(m)s::text[]",
                {
                    "t": flight.texts(words),
                    "b": flight.byteas(blobs),
                    "n": flight.ints(numbers),
                    "e": flight.texts([]),
                    "z": flight.byteas([]),
                    "m": flight.texts([None, "x"]),
                },
            )
            row = cursor.fetchone()
    finally:
        engine.dispose()
    assert row is not None
    assert list(row[0]) == words
    assert [bytes(b) for b in row[1]] == blobs
    assert list(row[2]) == numbers
    assert list(row[3]) == list(row[4]) == []
    assert list(row[5]) == [None, "x"]


@ON_POSTGRES
def test_the_hot_reads_give_back_their_connection_as_it_came_and_survive_its_end(
    db_url: str,
) -> None:
    """``app.world.hotreads`` reads on the pool's connection in autocommit: it goes back to the
    pool out of autocommit; one the server ended is the database unavailable (SQLAlchemy's
    ``OperationalError``, a 503) or replaced at check-out, never a 500, and the next read
    works on a fresh connection."""
    engine = make_engine(db_url)
    killer = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    try:
        ((pid,),) = hotreads.fetch(engine, "SELECT pg_backend_pid()", {})
        with engine.connect() as conn:
            assert conn.connection.driver_connection.autocommit is False  # type: ignore[union-attr]
        with killer.connect() as other:
            other.execute(sa.text("SELECT pg_terminate_backend(:p, 5000)"), {"p": pid})
        with contextlib.suppress(sa.exc.OperationalError):  # taken: a 503, then invalidated
            hotreads.fetch(engine, "SELECT 1", {})
        ((again,),) = hotreads.fetch(engine, "SELECT pg_backend_pid()", {})
        assert again != pid
    finally:
        killer.dispose()
        engine.dispose()
