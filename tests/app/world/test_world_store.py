"""The Devil World store on SQLite and PostgreSQL: schema, chunks, team transactions, races."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from app.store.log import Store
from app.world.chunks import FLAGS, ChunkKnowledge, KnowledgeConflict, StoredChunk, chunk_of, index
from app.world.records import (
    ChunkRace,
    MoveRecord,
    NoSuchPlayer,
    NoSuchWorld,
    WorldExists,
    decode_cells,
    encode_cells,
    hash_token,
)
from app.world.schema import chunks, events
from app.world.store import WorldStore

# -- chunks (no database) --------------------------------------------------------------


def memory_knowledge() -> ChunkKnowledge:
    return ChunkKnowledge(lambda keys: {})


def test_chunk_coordinates_floor_also_below_zero() -> None:
    assert chunk_of(0, 0) == (0, 0)
    assert chunk_of(63, 64) == (0, 1)
    assert chunk_of(-1, -64) == (-1, -1)
    assert chunk_of(-65, 2**62) == (-2, 2**56)
    assert index(0, 0) == 0 and index(-1, -1) == 4095 and index(1, 1) == 65


def test_symbols_follow_the_knowledge_contract() -> None:
    k = memory_knowledge()
    k.apply(2, [(5, 5, "3"), (-7, 9, "0")])
    k.apply(4, [(6, 5, "F")])  # established colour 4
    assert k.symbol(2, 5, 5) == "3"
    assert k.symbol(2, -7, 9) == "0"
    assert k.symbol(3, 5, 5) == "."  # revealed on board 2 says nothing on board 3
    assert k.symbol(4, 6, 5) == "F"
    assert k.symbol(2, 6, 5) == "*"
    assert k.symbol(0, 6, 5) == "*"
    k.apply(2, [(6, 5, "1")])  # a cell flagged 4 is revealed on board 2: the number wins
    assert k.symbol(2, 6, 5) == "1"
    assert k.symbol(4, 6, 5) == "F"


def test_recording_never_overwrites_a_different_fact() -> None:
    k = memory_knowledge()
    k.apply(0, [(1, 1, "2"), (2, 2, "F")])
    k.apply(0, [(1, 1, "2")])  # the same fact again is fine
    with pytest.raises(KnowledgeConflict, match=r"\(1, 1\)"):
        k.apply(0, [(1, 1, "3")])
    with pytest.raises(KnowledgeConflict, match=r"\(2, 2\)"):
        k.apply(1, [(2, 2, "F")])
    with pytest.raises(KnowledgeConflict, match="'x'"):
        k.apply(0, [(3, 3, "x")])


def test_a_chunk_is_fetched_once_with_its_flags() -> None:
    asked: list[list[tuple[int, int, int]]] = []
    stored = {(1, 0, 0): StoredChunk(b"." * 4095 + b"4", 3)}

    def load(keys):  # type: ignore[no-untyped-def]
        asked.append(sorted(keys))
        return {key: stored[key] for key in keys if key in stored}

    k = ChunkKnowledge(load)
    assert k.symbol(1, 63, 63) == "4"
    assert k.symbol(1, 0, 0) == "."
    assert asked == [[(FLAGS, 0, 0), (1, 0, 0)]]
    assert k.fetches == 1


def test_cells_encode_relative_to_the_move() -> None:
    cells = ((2**62, -(2**62), "F"), (2**62 - 1, -(2**62) + 1, "0"))
    text = encode_cells(2**62, -(2**62), cells)
    assert text == '[[0,0,"F"],[-1,1,"0"]]'
    assert decode_cells(2**62, -(2**62), text) == cells
    assert encode_cells(0, 0, ()) is None and decode_cells(0, 0, None) == ()


# -- the store -------------------------------------------------------------------------


def test_a_fresh_install_has_the_world_main(store: WorldStore) -> None:
    main = store.world("main")
    assert main.colours == 6
    assert len(main.key) == 32
    assert "key" not in repr(main) or repr(main.key) not in repr(main)
    assert store.summary("main") == {"players": 0, "teams": 0, "moves": 0, "seq": 0}
    with pytest.raises(NoSuchWorld, match="'nope'"):
        store.world("nope")


def test_worlds_are_created_once_with_their_own_key(store: WorldStore) -> None:
    a = store.create_world("alpha", 3)
    assert (a.id, a.colours) == ("alpha", 3)
    with pytest.raises(WorldExists, match="'alpha'"):
        store.create_world("alpha", 4)
    assert store.world("alpha").key == a.key != store.world("main").key


def test_players_get_a_team_and_a_token_only_its_hash_is_stored(store: WorldStore) -> None:
    first = store.add_player("main", "Ada", "red", 2)
    second = store.add_player("main", "Bob", "red", 3)
    assert first.player.team == second.player.team == "red"
    assert first.token != second.token
    assert store.player_by_token(first.token) == first.player
    assert store.player_by_token("nope") is None
    with store.engine.connect() as conn:
        hashes = set(conn.execute(sa.text("SELECT token_hash FROM world_players")).scalars())
    assert hashes == {hash_token(first.token), hash_token(second.token)}
    assert store.summary("main")["players"] == 2 and store.summary("main")["teams"] == 1


def play(store: WorldStore, player: str, team: str, colour: int, cells, outcome="revealed"):  # type: ignore[no-untyped-def]
    with store.team("main", team) as tx:
        tx.knowledge.apply(colour, cells)
        x, y, _ = cells[0] if cells else (0, 0, "")
        tx.record(player, MoveRecord("reveal", x, y, outcome, colour, tuple(cells)))
        return tx.finish()


def test_a_move_writes_log_chunks_and_counters_in_one_transaction(store: WorldStore) -> None:
    p = store.add_player("main", "Ada", "red", 1).player
    assert play(store, p.id, "red", 1, [(0, 0, "0"), (1, 0, "1"), (64, 0, "2")]) == [1]
    assert play(store, p.id, "red", 1, [(2, 0, "1")]) == [2]
    assert play(store, p.id, "red", 1, [], outcome="devil") == [3]
    log = store.events("main")
    assert [(e.seq, e.kind, e.outcome, e.opened) for e in log] == [
        (1, "reveal", "revealed", 3),
        (2, "reveal", "revealed", 1),
        (3, "reveal", "devil", 0),
    ]
    assert log[0].cells == ((0, 0, "0"), (1, 0, "1"), (64, 0, "2"))
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(chunks.c.layer, chunks.c.cx, chunks.c.version)).all()
    assert sorted(rows) == [(1, 0, 2), (1, 1, 1)]  # only touched chunks exist
    teams, people = store.scoreboard("main")
    assert [(t.name, t.counts.moves, t.counts.revealed, t.counts.errors) for t in teams] == [
        ("red", 3, 4, 1)
    ]
    assert people[0].counts == teams[0].counts
    assert store.summary("main")["moves"] == 3
    head, k = store.region("main", "red", (1, FLAGS), 0, 0, 70, 1)
    assert head == 3
    assert [k.symbol(1, x, 0) for x in (0, 1, 2, 3, 64)] == ["0", "1", "1", ".", "2"]


def test_an_exception_in_a_team_transaction_writes_nothing(store: WorldStore) -> None:
    p = store.add_player("main", "Ada", "red", 1).player
    with pytest.raises(RuntimeError), store.team("main", "red") as tx:
        tx.knowledge.apply(1, [(0, 0, "0")])
        tx.record(p.id, MoveRecord("reveal", 0, 0, "revealed", 1, ((0, 0, "0"),)))
        tx.finish()
        raise RuntimeError("engine failed")
    assert store.events("main") == []
    assert store.head("main") == 0
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(chunks)).scalar_one() == 0


def test_a_chunk_moved_meanwhile_aborts_the_raft_on_either_database(store: WorldStore) -> None:
    """The chunks' versions are checked by ``finish`` (one executemany for all the changed
    chunks; SQLite's path, PostgreSQL's flight checks them in SQL: ``test_world_flight``): a
    chunk that moved since it was read rolls the whole raft back."""
    p = store.add_player("main", "Ada", "red", 1).player
    with store.team("main", "red") as tx:
        tx.knowledge.apply(1, [(0, 0, "1"), (70, 0, "2")])
        tx.record(p.id, MoveRecord("reveal", 0, 0, "revealed", 1, ((0, 0, "1"), (70, 0, "2"))))
        assert tx.finish() == [1]
    with pytest.raises(ChunkRace, match="changed under its lock"), store.team("main", "red") as tx:
        tx.knowledge.apply(1, [(1, 0, "2"), (71, 0, "3")])
        tx.record(p.id, MoveRecord("reveal", 1, 0, "revealed", 1, ((1, 0, "2"), (71, 0, "3"))))
        # what a writer that bypassed the team's lock (a bug) would leave: one chunk moved on
        tx.conn.execute(chunks.update().where(chunks.c.cx == 1).values(version=9))
        tx.finish()
    assert [e.seq for e in store.team_events("main", "red", 0, 10)] == [1]
    assert store.team_head("main", "red") == 1
    _, k = store.region("main", "red", (1,), 0, 0, 72, 1)
    assert [k.symbol(1, x, 0) for x in (0, 1, 70, 71)] == ["1", ".", "2", "."]


def test_unknown_team_or_foreign_player_is_refused(store: WorldStore) -> None:
    p = store.add_player("main", "Ada", "red", 1).player
    store.add_player("main", "Bob", "blue", 1)
    with pytest.raises(NoSuchPlayer), store.team("main", "green"):
        pass
    with pytest.raises(NoSuchPlayer), store.team("main", "blue") as tx:
        tx.player(p.id)


def test_colour_switches_are_logged_and_change_the_player(store: WorldStore) -> None:
    p = store.add_player("main", "Ada", "red", 1).player
    with store.team("main", "red") as tx:
        tx.switch_colour(p.id, 4)
        assert tx.finish() == [1]
    assert store.player(p.id).colour == 4
    (event,) = store.events("main")
    assert (event.kind, event.outcome, event.colour, event.x) == ("colour", "switched", 4, None)
    assert store.summary("main")["moves"] == 0


def test_a_region_loads_only_its_chunks(store: WorldStore) -> None:
    p = store.add_player("main", "Ada", "red", 0).player
    for cx in range(-5, 6):
        play(store, p.id, "red", 0, [(cx * 64 + 3, 7, "1")])
    head, k = store.region("main", "red", (0, FLAGS), 0, 0, 64, 64)
    assert head == 11
    assert k.cached() == 2  # board 0 and flags of chunk (0, 0), nothing else
    assert k.symbol(0, 3, 7) == "1"


def test_a_region_reads_the_head_with_its_chunks_in_one_statement(store: WorldStore) -> None:
    """A view's head and chunks come from one statement (one snapshot): a rectangle with no
    chunk still names the head, another team's chunks are not the team's, and an unknown
    team is refused; ``chunks_in`` (the feeds' look) reads the same chunks without it."""
    p = store.add_player("main", "Ada", "red", 0).player
    q = store.add_player("main", "Bob", "blue", 0).player
    play(store, p.id, "red", 0, [(3, 7, "1")])
    play(store, q.id, "blue", 0, [(3, 8, "2")])
    play(store, q.id, "blue", 0, [(200, 8, "F")])
    head, k = store.region("main", "red", (0, FLAGS), 1000, 1000, 64, 64)
    assert (head, k.symbol(0, 1003, 1007)) == (1, ".")  # nothing known: the head all the same
    head, k = store.region("main", "blue", (0, FLAGS), 0, 0, 256, 64)
    assert head == 2
    assert [k.symbol(0, 3, y) for y in (7, 8)] == [".", "2"]
    assert k.symbol(0, 200, 8) == "F"
    _, red = store.region("main", "red", (0,), 0, 0, 64, 64)
    same = store.chunks_in("main", "red", (0,), 0, 0, 64, 64)
    assert [red.symbol(0, 3, y) for y in (7, 8)] == [same.symbol(0, 3, y) for y in (7, 8)]
    assert [same.symbol(0, 3, y) for y in (7, 8)] == ["1", "."]
    with pytest.raises(NoSuchPlayer, match="green"):
        store.region("main", "green", (0,), 0, 0, 64, 64)


def test_the_database_refuses_duplicate_seqs_and_unknown_kinds(store: WorldStore) -> None:
    p = store.add_player("main", "Ada", "red", 0).player
    play(store, p.id, "red", 0, [(0, 0, "1")])
    row = {
        "world": "main", "seq": 1, "team": "red", "player": p.id, "colour": 0,
        "kind": "reveal", "x": 0, "y": 0, "outcome": "revealed", "opened": 0,
        "at": sa.func.now(),
    }  # fmt: skip
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(events.insert().values(**row))
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(events.insert().values(**{**row, "seq": 2, "kind": "boom"}))


def test_threads_on_one_team_never_lose_or_double_a_reveal(store: WorldStore, db_url: str) -> None:
    """Each thread reveals the first cell its transaction sees as unknown: serialized, every
    thread gets its own cell, every count once, and the log has no gap. Half the threads use a
    second store (its own engine and in-process locks, as another server would): only the
    database's lock stands between them and the first half."""
    other = WorldStore(Store(db_url).engine)
    threads_n, per_thread = 8, 5
    people = [store.add_player("main", f"p{i}", "red", 0).player for i in range(threads_n)]
    store.add_player("main", "other", "blue", 0)
    cells = [(x, 0) for x in range(-60, 60)]
    barrier = threading.Barrier(threads_n)
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            for _ in range(per_thread):
                with (store if i % 2 else other).team("main", "red") as tx:
                    x, y = next(c for c in cells if tx.knowledge.symbol(0, *c) == ".")
                    tx.knowledge.apply(0, [(x, y, "1")])
                    tx.record(
                        people[i].id, MoveRecord("reveal", x, y, "revealed", 0, ((x, y, "1"),))
                    )
                    tx.finish()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    other.engine.dispose()
    assert errors == []
    log = store.events("main")
    total = threads_n * per_thread
    assert [e.seq for e in log] == list(range(1, total + 1))
    assert sorted(e.x for e in log if e.x is not None) == [x for x, _ in cells[:total]]
    teams, _ = store.scoreboard("main")
    red = next(t for t in teams if t.name == "red")
    assert red.counts.revealed == red.counts.moves == total
    _, k = store.region("main", "red", (0, FLAGS), -60, 0, 120, 1)
    assert sum(k.symbol(0, x, 0) == "1" for x, _ in cells) == total


def test_staged_chunks_count_as_read_only_once_looked_at() -> None:
    """A raft judged ahead is checked against the chunks its judgement used: staged chunks
    are taken without a query when first needed, and the others are not in the read set."""
    k = ChunkKnowledge(lambda keys: {})
    cells = bytearray(b"." * 4096)
    cells[0] = ord("3")
    k.stage(
        [(0, 0, 0), (FLAGS, 0, 0), (0, 5, 5), (FLAGS, 5, 5)],
        {(0, 0, 0): StoredChunk(bytes(cells), 7)},
    )
    assert k.read_versions() == {} and k.fetches == 0
    assert k.symbol(0, 0, 0) == "3" and k.symbol(0, 1, 0) == "."
    assert k.fetches == 0  # no query: both layers of the spot were staged
    assert k.read_versions() == {(0, 0, 0): 7, (FLAGS, 0, 0): None}
